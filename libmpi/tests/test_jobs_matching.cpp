// Which message a receive gets, in whole jobs (test_jobs_* share
// jobs_support.hpp): the messages of one sender keep their order whatever
// their protocol, several senders' messages interleave but arrive whole,
// source and tag (and wildcards) select among queued messages, user
// traffic never matches LWMPI's own, and a probe sees a message without
// taking it.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <iterator>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

// ---- order -----------------------------------------------------------------

TEST_CASE("messages of one sender do not overtake each other, whatever their protocol", "[jobs][engine]") {
    // Mixed sizes (eager, fragmented, rendezvous, empty) and modes (every
    // fourth synchronous) on one tag, started together; the receiver
    // takes them as they come or only once all were started.
    const size_t sizes[] = {600,  10, 70000, 0, 300, default_eager_max + 1, 5, first_fragment + 1,
                            2000, 1,  512,   64};
    constexpr int n = static_cast<int>(std::size(sizes));
    for (const Placement &p : placements)
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
                            EXPECT_OK(
                                MPI_Issend(msgs[k].data(), count, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req[k]));
                        else
                            EXPECT_OK(
                                MPI_Isend(msgs[k].data(), count, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req[k]));
                    }
                    started.raise();
                    EXPECT_OK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
                } else {
                    if (late_receiver) started.await();
                    std::vector<unsigned char> buf(70000);
                    for (int k = 0; k < n; ++k) {
                        MPI_Status st;
                        EXPECT_OK(MPI_Recv(buf.data(), 70000, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st));
                        EXPECT(count_of(st) == static_cast<int>(sizes[k]) &&
                               is_message(buf.data(), k, sizes[k]));
                    }
                }
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

namespace {

// Rank `rank` sends message(rank * 10 + k) of sizes[k] bytes with tag k to
// rank 0, for k = 0..n-1, all at once; raises `sent` once all started.
int send_each(int rank, const size_t *sizes, int n, Signal &sent) {
    std::vector<std::vector<unsigned char>> msgs;
    std::vector<MPI_Request> req(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
        msgs.push_back(message(rank * 10 + k, sizes[k]));
        EXPECT_OK(MPI_Isend(msgs[k].data(), static_cast<int>(sizes[k]), MPI_BYTE, 0, k, MPI_COMM_WORLD,
                            &req[static_cast<size_t>(k)]));
    }
    sent.raise();
    EXPECT_OK(MPI_Waitall(n, req.data(), MPI_STATUSES_IGNORE));
    return 0;
}

// Rank 0 posts a receive of `room` bytes with ANY_SOURCE and ANY_TAG for
// each of the n messages of ranks 1..np-1 (send_each), raises `posted`,
// and checks that each sender's came whole and in tag order.
int receive_each(int np, const size_t *sizes, int n, size_t room, Signal &posted) {
    const size_t total = static_cast<size_t>((np - 1) * n);
    std::vector<std::vector<unsigned char>> bufs(total, std::vector<unsigned char>(room));
    std::vector<MPI_Request> req(total);
    std::vector<MPI_Status> st(total);
    for (size_t i = 0; i < total; ++i)
        EXPECT_OK(MPI_Irecv(bufs[i].data(), static_cast<int>(room), MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                            MPI_COMM_WORLD, &req[i]));
    posted.raise();
    EXPECT_OK(MPI_Waitall(static_cast<int>(total), req.data(), st.data()));
    std::vector<int> next(static_cast<size_t>(np), 0);  // per sender: the tag expected next
    for (size_t i = 0; i < total; ++i) {
        const int src = st[i].MPI_SOURCE, k = st[i].MPI_TAG;
        EXPECT(src >= 1 && src < np && k == next[static_cast<size_t>(src)]++);
        EXPECT(count_of(st[i]) == static_cast<int>(sizes[k]));
        EXPECT(is_message(bufs[i].data(), src * 10 + k, sizes[k]));
    }
    return 0;
}

}  // namespace

