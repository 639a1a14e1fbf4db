// Jobs of many ranks (test_jobs_* share jobs_support.hpp): the barrier,
// and all-to-all exchanges that fill the fabric's buffers and LWMPI's
// request table.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

TEST_CASE("barrier: nobody leaves before everyone arrived", "[jobs]") {
    for (int np : {1, 2, 3, 5, 8, 13}) {
        INFO("np=" << np);
        std::atomic<int> arrived{0};
        const JobResult r = run_job(shape(np, np % 2), [&, np](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (int round = 1; round <= 5; ++round) {
                if ((rank + round) % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
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
            constexpr size_t n = default_eager_max;
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
                    EXPECT_OK(
                        MPI_Isend(mine.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req.emplace_back()));
            EXPECT_OK(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE));
            for (int peer = 0; peer < np; ++peer)
                if (peer != rank) EXPECT(is_message(bufs[peer].data(), peer, n));
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
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
