// When sends complete, in whole jobs (test_jobs_* share jobs_support.hpp):
// eager sends up to the job's threshold complete before their receive,
// rendezvous and synchronous ones wait for it, eager credit runs out and
// comes back (and must not outlive MPI_Finalize), buffered sends are
// local, and a rank asleep is woken by the local path and IKC alike.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <chrono>
#include <iterator>
#include <thread>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

namespace {

using lwmpi::util::eager_credits;
using lwmpi::util::local_eager_budget;

// True when *req stays incomplete over a few tests a millisecond apart
// (what could complete it has been held back by the test).
bool stays_pending(MPI_Request *req) {
    for (int i = 0; i < 5; ++i) {
        int flag = 1;
        if (MPI_Test(req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag) return false;
        lwmpi::os::sleep_ns(1'000'000);
    }
    return true;
}

}  // namespace

// ---- completion of standard, synchronous and buffered sends ----------------

TEST_CASE("standard sends up to the eager threshold complete before their receive", "[jobs][engine]") {
    // Rank 1 receives only after rank 0's sends returned: were they
    // waiting for the receive, the job would hang.
    for (const Placement &p : placements) {
        INFO(p.name);
        Signal sent;
        JobConfig c = config(2, p);
        c.timeout_s = 5;
        const JobResult r = run_job(c, [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const size_t sizes[] = {0, 4, first_fragment + 1, default_eager_max};
            for (int k = 0; k < static_cast<int>(std::size(sizes)); ++k) {
                const int n = static_cast<int>(sizes[k]);
                if (rank == 0) {
                    EXPECT_OK(MPI_Send(message(k, sizes[k]).data(), n, MPI_BYTE, 1, k, MPI_COMM_WORLD));
                    continue;
                }
                if (k == 0) sent.await();
                auto buf = receive_buffer(sizes[k]);
                MPI_Status st;
                EXPECT_OK(MPI_Recv(buf.data(), n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &st));
                EXPECT(count_of(st) == n && is_message(buf.data(), k, sizes[k]));
            }
            if (rank == 0) sent.raise();
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
    const Case cases[] = {
        {true, 0}, {true, 4}, {true, default_eager_max}, {false, default_eager_max + 1}, {false, 65536}};
    for (const Placement &p : placements) {
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
                        EXPECT_OK(MPI_Recv(buf.data(), static_cast<int>(c.bytes), MPI_BYTE, 0, k,
                                           MPI_COMM_WORLD, &st));
                        EXPECT(count_of(st) == static_cast<int>(c.bytes) &&
                               is_message(buf.data(), k, c.bytes));
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
    // A threshold given (mpi_eager_max) holds on both paths; without one,
    // TS_JOB_MPI_EAGER_ONE_MESSAGE (QEMU's default) keeps IKC's eager
    // messages to one mailbox message and leaves the local path's at 512.
    struct Case {
        int eager_max;
        bool one_message;
        size_t ikc, local;  ///< the thresholds that follow
    };
    constexpr Case threshold_cases[] = {{0, false, default_eager_max, default_eager_max},
                                        {1024, false, 1024, 1024},
                                        {0, true, first_fragment, default_eager_max},
                                        {1024, true, 1024, 1024}};
    for (const Placement &p : placements)
        for (const Case &k : threshold_cases) {
            const size_t threshold = over_ikc(p) ? k.ikc : k.local;
            INFO(p.name << ", mpi_eager_max " << k.eager_max << (k.one_message ? ", one message" : ""));
            JobConfig c = config(2, p);
            c.eager_max = k.eager_max;
            c.eager_one_message = k.one_message;
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

TEST_CASE("MPI_Bsend copies into the attached buffer and returns", "[jobs][engine]") {
    // Rank 1 receives only once rank 0's buffered sends returned and their
    // sources were overwritten; detaching waits until they have left.
    for (const Placement &p : placements) {
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
                // Full: the large message waits for its receive (the small
                // one's block may be free again: that message has left).
                EXPECT(MPI_Bsend(large.data(), 3000, MPI_BYTE, 1, 3, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
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

TEST_CASE("an attached buffer holds many buffered messages at once, twice", "[jobs][engine]") {
    // More messages than the first block table holds (bsend.cpp) stay in
    // the buffer until rank 1, which receives them in reverse order, takes
    // them; then a buffer attached again serves as many.
    constexpr int messages = 40, message_bytes = 1000;  // above the eager threshold: they wait
    for (const Placement &p : placements) {
        INFO(p.name);
        Signal sent[2];
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (int round = 0; round < 2; ++round) {
                if (rank == 0) {
                    std::vector<char> pool(messages * (message_bytes + MPI_BSEND_OVERHEAD));
                    EXPECT_OK(MPI_Buffer_attach(pool.data(), static_cast<int>(pool.size())));
                    for (int k = 0; k < messages; ++k) {
                        const auto msg = message(round * 100 + k, message_bytes);
                        EXPECT_OK(MPI_Bsend(msg.data(), message_bytes, MPI_BYTE, 1, k, MPI_COMM_WORLD));
                    }
                    sent[round].raise();
                    void *addr;
                    int size;
                    EXPECT_OK(MPI_Buffer_detach(&addr, &size));
                    EXPECT(addr == pool.data());
                } else {
                    sent[round].await();
                    auto buf = receive_buffer(message_bytes);
                    for (int k = messages - 1; k >= 0; --k) {
                        EXPECT_OK(MPI_Recv(buf.data(), message_bytes, MPI_BYTE, 0, k, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
                        EXPECT(is_message(buf.data(), round * 100 + k, message_bytes));
                    }
                }
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
    for (const Placement &p : placements) {
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

// ---- eager credit ----------------------------------------------------------

TEST_CASE("eager sends run out of credit at a receiver that does not receive", "[jobs][engine]") {
    // Rank 0 starts 300 sends of one mailbox message each to rank 1,
    // which receives only once rank 0 looked at them: the first ones
    // complete at once (eager_credits() unconsumed messages per sender over
    // IKC, fewer than the receiver's cluster parks; local_eager_budget bytes
    // on the local path), the others fall back to waiting for their
    // receive. All arrive, in order. A second round finds the credit back.
    constexpr int messages = 300;
    constexpr size_t message_bytes = 64;
    for (const Placement &p : placements) {
        INFO(p.name);
        const int at_once = over_ikc(p) ? eager_credits(2, default_eager_max)
                                        : static_cast<int>(local_eager_budget / message_bytes);
        REQUIRE(at_once < messages);
        Signal checked[2];
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            for (Signal &round : checked) {
                if (rank == 0) {
                    std::vector<std::vector<unsigned char>> msgs;
                    MPI_Request req[messages];
                    for (int k = 0; k < messages; ++k) {
                        msgs.push_back(message(k, message_bytes));
                        EXPECT_OK(MPI_Isend(msgs[k].data(), message_bytes, MPI_BYTE, 1, k, MPI_COMM_WORLD,
                                            &req[k]));
                    }
                    for (int k = 0; k < messages; ++k)
                        EXPECT(completes_now(&req[k]) == (k < at_once));
                    round.raise();
                    EXPECT_OK(MPI_Waitall(messages, req, MPI_STATUSES_IGNORE));
                } else {
                    round.await();
                    for (int k = 0; k < messages; ++k) {
                        auto buf = receive_buffer(message_bytes);
                        MPI_Status st;
                        EXPECT_OK(MPI_Recv(buf.data(), message_bytes, MPI_BYTE, 0, MPI_ANY_TAG,
                                           MPI_COMM_WORLD, &st));
                        EXPECT(st.MPI_TAG == k && count_of(st) == static_cast<int>(message_bytes));
                        EXPECT(is_message(buf.data(), k, message_bytes));
                    }
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("credit returned after the last message does not outlive MPI_Finalize", "[jobs][engine]") {
    // Rank 1 consumes rank 0's eager messages in batches of eager_credits()/2
    // and returns the credit of each batch; here the last batch ends with
    // the barrier of MPI_Finalize, which rank 0 may have left by then (a
    // race: several jobs). Nothing may reach a mailbox after its owner's
    // last read: the kernel would park it for good.
    for (int job = 0; job < 5; ++job) {
        const JobResult r = run_job(shape(2, TS_MAP_SCATTER), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int v = 0;
            // Rank 0's release in the barrier of MPI_Finalize is its
            // eager_credits()/2-th eager message to rank 1.
            for (int k = 0; k < eager_credits(2, default_eager_max) / 2 - 1; ++k) {
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

TEST_CASE("a ping-pong gives credits back on its replies: no CREDIT message", "[jobs][engine]") {
    // Each reply carries the credit of the message it answers, so rank 0
    // gets exactly one message per round trip (a CREDIT of its own after
    // every eager_credits()/2 rounds would add more) and never runs out of
    // credit (an RTS would draw a CTS: more again).
    constexpr int rounds = 5 * eager_credits(2, default_eager_max);
    Signal counted;  // rank 1's MPI_Finalize (its messages) waits for rank 0's count
    const JobResult r = run_job(shape(2, TS_MAP_SCATTER), [&counted](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
        const int before = fake::arrivals(0);
        int v = 0;
        for (int k = 0; k < rounds; ++k) {
            if (rank == 0) {
                EXPECT_OK(MPI_Send(&k, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(v == k);
            } else {
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
            }
        }
        if (rank == 0) {
            const int arrived = fake::arrivals(0) - before;
            counted.raise();
            EXPECT(arrived == rounds);
        } else {
            counted.await();
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

// ---- both paths at once ----------------------------------------------------

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
        constexpr int rounds = 30;
        if (rank == 0) {
            std::vector<unsigned char> buf(2000);
            int next[4] = {0, 0, 0, 0};
            for (int k = 0; k < 3 * rounds; ++k) {
                MPI_Status st;
                EXPECT_OK(
                    MPI_Recv(buf.data(), 2000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                const int src = st.MPI_SOURCE, round = st.MPI_TAG;
                EXPECT(src >= 1 && src <= 3 && round == next[src]++);
                const size_t n = static_cast<size_t>(count_of(st));
                EXPECT(n == (round % 2 ? 2000 : 16) && is_message(buf.data(), src * 100 + round, n));
            }
        } else {
            for (int round = 0; round < rounds; ++round) {
                std::this_thread::sleep_for(std::chrono::microseconds(100 * ((rank * 7 + round) % 5)));
                const size_t n = round % 2 ? 2000 : 16;
                EXPECT_OK(MPI_Send(message(rank * 100 + round, n).data(), static_cast<int>(n), MPI_BYTE, 0,
                                   round, MPI_COMM_WORLD));
            }
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("a rendezvous costs the receiver no reply: its portal allow is the clear to send, and no ack",
          "[jobs][engine]") {
    // The sender's write, tagged with the send's id, waits for the
    // receiver's allow of that tag, and a portal write ends once its data
    // is in the receiver's portal, so the sender completes on its own
    // write: between the start and the end of its MPI_Send, nothing
    // reaches its mailbox.
    for (const Placement &p : placements) {
        if (!over_ikc(p)) continue;
        INFO(p.name);
        Signal sent;  // rank 1's MPI_Finalize (its messages) waits for rank 0's count
        const JobResult r = run_job(config(2, p), [&sent](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            constexpr int n = 4096;  // above the default eager threshold
            auto buf = rank == 0 ? message(7, n) : receive_buffer(n);
            if (rank == 0) {
                const int before = fake::arrivals(0);
                EXPECT_OK(MPI_Send(buf.data(), n, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
                const int arrived = fake::arrivals(0) - before;
                sent.raise();
                EXPECT(arrived == 0);
            } else {
                EXPECT_OK(MPI_Recv(buf.data(), n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(is_message(buf.data(), 7, n));
                sent.await();
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("a window of rendezvous sends: a reply only for each message taken before an older one",
          "[jobs][engine]") {
    // The sends write one after the other through the sender's kept
    // portal to the receiver: taken in order, the receiver's allows alone
    // pace them. Taken last first, each receive but the last overtakes an
    // older message, whose write holds the portal: its allow must still
    // get its own message, and its CTS makes the sender take the portal
    // back (fails if the tags are ignored).
    constexpr int messages = 6, n = 4096 + 3;  // above the default eager threshold
    for (const bool last_first : {false, true})
        for (const Placement &p : placements) {
            if (!over_ikc(p)) continue;
            INFO(p.name << (last_first ? ", taken last first" : ", taken in order"));
            Signal sent;
            const JobResult r = run_job(config(2, p), [&sent, last_first](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                if (rank == 0) {
                    std::vector<std::vector<unsigned char>> out;
                    MPI_Request req[messages];
                    const int before = fake::arrivals(0);
                    for (int t = 0; t < messages; ++t) {
                        out.push_back(message(t, n));
                        EXPECT_OK(MPI_Isend(out[t].data(), n, MPI_BYTE, 1, t, MPI_COMM_WORLD, &req[t]));
                    }
                    EXPECT_OK(MPI_Waitall(messages, req, MPI_STATUSES_IGNORE));
                    const int arrived = fake::arrivals(0) - before;
                    sent.raise();
                    EXPECT(arrived == (last_first ? messages - 1 : 0));
                } else {
                    for (int i = 0; i < messages; ++i) {
                        const int t = last_first ? messages - 1 - i : i;
                        auto in = receive_buffer(n);
                        EXPECT_OK(MPI_Recv(in.data(), n, MPI_BYTE, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                        EXPECT(is_message(in.data(), t, n));
                    }
                    sent.await();
                }
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

// ---- no malloc per message ---------------------------------------------------

TEST_CASE("steady traffic into posted receives takes nothing from the heap", "[jobs][engine]") {
    // Each rank posts its next receive before it sends, so every message
    // meets a posted receive; once the first rounds have made the spare
    // nodes and blocks, more rounds (eager and rendezvous, credits going
    // back) allocate nothing on either side. The ranks spin: a rank that
    // sleeps is woken by a kick message, and the first kick of the job
    // would take its node from the heap at a moment of its own.
    constexpr int warm_up = 2 * eager_credits(2, default_eager_max),
                  rounds = 4 * eager_credits(2, default_eager_max);
    for (const Placement &p : placements) {
        INFO(p.name);
        JobConfig c = config(2, p);
        c.wait_policy = TS_MPI_WAIT_SPIN;
        const JobResult r = run_job(c, [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const int peer = 1 - rank;
            for (const int n : {64, static_cast<int>(default_eager_max) + 1}) {
                std::vector<char> out(static_cast<size_t>(n), 'x'), in(static_cast<size_t>(n));
                MPI_Request recv, done;
                uint64_t before = 0;
                char token = 0;
                // Rank 1 counts until rank 0's token comes (posted now: it
                // comes while rank 1's last send may still wait), so that
                // the next size's barrier (unexpected: it takes a node)
                // cannot reach rank 0 before it has counted.
                if (rank == 1) EXPECT_OK(MPI_Irecv(&token, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &done));
                EXPECT_OK(MPI_Irecv(in.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &recv));
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));  // both receives posted
                for (int k = 0; k < warm_up + rounds; ++k) {
                    if (k == warm_up) before = lwmpi::util::heap_allocations();
                    if (rank == 0) EXPECT_OK(MPI_Send(out.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD));
                    EXPECT_OK(MPI_Wait(&recv, MPI_STATUS_IGNORE));
                    if (k + 1 < warm_up + rounds)
                        EXPECT_OK(MPI_Irecv(in.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &recv));
                    if (rank == 1) EXPECT_OK(MPI_Send(out.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD));
                }
                const uint64_t after = lwmpi::util::heap_allocations();
                if (rank == 0) EXPECT_OK(MPI_Send(&token, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD));
                if (rank == 1) EXPECT_OK(MPI_Wait(&done, MPI_STATUS_IGNORE));
                EXPECT(after == before);
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("where rings fill as messages arrive, a fruitless poll makes no IKC call and an eager send one",
          "[jobs][engine]") {
    // As on QEMU: the fabric puts arrivals in the receiver's ring, which
    // MPI_Test and MPI_Iprobe read without a kernel call; the sender's
    // message leaves with one write when its receiver has room.
    JobConfig c = shape(2, TS_MAP_SCATTER);
    c.ring_pull = false;
    c.wait_policy = TS_MPI_WAIT_SPIN;
    Signal polled;
    const JobResult r = run_job(c, [&](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        const int peer = 1 - rank;
        int value = 0;
        // Each knows the other's address and has its mailbox open.
        EXPECT_OK(MPI_Sendrecv(&rank, 1, MPI_INT, peer, 1, &value, 1, MPI_INT, peer, 1, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        if (rank == 0) {
            MPI_Request req;
            EXPECT_OK(MPI_Irecv(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &req));
            const int calls = fake::ikc_calls(0);
            for (int i = 0; i < 100; ++i) {
                int flag = 1;
                EXPECT_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                EXPECT(!flag);
                EXPECT_OK(MPI_Iprobe(1, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                EXPECT(!flag);
            }
            EXPECT(fake::ikc_calls(0) == calls);
            polled.raise();
            EXPECT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            EXPECT(value == 42);
        } else {
            polled.await();
            value = 42;
            const int calls = fake::ikc_calls(1);
            EXPECT_OK(MPI_Send(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
            EXPECT(fake::ikc_calls(1) - calls == 1);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}
