// Point-to-point data in whole jobs (test_jobs_* share jobs_support.hpp):
// messages of every size intact in each placement and protocol,
// truncation, sends to self and head to head, MPI_PROC_NULL and
// MPI_Sendrecv(_replace).
#include <catch2/catch.hpp>

#include <mpi.h>

#include <cstring>
#include <iterator>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

// ---- messages of every size ------------------------------------------------

namespace {

// Eager sizes (one message, one full, two fragments, several, the
// threshold) and rendezvous ones (just above, many portal chunks).
constexpr size_t sizes[] = {
    0, 1, first_fragment, first_fragment + 1, 500, default_eager_max, default_eager_max + 1, 65536};

// Rank 0 sends one message of each size in sizes to rank 1 (tag = its
// index). With `posted_first` rank 1's receive is posted before the
// message leaves; otherwise the message (or its request to send) is
// there before the receive: rank 0 wrote it before its barrier message.
int exchange_sizes(int rank, bool posted_first) {
    EXPECT_OK(MPI_Init(nullptr, nullptr));
    for (int k = 0; k < static_cast<int>(std::size(sizes)); ++k) {
        const size_t n = sizes[k];
        MPI_Request req;
        if (rank == 0) {
            const auto msg = message(k, n);
            if (posted_first) EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Isend(msg.data(), static_cast<int>(n), MPI_BYTE, 1, k, MPI_COMM_WORLD, &req));
            if (!posted_first) EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            EXPECT(req == MPI_REQUEST_NULL);
        } else {
            auto buf = receive_buffer(n);
            if (!posted_first) EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Irecv(buf.data(), static_cast<int>(n), MPI_BYTE, 0, k, MPI_COMM_WORLD, &req));
            if (posted_first) EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_Status st;
            EXPECT_OK(MPI_Wait(&req, &st));
            EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == k && count_of(st) == static_cast<int>(n));
            EXPECT(is_message(buf.data(), k, n) && buf[n] == guard);
        }
    }
    EXPECT_OK(MPI_Finalize());
    return 0;
}

