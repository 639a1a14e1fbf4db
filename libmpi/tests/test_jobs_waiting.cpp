// How a rank waits, in whole jobs (test_jobs_* share jobs_support.hpp):
// each wait policy (mpirun --wait-policy) delivers every message, `spin`
// never sleeps in the kernel, `block` never polls in vain, `adaptive` polls
// first and sleeps once a wait runs long, and a program that tests in a
// loop gives the CPU away.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <chrono>
#include <thread>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

namespace {

struct Policy {
    const char *name;
    int value;  ///< TS_MPI_WAIT_*
};

constexpr Policy policies[] = {
    {"spin", TS_MPI_WAIT_SPIN},
    {"block", TS_MPI_WAIT_BLOCK},
    {"adaptive", TS_MPI_WAIT_ADAPTIVE},
    {"default (block)", TS_MPI_WAIT_DEFAULT},
};

// What rank 0 did while it waited in one MPI_Recv for a message from
// rank 1, which sends once rank 0's waiting has shown `enough` (or after
// patience, so a policy that never shows it fails the checks rather than
// hangs). Rank 1 watches what rank 0 did instead of sleeping a fixed time:
// on a loaded host a poll can take longer than any fixed delay.
struct Waited {
    int sleeps;
    int yields;
};

constexpr auto patience = std::chrono::seconds(10);

Waited wait_for_message(int policy, bool same_cluster, bool (*enough)(const Waited &)) {
    JobConfig c = shape(2, same_cluster ? TS_MAP_COMPACT : TS_MAP_SCATTER);
    c.wait_policy = policy;
    Waited before{-1, -1}, w{-1, -1};
    Signal receiving;
    auto so_far = [&] { return Waited{fake::sleeps(0) - before.sleeps, fake::yields(0) - before.yields}; };
    const JobResult r = run_job(c, [&](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        // Rank 1's address is known before the wait: resolving it is not
        // part of what is counted.
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
        int value = 0;
        if (rank == 0) {
            before = Waited{fake::sleeps(0), fake::yields(0)};
            receiving.raise();
            EXPECT_OK(MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            w = so_far();
            EXPECT(value == 42);
        } else {
            receiving.await();
            const auto give_up = std::chrono::steady_clock::now() + patience;
            while (!enough(so_far()) && std::chrono::steady_clock::now() < give_up)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            value = 42;
            EXPECT_OK(MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
    return w;
}

bool has_slept(const Waited &w) { return w.sleeps > 0; }
bool has_polled_long(const Waited &w) { return w.yields >= 1000; }

}  // namespace

TEST_CASE("every wait policy delivers eager, rendezvous and local messages from many senders",
          "[jobs][engine]") {
    // Ranks 1..7 (three clusters of 3, rank 0's cluster holding ranks 1
    // and 2) send rank 0 messages of both protocols at moments of their
    // own; rank 0 takes them with MPI_ANY_SOURCE, in each sender's order.
    for (const Policy &policy : policies) {
        INFO(policy.name);
        JobConfig c = shape(8);
        c.slots = 3;
        c.wait_policy = policy.value;
        const JobResult r = run_job(c, [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            constexpr int rounds = 12;
            constexpr size_t large = 3000;
            if (rank == 0) {
                std::vector<unsigned char> buf(large);
                int next[8] = {};
                for (int k = 0; k < 7 * rounds; ++k) {
                    MPI_Status st;
                    EXPECT_OK(MPI_Recv(buf.data(), static_cast<int>(large), MPI_BYTE, MPI_ANY_SOURCE,
                                       MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                    const int src = st.MPI_SOURCE, round = st.MPI_TAG;
                    EXPECT(src >= 1 && src <= 7 && round == next[src]++);
                    const size_t n = static_cast<size_t>(count_of(st));
                    EXPECT(n == (round % 3 ? 24 : large) && is_message(buf.data(), src * 100 + round, n));
                }
            } else {
                for (int round = 0; round < rounds; ++round) {
                    std::this_thread::sleep_for(std::chrono::microseconds(50 * ((rank * 5 + round) % 4)));
                    const size_t n = round % 3 ? 24 : large;
                    EXPECT_OK(MPI_Send(message(rank * 100 + round, n).data(), static_cast<int>(n), MPI_BYTE,
                                       0, round, MPI_COMM_WORLD));
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("a waiting rank sleeps or polls as its wait policy says", "[jobs][engine]") {
    for (const bool same_cluster : {true, false}) {
        INFO((same_cluster ? "local path" : "across clusters"));
        SECTION("spin: polls, never sleeps in the kernel") {
            const Waited w = wait_for_message(TS_MPI_WAIT_SPIN, same_cluster, has_polled_long);
            CHECK(w.sleeps == 0);
            CHECK(w.yields >= 1000);
        }
        SECTION("block: sleeps at once, never polls in vain") {
            for (const int policy : {TS_MPI_WAIT_BLOCK, TS_MPI_WAIT_DEFAULT}) {
                const Waited w = wait_for_message(policy, same_cluster, has_slept);
                CHECK(w.sleeps > 0);
                CHECK(w.yields == 0);
            }
        }
        SECTION("adaptive: polls first, then sleeps when the wait runs long") {
            const Waited w = wait_for_message(TS_MPI_WAIT_ADAPTIVE, same_cluster, has_slept);
            CHECK(w.sleeps > 0);
            CHECK(w.yields > 0);
        }
    }
}

TEST_CASE("a program that tests in a loop gives the CPU away while nothing comes", "[jobs][engine]") {
    // Under `block`, only a test that found nothing yields: MPI_Test,
    // MPI_Testall, MPI_Testany, MPI_Testsome and MPI_Iprobe in a loop.
    JobConfig c = shape(2, TS_MAP_SCATTER);
    c.wait_policy = TS_MPI_WAIT_BLOCK;
    Signal testing;
    const JobResult r = run_job(c, [&](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
        int value = 0;
        if (rank == 0) {
            MPI_Request req;
            EXPECT_OK(MPI_Irecv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req));
            const int yields = fake::yields(0);
            int flag = 0, index = 0, count = 0;
            EXPECT_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            EXPECT(!flag);
            EXPECT_OK(MPI_Testall(1, &req, &flag, MPI_STATUSES_IGNORE));
            EXPECT(!flag);
            EXPECT_OK(MPI_Testany(1, &req, &index, &flag, MPI_STATUS_IGNORE));
            EXPECT(!flag);
            EXPECT_OK(MPI_Testsome(1, &req, &count, &index, MPI_STATUSES_IGNORE));
            EXPECT(count == 0);
            EXPECT_OK(MPI_Iprobe(1, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            EXPECT(!flag);
            EXPECT(fake::yields(0) - yields == 5);
            testing.raise();
            for (flag = 0; !flag;)
                EXPECT_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            EXPECT(value == 42);
        } else {
            testing.await();
            value = 42;
            EXPECT_OK(MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}
