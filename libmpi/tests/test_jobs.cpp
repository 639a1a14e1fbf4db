// Whole LWMPI (LibMPI + MPIUtil's engine) through mpi.h, with threads as
// ranks over the simulated fabric of fake_os.cpp. A rank's body returns
// 0 on success or the line of the first failed expectation (Catch2's
// assertions are not thread-safe, so they run on the main thread).
//
// Most engine tests run in every placement (kPlacements): two ranks on
// one cluster talk through shared memory (the local path) or, with the
// job's TS_JOB_MPI_LOCAL_IKC flag, through IKC like ranks of different
// clusters; those use eager mailbox messages up to the eager threshold
// and the rendezvous (portal transfers) above it.
#include <catch2/catch.hpp>

#include <mpi.h>
#include <tessera/syscall.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "fake_job.hpp"
#include "../mpiutil/control.hpp"
#include "../mpiutil/mpiutil.hpp"
#include "../mpiutil/os.hpp"

#define EXPECT(cond)          \
    do {                      \
        if (!(cond))          \
            return __LINE__;  \
    } while (0)

#define EXPECT_OK(call) EXPECT((call) == MPI_SUCCESS)

extern "C" int lwmpi_c_smoke(void);

namespace {

using fake::JobConfig;
using fake::JobResult;
using fake::run_job;
using lwmpi::util::kDefaultEagerMax;
using lwmpi::util::kEagerCredits;
using lwmpi::util::kLocalEagerBudget;

std::string statuses(const JobResult &r) {
    std::string s;
    for (int v : r.status)
        s += std::to_string(v) + " ";
    return s + "| aborted=" + std::to_string(r.aborted) + " code=" + std::to_string(r.abort_code) +
           " timeout=" + std::to_string(r.timed_out) + " violations=" + std::to_string(r.violations) +
           " names=" + std::to_string(r.leaked_names) + " objects=" + std::to_string(r.leaked_objects) +
           "\n" + r.console;
}

#define CHECK_CLEAN(r)           \
    do {                         \
        INFO(statuses(r));       \
        CHECK(fake::clean(r));   \
    } while (0)

JobConfig shape(int np, int policy = TS_MAP_COMPACT) {
    JobConfig c;
    c.np = np;
    c.policy = policy;
    return c;
}

// Where the ranks of a job run, and so which path their messages take.
struct Placement {
    const char *name;
    int policy;
    bool local_path;
};

// Up to 4 ranks: compact puts them all on one cluster, scatter one per
// cluster (JobConfig's default 4 clusters of 4 slots).
constexpr Placement kPlacements[] = {
    {"one cluster, local path", TS_MAP_COMPACT, true},
    {"one cluster, local path off", TS_MAP_COMPACT, false},
    {"one cluster per rank", TS_MAP_SCATTER, true},
};

bool over_ikc(const Placement &p) { return !(p.policy == TS_MAP_COMPACT && p.local_path); }

JobConfig config(int np, const Placement &p) {
    JobConfig c = shape(np, p.policy);
    c.local_path = p.local_path;
    return c;
}

// The fabric's mailbox payload in these tests, and what it means for
// eager messages: the first mailbox message carries 88 bytes of data
// after its header, each further one 112.
constexpr int kPayload = JobConfig{}.payload;
constexpr size_t kFirstFragment = lwmpi::util::eager_first_bytes(kPayload);
static_assert(kFirstFragment == 88 && lwmpi::util::eager_more_bytes(kPayload) == 112);
static_assert(kDefaultEagerMax == 512);

// Eager sizes (one message, one full, two fragments, several, the
// threshold) and rendezvous ones (just above, many portal chunks).
constexpr size_t kSizes[] = {0, 1, kFirstFragment, kFirstFragment + 1, 500, kDefaultEagerMax,
                             kDefaultEagerMax + 1, 65536};

// One rank raises it, others wait for it: orders events across ranks
// where MPI itself must not (what MPI does before the event is the
// point). The wait ends with the job: the fabric's sleep throws then.
class Signal {
public:
    void raise() { raised_.store(true); }
    void await() const {
        while (!raised_.load())
            lwmpi::os::sleep_ns(100'000);
    }

private:
    std::atomic<bool> raised_{false};
};

// Byte i of test message `seed`: differs between messages and positions.
unsigned char pattern(int seed, size_t i) {
    return static_cast<unsigned char>(seed * 37 + i * 11 + (i >> 8));
}

std::vector<unsigned char> message(int seed, size_t n) {
    std::vector<unsigned char> m(n);
    for (size_t i = 0; i < n; ++i)
        m[i] = pattern(seed, i);
    return m;
}

// The first n bytes at p are those of message `seed`.
bool is_message(const unsigned char *p, int seed, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != pattern(seed, i))
            return false;
    return true;
}

// A receive buffer of `capacity` bytes and a guard byte after them.
constexpr unsigned char kGuard = 0xee;
std::vector<unsigned char> receive_buffer(size_t capacity) {
    return std::vector<unsigned char>(capacity + 1, kGuard);
}

int count_of(const MPI_Status &st, MPI_Datatype t = MPI_BYTE) {
    int n = -1;
    MPI_Get_count(&st, t, &n);
    return n;
}

// MPI_Test of *req: true when it completed (and was freed).
bool completes_now(MPI_Request *req) {
    int flag = 0;
    return MPI_Test(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag;
}

// True when *req stays incomplete over a few tests a millisecond apart
// (what could complete it has been held back by the test).
bool stays_pending(MPI_Request *req) {
    for (int i = 0; i < 5; ++i) {
        int flag = 1;
        if (MPI_Test(req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
            return false;
        lwmpi::os::sleep_ns(1'000'000);
    }
    return true;
}

}  // namespace

// ---- environment ---------------------------------------------------------

TEST_CASE("init, rank, size and finalize", "[jobs]") {
    for (int policy : {TS_MAP_COMPACT, TS_MAP_SCATTER})
        for (int np : {1, 2, 3, 4, 5, 8, 16}) {
            INFO("np=" << np << " policy=" << policy);
            const JobResult r = run_job(shape(np, policy), [np](int rank) {
                int flag = -1;
                EXPECT_OK(MPI_Initialized(&flag));
                EXPECT(flag == 0);
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                EXPECT_OK(MPI_Initialized(&flag));
                EXPECT(flag == 1);
                int me = -1, size = -1;
                EXPECT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
                EXPECT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
                EXPECT(me == rank && size == np);
                EXPECT_OK(MPI_Comm_rank(MPI_COMM_SELF, &me));
                EXPECT_OK(MPI_Comm_size(MPI_COMM_SELF, &size));
                EXPECT(me == 0 && size == 1);
                char name[MPI_MAX_PROCESSOR_NAME];
                int len = 0;
                EXPECT_OK(MPI_Get_processor_name(name, &len));
                EXPECT(len > 7 && std::strncmp(name, "cluster", 7) == 0);
                EXPECT_OK(MPI_Finalize());
                EXPECT_OK(MPI_Finalized(&flag));
                EXPECT(flag == 1);
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("the mapping decides which ranks share a cluster and the path between them", "[jobs]") {
    // Rank 1 stays out of MPI until rank 0's message was sent, so on the
    // local path it is not asleep and gets no wake-up KICK: its mailbox
    // sees no message at all. Over IKC the message is one mailbox message.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        Signal sent;
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            char name[MPI_MAX_PROCESSOR_NAME];
            int len = 0;
            EXPECT_OK(MPI_Get_processor_name(name, &len));
            // "cluster<C>", or "cluster<C>.core<K>" as mpi.h has it.
            const std::string cluster = "cluster" + std::to_string(p.policy == TS_MAP_COMPACT ? 1 : 1 + rank);
            EXPECT(name == cluster || std::string(name).rfind(cluster + ".", 0) == 0);
            int v = 42;
            if (rank == 0) {
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
                sent.raise();
            } else {
                sent.await();
                EXPECT(fake::arrivals(1) == (over_ikc(p) ? 1 : 0));
                v = 0;
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(v == 42);
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

// ---- messages of every size ----------------------------------------------

namespace {

// Rank 0 sends one message of each size in kSizes to rank 1 (tag = its
// index). With `posted_first` rank 1's receive is posted before the
// message leaves; otherwise the message (or its request to send) is
// there before the receive: rank 0 wrote it before its barrier message.
int exchange_sizes(int rank, bool posted_first) {
    EXPECT_OK(MPI_Init(nullptr, nullptr));
    for (int k = 0; k < static_cast<int>(std::size(kSizes)); ++k) {
        const size_t n = kSizes[k];
        MPI_Request req;
        if (rank == 0) {
            const auto msg = message(k, n);
            if (posted_first)
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Isend(msg.data(), static_cast<int>(n), MPI_BYTE, 1, k, MPI_COMM_WORLD, &req));
            if (!posted_first)
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            EXPECT(req == MPI_REQUEST_NULL);
        } else {
            auto buf = receive_buffer(n);
            if (!posted_first)
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Irecv(buf.data(), static_cast<int>(n), MPI_BYTE, 0, k, MPI_COMM_WORLD, &req));
            if (posted_first)
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_Status st;
            EXPECT_OK(MPI_Wait(&req, &st));
            EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == k && count_of(st) == static_cast<int>(n));
            EXPECT(is_message(buf.data(), k, n) && buf[n] == kGuard);
        }
    }
    EXPECT_OK(MPI_Finalize());
    return 0;
}

// Runs body(rank, posted_first) as a job of 2 ranks in every placement,
// with the receives posted before the messages arrive and after.
void in_both_orders(int (*body)(int rank, bool posted_first)) {
    for (const Placement &p : kPlacements)
        for (bool posted_first : {true, false}) {
            INFO(p.name << (posted_first ? ", receive posted first" : ", message first"));
            const JobResult r = run_job(config(2, p), [&](int rank) { return body(rank, posted_first); });
            CHECK_CLEAN(r);
        }
}

}  // namespace

TEST_CASE("eager and rendezvous messages of every size arrive intact", "[jobs][engine]") {
    in_both_orders(exchange_sizes);
}

TEST_CASE("large messages go through the portal intact", "[jobs]") {
    const JobResult r = run_job(shape(3, TS_MAP_SCATTER), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        const int n = 300000;  // 1.2 MB
        std::vector<int> v(n);
        if (rank != 0) {
            for (int i = 0; i < n; ++i)
                v[i] = i * 7 + rank;
            EXPECT_OK(MPI_Send(v.data(), n, MPI_INT, 0, 1, MPI_COMM_WORLD));
        } else {
            for (int k = 0; k < 2; ++k) {
                MPI_Status st;
                EXPECT_OK(MPI_Recv(v.data(), n, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
                for (int i = 0; i < n; ++i)
                    EXPECT(v[i] == i * 7 + st.MPI_SOURCE);
            }
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("ping-pong carries data, source, tag and count", "[jobs]") {
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        const JobResult r = run_job(config(2, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            double buf[64];
            MPI_Status st;
            for (int round = 0; round < 20; ++round) {
                if (rank == 0) {
                    for (int i = 0; i < 64; ++i)
                        buf[i] = round * 100 + i;
                    EXPECT_OK(MPI_Send(buf, 64, MPI_DOUBLE, 1, round, MPI_COMM_WORLD));
                    std::memset(buf, 0, sizeof buf);
                    EXPECT_OK(MPI_Recv(buf, 64, MPI_DOUBLE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                    EXPECT(st.MPI_SOURCE == 1 && st.MPI_TAG == round + 1000);
                    for (int i = 0; i < 64; ++i)
                        EXPECT(buf[i] == -(round * 100 + i));
                } else {
                    EXPECT_OK(MPI_Recv(buf, 64, MPI_DOUBLE, 0, round, MPI_COMM_WORLD, &st));
                    EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == round);
                    EXPECT(count_of(st, MPI_DOUBLE) == 64 && count_of(st, MPI_BYTE) == 64 * 8);
                    for (int i = 0; i < 64; ++i)
                        buf[i] = -buf[i];
                    EXPECT_OK(MPI_Send(buf, 64, MPI_DOUBLE, 0, round + 1000, MPI_COMM_WORLD));
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

// ---- truncation -------------------------------------------------------------

namespace {

// A message of `bytes` into a receive of `capacity` bytes.
struct Truncation {
    size_t bytes;
    size_t capacity;
};

constexpr Truncation kTruncations[] = {
    {1, 0},                                      // eager, nothing fits
    {kFirstFragment + 1, 50},                    // the second fragment is dropped
    {300, 100},                                  // cut inside the second fragment
    {kDefaultEagerMax, kDefaultEagerMax - 1},    // one byte short
    {kDefaultEagerMax + 1, 100},                 // rendezvous
    {65536, 1000},
    {1000, 0},                                   // rendezvous that moves nothing
};

// Rank 0 sends each truncated message then a small one; rank 1 receives
// the first into a smaller buffer (MPI_ERR_TRUNCATE, the buffer filled,
// nothing beyond it touched) and the second intact: what was cut off does
// not spill into the next message.
int truncate_all(int rank, bool posted_first) {
    EXPECT_OK(MPI_Init(nullptr, nullptr));
    EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int k = 0; k < static_cast<int>(std::size(kTruncations)); ++k) {
        const Truncation t = kTruncations[k];
        const int next = 100 + k;  // seed and tag of the message after it
        if (rank == 0) {
            const auto msg = message(k, t.bytes), after = message(next, 8);
            MPI_Request req[2];
            if (posted_first)
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Isend(msg.data(), static_cast<int>(t.bytes), MPI_BYTE, 1, k, MPI_COMM_WORLD, &req[0]));
            EXPECT_OK(MPI_Isend(after.data(), 8, MPI_BYTE, 1, next, MPI_COMM_WORLD, &req[1]));
            if (!posted_first)
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));  // the sender sees no error
        } else {
            auto buf = receive_buffer(t.capacity), after = receive_buffer(8);
            MPI_Request req[2];
            if (!posted_first)
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Irecv(buf.data(), static_cast<int>(t.capacity), MPI_BYTE, 0, k, MPI_COMM_WORLD, &req[0]));
            EXPECT_OK(MPI_Irecv(after.data(), 8, MPI_BYTE, 0, next, MPI_COMM_WORLD, &req[1]));
            if (posted_first)
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_Status st;
            EXPECT(MPI_Wait(&req[0], &st) == MPI_ERR_TRUNCATE);
            EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == k && count_of(st) == static_cast<int>(t.capacity));
            EXPECT(is_message(buf.data(), k, t.capacity) && buf[t.capacity] == kGuard);
            EXPECT_OK(MPI_Wait(&req[1], &st));
            EXPECT(count_of(st) == 8 && is_message(after.data(), next, 8) && after[8] == kGuard);
        }
    }
    EXPECT_OK(MPI_Finalize());
    return 0;
}

}  // namespace

TEST_CASE("truncation fills the buffer and reports MPI_ERR_TRUNCATE", "[jobs][engine]") {
    in_both_orders(truncate_all);
}

TEST_CASE("a zero-byte message fits a zero-size buffer", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        MPI_Status st;
        int v = 5;
        if (rank == 0) {
            EXPECT_OK(MPI_Send(nullptr, 0, MPI_INT, 1, 1, MPI_COMM_WORLD));
        } else {
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st));
            EXPECT(count_of(st, MPI_INT) == 0 && v == 5);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

// ---- completion of standard, synchronous and buffered sends -----------------

TEST_CASE("standard sends up to the eager threshold complete before their receive", "[jobs][engine]") {
    // Rank 1 receives only after rank 0's sends returned: were they
    // waiting for the receive, the job would hang.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        Signal sent;
        JobConfig c = config(2, p);
        c.timeout_s = 5;
        const JobResult r = run_job(c, [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const size_t sizes[] = {0, 4, kFirstFragment + 1, kDefaultEagerMax};
            for (int k = 0; k < static_cast<int>(std::size(sizes)); ++k) {
                const int n = static_cast<int>(sizes[k]);
                if (rank == 0) {
                    EXPECT_OK(MPI_Send(message(k, sizes[k]).data(), n, MPI_BYTE, 1, k, MPI_COMM_WORLD));
                    continue;
                }
                if (k == 0)
                    sent.await();
                auto buf = receive_buffer(sizes[k]);
                MPI_Status st;
                EXPECT_OK(MPI_Recv(buf.data(), n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &st));
                EXPECT(count_of(st) == n && is_message(buf.data(), k, sizes[k]));
            }
            if (rank == 0)
                sent.raise();
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("sends above the eager threshold and synchronous sends wait for their receive", "[jobs][engine]") {
    // MPI_Issend of any size and MPI_Isend above the threshold stay
    // pending while rank 1 has not posted its receive; MPI_Ssend returns
    // once it has.
    struct Case {
        bool synchronous;
        size_t bytes;
    };
    const Case cases[] = {{true, 0}, {true, 4}, {true, kDefaultEagerMax}, {false, kDefaultEagerMax + 1},
                          {false, 65536}};
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        std::vector<Signal> checked(std::size(cases));
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (int k = 0; k < static_cast<int>(std::size(cases)); ++k) {
                const Case c = cases[k];
                if (rank == 0) {
                    const auto msg = message(k, c.bytes);
                    const int n = static_cast<int>(c.bytes);
                    MPI_Request req;
                    if (c.synchronous)
                        EXPECT_OK(MPI_Issend(msg.data(), n, MPI_BYTE, 1, k, MPI_COMM_WORLD, &req));
                    else
                        EXPECT_OK(MPI_Isend(msg.data(), n, MPI_BYTE, 1, k, MPI_COMM_WORLD, &req));
                    EXPECT(stays_pending(&req));
                    checked[k].raise();
                    EXPECT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                    if (c.synchronous)  // the blocking form too
                        EXPECT_OK(MPI_Ssend(msg.data(), n, MPI_BYTE, 1, k, MPI_COMM_WORLD));
                } else {
                    checked[k].await();
                    for (int times = c.synchronous ? 2 : 1; times > 0; --times) {
                        auto buf = receive_buffer(c.bytes);
                        MPI_Status st;
                        EXPECT_OK(
                            MPI_Recv(buf.data(), static_cast<int>(c.bytes), MPI_BYTE, 0, k, MPI_COMM_WORLD, &st));
                        EXPECT(count_of(st) == static_cast<int>(c.bytes) && is_message(buf.data(), k, c.bytes));
                    }
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("the job's eager threshold decides which sends complete at once", "[jobs][engine]") {
    for (const Placement &p : kPlacements)
        for (int eager_max : {0, 1024}) {
            const size_t threshold = eager_max ? static_cast<size_t>(eager_max) : kDefaultEagerMax;
            INFO(p.name << ", mpi_eager_max " << eager_max);
            JobConfig c = config(2, p);
            c.eager_max = eager_max;
            Signal checked;
            const JobResult r = run_job(c, [&](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                const auto at = message(1, threshold), above = message(2, threshold + 1);
                const int n = static_cast<int>(threshold);
                if (rank == 0) {
                    MPI_Request req[2];
                    EXPECT_OK(MPI_Isend(at.data(), n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[0]));
                    EXPECT_OK(MPI_Isend(above.data(), n + 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[1]));
                    EXPECT(completes_now(&req[0]) && stays_pending(&req[1]));
                    checked.raise();
                    EXPECT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
                } else {
                    checked.await();
                    std::vector<unsigned char> buf(threshold + 1);
                    EXPECT_OK(MPI_Recv(buf.data(), n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    EXPECT(is_message(buf.data(), 1, threshold));
                    EXPECT_OK(MPI_Recv(buf.data(), n + 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    EXPECT(is_message(buf.data(), 2, threshold + 1));
                }
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("eager sends run out of credit at a receiver that does not receive", "[jobs][engine]") {
    // Rank 0 starts 40 sends of the eager threshold's size to rank 1,
    // which receives only once rank 0 looked at them: the first ones
    // complete at once (kEagerCredits unconsumed messages per sender over
    // IKC; kLocalEagerBudget bytes on the local path), the others fall
    // back to waiting for their receive. All arrive, in order. A second
    // round finds the credit back.
    constexpr int kMessages = 40;
    constexpr size_t kBytes = kDefaultEagerMax;
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        const int at_once = over_ikc(p) ? kEagerCredits : static_cast<int>(kLocalEagerBudget / kBytes);
        REQUIRE(at_once < kMessages);
        Signal checked[2];
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (Signal &round : checked) {
                if (rank == 0) {
                    std::vector<std::vector<unsigned char>> msgs;
                    MPI_Request req[kMessages];
                    for (int k = 0; k < kMessages; ++k) {
                        msgs.push_back(message(k, kBytes));
                        EXPECT_OK(MPI_Isend(msgs[k].data(), kBytes, MPI_BYTE, 1, k, MPI_COMM_WORLD, &req[k]));
                    }
                    for (int k = 0; k < kMessages; ++k)
                        EXPECT(completes_now(&req[k]) == (k < at_once));
                    round.raise();
                    EXPECT_OK(MPI_Waitall(kMessages, req, MPI_STATUSES_IGNORE));
                } else {
                    round.await();
                    for (int k = 0; k < kMessages; ++k) {
                        auto buf = receive_buffer(kBytes);
                        MPI_Status st;
                        EXPECT_OK(MPI_Recv(buf.data(), kBytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                        EXPECT(st.MPI_TAG == k && count_of(st) == static_cast<int>(kBytes));
                        EXPECT(is_message(buf.data(), k, kBytes));
                    }
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("messages of one sender do not overtake each other, whatever their protocol", "[jobs][engine]") {
    // Mixed sizes (eager, fragmented, rendezvous, empty) and modes (every
    // fourth synchronous) on one tag, started together; the receiver
    // takes them as they come or only once all were started.
    const size_t sizes[] = {600, 10, 70000, 0, 300, kDefaultEagerMax + 1, 5, kFirstFragment + 1, 2000, 1, 512, 64};
    constexpr int n = static_cast<int>(std::size(sizes));
    for (const Placement &p : kPlacements)
        for (bool late_receiver : {false, true}) {
            INFO(p.name << (late_receiver ? ", late receiver" : ""));
            Signal started;
            const JobResult r = run_job(config(2, p), [&](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                if (rank == 0) {
                    std::vector<std::vector<unsigned char>> msgs;
                    MPI_Request req[n];
                    for (int k = 0; k < n; ++k) {
                        msgs.push_back(message(k, sizes[k]));
                        const int count = static_cast<int>(sizes[k]);
                        if (k % 4 == 3)
                            EXPECT_OK(MPI_Issend(msgs[k].data(), count, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req[k]));
                        else
                            EXPECT_OK(MPI_Isend(msgs[k].data(), count, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req[k]));
                    }
                    started.raise();
                    EXPECT_OK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
                } else {
                    if (late_receiver)
                        started.await();
                    std::vector<unsigned char> buf(70000);
                    for (int k = 0; k < n; ++k) {
                        MPI_Status st;
                        EXPECT_OK(MPI_Recv(buf.data(), 70000, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st));
                        EXPECT(count_of(st) == static_cast<int>(sizes[k]) && is_message(buf.data(), k, sizes[k]));
                    }
                }
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("messages of several senders arrive whole, in each sender's order", "[jobs][engine]") {
    // Ranks 1..3 send 5 messages each to rank 0 at once: the fragments of
    // their eager messages interleave in rank 0's mailbox, and their
    // rendezvous transfers take turns at its portal. Rank 0 has posted
    // ANY_SOURCE receives for all of them (or, late, finds them queued).
    constexpr int kEach = 5;
    const size_t sizes[kEach] = {500, kFirstFragment + 1, 20000, 300, 7000};
    for (const Placement &p : kPlacements)
        for (bool late_receiver : {false, true}) {
            INFO(p.name << (late_receiver ? ", late receiver" : ""));
            Signal sent[3];
            const JobResult r = run_job(config(4, p), [&](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                if (rank != 0) {
                    std::vector<std::vector<unsigned char>> msgs;
                    MPI_Request req[kEach];
                    for (int k = 0; k < kEach; ++k) {
                        msgs.push_back(message(rank * 10 + k, sizes[k]));
                        EXPECT_OK(MPI_Isend(msgs[k].data(), static_cast<int>(sizes[k]), MPI_BYTE, 0, k,
                                            MPI_COMM_WORLD, &req[k]));
                    }
                    sent[rank - 1].raise();
                    EXPECT_OK(MPI_Waitall(kEach, req, MPI_STATUSES_IGNORE));
                } else {
                    constexpr int n = 3 * kEach;
                    std::vector<std::vector<unsigned char>> bufs(n, std::vector<unsigned char>(20000));
                    MPI_Request req[n];
                    MPI_Status st[n];
                    if (late_receiver)
                        for (const Signal &s : sent)
                            s.await();
                    for (int i = 0; i < n; ++i)
                        EXPECT_OK(MPI_Irecv(bufs[i].data(), 20000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                            MPI_COMM_WORLD, &req[i]));
                    EXPECT_OK(MPI_Waitall(n, req, st));
                    int next[4] = {0, 0, 0, 0};  // per sender: the tag expected next
                    for (int i = 0; i < n; ++i) {
                        const int src = st[i].MPI_SOURCE, k = st[i].MPI_TAG;
                        EXPECT(src >= 1 && src <= 3 && k == next[src]++);
                        EXPECT(count_of(st[i]) == static_cast<int>(sizes[k]));
                        EXPECT(is_message(bufs[i].data(), src * 10 + k, sizes[k]));
                    }
                }
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("a rank asleep waits for messages by both paths at once", "[jobs][engine]") {
    // Ranks 0 and 1 share a cluster, 2 and 3 another: rank 0 sleeps in
    // MPI_Recv(ANY_SOURCE) while rank 1 publishes in shared memory (and
    // must wake it) and ranks 2 and 3 write to its mailbox, at moments of
    // their own. Rank 1's larger messages make rank 1 sleep until rank 0
    // copied them.
    JobConfig c = shape(4);
    c.slots = 2;
    const JobResult r = run_job(c, [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        constexpr int kRounds = 30;
        if (rank == 0) {
            std::vector<unsigned char> buf(2000);
            int next[4] = {0, 0, 0, 0};
            for (int k = 0; k < 3 * kRounds; ++k) {
                MPI_Status st;
                EXPECT_OK(MPI_Recv(buf.data(), 2000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                const int src = st.MPI_SOURCE, round = st.MPI_TAG;
                EXPECT(src >= 1 && src <= 3 && round == next[src]++);
                const size_t n = static_cast<size_t>(count_of(st));
                EXPECT(n == (round % 2 ? 2000 : 16) && is_message(buf.data(), src * 100 + round, n));
            }
        } else {
            for (int round = 0; round < kRounds; ++round) {
                std::this_thread::sleep_for(std::chrono::microseconds(100 * ((rank * 7 + round) % 5)));
                const size_t n = round % 2 ? 2000 : 16;
                EXPECT_OK(MPI_Send(message(rank * 100 + round, n).data(), static_cast<int>(n), MPI_BYTE, 0, round,
                                   MPI_COMM_WORLD));
            }
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("the send of a freed request still completes", "[jobs][engine]") {
    // MPI_Request_free on active sends (eager and rendezvous): the
    // messages are delivered, and the requests given back once done.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        const JobResult r = run_job(config(2, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const auto small = message(1, 40), large = message(2, 9000);
            if (rank == 0) {
                for (int round = 0; round < 200; ++round) {  // more than the request table holds
                    MPI_Request req[2];
                    EXPECT_OK(MPI_Isend(small.data(), 40, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[0]));
                    EXPECT_OK(MPI_Isend(large.data(), 9000, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[1]));
                    for (MPI_Request &h : req) {
                        EXPECT_OK(MPI_Request_free(&h));
                        EXPECT(h == MPI_REQUEST_NULL);
                    }
                    EXPECT_OK(MPI_Recv(nullptr, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                }
            } else {
                auto buf = receive_buffer(9000);
                for (int round = 0; round < 200; ++round) {
                    EXPECT_OK(MPI_Recv(buf.data(), 40, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    EXPECT(is_message(buf.data(), 1, 40));
                    EXPECT_OK(MPI_Recv(buf.data(), 9000, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    EXPECT(is_message(buf.data(), 2, 9000));
                    EXPECT_OK(MPI_Send(nullptr, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("sends to self work", "[jobs][engine]") {
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        const JobResult r = run_job(config(2, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const auto small = message(1, 100), large = message(2, 5000);
            auto buf = receive_buffer(5000);
            MPI_Status st;
            // Eager: the blocking send returns before its receive.
            EXPECT_OK(MPI_Send(small.data(), 100, MPI_BYTE, rank, 1, MPI_COMM_WORLD));
            EXPECT_OK(MPI_Recv(buf.data(), 5000, MPI_BYTE, rank, 1, MPI_COMM_WORLD, &st));
            EXPECT(st.MPI_SOURCE == rank && count_of(st) == 100 && is_message(buf.data(), 1, 100));
            // Rendezvous: the receive first, or the send non-blocking.
            MPI_Request req;
            EXPECT_OK(MPI_Irecv(buf.data(), 5000, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &req));
            EXPECT_OK(MPI_Send(large.data(), 5000, MPI_BYTE, rank, 2, MPI_COMM_WORLD));
            EXPECT_OK(MPI_Wait(&req, &st));
            EXPECT(st.MPI_SOURCE == rank && count_of(st) == 5000 && is_message(buf.data(), 2, 5000));
            EXPECT_OK(MPI_Isend(large.data(), 5000, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &req));
            EXPECT_OK(MPI_Recv(buf.data(), 5000, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &st));
            EXPECT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            EXPECT(is_message(buf.data(), 2, 5000));
            // Synchronous, and on MPI_COMM_SELF.
            EXPECT_OK(MPI_Irecv(buf.data(), 100, MPI_BYTE, 0, 4, MPI_COMM_SELF, &req));
            EXPECT_OK(MPI_Ssend(small.data(), 100, MPI_BYTE, 0, 4, MPI_COMM_SELF));
            EXPECT_OK(MPI_Wait(&req, &st));
            EXPECT(st.MPI_SOURCE == 0 && is_message(buf.data(), 1, 100));
            EXPECT_OK(MPI_Sendrecv(large.data(), 5000, MPI_BYTE, 0, 5, buf.data(), 5000, MPI_BYTE, 0, 5,
                                   MPI_COMM_SELF, &st));
            EXPECT(count_of(st) == 5000 && is_message(buf.data(), 2, 5000) && buf[5000] == kGuard);
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("head-to-head sends: small standard ones complete, Sendrecv for any size", "[jobs][engine]") {
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        const JobResult r = run_job(config(2, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const int peer = 1 - rank;
            for (size_t n : {size_t{4}, kDefaultEagerMax}) {
                const auto mine = message(rank, n);
                auto buf = receive_buffer(n);
                EXPECT_OK(MPI_Send(mine.data(), static_cast<int>(n), MPI_BYTE, peer, 0, MPI_COMM_WORLD));
                EXPECT_OK(
                    MPI_Recv(buf.data(), static_cast<int>(n), MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(is_message(buf.data(), peer, n));
            }
            const auto mine = message(rank, 100000);
            auto buf = receive_buffer(100000);
            MPI_Status st;
            EXPECT_OK(MPI_Sendrecv(mine.data(), 100000, MPI_BYTE, peer, 7, buf.data(), 100000, MPI_BYTE, peer, 7,
                                   MPI_COMM_WORLD, &st));
            EXPECT(st.MPI_SOURCE == peer && count_of(st) == 100000 && is_message(buf.data(), peer, 100000));
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("MPI_Bsend copies into the attached buffer and returns", "[jobs][engine]") {
    // Rank 1 receives only once rank 0's buffered sends returned and their
    // sources were overwritten; detaching waits until they have left.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        Signal sent;
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
            if (rank == 0) {
                auto small = message(1, 100), large = message(2, 3000);
                EXPECT(MPI_Bsend(small.data(), 100, MPI_BYTE, 1, 1, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
                std::vector<char> pool(100 + 3000 + 2 * MPI_BSEND_OVERHEAD);
                EXPECT_OK(MPI_Buffer_attach(pool.data(), static_cast<int>(pool.size())));
                EXPECT(MPI_Buffer_attach(pool.data(), static_cast<int>(pool.size())) == MPI_ERR_BUFFER);
                EXPECT_OK(MPI_Bsend(small.data(), 100, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
                EXPECT_OK(MPI_Bsend(large.data(), 3000, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
                EXPECT(MPI_Bsend(small.data(), 100, MPI_BYTE, 1, 3, MPI_COMM_WORLD) == MPI_ERR_BUFFER);  // full
                small.assign(small.size(), 0);
                large.assign(large.size(), 0);
                sent.raise();
                void *addr = nullptr;
                int size = 0;
                EXPECT_OK(MPI_Buffer_detach(&addr, &size));
                EXPECT(addr == pool.data() && size == static_cast<int>(pool.size()));
                EXPECT(MPI_Bsend(small.data(), 100, MPI_BYTE, 1, 1, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
            } else {
                sent.await();
                auto buf = receive_buffer(3000);
                MPI_Status st;
                EXPECT_OK(MPI_Recv(buf.data(), 3000, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
                EXPECT(count_of(st) == 100 && is_message(buf.data(), 1, 100));
                EXPECT_OK(MPI_Recv(buf.data(), 3000, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st));
                EXPECT(count_of(st) == 3000 && is_message(buf.data(), 2, 3000));
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("MPI_Ibsend completes once its message is in the attached buffer", "[jobs][engine]") {
    // A buffered send is local (MPI 3.1 section 3.4): its request
    // completes before the receive is posted, whatever the size.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        Signal done;
        JobConfig c = config(2, p);
        c.timeout_s = 5;
        const JobResult r = run_job(c, [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const auto msg = message(1, 3000);
            if (rank == 0) {
                std::vector<char> pool(3000 + MPI_BSEND_OVERHEAD);
                EXPECT_OK(MPI_Buffer_attach(pool.data(), static_cast<int>(pool.size())));
                MPI_Request req;
                EXPECT_OK(MPI_Ibsend(msg.data(), 3000, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req));
                EXPECT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                done.raise();
                void *addr;
                int size;
                EXPECT_OK(MPI_Buffer_detach(&addr, &size));
            } else {
                done.await();
                auto buf = receive_buffer(3000);
                EXPECT_OK(MPI_Recv(buf.data(), 3000, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(is_message(buf.data(), 1, 3000));
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

// ---- non-blocking completion calls ------------------------------------------

TEST_CASE("Isend and Irecv around a ring, completed by Waitall", "[jobs][engine]") {
    // Each rank exchanges an eager message with its left neighbour and a
    // rendezvous one with its right, with null handles in the array.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        const JobResult r = run_job(config(4, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const int left = (rank + 3) % 4, right = (rank + 1) % 4;
            const auto to_left = message(rank, 100), to_right = message(10 + rank, 3000);
            auto from_left = receive_buffer(3000), from_right = receive_buffer(100);
            MPI_Request req[5];
            EXPECT_OK(MPI_Irecv(from_left.data(), 3000, MPI_BYTE, left, 1, MPI_COMM_WORLD, &req[0]));
            EXPECT_OK(MPI_Irecv(from_right.data(), 100, MPI_BYTE, right, 2, MPI_COMM_WORLD, &req[1]));
            req[2] = MPI_REQUEST_NULL;
            EXPECT_OK(MPI_Isend(to_right.data(), 3000, MPI_BYTE, right, 1, MPI_COMM_WORLD, &req[3]));
            EXPECT_OK(MPI_Isend(to_left.data(), 100, MPI_BYTE, left, 2, MPI_COMM_WORLD, &req[4]));
            MPI_Status st[5];
            EXPECT_OK(MPI_Waitall(5, req, st));
            for (MPI_Request h : req)
                EXPECT(h == MPI_REQUEST_NULL);
            EXPECT(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 1 && count_of(st[0]) == 3000);
            EXPECT(st[1].MPI_SOURCE == right && st[1].MPI_TAG == 2 && count_of(st[1]) == 100);
            EXPECT(count_of(st[2]) == 0);
            EXPECT(is_message(from_left.data(), 10 + left, 3000) && is_message(from_right.data(), right, 100));
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("Waitall does not sleep on a receive completed while it tested the send after it", "[jobs][engine]") {
    // Exchanges with the receive first in the array: the peer's message
    // may come in while Waitall tests the send. Were Waitall to sleep
    // then, nothing more would wake it (a race: many rounds).
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        JobConfig c = config(2, p);
        c.timeout_s = 10;
        const JobResult r = run_job(c, [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (int round = 0; round < 2000; ++round) {
                int out = round * 2 + rank, in = -1;
                MPI_Request req[2];
                EXPECT_OK(MPI_Irecv(&in, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &req[0]));
                EXPECT_OK(MPI_Isend(&out, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &req[1]));
                EXPECT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
                EXPECT(in == round * 2 + 1 - rank);
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("Testany, Waitany, Testsome, Waitsome and Testall", "[jobs][engine]") {
    // Rank 0 receives one message from each of ranks 1..3 (sizes of both
    // protocols) per call under test; the senders wait for its signal, so
    // nothing can be complete before.
    const size_t sizes[] = {0, 40, 300, 6000};  // by sender rank (rank 0 sends none)
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        constexpr int kCalls = 5;
        Signal go[kCalls];
        const JobResult r = run_job(config(4, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (int call = 0; call < kCalls; ++call) {
                const int tag = call;
                if (rank != 0) {
                    go[call].await();
                    const auto msg = message(rank, sizes[rank]);
                    EXPECT_OK(MPI_Send(msg.data(), static_cast<int>(sizes[rank]), MPI_BYTE, 0, tag, MPI_COMM_WORLD));
                    continue;
                }
                std::vector<std::vector<unsigned char>> bufs;
                MPI_Request req[3];
                for (int src = 1; src <= 3; ++src) {
                    bufs.push_back(receive_buffer(sizes[src]));
                    EXPECT_OK(MPI_Irecv(bufs.back().data(), static_cast<int>(sizes[src]), MPI_BYTE, src, tag,
                                        MPI_COMM_WORLD, &req[src - 1]));
                }
                int index = 0, flag = 1, outcount = -1, indices[3];
                MPI_Status st[3];
                EXPECT_OK(MPI_Testany(3, req, &index, &flag, st));
                EXPECT(flag == 0 && index == MPI_UNDEFINED);
                EXPECT_OK(MPI_Testsome(3, req, &outcount, indices, st));
                EXPECT(outcount == 0);
                EXPECT_OK(MPI_Testall(3, req, &flag, st));
                EXPECT(flag == 0);
                go[call].raise();
                int seen[3] = {0, 0, 0}, finished = 0;
                while (finished < 3) {
                    switch (call) {
                    case 0:  // Testany until one completes
                        EXPECT_OK(MPI_Testany(3, req, &index, &flag, st));
                        outcount = flag ? 1 : 0;
                        indices[0] = index;
                        break;
                    case 1:
                        EXPECT_OK(MPI_Waitany(3, req, &index, st));
                        outcount = 1;
                        indices[0] = index;
                        break;
                    case 2:
                        EXPECT_OK(MPI_Testsome(3, req, &outcount, indices, st));
                        break;
                    case 3:
                        EXPECT_OK(MPI_Waitsome(3, req, &outcount, indices, st));
                        EXPECT(outcount >= 1);
                        break;
                    case 4:  // all or nothing; statuses follow the requests
                        EXPECT_OK(MPI_Testall(3, req, &flag, st));
                        outcount = flag ? 3 : 0;
                        for (int i = 0; i < 3; ++i)
                            indices[i] = i;
                        break;
                    }
                    for (int i = 0; i < outcount; ++i) {
                        const int src = indices[i] + 1;
                        EXPECT(indices[i] >= 0 && indices[i] < 3 && !seen[indices[i]]++);
                        EXPECT(req[indices[i]] == MPI_REQUEST_NULL);
                        EXPECT(st[i].MPI_SOURCE == src && st[i].MPI_TAG == tag);
                        EXPECT(count_of(st[i]) == static_cast<int>(sizes[src]));
                        EXPECT(is_message(bufs[src - 1].data(), src, sizes[src]));
                    }
                    finished += outcount;
                }
                // Nothing active is left.
                EXPECT_OK(MPI_Waitany(3, req, &index, st));
                EXPECT(index == MPI_UNDEFINED);
                EXPECT_OK(MPI_Testsome(3, req, &outcount, indices, st));
                EXPECT(outcount == MPI_UNDEFINED);
                EXPECT_OK(MPI_Testany(3, req, &index, &flag, st));
                EXPECT(flag == 1 && index == MPI_UNDEFINED);
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("completion calls report the error of a truncated receive", "[jobs][engine]") {
    // MPI 3.1 section 3.7.5: Waitall and Waitsome return MPI_ERR_IN_STATUS
    // with each request's error in its status; Waitany returns the
    // request's error, with or without a status.
    JobConfig c = shape(2, TS_MAP_SCATTER);
    const JobResult r = run_job(c, [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int v[4] = {1, 2, 3, 4};
        for (int call = 0; call < 4; ++call) {
            if (rank == 0) {
                EXPECT_OK(MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
                EXPECT_OK(MPI_Send(v, 4, MPI_INT, 1, 1, MPI_COMM_WORLD));
                continue;
            }
            int in[3];
            MPI_Request req[2];
            MPI_Status st[2];
            EXPECT_OK(MPI_Irecv(&in[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req[0]));
            EXPECT_OK(MPI_Irecv(&in[1], 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &req[1]));
            int index = -1, outcount = 0, indices[2];
            switch (call) {
            case 0:
                EXPECT(MPI_Waitall(2, req, st) == MPI_ERR_IN_STATUS);
                EXPECT(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_ERR_TRUNCATE);
                break;
            case 1:
                EXPECT_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
                EXPECT(MPI_Waitany(2, req, &index, &st[1]) == MPI_ERR_TRUNCATE);
                EXPECT(index == 1 && count_of(st[1], MPI_INT) == 2);
                break;
            case 2:
                while (outcount < 2) {
                    int n = 0;
                    const int e = MPI_Waitsome(2, req, &n, indices, st);
                    bool truncated = false;
                    for (int i = 0; i < n; ++i) {
                        truncated = truncated || indices[i] == 1;
                        EXPECT(st[i].MPI_ERROR == (indices[i] == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS));
                    }
                    EXPECT(e == (truncated ? MPI_ERR_IN_STATUS : MPI_SUCCESS));
                    outcount += n;
                }
                break;
            case 3:
                EXPECT_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
                EXPECT(MPI_Waitany(2, req, &index, MPI_STATUS_IGNORE) == MPI_ERR_TRUNCATE);
                EXPECT(index == 1);
                break;
            }
            EXPECT(in[0] == 1 && in[1] == 1 && in[2] == 2);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("completing a null or inactive request gives an empty status", "[jobs]") {
    // MPI 3.1 section 3.7.3: source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0.
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = 0, flag = 0;
        MPI_Request null = MPI_REQUEST_NULL, inactive;
        EXPECT_OK(MPI_Recv_init(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &inactive));
        for (MPI_Request *req : {&null, &inactive}) {
            MPI_Status st;
            st.MPI_SOURCE = st.MPI_TAG = 99;
            EXPECT_OK(MPI_Wait(req, &st));
            EXPECT(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count_of(st) == 0);
            st.MPI_SOURCE = st.MPI_TAG = 99;
            EXPECT_OK(MPI_Test(req, &flag, &st));
            EXPECT(flag == 1 && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);
        }
        EXPECT(null == MPI_REQUEST_NULL && inactive != MPI_REQUEST_NULL);
        EXPECT_OK(MPI_Request_free(&inactive));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("MPI_PROC_NULL completes at once with its status", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = 1;
        MPI_Status st;
        EXPECT_OK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
        EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count_of(st, MPI_INT) == 0);
        MPI_Request req;
        EXPECT_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
        EXPECT(completes_now(&req));
        EXPECT_OK(MPI_Barrier(MPI_COMM_SELF));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        EXPECT(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_SELF) == MPI_ERR_RANK);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

// ---- probe, persistent requests, Sendrecv_replace ---------------------------

TEST_CASE("Probe and Iprobe see a message without receiving it", "[jobs][engine]") {
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        Signal looked;
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            if (rank == 0) {
                looked.await();
                const auto eager = message(1, 300), rendezvous = message(2, 5000);
                MPI_Request req[2];
                EXPECT_OK(MPI_Isend(eager.data(), 300, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[0]));
                EXPECT_OK(MPI_Isend(rendezvous.data(), 5000, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[1]));
                EXPECT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
            } else {
                int flag = 1;
                MPI_Status st;
                EXPECT_OK(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
                EXPECT(flag == 0);
                looked.raise();
                do
                    EXPECT_OK(MPI_Iprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &flag, &st));
                while (!flag);
                EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == 2 && count_of(st) == 5000);
                EXPECT_OK(MPI_Probe(0, 2, MPI_COMM_WORLD, &st));  // still there
                std::vector<unsigned char> buf(count_of(st));
                EXPECT_OK(MPI_Recv(buf.data(), count_of(st), MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(is_message(buf.data(), 2, 5000));
                EXPECT_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == 1 && count_of(st) == 300);
                EXPECT_OK(MPI_Recv(buf.data(), 300, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(is_message(buf.data(), 1, 300));
                EXPECT_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
                EXPECT(flag == 0);
                EXPECT_OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == MPI_PROC_NULL);
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("persistent requests start again and again", "[jobs][engine]") {
    // One eager standard, one synchronous and one rendezvous send per
    // round, the buffers refilled between rounds.
    const size_t sizes[] = {64, 8, 4000};
    constexpr int n = static_cast<int>(std::size(sizes));
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            std::vector<unsigned char> bufs[n];
            MPI_Request req[n];
            for (int k = 0; k < n; ++k) {
                bufs[k].resize(sizes[k] + 1, kGuard);
                const int count = static_cast<int>(sizes[k]);
                if (rank == 1)
                    EXPECT_OK(MPI_Recv_init(bufs[k].data(), count, MPI_BYTE, 0, k, MPI_COMM_WORLD, &req[k]));
                else if (k == 1)
                    EXPECT_OK(MPI_Ssend_init(bufs[k].data(), count, MPI_BYTE, 1, k, MPI_COMM_WORLD, &req[k]));
                else
                    EXPECT_OK(MPI_Send_init(bufs[k].data(), count, MPI_BYTE, 1, k, MPI_COMM_WORLD, &req[k]));
            }
            for (int round = 0; round < 5; ++round) {
                for (int k = 0; k < n && rank == 0; ++k)
                    std::memcpy(bufs[k].data(), message(round * n + k, sizes[k]).data(), sizes[k]);
                EXPECT_OK(MPI_Start(&req[0]));
                EXPECT_OK(MPI_Startall(n - 1, &req[1]));
                MPI_Status st[n];
                EXPECT_OK(MPI_Waitall(n, req, st));
                for (int k = 0; k < n; ++k) {
                    EXPECT(req[k] != MPI_REQUEST_NULL);  // inactive, not freed
                    if (rank == 1) {
                        EXPECT(st[k].MPI_TAG == k && count_of(st[k]) == static_cast<int>(sizes[k]));
                        EXPECT(is_message(bufs[k].data(), round * n + k, sizes[k]) && bufs[k][sizes[k]] == kGuard);
                    }
                }
            }
            EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
            EXPECT_OK(MPI_Start(&req[0]));
            EXPECT(MPI_Start(&req[0]) == MPI_ERR_REQUEST);  // active already
            EXPECT_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
            for (MPI_Request &h : req) {
                EXPECT_OK(MPI_Request_free(&h));
                EXPECT(h == MPI_REQUEST_NULL);
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("MPI_Sendrecv_replace shifts around a ring", "[jobs][engine]") {
    for (const Placement &p : kPlacements)
        for (int count : {10, 1000}) {  // ints: eager and rendezvous
            INFO(p.name << ", " << count << " ints");
            const JobResult r = run_job(config(3, p), [count](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                const int left = (rank + 2) % 3, right = (rank + 1) % 3;
                std::vector<int> v(count);
                for (int i = 0; i < count; ++i)
                    v[i] = rank * 100000 + i;
                MPI_Status st;
                EXPECT_OK(MPI_Sendrecv_replace(v.data(), count, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == left && count_of(st, MPI_INT) == count);
                for (int i = 0; i < count; ++i)
                    EXPECT(v[i] == left * 100000 + i);
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("MPI_Sendrecv with an invalid destination returns the error", "[jobs][engine]") {
    // Nothing will come from rank 1: the receive half must not be waited for.
    JobConfig c = shape(2);
    c.timeout_s = 5;
    const JobResult r = run_job(c, [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        if (rank == 0) {
            EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
            int out = 1, in = 0;
            EXPECT(MPI_Sendrecv(&out, 1, MPI_INT, 7, 0, &in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                   MPI_ERR_RANK);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

// ---- matching order -----------------------------------------------------------

TEST_CASE("ANY_SOURCE receives from every rank once", "[jobs]") {
    const int np = 9;
    const JobResult r = run_job(shape(np, TS_MAP_SCATTER), [np](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        if (rank == 0) {
            std::vector<int> seen(np, 0);
            for (int k = 1; k < np; ++k) {
                int v = -1;
                MPI_Status st;
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(v == st.MPI_SOURCE * 10 && st.MPI_TAG == st.MPI_SOURCE);
                ++seen[st.MPI_SOURCE];
            }
            for (int k = 1; k < np; ++k)
                EXPECT(seen[k] == 1);
        } else {
            const int v = rank * 10;
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, rank, MPI_COMM_WORLD));
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("tags select among queued messages; arrival order otherwise", "[jobs]") {
    // Ranks 1 and 2 send while rank 0 waits for rank 3, so their messages
    // queue up as unexpected, 1's before 2's: 2 sends once 1's sends
    // returned (eager: the messages are at rank 0), 3 once 2's did.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        Signal one_sent, two_sent;
        const JobResult r = run_job(config(4, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int v = rank;
            MPI_Status st;
            switch (rank) {
            case 0:
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 3, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(v == 3);
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(v == 1 && st.MPI_SOURCE == 1 && st.MPI_TAG == 7);
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st));
                EXPECT(v == 2 && st.MPI_SOURCE == 2);
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(v == 1 && st.MPI_TAG == 8);
                break;
            case 1:
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
                one_sent.raise();
                break;
            case 2:
                one_sent.await();
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
                two_sent.raise();
                break;
            case 3:
                two_sent.await();
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
                break;
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("a sender waiting for its receiver queues others' messages", "[jobs]") {
    // 0 sends a rendezvous message to 1 while 2 sends to 0: 0 takes 2's
    // message in while it waits (1 receives only once 2's send returned),
    // and receives it afterwards.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        Signal two_sent;
        const JobResult r = run_job(config(3, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            std::vector<int> v(2000, rank);
            if (rank == 0) {
                EXPECT_OK(MPI_Send(v.data(), 2000, MPI_INT, 1, 0, MPI_COMM_WORLD));
                EXPECT_OK(MPI_Recv(v.data(), 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(v[0] == 2);
            } else if (rank == 1) {
                two_sent.await();
                EXPECT_OK(MPI_Recv(v.data(), 2000, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(v[0] == 0 && v[1999] == 0);
            } else {
                EXPECT_OK(MPI_Send(v.data(), 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
                two_sent.raise();
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("a rank sends to a rank whose message waits unreceived here", "[jobs]") {
    // 1's message to 0 waits as unexpected while 0 receives from 2; then
    // 0 sends to 1 (which is receiving) and receives 1's message.
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        Signal one_sent;
        const JobResult r = run_job(config(3, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int v = rank;
            if (rank == 0) {
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 2, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(v == 2);
                EXPECT_OK(MPI_Ssend(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(v == 1);
            } else if (rank == 1) {
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
                one_sent.raise();
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(v == 2);
            } else {
                one_sent.await();
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("user wildcards do not match barrier traffic", "[jobs]") {
    // Rank 1 enters the barrier while rank 0 still waits for a user
    // message with ANY_SOURCE/ANY_TAG: 2 sends once 1's barrier message
    // reached rank 0's mailbox (so over IKC only, where it can be seen).
    for (const Placement &p : kPlacements) {
        if (!over_ikc(p))
            continue;
        INFO(p.name);
        const JobResult r = run_job(config(3, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int v = rank;
            MPI_Status st;
            if (rank == 0) {
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == 2 && v == 2);
            } else if (rank == 2) {
                fake::wait_arrivals(0, 1);
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
            }
            EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

// ---- many ranks -------------------------------------------------------------------

TEST_CASE("barrier: nobody leaves before everyone arrived", "[jobs]") {
    for (int np : {1, 2, 3, 5, 8, 13}) {
        INFO("np=" << np);
        std::atomic<int> arrived{0};
        const JobResult r = run_job(shape(np, np % 2), [&, np](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (int round = 1; round <= 5; ++round) {
                if ((rank + round) % 3 == 0)
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                arrived.fetch_add(1);
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                EXPECT(arrived.load() >= round * np);
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));  // nobody runs ahead into the next round
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("all-to-all with Isend then Waitall on 16 ranks", "[jobs][engine]") {
    // The canonical correct exchange: every rank starts a receive from and
    // a send to every other, then waits for them all. Eager messages of
    // the threshold's size (five mailbox messages each) from 12 ranks of
    // other clusters overflow a cluster's buffers table (the profile's 128).
    for (int policy : {TS_MAP_COMPACT, TS_MAP_SCATTER}) {
        INFO("policy " << policy);
        JobConfig c = shape(16, policy);
        c.timeout_s = 10;
        const JobResult r = run_job(c, [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            constexpr int np = 16;
            constexpr size_t n = kDefaultEagerMax;
            const auto mine = message(rank, n);
            std::vector<std::vector<unsigned char>> bufs(np, receive_buffer(n));
            std::vector<MPI_Request> req;
            req.reserve(2 * np);
            for (int peer = 0; peer < np; ++peer)
                if (peer != rank)
                    EXPECT_OK(MPI_Irecv(bufs[peer].data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                                        &req.emplace_back()));
            for (int peer = 0; peer < np; ++peer)
                if (peer != rank)
                    EXPECT_OK(MPI_Isend(mine.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req.emplace_back()));
            EXPECT_OK(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE));
            for (int peer = 0; peer < np; ++peer)
                if (peer != rank)
                    EXPECT(is_message(bufs[peer].data(), peer, n));
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("credit returned after the last message does not outlive MPI_Finalize", "[jobs][engine]") {
    // Rank 1 consumes rank 0's eager messages in batches of kEagerCredits/2
    // and returns the credit of each batch; here the last batch ends with
    // the barrier of MPI_Finalize, which rank 0 may have left by then (a
    // race: several jobs). Nothing may reach a mailbox after its owner's
    // last read: the kernel would park it for good.
    for (int job = 0; job < 5; ++job) {
        const JobResult r = run_job(shape(2, TS_MAP_SCATTER), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int v = 0;
            // Rank 0's release in the barrier of MPI_Finalize is its
            // kEagerCredits/2-th eager message to rank 1.
            for (int k = 0; k < kEagerCredits / 2 - 1; ++k) {
                if (rank == 0)
                    EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
                else
                    EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("late starters: name resolutions wait for the name", "[jobs]") {
    JobConfig c = shape(3, TS_MAP_SCATTER);
    c.start_delay_ms = {0, 300, 150};
    const JobResult r = run_job(c, [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = rank;
        if (rank == 0) {
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD));
        } else {
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT(v == 0);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("a send waits for a late destination without a time limit", "[jobs]") {
    // Rank 1 starts 40 s late by the job's clock: longer than any fixed
    // limit on name resolutions would allow.
    JobConfig c = shape(2, TS_MAP_SCATTER);
    c.clock_rate = 100;
    c.start_delay_ms = {0, 400};
    const JobResult r = run_job(c, [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = rank;
        if (rank == 0)
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
        else
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

// ---- errors -------------------------------------------------------------------

TEST_CASE("argument errors are returned with MPI_ERRORS_RETURN", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        MPI_Errhandler h = 0;
        EXPECT_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h));
        EXPECT(h == MPI_ERRORS_ARE_FATAL);
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h));
        EXPECT(h == MPI_ERRORS_RETURN);
        int v = 0, n = 0, flag = 0;
        MPI_Status st;
        MPI_Request req = MPI_REQUEST_NULL;
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL) == MPI_ERR_COMM);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, 0x43000077) == MPI_ERR_COMM);
        EXPECT(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
        EXPECT(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
        EXPECT(MPI_Send(nullptr, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
        EXPECT(MPI_Send(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD) == MPI_ERR_TAG);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, LWMPI_TAG_UB + 1, MPI_COMM_WORLD) == MPI_ERR_TAG);
        EXPECT(MPI_Isend(&v, 1, MPI_INT, 5, 0, MPI_COMM_WORLD, &req) == MPI_ERR_RANK);
        EXPECT(req == MPI_REQUEST_NULL);
        EXPECT(MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, nullptr) == MPI_ERR_ARG);
        EXPECT(MPI_Recv(&v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &st) == MPI_ERR_TAG);
        EXPECT(MPI_Recv(&v, 1, MPI_INT, 5, 0, MPI_COMM_WORLD, &st) == MPI_ERR_RANK);
        EXPECT(MPI_Recv(&v, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, &st) == MPI_ERR_COUNT);
        EXPECT(MPI_Iprobe(0, -3, MPI_COMM_WORLD, &flag, &st) == MPI_ERR_TAG);
        EXPECT(MPI_Probe(9, 0, MPI_COMM_WORLD, &st) == MPI_ERR_RANK);
        req = 0x52000099;  // a request handle never given out
        EXPECT(MPI_Wait(&req, &st) == MPI_ERR_REQUEST);
        EXPECT(MPI_Test(&req, &flag, &st) == MPI_ERR_REQUEST);
        EXPECT(MPI_Start(&req) == MPI_ERR_REQUEST);
        EXPECT(MPI_Request_free(&req) == MPI_ERR_REQUEST);
        EXPECT(MPI_Waitall(-1, &req, &st) == MPI_ERR_COUNT);
        EXPECT(MPI_Buffer_detach(&req, &n) == MPI_ERR_BUFFER);  // none attached
        EXPECT(MPI_Barrier(MPI_COMM_NULL) == MPI_ERR_COMM);
        EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, nullptr) == MPI_ERR_ARG);
        EXPECT(MPI_Comm_size(MPI_INT, &n) == MPI_ERR_COMM);
        EXPECT(MPI_Get_count(nullptr, MPI_INT, &n) == MPI_ERR_ARG);
        EXPECT(MPI_Get_count(&st, MPI_DATATYPE_NULL, &n) == MPI_ERR_TYPE);
        EXPECT(MPI_Type_size(MPI_COMM_WORLD, &n) == MPI_ERR_TYPE);
        EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_INT) == MPI_ERR_ARG);
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_OTHER);  // twice
        EXPECT_OK(MPI_Type_size(MPI_DOUBLE, &n));
        EXPECT(n == 8);
        EXPECT_OK(MPI_Finalize());
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_OTHER);  // after finalize
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("the default handler reports and ends the job with the error class", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = 0;
        if (rank == 1)
            MPI_Send(&v, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);  // does not return
        MPI_Barrier(MPI_COMM_WORLD);                         // never completes
        return 1;
    });
    INFO(statuses(r));
    CHECK(r.aborted);
    CHECK(r.abort_code == MPI_ERR_RANK);
    CHECK(r.console == "MPI error: rank 1: MPI_Send: invalid rank "
                       "(dest 7; the communicator has 2 ranks)\n");
    CHECK(r.status[0] == -2);
    CHECK(r.status[1] == -2);
}

TEST_CASE("the report of a failed MPI_Bsend names MPI_Bsend", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = 0;
        if (rank == 0)
            MPI_Bsend(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);  // no buffer attached: does not return
        MPI_Barrier(MPI_COMM_WORLD);
        return 1;
    });
    INFO(statuses(r));
    CHECK(r.abort_code == MPI_ERR_BUFFER);
    CHECK(r.console.rfind("MPI error: rank 0: MPI_Bsend: invalid buffer pointer", 0) == 0);
}

TEST_CASE("MPI_Abort ends the job with its code", "[jobs]") {
    const JobResult r = run_job(shape(3), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        if (rank == 2)
            MPI_Abort(MPI_COMM_WORLD, 42);
        MPI_Barrier(MPI_COMM_WORLD);
        return 1;
    });
    INFO(statuses(r));
    CHECK(r.aborted);
    CHECK(r.abort_code == 42);
    CHECK(r.console.find("MPI_Abort: rank 2 ends the job with error code 42") != std::string::npos);
}

TEST_CASE("fatal reports come after the rank's output, with details", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v[4] = {1, 2, 3, 4};
        fake::print("rank " + std::to_string(rank) + ": no newline yet");
        if (rank == 0)
            MPI_Send(v, 4, MPI_INT, 1, 5, MPI_COMM_WORLD);
        else
            MPI_Recv(v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Finalize();  // rank 0 waits here for rank 1
        return 1;
    });
    INFO(statuses(r));
    CHECK(r.aborted);
    CHECK(r.abort_code == MPI_ERR_TRUNCATE);
    CHECK(r.console == "rank 1: no newline yet\n"
                       "MPI error: rank 1: MPI_Recv: message truncated on receive "
                       "(received 4 of 16 bytes from rank 0, tag 5)\n");
}

TEST_CASE("MPI_Abort reports after the rank's output", "[jobs]") {
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        fake::print("about to abort\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
        return 1;
    });
    INFO(statuses(r));
    CHECK(r.abort_code == 3);
    CHECK(r.console == "about to abort\nMPI_Abort: rank 0 ends the job with error code 3\n");
}

TEST_CASE("a rank that ends without MPI_Finalize ends the job", "[jobs]") {
    for (int code : {1, 0}) {
        INFO("status " << code);
        const JobResult r = run_job(shape(3, TS_MAP_SCATTER), [code](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int v = 0;
            if (rank == 0) {
                fake::print("rank 0: bad input\n");
                return code;  // the others wait for it in MPI_Recv
            }
            MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            return 1;
        });
        INFO(statuses(r));
        CHECK(r.aborted);
        CHECK(r.abort_code == (code ? code : 1));
        CHECK(r.console == "rank 0: bad input\nMPI error: rank 0 exited with status " +
                               std::to_string(code) + " without calling MPI_Finalize\n");
        CHECK(r.status == std::vector<int>{-2, -2, -2});
    }
}

TEST_CASE("a rank may end with any status after MPI_Finalize", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Finalize());
        return rank == 1 ? 3 : 0;  // the job's status is the kernel's business
    });
    INFO(statuses(r));
    CHECK_FALSE(r.aborted);
    CHECK(r.status == std::vector<int>{0, 3});
    CHECK(r.console.empty());
}

// ---- MPI_Init ---------------------------------------------------------------------

TEST_CASE("MPI_Init refuses a rank whose name is already registered", "[jobs]") {
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT(lwmpi::os::name_register("mpi:0", TS_PORT_MPI_BASE) == 0);
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_INTERN);
        EXPECT(lwmpi::os::name_unregister("mpi:0") == 0);
        return 0;
    });
    CHECK_CLEAN(r);  // mailbox and portal given back too
}

TEST_CASE("MPI_Init_thread needs somewhere to put the thread level", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int) {
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, nullptr) == MPI_ERR_ARG);
        int flag = -1;
        EXPECT_OK(MPI_Initialized(&flag));
        EXPECT(flag == 0);
        int provided = -1;
        EXPECT_OK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
        EXPECT(provided == MPI_THREAD_FUNNELED);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("MPI calls outside MPI_Init..MPI_Finalize are errors", "[jobs]") {
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int n = 0;
        EXPECT(MPI_Comm_size(MPI_COMM_WORLD, &n) == MPI_ERR_OTHER);
        EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_ERR_OTHER);
        EXPECT(MPI_Finalize() == MPI_ERR_OTHER);
        int version = 0, sub = 0;
        EXPECT_OK(MPI_Get_version(&version, &sub));
        EXPECT(version == 3 && sub == 1);
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        EXPECT_OK(MPI_Error_string(MPI_ERR_TAG, text, &len));
        EXPECT(std::string(text) == "invalid tag argument" && len == 20);
        EXPECT(MPI_Error_string(-5, text, &len) == MPI_ERR_ARG);
        int cls = -1;
        EXPECT_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
        EXPECT(cls == MPI_ERR_TRUNCATE);
        EXPECT(MPI_Error_class(MPI_ERR_LASTCODE + 1, &cls) == MPI_ERR_ARG);
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Finalize());
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_OTHER);  // no restart
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("MPI_Init fails cleanly in a non-MPI thread", "[jobs]") {
    // The main test thread has no MPI identity (ts_rank() == -1); run a
    // job of one rank only to have a fabric, and call MPI_Init from a
    // thread without an identity.
    int result = -1;
    const JobResult r = run_job(shape(1), [&](int) {
        std::thread t([&] {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            result = MPI_Init(nullptr, nullptr);
        });
        t.join();
        return 0;
    });
    CHECK_CLEAN(r);
    CHECK(result == MPI_ERR_OTHER);
}

TEST_CASE("Wtime advances in Wtick steps", "[jobs]") {
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        const double tick = MPI_Wtick();
        EXPECT(tick > 0 && tick <= 1e-6);
        const double t0 = MPI_Wtime();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const double t1 = MPI_Wtime();
        EXPECT(t1 - t0 >= 0.019 && t1 - t0 < 5);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("a small mailbox payload is refused at MPI_Init", "[jobs]") {
    JobConfig c = shape(1);
    c.payload = 16;
    const JobResult r = run_job(c, [](int) {
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_INTERN);
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("mpi.h works from C", "[jobs]") {
    for (const Placement &p : kPlacements) {
        INFO(p.name);
        const JobResult r = run_job(config(4, p), [](int) { return lwmpi_c_smoke(); });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("an all-to-all of Isend/Irecv keeps a request per peer and direction in flight", "[jobs]") {
    const int np = 40;  // 78 requests per rank
    JobConfig c = shape(np, TS_MAP_SCATTER);
    c.ncompute = 16;
    c.slots = 16;
    const JobResult r = run_job(c, [np](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        std::vector<MPI_Request> reqs(2 * (np - 1));
        std::vector<char> in(128 * np, 0), out(128 * np, static_cast<char>(rank));
        int n = 0;
        for (int j = 1; j < np; ++j) {
            const int src = (rank - j + np) % np;
            EXPECT_OK(MPI_Irecv(&in[128 * src], 128, MPI_BYTE, src, 0, MPI_COMM_WORLD, &reqs[n++]));
        }
        for (int j = 1; j < np; ++j) {
            const int dst = (rank + j) % np;
            EXPECT_OK(MPI_Isend(&out[128 * dst], 128, MPI_BYTE, dst, 0, MPI_COMM_WORLD, &reqs[n++]));
        }
        EXPECT_OK(MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE));
        for (int src = 0; src < np; ++src)
            EXPECT(src == rank || in[128 * src] == static_cast<char>(src));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}