TEST_CASE("messages of several senders arrive whole, in each sender's order", "[jobs][engine]") {
    // Ranks 1..3 send 5 messages each to rank 0 at once: the fragments of
    // their eager messages interleave in rank 0's mailbox, and their
    // rendezvous transfers take turns at its portal. Rank 0 has posted
    // ANY_SOURCE receives for all of them (or, late, finds them queued).
    constexpr int np = 4, each = 5;
    const size_t sizes[each] = {500, first_fragment + 1, 20000, 300, 7000};
    for (const Placement &p : placements)
        for (bool late_receiver : {false, true}) {
            INFO(p.name << (late_receiver ? ", late receiver" : ""));
            Signal posted, sent[np - 1];
            const JobResult r = run_job(config(np, p), [&](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                if (rank != 0) {
                    if (int line = send_each(rank, sizes, each, sent[rank - 1])) return line;
                } else {
                    if (late_receiver)
                        for (const Signal &s : sent)
                            s.await();
                    if (int line = receive_each(np, sizes, each, 20000, posted)) return line;
                }
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("fragmented eager messages of many senders at once arrive whole", "[jobs][engine]") {
    // Eleven senders (more than the first assembly table holds) send
    // messages of several fragments to rank 0 together, over IKC: their
    // fragments interleave in its mailbox, into posted receives or, late,
    // into queued messages.
    constexpr int np = 12, each = 3;
    const size_t sizes[each] = {500, first_fragment + 1, 300};
    for (bool late_receiver : {false, true}) {
        INFO((late_receiver ? "late receiver" : "receives posted first"));
        Signal posted, sent[np - 1];
        const JobResult r = run_job(shape(np, TS_MAP_SCATTER), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            if (rank != 0) {
                if (!late_receiver) posted.await();
                if (int line = send_each(rank, sizes, each, sent[rank - 1])) return line;
            } else {
                if (late_receiver)
                    for (const Signal &s : sent)
                        s.await();
                if (int line = receive_each(np, sizes, each, 600, posted)) return line;
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

// ---- matching order --------------------------------------------------------

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
    for (const Placement &p : placements) {
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
    for (const Placement &p : placements) {
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
    for (const Placement &p : placements) {
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
    // Ranks 2 and 3 enter the barrier while rank 0 still waits for a user
    // message with ANY_SOURCE/ANY_TAG: 1 sends once barrier traffic
    // reached rank 0's mailbox (so over IKC only, where it can be seen).
    // Whether the barrier goes up a tree or disseminates, one of 2 and 3
    // writes to rank 0 before hearing from it.
    for (const Placement &p : placements) {
        if (!over_ikc(p)) continue;
        INFO(p.name);
        const JobResult r = run_job(config(4, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int v = rank;
            MPI_Status st;
            if (rank == 0) {
                EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == 1 && v == 1);
            } else if (rank == 1) {
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

// ---- probe -----------------------------------------------------------------

TEST_CASE("Probe and Iprobe see a message without receiving it", "[jobs][engine]") {
    for (const Placement &p : placements) {
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
                EXPECT_OK(
                    MPI_Recv(buf.data(), count_of(st), MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(is_message(buf.data(), 2, 5000));
                EXPECT_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == 1 && count_of(st) == 300);
                EXPECT_OK(MPI_Recv(buf.data(), 300, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                EXPECT(is_message(buf.data(), 1, 300));
                EXPECT_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
                EXPECT(flag == 0);
                st.MPI_ERROR = MPI_ERR_DIMS;  // a probe never sets it (section 3.2.5)
                EXPECT_OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count_of(st) == 0);
                EXPECT(st.MPI_ERROR == MPI_ERR_DIMS);
                MPI_Message message = MPI_MESSAGE_NULL;
                EXPECT_OK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &message, &st));
                EXPECT(flag && message == MPI_MESSAGE_NO_PROC && st.MPI_ERROR == MPI_ERR_DIMS);
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}
