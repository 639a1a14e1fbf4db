// Errors in whole jobs (test_jobs_* share jobs_support.hpp): what
// MPI_ERRORS_RETURN gives back, the reports of the default handler and of
// MPI_Abort (after the rank's own output) and how they end the job, and a
// rank that ends without MPI_Finalize.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <string>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

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
        if (rank == 1) MPI_Send(&v, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);  // does not return
        MPI_Barrier(MPI_COMM_WORLD);                                    // never completes
        return 1;
    });
    INFO(statuses(r));
    CHECK(r.aborted);
    CHECK(r.abort_code == MPI_ERR_RANK);
    CHECK(r.console ==
          "MPI error: rank 1: MPI_Send: invalid rank "
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
        if (rank == 2) MPI_Abort(MPI_COMM_WORLD, 42);
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
    CHECK(r.console ==
          "rank 1: no newline yet\n"
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
        CHECK(r.console == "rank 0: bad input\nMPI error: rank 0 exited with status " + std::to_string(code) +
                               " without calling MPI_Finalize\n");
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
