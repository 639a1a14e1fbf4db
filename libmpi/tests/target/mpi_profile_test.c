/*
 * mpi_profile_test: the profiling interface (MPI 3.1 chapter 14). The
 * program defines its own MPI_Init, MPI_Send, MPI_Allgather, MPI_Bcast
 * and MPI_Comm_free, each counting its calls and calling the PMPI_ one, as
 * a profiling tool does; it links against the library without a
 * duplicate symbol.
 *
 *   Each wrapper is called for each of the program's calls (MPI_Init
 *   once, before MPI is initialized; a ring of MPI_Send); PMPI_ calls
 *   bypass the wrappers; the calls that the library makes on its own
 *   behalf never reach them: MPI_Comm_split, MPI_Comm_split_type,
 *   MPI_Win_create, MPI_Win_allocate_shared and MPI_Win_free (in LWMPI,
 *   MPI_Allgather, MPI_Bcast and MPI_Comm_free inside), MPI_Barrier,
 *   MPI_Allreduce, a large MPI_Ssend and MPI_Finalize leave the counts
 *   alone; a PMPI_ name of every sort of function answers (PMPI_Wtime,
 *   PMPI_Comm_c2f, PMPI_Get_version); MPI_Pcontrol, wrapped too, takes
 *   any arguments after its level.
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes. Rank 0 prints "mpi_profile_test: OK (np=N)" at the end;
 * the first failed check prints "FAIL mpi_profile_test.c:<line>: ..." and
 * ends the job with a non-zero status.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_profile_test"

#include "mpitest.h"

/* Calls of each wrapper by the rank. */
static _Thread_local int init_calls, send_calls, allgather_calls, bcast_calls, comm_free_calls;
/* The last level given to MPI_Pcontrol. */
static _Thread_local int pcontrol_level = -1;

int MPI_Init(int *argc, char ***argv) {
    init_calls++;
    return PMPI_Init(argc, argv);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    send_calls++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
    allgather_calls++;
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    bcast_calls++;
    return PMPI_Bcast(buffer, count, datatype, root, comm);
}

/* A wrapper of a variadic function: the level reaches it, and LWMPI's
 * PMPI_Pcontrol. */
int MPI_Pcontrol(const int level, ...) {
    pcontrol_level = level;
    return PMPI_Pcontrol(level);
}

int MPI_Comm_free(MPI_Comm *comm) {
    comm_free_calls++;
    return PMPI_Comm_free(comm);
}

/* The counts are what the program's own calls make them. */
static void expect_counts_at(int line, int send, int allgather, int bcast, int comm_free) {
    if (send_calls != send || allgather_calls != allgather || bcast_calls != bcast ||
        comm_free_calls != comm_free)
        fail_at(line,
                "wrapper calls (Send, Allgather, Bcast, Comm_free) are (%d, %d, %d, %d), expected (%d, %d, "
                "%d, %d)",
                send_calls, allgather_calls, bcast_calls, comm_free_calls, send, allgather, bcast, comm_free);
}
#define EXPECT_COUNTS(...) expect_counts_at(__LINE__, __VA_ARGS__)

/* A token once around the ring with MPI_Send (through the wrapper), then
 * back with PMPI_Send (around it). */
static void ring(void) {
    int token = me, got = -1;
    const int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Request req;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(got, left);
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &req));
    MPI_OK(PMPI_Send(&token, 1, MPI_INT, left, 2, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(got, right);
}

/* Calls that, in some implementation, do their work with the wrapped
 * calls: none may reach a wrapper. */
static void library_calls(void) {
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));
    int size = 0;
    MPI_OK(MPI_Comm_size(half, &size));
    CHECK_EQ(size, (np + 1 - me % 2) / 2);
    MPI_OK(MPI_Barrier(half));
    int sum = 0;
    MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(sum, np * (np - 1) / 2);

    int cell = -1;
    MPI_Win win;
    MPI_OK(MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(&me, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK_EQ(cell, (me + np - 1) % np);
    MPI_OK(MPI_Win_free(&win));

    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int *mine = NULL;
    MPI_OK(MPI_Win_allocate_shared(sizeof *mine, sizeof *mine, MPI_INFO_NULL, node, &mine, &win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(PMPI_Comm_free(&node));

    /* A synchronous send large enough for a rendezvous, to oneself. */
    enum { big = 1 << 16 };
    char *out = xmalloc(big), *in = xmalloc(big);
    memset(out, me + 1, big);
    MPI_Request req;
    MPI_OK(MPI_Irecv(in, big, MPI_CHAR, 0, 3, MPI_COMM_SELF, &req));
    MPI_OK(MPI_Ssend(out, big, MPI_CHAR, 0, 3, MPI_COMM_SELF));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(memcmp(in, out, big) == 0);
    free(out);
    free(in);
    MPI_OK(PMPI_Comm_free(&half));
}

int main(int argc, char **argv) {
    int flag = 1;
    MPI_OK(PMPI_Initialized(&flag));
    CHECK_EQ(flag, 0);
    MPI_OK(MPI_Init(&argc, &argv));
    CHECK_EQ(init_calls, 1);
    MPI_OK(MPI_Initialized(&flag));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));

    phase = "wrappers";
    EXPECT_COUNTS(0, 0, 0, 0);
    ring();
    EXPECT_COUNTS(1, 0, 0, 0);
    int *ranks = xmalloc(np * sizeof *ranks);
    MPI_OK(MPI_Allgather(&me, 1, MPI_INT, ranks, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < np; r++)
        CHECK_EQ(ranks[r], r);
    free(ranks);
    int root_rank = me;
    MPI_OK(MPI_Bcast(&root_rank, 1, MPI_INT, np - 1, MPI_COMM_WORLD));
    CHECK_EQ(root_rank, np - 1);
    EXPECT_COUNTS(1, 1, 1, 0);

    phase = "the library's own calls";
    library_calls();
    EXPECT_COUNTS(1, 1, 1, 0);
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_free(&dup));
    EXPECT_COUNTS(1, 1, 1, 1);

    phase = "PMPI_ names";
    int version = 0, subversion = 0;
    MPI_OK(PMPI_Get_version(&version, &subversion));
    CHECK_EQ(version, MPI_VERSION);
    CHECK(PMPI_Wtime() >= 0.0 && PMPI_Wtick() > 0.0);
    CHECK(PMPI_Comm_f2c(PMPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
    MPI_OK(MPI_Pcontrol(0));
    MPI_OK(MPI_Pcontrol(2, "a profiling library's own arguments", 7));
    CHECK_EQ(pcontrol_level, 2);

    phase = "finalize";
    MPI_OK(MPI_Finalize());
    EXPECT_COUNTS(1, 1, 1, 1);
    if (me == 0) printf(NAME ": OK (np=%d)\n", np);
    return 0;
}
