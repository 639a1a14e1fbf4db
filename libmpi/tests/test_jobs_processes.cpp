// Ranks as processes of their own (JobConfig::processes), in whole jobs
// (test_jobs_* share jobs_support.hpp): a rank's private memory has a
// global form, the local path reaches another rank's buffer through it
// only, ranks that share no memory talk over IKC, and every thread of a
// rank sees the rank's MPI state (and, at MPI_THREAD_MULTIPLE, calls MPI
// while another is blocked in it), in threads mode too.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

namespace {

JobConfig processes(int np, int policy = TS_MAP_COMPACT) {
    JobConfig c = shape(np, policy);
    c.processes = true;
    return c;
}

// body() on another thread of the calling rank's process, while the
// caller waits for it (MPI_THREAD_SERIALIZED): what body returned, -1 if
// the job ended meanwhile.
template <class F>
int on_another_thread(F body) {
    int result = -1;
    std::thread t = fake::rank_thread([&] { result = body(); });
    t.join();
    return result;
}

}  // namespace

// ---- pointer forms -----------------------------------------------------------

TEST_CASE("in processes mode a pointer into a rank's private memory has a global form, others are their own",
          "[jobs][processes]") {
    // Each rank writes into its private memory and shows its global form
    // to the other, which reads the first rank's bytes there.
    std::atomic<unsigned char *> shown[2] = {nullptr, nullptr};
    const JobResult r = run_job(processes(2), [&](int rank) {
        using lwmpi::os::global, lwmpi::os::private_of;
        unsigned char *p = fake::private_memory();
        EXPECT(p);
        p += 100;
        auto *g = static_cast<unsigned char *>(global(p));
        EXPECT(g != p && private_of(g) == p);
        *p = static_cast<unsigned char>(rank + 1);
        EXPECT(*g == rank + 1);  // the same memory
        shown[rank] = g;
        while (!shown[1 - rank])
            lwmpi::os::sleep_ns(100'000);
        const unsigned char *theirs = shown[1 - rank];
        EXPECT(theirs != g && *theirs == 2 - rank);
        EXPECT(private_of(theirs) == theirs);  // not mine: no private form of mine
        // Memory outside the private area (here, stack and heap) is the
        // same for every rank.
        int local = 0;
        std::vector<int> heap(4);
        EXPECT(global(&local) == &local && private_of(&local) == &local);
        EXPECT(global(heap.data()) == heap.data());
        EXPECT(private_of(p) == p);  // p is no global form
        return 0;
    });
    CHECK_CLEAN(r);

    const JobResult t = run_job(shape(2), [](int) {
        EXPECT(!fake::private_memory());
        int local = 0;
        EXPECT(lwmpi::os::global(&local) == &local && lwmpi::os::private_of(&local) == &local);
        return 0;
    });
    CHECK_CLEAN(t);
}

// ---- the local path between processes ------------------------------------------

TEST_CASE("between processes the local path copies a send buffer through its sender's alias",
          "[jobs][processes]") {
    // Rank 0 sends from its private memory, and hides it at its own
    // addresses while rank 1 must copy from it (synchronous and long
    // sends: the local path does not copy those at the sender): a receiver
    // that read rank 0's memory at rank 0's addresses would crash the test
    // program. Rank 1 receives into its own private memory, message first
    // or receive first.
    struct Send {
        const char *name;
        size_t bytes;
        bool synchronous;
    };
    constexpr Send sends[] = {
        {"eager", 64, false},
        {"synchronous", 64, true},
        {"long", 5000, false},
    };
    for (bool posted_first : {true, false})
        for (const Send &k : sends) {
            INFO(k.name << (posted_first ? ", receive posted first" : ", message first"));
            Signal posted, sent;
            const JobResult r = run_job(processes(2), [&](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                unsigned char *mine = fake::private_memory();
                const int n = static_cast<int>(k.bytes);
                if (rank == 0) {
                    const auto msg = message(3, k.bytes);
                    std::copy(msg.begin(), msg.end(), mine);
                    if (posted_first) posted.await();
                    const bool hide = k.synchronous || k.bytes > default_eager_max;
                    if (hide) fake::hide_private(true);
                    MPI_Request req;
                    EXPECT_OK(k.synchronous ? MPI_Issend(mine, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req)
                                            : MPI_Isend(mine, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req));
                    sent.raise();
                    EXPECT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                    if (hide) fake::hide_private(false);
                } else {
                    MPI_Request req;
                    mine[k.bytes] = guard;
                    if (!posted_first) sent.await();
                    EXPECT_OK(MPI_Irecv(mine, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req));
                    posted.raise();
                    MPI_Status st;
                    EXPECT_OK(MPI_Wait(&req, &st));
                    EXPECT(count_of(st) == n && is_message(mine, 3, k.bytes) && mine[k.bytes] == guard);
                }
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("message blocks go back to their sender, whatever their size", "[jobs][processes]") {
    // Eager messages short enough for a reused block, and longer ones with
    // a block of their own (a threshold above local_block_data), many
    // unexpected at once: each block goes back to its sender, which reuses
    // or frees it, and the data stays right.
    constexpr int rounds = 100;
    constexpr size_t short_bytes = 100, longer_bytes = 2000;
    for (bool as_processes : {true, false}) {
        INFO((as_processes ? "processes" : "threads"));
        JobConfig c = config(2, placements[0]);
        c.processes = as_processes;
        c.eager_max = 4096;
        const JobResult r = run_job(c, [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (int k = 0; k < rounds; ++k) {
                const size_t n = k % 3 ? short_bytes : longer_bytes;
                if (rank == 0) {
                    const auto msg = message(k, n);
                    EXPECT_OK(MPI_Send(msg.data(), static_cast<int>(n), MPI_BYTE, 1, k, MPI_COMM_WORLD));
                } else if (k % 10 == 9) {  // ten at a time, in the order sent
                    for (int j = k - 9; j <= k; ++j) {
                        const size_t m = j % 3 ? short_bytes : longer_bytes;
                        auto buf = receive_buffer(m);
                        EXPECT_OK(MPI_Recv(buf.data(), static_cast<int>(m), MPI_BYTE, 0, j, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
                        EXPECT(is_message(buf.data(), j, m) && buf[m] == guard);
                    }
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("processes that share no memory talk over IKC", "[jobs][processes]") {
    // A platform that maps no aliases: the local path is off for the
    // whole cluster, so the message is a mailbox message (rank 1 waits
    // until it was sent, then looks).
    JobConfig c = processes(2);
    c.aliases = false;
    Signal sent, looked;
    const JobResult r = run_job(c, [&](int rank) {
        EXPECT(!lwmpi::os::cluster_shared(1));
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT(!lwmpi::util::limits().local_path);
        if (const int line = send_one_and_count(rank, 1, sent, looked)) return line;
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

// ---- the threads of a rank -----------------------------------------------------

TEST_CASE("in processes mode every thread of a rank sees the rank's MPI state", "[jobs][processes]") {
    // Another thread of each rank finds MPI initialized, its rank and the
    // communicators, datatypes and requests of the rank's main thread, and
    // starts some of its own that the main thread completes; it is not
    // the main thread, and its end is not the rank's. It runs on a core of
    // its own, which the other ranks must wake while it waits, and then
    // the main thread's. On one cluster (the local path) and on two (IKC).
    for (const Placement &p : {placements[0], placements[2], placements[3]}) {
        INFO(p.name);
        JobConfig c = config(2, p);
        c.processes = true;
        const JobResult r = run_job(c, [](int rank) {
            int provided = -1, flag = -1;
            EXPECT_OK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided));
            EXPECT(provided == MPI_THREAD_SERIALIZED);
            EXPECT_OK(MPI_Is_thread_main(&flag));
            EXPECT(flag == 1);
            const int peer = 1 - rank;
            MPI_Datatype pair;
            EXPECT_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
            EXPECT_OK(MPI_Type_commit(&pair));
            MPI_Comm dup = MPI_COMM_NULL;
            MPI_Request started = MPI_REQUEST_NULL;
            int got[2] = {0, 0};
            const int line = on_another_thread([&] {
                int inited = 0, me = -1, level = -1, main = -1;
                EXPECT_OK(MPI_Initialized(&inited));
                EXPECT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
                EXPECT_OK(MPI_Query_thread(&level));
                EXPECT_OK(MPI_Is_thread_main(&main));
                EXPECT(inited == 1 && me == rank && level == MPI_THREAD_SERIALIZED && main == 0);
                EXPECT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
                const int v[2] = {rank, 10 + rank};
                int w[2] = {0, 0};
                EXPECT_OK(MPI_Sendrecv(v, 1, pair, peer, 0, w, 1, pair, peer, 0, dup, MPI_STATUS_IGNORE));
                EXPECT(w[0] == peer && w[1] == 10 + peer);
                EXPECT_OK(MPI_Irecv(got, 1, pair, peer, 1, dup, &started));
                EXPECT(!lwmpi::util::rank_exit(0));  // the runtime's hook, at this thread's end
                return 0;
            });
            if (line) return line;
            const int v[2] = {20 + rank, 30 + rank};
            EXPECT_OK(MPI_Send(v, 1, pair, peer, 1, dup));
            EXPECT_OK(MPI_Wait(&started, MPI_STATUS_IGNORE));
            EXPECT(got[0] == 20 + peer && got[1] == 30 + peer);
            EXPECT_OK(MPI_Comm_free(&dup));
            EXPECT_OK(MPI_Type_free(&pair));
            EXPECT_OK(MPI_Finalize());
            return on_another_thread([] {
                int done = 0;
                EXPECT_OK(MPI_Finalized(&done));
                EXPECT(done == 1);
                return 0;
            });
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("in threads mode a thread a rank starts belongs to the rank", "[jobs][processes]") {
    // Each rank is a thread of the cluster's process; a thread it starts
    // finds the rank's MPI state (not another rank's), is not the main
    // thread, and its end is not the rank's.
    const JobResult r = run_job(shape(2), [](int rank) {
        int provided = -1;
        EXPECT_OK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided));
        EXPECT(provided == MPI_THREAD_SERIALIZED);
        const int line = on_another_thread([rank] {
            int inited = -1, main = -1, me = -1, level = -1;
            EXPECT_OK(MPI_Initialized(&inited));
            EXPECT_OK(MPI_Is_thread_main(&main));
            EXPECT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
            EXPECT_OK(MPI_Query_thread(&level));
            EXPECT(inited == 1 && main == 0 && me == rank && level == MPI_THREAD_SERIALIZED);
            const int peer = 1 - rank, v = 40 + rank;
            int w = -1;
            EXPECT_OK(MPI_Sendrecv(&v, 1, MPI_INT, peer, 0, &w, 1, MPI_INT, peer, 0, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
            EXPECT(w == 40 + peer);
            EXPECT(!lwmpi::util::rank_exit(0));
            return 0;
        });
        if (line) return line;
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("at MPI_THREAD_MULTIPLE a blocking call blocks only its thread", "[jobs][processes]") {
    // Rank 0's main thread waits in MPI_Recv for rank 1's answer, which
    // rank 1 sends only once rank 0's other thread has spoken to it, while
    // the main thread is blocked: a call that held the rank's state for
    // its whole wait would deadlock. Then the other thread waits for a
    // receive the main thread posted. On one cluster (the local path) and
    // on two (IKC), ranks as processes and as threads.
    struct Run {
        Placement placement;
        bool processes;
    };
    for (const Run &run : {Run{placements[0], true}, Run{placements[2], true}, Run{placements[3], true},
                           Run{placements[0], false}, Run{placements[2], false}}) {
        INFO(run.placement.name << (run.processes ? ", ranks as processes" : ", ranks as threads"));
        JobConfig c = config(2, run.placement);
        c.processes = run.processes;
        const JobResult r = run_job(c, [](int rank) {
            int provided = -1, level = -1;
            EXPECT_OK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
            EXPECT(provided == MPI_THREAD_MULTIPLE);
            EXPECT_OK(MPI_Query_thread(&level));
            EXPECT(level == MPI_THREAD_MULTIPLE);
            const int peer = 1 - rank;
            int v = -1;
            if (rank == 1) {
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(v == 10);
                v = 11;
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, peer, 2, MPI_COMM_WORLD));
                v = 12;
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
            } else {
                MPI_Request posted = MPI_REQUEST_NULL;
                int last = -1, answered = 0;
                EXPECT_OK(MPI_Irecv(&last, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &posted));
                std::atomic<int> line{-1};
                std::thread t = fake::rank_thread([&] {
                    line = [&] {
                        std::this_thread::sleep_for(
                            std::chrono::milliseconds(20));  // the main thread is blocked
                        const int out = 10;
                        EXPECT_OK(MPI_Send(&out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
                        EXPECT_OK(MPI_Wait(&posted, MPI_STATUS_IGNORE));  // the main thread's request
                        return 0;
                    }();
                });
                EXPECT_OK(MPI_Recv(&answered, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                t.join();
                if (line != 0) return line.load();
                EXPECT(answered == 11 && last == 12);
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}
