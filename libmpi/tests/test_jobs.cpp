// Whole LWMPI (LibMPI + MPIUtil + rendezvous) through mpi.h, with threads
// as ranks over the simulated fabric of fake_os.cpp. A rank's body returns
// 0 on success or the line of the first failed expectation (Catch2's
// assertions are not thread-safe, so they run on the main thread).
#include <catch2/catch.hpp>

#include <mpi.h>
#include <tessera/syscall.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fake_job.hpp"
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

std::string statuses(const JobResult &r) {
    std::string s;
    for (int v : r.status)
        s += std::to_string(v) + " ";
    return s + "| aborted=" + std::to_string(r.aborted) + " code=" + std::to_string(r.abort_code) +
           " timeout=" + std::to_string(r.timed_out) + " violations=" + std::to_string(r.violations) +
           " names=" + std::to_string(r.leaked_names) + " objects=" + std::to_string(r.leaked_objects) +
           "\n" + r.console;
}

#define REQUIRE_CLEAN(r)         \
    do {                         \
        INFO(statuses(r));       \
        REQUIRE(fake::clean(r)); \
    } while (0)

JobConfig shape(int np, int policy = 0) {
    JobConfig c;
    c.np = np;
    c.policy = policy;
    return c;
}

}  // namespace

TEST_CASE("init, rank, size and finalize", "[jobs]") {
    for (int policy : {0, 1})
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
            REQUIRE_CLEAN(r);
        }
}

TEST_CASE("ping-pong carries data, source, tag and count", "[jobs]") {
    for (int policy : {0, 1}) {
        const JobResult r = run_job(shape(2, policy), [](int rank) {
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
                    int count = -1;
                    EXPECT_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
                    EXPECT(count == 64);
                    EXPECT_OK(MPI_Get_count(&st, MPI_BYTE, &count));
                    EXPECT(count == 64 * 8);
                    for (int i = 0; i < 64; ++i)
                        buf[i] = -buf[i];
                    EXPECT_OK(MPI_Send(buf, 64, MPI_DOUBLE, 0, round + 1000, MPI_COMM_WORLD));
                }
            }
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        REQUIRE_CLEAN(r);
    }
}

