// Requests in whole jobs (test_jobs_* share jobs_support.hpp): the
// completion calls (Wait/Test, -all, -any, -some) and their errors, null,
// inactive, freed and persistent requests.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <cstring>
#include <iterator>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

// ---- non-blocking completion calls -----------------------------------------

TEST_CASE("Isend and Irecv around a ring, completed by Waitall", "[jobs][engine]") {
    // Each rank exchanges an eager message with its left neighbour and a
    // rendezvous one with its right, with null handles in the array.
    for (const Placement &p : placements) {
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
            EXPECT(is_message(from_left.data(), 10 + left, 3000) &&
                   is_message(from_right.data(), right, 100));
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("Waitall does not sleep on a receive completed while it tested the send after it",
          "[jobs][engine]") {
    // Exchanges with the receive first in the array: the peer's message
    // may come in while Waitall tests the send. Were Waitall to sleep
    // then, nothing more would wake it (a race: many rounds).
    for (const Placement &p : placements) {
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
    for (const Placement &p : placements) {
        INFO(p.name);
        constexpr int ncalls = 5;
        Signal go[ncalls];
        const JobResult r = run_job(config(4, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (int call = 0; call < ncalls; ++call) {
                const int tag = call;
                if (rank != 0) {
                    go[call].await();
                    const auto msg = message(rank, sizes[rank]);
                    EXPECT_OK(MPI_Send(msg.data(), static_cast<int>(sizes[rank]), MPI_BYTE, 0, tag,
                                       MPI_COMM_WORLD));
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
                    case 2: EXPECT_OK(MPI_Testsome(3, req, &outcount, indices, st)); break;
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

// ---- freed and persistent requests -----------------------------------------

TEST_CASE("the send of a freed request still completes", "[jobs][engine]") {
    // MPI_Request_free on active sends (eager and rendezvous): the
    // messages are delivered, and the requests given back once done.
    for (const Placement &p : placements) {
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

TEST_CASE("persistent requests start again and again", "[jobs][engine]") {
    // One eager standard, one synchronous and one rendezvous send per
    // round, the buffers refilled between rounds.
    const size_t sizes[] = {64, 8, 4000};
    constexpr int n = static_cast<int>(std::size(sizes));
    for (const Placement &p : placements) {
        INFO(p.name);
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            std::vector<unsigned char> bufs[n];
            MPI_Request req[n];
            for (int k = 0; k < n; ++k) {
                bufs[k].resize(sizes[k] + 1, guard);
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
                        EXPECT(is_message(bufs[k].data(), round * n + k, sizes[k]) &&
                               bufs[k][sizes[k]] == guard);
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

// ---- many requests in flight -------------------------------------------------

TEST_CASE("10,000 receives posted before any send all complete, in order", "[jobs][engine]") {
    // Far more than the request tables start with (pool.hpp): they grow.
    // Then Waitall over all of them, with statuses (on the heap past 64).
    constexpr int n = 10000;
    for (const Placement &p : placements) {
        INFO(p.name);
        JobConfig c = config(2, p);
        c.timeout_s = 60;
        const JobResult r = run_job(c, [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            std::vector<int> values(n, -1);
            if (rank == 1) {
                std::vector<MPI_Request> req(n);
                for (int i = 0; i < n; ++i)
                    EXPECT_OK(MPI_Irecv(&values[i], 1, MPI_INT, 0, i % 7, MPI_COMM_WORLD, &req[i]));
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                std::vector<MPI_Status> st(n);
                EXPECT_OK(MPI_Waitall(n, req.data(), st.data()));
                for (int i = 0; i < n; ++i)
                    EXPECT(values[i] == i && st[i].MPI_TAG == i % 7 && st[i].MPI_SOURCE == 0);
            } else {
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                for (int i = 0; i < n; ++i) {
                    values[i] = i;
                    EXPECT_OK(MPI_Send(&values[i], 1, MPI_INT, 1, i % 7, MPI_COMM_WORLD));
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("a window of rendezvous sends to several peers waits for portals when the cluster has none left",
          "[jobs][engine]") {
    // osu_bw's pattern, above the eager threshold, to three peers at once
    // (scatter: one cluster each). A CTS that finds its kept output portal
    // busy opens one of its own; the fabric refuses more than
    // virtual_per_hw outputs from a cluster to one cluster (-TS_ENFILE),
    // and then the send waits for a portal instead of failing.
    constexpr int window = 64, peers = 3, n = 2048;
    JobConfig c = config(1 + peers, placements[2]);
    c.virtual_per_hw = 8;
    const JobResult r = run_job(c, [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        std::vector<MPI_Request> req(window * peers);
        if (rank == 0) {
            const auto msg = message(5, n);
            for (int k = 0; k < window * peers; ++k)
                EXPECT_OK(MPI_Isend(msg.data(), n, MPI_BYTE, 1 + k % peers, k, MPI_COMM_WORLD, &req[k]));
            EXPECT_OK(MPI_Waitall(window * peers, req.data(), MPI_STATUSES_IGNORE));
        } else {
            std::vector<decltype(receive_buffer(n))> bufs;
            for (int k = 0; k < window; ++k) {
                bufs.push_back(receive_buffer(n));
                EXPECT_OK(
                    MPI_Irecv(bufs[k].data(), n, MPI_BYTE, 0, k * peers + rank - 1, MPI_COMM_WORLD, &req[k]));
            }
            EXPECT_OK(MPI_Waitall(window, req.data(), MPI_STATUSES_IGNORE));
            for (const auto &b : bufs)
                EXPECT(is_message(b.data(), 5, n));
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

// ---- cancel and generalized requests -----------------------------------------

TEST_CASE("MPI_Cancel takes back a receive no message matched, not a matched one", "[jobs][engine]") {
    // Rank 1's message (eager or rendezvous) reaches rank 0 before rank
    // 1's part of the barrier (one channel per sender), so after the
    // barrier it has matched the receive of tag 6, and none the one of 5.
    for (const Placement &p : placements)
        for (size_t n : {size_t{40}, size_t{3000}}) {
            INFO(p.name << ", " << n << " bytes");
            const JobResult r = run_job(config(2, p), [n](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                const auto data = message(7, n);
                auto in = receive_buffer(n), none = receive_buffer(n);
                if (rank == 1) {
                    EXPECT_OK(MPI_Send(data.data(), static_cast<int>(n), MPI_BYTE, 0, 6, MPI_COMM_WORLD));
                    EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                } else {
                    MPI_Request r5, r6;
                    EXPECT_OK(
                        MPI_Irecv(none.data(), static_cast<int>(n), MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r5));
                    EXPECT_OK(MPI_Irecv(in.data(), static_cast<int>(n), MPI_BYTE, 1, 6, MPI_COMM_WORLD, &r6));
                    EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                    EXPECT_OK(MPI_Cancel(&r5));
                    EXPECT_OK(MPI_Cancel(&r6));
                    MPI_Status st5, st6;
                    EXPECT_OK(MPI_Wait(&r6, &st6));
                    EXPECT_OK(MPI_Wait(&r5, &st5));
                    int c5 = -1, c6 = -1;
                    EXPECT_OK(MPI_Test_cancelled(&st5, &c5));
                    EXPECT_OK(MPI_Test_cancelled(&st6, &c6));
                    EXPECT(c5 == 1 && c6 == 0);
                    EXPECT(count_of(st6) == static_cast<int>(n) && is_message(in.data(), 7, n));
                }
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("MPI_Cancel takes back a send no receive matched, not a matched one", "[jobs][engine]") {
    // Rank 0 cancels standard, synchronous, buffered and persistent sends
    // (eager, local copies and rendezvous by size) that rank 1 has not
    // received: each is cancelled, and nothing of them reaches rank 1.
    // Then a send whose receive was posted before it: matched on arrival,
    // before its cancel comes, so the cancel fails and the data arrives.
    for (const Placement &p : placements)
        for (size_t n : {size_t{40}, size_t{3000}, size_t{100000}}) {
            INFO(p.name << ", " << n << " bytes");
            const JobResult r = run_job(config(2, p), [n](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
                const int count = static_cast<int>(n);
                const auto data = message(3, n);
                auto in = receive_buffer(n);
                if (rank == 0) {
                    std::vector<char> attached(n + MPI_BSEND_OVERHEAD);
                    EXPECT_OK(MPI_Buffer_attach(attached.data(), static_cast<int>(attached.size())));
                    for (int kind = 0; kind < 4; ++kind) {
                        MPI_Request req;
                        const int tag = 10 + kind;
                        if (kind == 0)
                            EXPECT_OK(MPI_Isend(data.data(), count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
                        if (kind == 1)
                            EXPECT_OK(MPI_Issend(data.data(), count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
                        if (kind == 2)
                            EXPECT_OK(MPI_Ibsend(data.data(), count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
                        if (kind == 3) {
                            EXPECT_OK(
                                MPI_Send_init(data.data(), count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
                            EXPECT_OK(MPI_Start(&req));
                        }
                        EXPECT_OK(MPI_Cancel(&req));
                        MPI_Status st;
                        EXPECT_OK(MPI_Wait(&req, &st));
                        int cancelled = -1;
                        EXPECT_OK(MPI_Test_cancelled(&st, &cancelled));
                        EXPECT(cancelled == 1);
                        if (kind == 3) {
                            EXPECT(MPI_Cancel(&req) == MPI_ERR_REQUEST);  // inactive
                            EXPECT_OK(MPI_Request_free(&req));
                        }
                    }
                    void *buf;
                    int size;
                    EXPECT_OK(MPI_Buffer_detach(&buf, &size));
                    EXPECT_OK(MPI_Send(nullptr, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD));
                    EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                    MPI_Request req;
                    EXPECT_OK(MPI_Isend(data.data(), count, MPI_BYTE, 1, 20, MPI_COMM_WORLD, &req));
                    EXPECT_OK(MPI_Cancel(&req));
                    MPI_Status st;
                    EXPECT_OK(MPI_Wait(&req, &st));
                    int cancelled = -1;
                    EXPECT_OK(MPI_Test_cancelled(&st, &cancelled));
                    EXPECT(cancelled == 0);
                    MPI_Request none = MPI_REQUEST_NULL;
                    EXPECT(MPI_Cancel(&none) == MPI_ERR_REQUEST);
                } else {
                    // Rank 0's cancels are answered while this receive waits.
                    EXPECT_OK(MPI_Recv(nullptr, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    int flag = -1;
                    EXPECT_OK(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                    EXPECT(flag == 0);
                    MPI_Request req;
                    EXPECT_OK(MPI_Irecv(in.data(), count, MPI_BYTE, 0, 20, MPI_COMM_WORLD, &req));
                    EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                    MPI_Status st;
                    EXPECT_OK(MPI_Wait(&req, &st));
                    EXPECT(count_of(st) == count && is_message(in.data(), 3, n));
                }
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

namespace {

// Counts the callbacks of a generalized request.
struct Calls {
    int queries, frees, cancels;
};

int count_query(void *extra, MPI_Status *st) {
    ++static_cast<Calls *>(extra)->queries;
    st->MPI_TAG = 21;
    return MPI_SUCCESS;
}
int count_free(void *extra) {
    ++static_cast<Calls *>(extra)->frees;
    return MPI_SUCCESS;
}
int count_cancel(void *extra, int) {
    ++static_cast<Calls *>(extra)->cancels;
    return MPI_SUCCESS;
}

}  // namespace

TEST_CASE("a generalized request completes through Waitany among receives", "[jobs][engine]") {
    const JobResult r = run_job(config(1, placements[0]), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        Calls calls{};
        MPI_Request req[2];
        int in = -1;
        EXPECT_OK(MPI_Irecv(&in, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &req[0]));
        EXPECT_OK(MPI_Grequest_start(count_query, count_free, count_cancel, &calls, &req[1]));
        int index = -1, flag = -1;
        MPI_Status st;
        EXPECT_OK(MPI_Testany(2, req, &index, &flag, &st));
        EXPECT(flag == 0 && calls.queries == 0);
        EXPECT_OK(MPI_Cancel(&req[1]));
        EXPECT(calls.cancels == 1);
        EXPECT_OK(MPI_Grequest_complete(req[1]));
        EXPECT_OK(MPI_Waitany(2, req, &index, &st));
        EXPECT(index == 1 && st.MPI_TAG == 21 && req[1] == MPI_REQUEST_NULL);
        EXPECT(calls.queries == 1 && calls.frees == 1);
        EXPECT_OK(MPI_Cancel(&req[0]));
        EXPECT_OK(MPI_Wait(&req[0], &st));
        EXPECT_OK(MPI_Test_cancelled(&st, &flag));
        EXPECT(flag == 1 && in == -1);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}
