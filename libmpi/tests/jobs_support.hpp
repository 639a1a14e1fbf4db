// What the job tests (test_jobs_*.cpp) share: whole LWMPI (LibMPI +
// MPIUtil's engine) through mpi.h, with threads as ranks over the
// simulated fabric of fake_os.cpp. A rank's body returns 0 on success or
// the line of the first failed expectation (Catch2's assertions are not
// thread-safe, so they run on the main thread).
//
// Most engine tests run in every placement (placements): two ranks on
// one cluster talk through shared memory (the local path), as threads of
// one process or as processes of their own (JobConfig::processes), or,
// with the job's TS_JOB_MPI_LOCAL_IKC flag, through IKC like ranks of
// different clusters; those use eager mailbox messages up to the eager
// threshold and the rendezvous (portal transfers) above it.
//
// The helpers live in namespace jobs, which each test file opens with a
// using-directive: the tests name them unqualified.
#pragma once

#include <catch2/catch.hpp>

#include <mpi.h>
#include <tessera/syscall.h>

#include <atomic>
#include <stddef.h>
#include <string>
#include <vector>

#include "fake_job.hpp"
#include "../mpiutil/control.hpp"
#include <mpiutil/mpiutil.hpp>
#include "../mpiutil/os.hpp"

#define EXPECT(cond)                  \
    do {                              \
        if (!(cond)) return __LINE__; \
    } while (0)

#define EXPECT_OK(call) EXPECT((call) == MPI_SUCCESS)

namespace jobs {

using fake::JobConfig;
using fake::JobResult;
using fake::run_job;
using lwmpi::util::default_eager_max;

// How the job ended, for the test's report when it did not end clean.
inline std::string statuses(const JobResult &r) {
    std::string s;
    for (int v : r.status)
        s += std::to_string(v) + " ";
    return s + "| aborted=" + std::to_string(r.aborted) + " code=" + std::to_string(r.abort_code) +
           " timeout=" + std::to_string(r.timed_out) + " violations=" + std::to_string(r.violations) +
           " names=" + std::to_string(r.leaked_names) + " objects=" + std::to_string(r.leaked_objects) +
           "\n" + r.console;
}

#define CHECK_CLEAN(r)         \
    do {                       \
        INFO(statuses(r));     \
        CHECK(fake::clean(r)); \
    } while (0)

inline JobConfig shape(int np, int policy = TS_MAP_COMPACT) {
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
    bool ring_pull = true;   ///< JobConfig::ring_pull
    bool processes = false;  ///< JobConfig::processes
};

// Up to 4 ranks: compact puts them all on one cluster, scatter one per
// cluster (JobConfig's default 4 clusters of 4 slots).
inline constexpr Placement placements[] = {
    {"one cluster, local path", TS_MAP_COMPACT, true},
    {"one cluster, local path off", TS_MAP_COMPACT, false},
    {"one cluster per rank", TS_MAP_SCATTER, true},
    {"one cluster per rank, rings filled as they arrive", TS_MAP_SCATTER, true, false},
    {"one cluster, local path, ranks as processes", TS_MAP_COMPACT, true, true, true},
};

inline bool over_ikc(const Placement &p) { return !(p.policy == TS_MAP_COMPACT && p.local_path); }

inline JobConfig config(int np, const Placement &p) {
    JobConfig c = shape(np, p.policy);
    c.local_path = p.local_path;
    c.ring_pull = p.ring_pull;
    c.processes = p.processes;
    return c;
}

// The fabric's mailbox payload in these tests, and what it means for
// eager messages: the first mailbox message carries 88 bytes of data
// after its header, each further one 112.
inline constexpr int payload = JobConfig{}.payload;
inline constexpr size_t first_fragment = lwmpi::util::eager_first_bytes(payload);
static_assert(first_fragment == 88 && lwmpi::util::eager_more_bytes(payload) == 112);
static_assert(default_eager_max == 512);

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
inline unsigned char pattern(int seed, size_t i) {
    return static_cast<unsigned char>(seed * 37 + i * 11 + (i >> 8));
}

inline std::vector<unsigned char> message(int seed, size_t n) {
    std::vector<unsigned char> m(n);
    for (size_t i = 0; i < n; ++i)
        m[i] = pattern(seed, i);
    return m;
}

// The first n bytes at p are those of message `seed`.
inline bool is_message(const unsigned char *p, int seed, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != pattern(seed, i)) return false;
    return true;
}

// A receive buffer of `capacity` bytes and a guard byte after them.
inline constexpr unsigned char guard = 0xee;
inline std::vector<unsigned char> receive_buffer(size_t capacity) {
    return std::vector<unsigned char>(capacity + 1, guard);
}

inline int count_of(const MPI_Status &st, MPI_Datatype t = MPI_BYTE) {
    int n = -1;
    MPI_Get_count(&st, t, &n);
    return n;
}

// MPI_Test of *req: true when it completed (and was freed).
inline bool completes_now(MPI_Request *req) {
    int flag = 0;
    return MPI_Test(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag;
}

// Rank 0 sends rank 1 one int; rank 1 waits until it was sent, checks
// that `mailbox_messages` mailbox messages reached it (0 on the local
// path, 1 over IKC) while rank 0 waits for that look (its MPI_Finalize
// sends more), then receives the int. Call it from both ranks of a job:
// 0, or the line of the check that failed (as EXPECT).
inline int send_one_and_count(int rank, int mailbox_messages, Signal &sent, Signal &looked) {
    int v = 42;
    if (rank == 0) {
        EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
        sent.raise();
        looked.await();
    } else {
        sent.await();
        EXPECT(fake::arrivals(1) == mailbox_messages);
        looked.raise();
        v = 0;
        EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        EXPECT(v == 42);
    }
    return 0;
}

}  // namespace jobs
