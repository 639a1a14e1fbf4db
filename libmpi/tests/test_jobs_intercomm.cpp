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

namespace {

// The intercommunicator of {0, 1} (the low group) and {2, 3, 4}, its local
// leaders world ranks 0 and 2.
MPI_Comm unequal_halves(int rank, MPI_Comm *half) {
    const int low = rank < 2;
    MPI_Comm inter = MPI_COMM_NULL;
    if (MPI_Comm_split(MPI_COMM_WORLD, low, rank, half) != MPI_SUCCESS) return MPI_COMM_NULL;
    if (MPI_Intercomm_create(*half, 0, MPI_COMM_WORLD, low ? 2 : 0, 9, &inter) != MPI_SUCCESS)
        return MPI_COMM_NULL;
    return inter;
}

}  // namespace

TEST_CASE("non-blocking collectives on an intercommunicator, several at once", "[jobs][nbc]") {
    for (const Placement &p : placements) {
        DYNAMIC_SECTION(p.name) {
            const JobResult r = run_job(config(5, p), [](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                MPI_Comm half, inter = unequal_halves(rank, &half), dup = MPI_COMM_NULL;
                EXPECT(inter != MPI_COMM_NULL);
                const int low = rank < 2, me = low ? rank : rank - 2, remote = low ? 3 : 2;
                const int first_remote = low ? 2 : 0;  // world rank of remote rank 0
                // Bcast from the low group's rank 1; Reduce to the high
                // group's rank 2; Gather to the low group's rank 0.
                int bval = low && me == 1 ? 77 : -1;
                const int broot = low ? (me == 1 ? MPI_ROOT : MPI_PROC_NULL) : 1;
                int rsend[2] = {rank, 1}, rrecv[2] = {-1, -1};
                const int rroot = low ? 2 : (me == 2 ? MPI_ROOT : MPI_PROC_NULL);
                int gathered[3] = {-1, -1, -1};
                const int groot = low ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
                int sum = -1, all[3] = {-1, -1, -1}, out[3], in[3] = {-1, -1, -1};
                for (int r = 0; r < remote; ++r)
                    out[r] = rank * 100 + r;
                // 6 elements a side: 3 to each low rank, 2 to each high one.
                int rs_send[6], rs_recv[3] = {-1, -1, -1};
                for (int i = 0; i < 6; ++i)
                    rs_send[i] = rank + i;
                MPI_Request req[9];
                EXPECT_OK(MPI_Ibarrier(inter, &req[0]));
                EXPECT_OK(MPI_Ibcast(&bval, 1, MPI_INT, broot, inter, &req[1]));
                EXPECT_OK(MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter, &req[2]));
                EXPECT_OK(MPI_Ireduce(rsend, rrecv, 2, MPI_INT, MPI_SUM, rroot, inter, &req[3]));
                EXPECT_OK(MPI_Igather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, groot, inter, &req[4]));
                EXPECT_OK(MPI_Iallgather(&rank, 1, MPI_INT, all, 1, MPI_INT, inter, &req[5]));
                EXPECT_OK(MPI_Ialltoall(out, 1, MPI_INT, in, 1, MPI_INT, inter, &req[6]));
                EXPECT_OK(MPI_Ireduce_scatter_block(rs_send, rs_recv, low ? 3 : 2, MPI_INT, MPI_SUM, inter,
                                                    &req[7]));
                EXPECT_OK(MPI_Comm_idup(inter, &dup, &req[8]));
                // Completed in an order of each rank's own.
                if (rank % 2 == 0) {
                    EXPECT_OK(MPI_Waitall(9, req, MPI_STATUSES_IGNORE));
                } else {
                    for (int i = 8; i >= 0; --i)
                        EXPECT_OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
                }
                EXPECT(low || bval == 77);
                EXPECT(!low || bval == (me == 1 ? 77 : -1));
                EXPECT(sum == (low ? 2 + 3 + 4 : 0 + 1));
                EXPECT(rrecv[0] == (!low && me == 2 ? 0 + 1 : -1));
                EXPECT(rrecv[1] == (!low && me == 2 ? 2 : -1));
                EXPECT(gathered[0] == (low && me == 0 ? 2 : -1));
                EXPECT(gathered[2] == (low && me == 0 ? 4 : -1));
                for (int r = 0; r < remote; ++r) {
                    EXPECT(all[r] == first_remote + r);
                    EXPECT(in[r] == (first_remote + r) * 100 + me);
                }
                // Element i of the other group's sum, i from my piece on.
                const int others = low ? 2 + 3 + 4 : 0 + 1, piece = low ? 3 : 2;
                for (int i = 0; i < piece; ++i)
                    EXPECT(rs_recv[i] == others + remote * (me * piece + i));
                // The new intercommunicator carries messages of its own.
                int flag = 0, rsize = 0, token = -1;
                EXPECT_OK(MPI_Comm_test_inter(dup, &flag));
                EXPECT_OK(MPI_Comm_remote_size(dup, &rsize));
                EXPECT(flag && rsize == remote);
                if (me == 0) {
                    EXPECT_OK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 4, &token, 1, MPI_INT, 0, 4, dup,
                                           MPI_STATUS_IGNORE));
                    EXPECT(token == first_remote);
                }
                EXPECT_OK(MPI_Comm_free(&dup));
                EXPECT_OK(MPI_Comm_free(&inter));
                EXPECT_OK(MPI_Comm_free(&half));
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
    }
}