// Runs body(rank, posted_first) as a job of 2 ranks in every placement,
// with the receives posted before the messages arrive and after.
void in_both_orders(int (*body)(int rank, bool posted_first)) {
    for (const Placement &p : placements)
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
    for (const Placement &p : placements) {
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

// ---- truncation ------------------------------------------------------------

namespace {

// A message of `bytes` into a receive of `capacity` bytes.
struct Truncation {
    size_t bytes;
    size_t capacity;
};

constexpr Truncation truncations[] = {
    {1, 0},                                      // eager, nothing fits
    {first_fragment + 1, 50},                    // the second fragment is dropped
    {300, 100},                                  // cut inside the second fragment
    {default_eager_max, default_eager_max - 1},  // one byte short
    {default_eager_max + 1, 100},                // rendezvous
    {65536, 1000},
    {1000, 0},  // rendezvous that moves nothing
};

// Rank 0 sends each truncated message then a small one; rank 1 receives
// the first into a smaller buffer (MPI_ERR_TRUNCATE, the buffer filled,
// nothing beyond it touched) and the second intact: what was cut off does
// not spill into the next message.
int truncate_all(int rank, bool posted_first) {
    EXPECT_OK(MPI_Init(nullptr, nullptr));
    EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int k = 0; k < static_cast<int>(std::size(truncations)); ++k) {
        const Truncation t = truncations[k];
        const int next = 100 + k;  // seed and tag of the message after it
        if (rank == 0) {
            const auto msg = message(k, t.bytes), after = message(next, 8);
            MPI_Request req[2];
            if (posted_first) EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(
                MPI_Isend(msg.data(), static_cast<int>(t.bytes), MPI_BYTE, 1, k, MPI_COMM_WORLD, &req[0]));
            EXPECT_OK(MPI_Isend(after.data(), 8, MPI_BYTE, 1, next, MPI_COMM_WORLD, &req[1]));
            if (!posted_first) EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));  // the sender sees no error
        } else {
            auto buf = receive_buffer(t.capacity), after = receive_buffer(8);
            MPI_Request req[2];
            if (!posted_first) EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(
                MPI_Irecv(buf.data(), static_cast<int>(t.capacity), MPI_BYTE, 0, k, MPI_COMM_WORLD, &req[0]));
            EXPECT_OK(MPI_Irecv(after.data(), 8, MPI_BYTE, 0, next, MPI_COMM_WORLD, &req[1]));
            if (posted_first) EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_Status st;
            EXPECT(MPI_Wait(&req[0], &st) == MPI_ERR_TRUNCATE);
            EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == k && count_of(st) == static_cast<int>(t.capacity));
            EXPECT(is_message(buf.data(), k, t.capacity) && buf[t.capacity] == guard);
            EXPECT_OK(MPI_Wait(&req[1], &st));
            EXPECT(count_of(st) == 8 && is_message(after.data(), next, 8) && after[8] == guard);
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

// ---- to self, head to head, to nobody --------------------------------------

TEST_CASE("sends to self work", "[jobs][engine]") {
    for (const Placement &p : placements) {
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
            EXPECT(count_of(st) == 5000 && is_message(buf.data(), 2, 5000) && buf[5000] == guard);
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("head-to-head sends: small standard ones complete, Sendrecv for any size", "[jobs][engine]") {
    for (const Placement &p : placements) {
        INFO(p.name);
        const JobResult r = run_job(config(2, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            const int peer = 1 - rank;
            for (size_t n : {size_t{4}, default_eager_max}) {
                const auto mine = message(rank, n);
                auto buf = receive_buffer(n);
                EXPECT_OK(MPI_Send(mine.data(), static_cast<int>(n), MPI_BYTE, peer, 0, MPI_COMM_WORLD));
                EXPECT_OK(MPI_Recv(buf.data(), static_cast<int>(n), MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
                EXPECT(is_message(buf.data(), peer, n));
            }
            const auto mine = message(rank, 100000);
            auto buf = receive_buffer(100000);
            MPI_Status st;
            EXPECT_OK(MPI_Sendrecv(mine.data(), 100000, MPI_BYTE, peer, 7, buf.data(), 100000, MPI_BYTE, peer,
                                   7, MPI_COMM_WORLD, &st));
            EXPECT(st.MPI_SOURCE == peer && count_of(st) == 100000 && is_message(buf.data(), peer, 100000));
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
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
        // An empty buffer needs no datatype there (MPICH's recvnull).
        EXPECT_OK(MPI_Irecv(nullptr, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
        EXPECT(completes_now(&req));
        EXPECT_OK(MPI_Recv(nullptr, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        EXPECT_OK(MPI_Send(nullptr, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
        EXPECT_OK(MPI_Barrier(MPI_COMM_SELF));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        EXPECT(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_SELF) == MPI_ERR_RANK);
        EXPECT(MPI_Send(nullptr, 0, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_SELF) == MPI_ERR_TYPE);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

// ---- Sendrecv --------------------------------------------------------------

TEST_CASE("MPI_Sendrecv_replace shifts around a ring", "[jobs][engine]") {
    for (const Placement &p : placements)
        for (int count : {10, 1000}) {  // ints: eager and rendezvous
            INFO(p.name << ", " << count << " ints");
            const JobResult r = run_job(config(3, p), [count](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                const int left = (rank + 2) % 3, right = (rank + 1) % 3;
                std::vector<int> v(count);
                for (int i = 0; i < count; ++i)
                    v[i] = rank * 100000 + i;
                MPI_Status st;
                EXPECT_OK(
                    MPI_Sendrecv_replace(v.data(), count, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &st));
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
            EXPECT(MPI_Sendrecv(&out, 1, MPI_INT, 7, 0, &in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE) == MPI_ERR_RANK);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}
