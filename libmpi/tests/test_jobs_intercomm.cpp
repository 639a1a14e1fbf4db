// Intercommunicators in whole jobs (MPI 3.1 section 6.6): the error
// classes of calls given the wrong kind of communicator or bad leaders,
// and one intercommunicator at work (the on-target suite,
// tests/target/mpi_intercomm_test.c, covers every call at more sizes).
#include <catch2/catch.hpp>

#include <mpi.h>

#include "jobs_support.hpp"

using namespace jobs;

TEST_CASE("intercommunicator calls refuse what they cannot work on", "[jobs]") {
    const JobResult r = run_job(shape(3), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int n = -1, v = 0;
        MPI_Group g;
        MPI_Comm c = MPI_COMM_NULL;
        EXPECT(MPI_Comm_remote_size(MPI_COMM_WORLD, &n) == MPI_ERR_COMM);
        EXPECT(MPI_Comm_remote_group(MPI_COMM_WORLD, &g) == MPI_ERR_COMM);
        EXPECT(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c) == MPI_ERR_COMM);
        EXPECT(MPI_Comm_test_inter(MPI_COMM_NULL, &n) == MPI_ERR_COMM);
        EXPECT(MPI_Intercomm_create(MPI_COMM_WORLD, 3, MPI_COMM_WORLD, 0, 1, &c) == MPI_ERR_RANK);
        if (rank == 0) {  // the peer communicator matters at the leader only
            EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
            EXPECT(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 7, 1, &c) == MPI_ERR_RANK);
            EXPECT(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_NULL, 1, 1, &c) == MPI_ERR_COMM);
            EXPECT(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 1, -1, &c) == MPI_ERR_TAG);
        }
        // A group joined with itself overlaps.
        EXPECT(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 1, &c) == MPI_ERR_COMM);
        EXPECT(c == MPI_COMM_NULL);
        EXPECT_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
        EXPECT(MPI_Comm_create_group(MPI_COMM_WORLD, g, -1, &c) == MPI_ERR_TAG);
        EXPECT(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c) == MPI_ERR_GROUP);
        EXPECT_OK(MPI_Group_free(&g));
        // Rank 0 alone against ranks 1 and 2.
        MPI_Comm half, inter;
        EXPECT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0, 0, &half));
        EXPECT_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank == 0 ? 1 : 0, 5, &inter));
        EXPECT_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
        EXPECT(MPI_Scan(&v, &n, 1, MPI_INT, MPI_SUM, inter) == MPI_ERR_COMM);
        EXPECT(MPI_Exscan(&v, &n, 1, MPI_INT, MPI_SUM, inter) == MPI_ERR_COMM);
        EXPECT(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c) == MPI_ERR_COMM);
        EXPECT(MPI_Bcast(&v, 1, MPI_INT, -7, inter) == MPI_ERR_ROOT);
        EXPECT(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, inter) == MPI_ERR_BUFFER);
        EXPECT_OK(MPI_Comm_free(&inter));
        EXPECT_OK(MPI_Comm_free(&half));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("an intercommunicator carries messages and collectives between its groups", "[jobs]") {
    for (const Placement &p : placements) {
        DYNAMIC_SECTION(p.name) {
            const JobResult r = run_job(config(4, p), [](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                const int low = rank < 2;  // {0, 1} against {2, 3}
                MPI_Comm half, inter, merged;
                EXPECT_OK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half));
                EXPECT_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? 2 : 0, 3, &inter));
                int lrank = -1, rsize = -1, flag = 0;
                EXPECT_OK(MPI_Comm_rank(inter, &lrank));
                EXPECT_OK(MPI_Comm_remote_size(inter, &rsize));
                EXPECT_OK(MPI_Comm_test_inter(inter, &flag));
                EXPECT(lrank == rank % 2 && rsize == 2 && flag);
                // Remote rank lrank is my partner: world rank rank ^ 2.
                int out = rank, in = -1;
                MPI_Status st;
                EXPECT_OK(
                    MPI_Sendrecv(&out, 1, MPI_INT, lrank, 0, &in, 1, MPI_INT, MPI_ANY_SOURCE, 0, inter, &st));
                EXPECT(in == (rank ^ 2) && st.MPI_SOURCE == lrank);
                int sum = -1;  // the other group's world ranks
                EXPECT_OK(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, inter));
                EXPECT(sum == (low ? 5 : 1));
                EXPECT_OK(MPI_Intercomm_merge(inter, low ? 1 : 0, &merged));  // high group first
                int mrank = -1;
                EXPECT_OK(MPI_Comm_rank(merged, &mrank));
                EXPECT(mrank == (rank + 2) % 4);
                EXPECT_OK(MPI_Comm_free(&merged));
                EXPECT_OK(MPI_Comm_free(&inter));
                EXPECT_OK(MPI_Comm_free(&half));
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
    }
}