TEST_CASE("non-blocking collectives on an intercommunicator refuse what the blocking ones do",
          "[jobs][nbc]") {
    const JobResult r = run_job(shape(5), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        MPI_Comm half, inter = unequal_halves(rank, &half), dup = MPI_COMM_NULL;
        EXPECT(inter != MPI_COMM_NULL);
        EXPECT_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
        int v = 1, w = 0;
        MPI_Request req = MPI_REQUEST_NULL;
        // Defined on intracommunicators only (section 5.12.11).
        EXPECT(MPI_Iscan(&v, &w, 1, MPI_INT, MPI_SUM, inter, &req) == MPI_ERR_COMM);
        EXPECT(MPI_Iexscan(&v, &w, 1, MPI_INT, MPI_SUM, inter, &req) == MPI_ERR_COMM);
        EXPECT(req == MPI_REQUEST_NULL);
        // Roots: a rank of the remote group, MPI_ROOT or MPI_PROC_NULL.
        EXPECT(MPI_Ibcast(&v, 1, MPI_INT, -7, inter, &req) == MPI_ERR_ROOT);
        EXPECT(MPI_Ibcast(&v, 1, MPI_INT, 3, inter, &req) == MPI_ERR_ROOT);
        EXPECT(MPI_Igather(&v, 1, MPI_INT, &w, 1, MPI_INT, 5, inter, &req) == MPI_ERR_ROOT);
        EXPECT(MPI_Ireduce(&v, &w, 1, MPI_INT, MPI_SUM, -9, inter, &req) == MPI_ERR_ROOT);
        // No MPI_IN_PLACE between groups; the other checks as blocking.
        EXPECT(MPI_Iallreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, inter, &req) == MPI_ERR_BUFFER);
        EXPECT(MPI_Iallreduce(&v, &w, 1, MPI_INT, MPI_OP_NULL, inter, &req) == MPI_ERR_OP);
        EXPECT(MPI_Iallgather(&v, -1, MPI_INT, &w, 1, MPI_INT, inter, &req) == MPI_ERR_COUNT);
        EXPECT(MPI_Ibarrier(inter, nullptr) == MPI_ERR_ARG);
        EXPECT(MPI_Comm_idup(inter, nullptr, &req) == MPI_ERR_ARG);
        EXPECT(req == MPI_REQUEST_NULL);
        // Nothing was started: a collective still pairs up.
        EXPECT_OK(MPI_Comm_idup(inter, &dup, &req));
        EXPECT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        EXPECT_OK(MPI_Barrier(dup));
        EXPECT_OK(MPI_Comm_free(&dup));
        EXPECT_OK(MPI_Comm_free(&inter));
        EXPECT_OK(MPI_Comm_free(&half));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}