TEST_CASE("large messages go through the portal intact", "[jobs]") {
    const JobResult r = run_job(shape(3, 1), [](int rank) {
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
    REQUIRE_CLEAN(r);
}

TEST_CASE("ANY_SOURCE receives from every rank once", "[jobs]") {
    const int np = 9;
    const JobResult r = run_job(shape(np, 1), [np](int rank) {
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
    REQUIRE_CLEAN(r);
}

TEST_CASE("tags select among queued messages; arrival order otherwise", "[jobs]") {
    // Ranks 1 and 2 send while rank 0 waits for rank 3, so their requests
    // queue up as unexpected messages, 1's before 2's: 2 sends once 1's
    // request reached rank 0, 3 once both did.
    JobConfig c = shape(4);
    const JobResult r = run_job(c, [](int rank) {
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
            break;
        case 2:
            fake::wait_arrivals(0, 1);
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
            break;
        case 3:
            fake::wait_arrivals(0, 2);
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
            break;
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE_CLEAN(r);
}

TEST_CASE("a sender waiting for its reply queues others' requests", "[jobs]") {
    // 0 sends to 1 while 2 sends to 0: 0 reads 2's request while it waits
    // for 1's confirmation (1 receives only once that request reached 0),
    // and must still receive it afterwards.
    const JobResult r = run_job(shape(3), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = rank;
        if (rank == 0) {
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT(v == 2);
        } else if (rank == 1) {
            fake::wait_arrivals(0, 1);
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT(v == 0);
        } else {
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE_CLEAN(r);
}

TEST_CASE("truncation fills the buffer and reports MPI_ERR_TRUNCATE", "[jobs]") {
    const JobResult r = run_job(shape(2, 1), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int v[100];
        if (rank == 0) {
            for (int i = 0; i < 100; ++i)
                v[i] = i;
            EXPECT_OK(MPI_Send(v, 100, MPI_INT, 1, 3, MPI_COMM_WORLD));
        } else {
            int small[11];
            small[10] = -1;
            MPI_Status st;
            EXPECT(MPI_Recv(small, 10, MPI_INT, 0, 3, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
            for (int i = 0; i < 10; ++i)
                EXPECT(small[i] == i);
            EXPECT(small[10] == -1);
            int count = -1;
            EXPECT_OK(MPI_Get_count(&st, MPI_INT, &count));
            EXPECT(count == 10 && st.MPI_SOURCE == 0 && st.MPI_TAG == 3);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE_CLEAN(r);
}

TEST_CASE("zero-byte messages and a zero-size buffer skip the portal", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        MPI_Status st;
        int v = 5;
        if (rank == 0) {
            EXPECT_OK(MPI_Send(nullptr, 0, MPI_INT, 1, 1, MPI_COMM_WORLD));
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        } else {
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st));
            int count = -1;
            EXPECT_OK(MPI_Get_count(&st, MPI_INT, &count));
            EXPECT(count == 0 && v == 5);
            EXPECT(MPI_Recv(nullptr, 0, MPI_INT, 0, 2, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
            EXPECT_OK(MPI_Get_count(&st, MPI_INT, &count));
            EXPECT(count == 0);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE_CLEAN(r);
}

TEST_CASE("MPI_PROC_NULL and MPI_COMM_SELF", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = 1;
        MPI_Status st;
        EXPECT_OK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
        EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
        int count = -1;
        EXPECT_OK(MPI_Get_count(&st, MPI_INT, &count));
        EXPECT(count == 0);
        EXPECT_OK(MPI_Barrier(MPI_COMM_SELF));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        EXPECT(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_SELF) == MPI_ERR_RANK);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE_CLEAN(r);
}

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
        REQUIRE_CLEAN(r);
    }
}

TEST_CASE("user wildcards do not match barrier traffic", "[jobs]") {
    // Rank 1 enters the barrier while rank 0 still waits for a user
    // message from rank 2 with ANY_SOURCE/ANY_TAG: 2 sends once 1's
    // barrier request reached rank 0.
    const JobResult r = run_job(shape(3), [](int rank) {
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
    REQUIRE_CLEAN(r);
}

TEST_CASE("late starters: name lookups wait for the name", "[jobs]") {
    JobConfig c = shape(3, 1);
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
    REQUIRE_CLEAN(r);
}

TEST_CASE("a send waits for a late destination without a time limit", "[jobs]") {
    // Rank 1 starts 40 s late by the job's clock: longer than any fixed
    // limit on name lookups would allow.
    JobConfig c = shape(2, 1);
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
    REQUIRE_CLEAN(r);
}

TEST_CASE("argument errors are returned with MPI_ERRORS_RETURN", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        MPI_Errhandler h = 0;
        EXPECT_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h));
        EXPECT(h == MPI_ERRORS_ARE_FATAL);
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h));
        EXPECT(h == MPI_ERRORS_RETURN);
        int v = 0, n = 0;
        MPI_Status st;
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL) == MPI_ERR_COMM);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, 0x43000077) == MPI_ERR_COMM);
        EXPECT(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
        EXPECT(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
        EXPECT(MPI_Send(nullptr, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
        EXPECT(MPI_Send(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD) == MPI_ERR_TAG);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, LWMPI_TAG_UB + 1, MPI_COMM_WORLD) == MPI_ERR_TAG);
        EXPECT(MPI_Recv(&v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &st) == MPI_ERR_TAG);
        EXPECT(MPI_Recv(&v, 1, MPI_INT, 5, 0, MPI_COMM_WORLD, &st) == MPI_ERR_RANK);
        EXPECT(MPI_Recv(&v, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, &st) == MPI_ERR_COUNT);
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
    REQUIRE_CLEAN(r);
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
        const JobResult r = run_job(shape(3, 1), [code](int rank) {
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

TEST_CASE("a send to self (or receive from self) fails at once", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        int v = 0;
        EXPECT(MPI_Send(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD) == MPI_ERR_OTHER);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_SELF) == MPI_ERR_OTHER);
        EXPECT(MPI_Ssend(nullptr, 0, MPI_INT, 0, 0, MPI_COMM_SELF) == MPI_ERR_OTHER);
        // Nothing can come from self either.
        EXPECT(MPI_Recv(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_ERR_OTHER);
        EXPECT(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE) ==
               MPI_ERR_OTHER);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE_CLEAN(r);

    const JobResult fatal = run_job(shape(1), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = 0;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_SELF);
        return 1;
    });
    INFO(statuses(fatal));
    CHECK(fatal.abort_code == MPI_ERR_OTHER);
    CHECK(fatal.console == "MPI error: rank 0: MPI_Send: other error (a send to self never "
                           "completes: LWMPI sends are synchronous)\n");
}

TEST_CASE("head-to-head sends are reported, not left to deadlock", "[jobs]") {
    // Each reads the other's request to send while it waits for the
    // other's clear-to-send.
    const JobResult r = run_job(shape(2, 1), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = rank;
        MPI_Send(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
        return 1;
    });
    INFO(statuses(r));
    CHECK(r.aborted);
    CHECK(r.abort_code == MPI_ERR_OTHER);
    const auto line = [](int me, int peer) {
        return "MPI error: rank " + std::to_string(me) + ": MPI_Send: other error (rank " +
               std::to_string(peer) +
               " is sending to this rank at the same time; LWMPI sends are synchronous)\n";
    };
    CHECK((r.console.find(line(0, 1)) != std::string::npos ||
           r.console.find(line(1, 0)) != std::string::npos));
}

TEST_CASE("a send to a rank whose request is queued here fails at once", "[jobs]") {
    // 1 sends to 0; 0 queues that request while it receives from 2, then
    // sends to 1: refused before its request leaves, so 0 can still
    // receive from 1 and the job ends cleanly.
    const JobResult r = run_job(shape(3), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = rank;
        if (rank == 0) {
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 2, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
            EXPECT(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD) == MPI_ERR_OTHER);
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT(v == 1);
        } else if (rank == 1) {
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        } else {
            fake::wait_arrivals(0, 1);
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE_CLEAN(r);
}

TEST_CASE("MPI_Init refuses a rank whose name is already linked", "[jobs]") {
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT(lwmpi::os::name_link("mpi:0", lwmpi::os::job()->cluster_id) == 0);
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_INTERN);
        EXPECT(lwmpi::os::name_unlink("mpi:0") == 0);
        return 0;
    });
    REQUIRE_CLEAN(r);  // mailbox and portal given back too
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
        EXPECT(provided == MPI_THREAD_SINGLE);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE_CLEAN(r);
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
    REQUIRE_CLEAN(r);
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
    REQUIRE_CLEAN(r);
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
    REQUIRE_CLEAN(r);
}

TEST_CASE("a small mailbox payload is refused at MPI_Init", "[jobs]") {
    JobConfig c = shape(1);
    c.payload = 16;
    const JobResult r = run_job(c, [](int) {
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_INTERN);
        return 0;
    });
    REQUIRE_CLEAN(r);
}

TEST_CASE("mpi.h works from C", "[jobs]") {
    const JobResult r = run_job(shape(4, 1), [](int) { return lwmpi_c_smoke(); });
    REQUIRE_CLEAN(r);
}
