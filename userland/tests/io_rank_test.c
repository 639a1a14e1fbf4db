/* The MPI I/O rank (mpirun --io-rank; docs/lwmpi.md, "The I/O rank"):
 *
 *   mpirun -np N io_rank_test world N MODE : --io-rank io_rank_test io N MODE
 *
 * The N world ranks check that MPI_COMM_WORLD is theirs alone (size N) and
 * that MPIX_COMM_LOCAL holds them, at their world ranks, and the I/O rank
 * last; each sends the I/O rank requests through MPIX_COMM_LOCAL and checks
 * its answers; rank 0 also ping-pongs with it, eagerly and by rendezvous.
 * The I/O rank checks that its MPI_COMM_WORLD holds itself alone and its
 * MPI_APPNUM is 1, then serves requests until each world rank has said it
 * is done. MODE:
 *   finalize  then everyone meets in an MPI_Allreduce over MPIX_COMM_LOCAL
 *             and calls MPI_Finalize;
 *   forever   the I/O rank then waits for further requests forever: the
 *             job must end, with status 0, when the world's ranks have;
 *   fail      the I/O rank exits with status 3 before MPI_Init: the job
 *             must end with 3, its world ranks still waiting for answers.
 * Prints "io_rank: rank R OK" for each world rank and "io_rank: I/O rank
 * OK" (finalize), "io_rank: I/O rank serves on" (forever), or a line with
 * FAIL and status 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_REQUEST = 1, TAG_PING = 2, TAG_DONE = 3 };
#define REQUESTS  4
#define ROUNDS    3
#define BIG_BYTES 40000 /* above every eager threshold: a rendezvous */

static char who[32] = "io_rank";

static void fail(const char *why) {
    printf("io_rank: %s FAIL: %s\n", who, why);
    exit(1);
}

static void check(int ok, const char *why) {
    if (!ok) fail(why);
}

/* What the I/O rank answers to request `value` from LOCAL rank `source`. */
static long answer(int source, long value) { return value * 3 + source; }

static unsigned char pattern(int round, int i) { return (unsigned char)(round * 13 + i * 7 + 5); }

static unsigned char big[BIG_BYTES];

/* The I/O rank's loop: answers requests, echoes pings, counts the world
 * ranks that are done; returns once all `np` are (never in forever mode). */
static void serve(int np, int forever) {
    int done = 0;
    for (;;) {
        MPI_Status st;
        check(MPI_Recv(big, sizeof big, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPIX_COMM_LOCAL, &st) ==
                  MPI_SUCCESS,
              "MPI_Recv on MPIX_COMM_LOCAL");
        check(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < np, "a message from no world rank");
        int bytes;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        if (st.MPI_TAG == TAG_REQUEST) {
            long value;
            check(bytes == sizeof value, "a request of the wrong size");
            memcpy(&value, big, sizeof value);
            const long reply = answer(st.MPI_SOURCE, value);
            MPI_Send(&reply, 1, MPI_LONG, st.MPI_SOURCE, TAG_REQUEST, MPIX_COMM_LOCAL);
        } else if (st.MPI_TAG == TAG_PING) {
            MPI_Send(big, bytes, MPI_BYTE, st.MPI_SOURCE, TAG_PING, MPIX_COMM_LOCAL);
        } else if (st.MPI_TAG == TAG_DONE && ++done == np) {
            if (!forever) return;
            printf("io_rank: I/O rank serves on\n");
            fflush(stdout);
        }
    }
}

static void io_rank(int np, const char *mode) {
    int size, rank, local_size, local_rank, appnum, flag, *attr, len;
    char name[MPI_MAX_OBJECT_NAME];
    snprintf(who, sizeof who, "I/O rank");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check(size == 1 && rank == 0, "my MPI_COMM_WORLD is not myself alone");
    MPI_Comm_size(MPIX_COMM_LOCAL, &local_size);
    MPI_Comm_rank(MPIX_COMM_LOCAL, &local_rank);
    check(local_size == np + 1 && local_rank == np, "I am not the last of MPIX_COMM_LOCAL");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &attr, &flag);
    appnum = flag ? *attr : -1;
    check(appnum == 1, "my MPI_APPNUM is not 1");
    MPI_Comm_get_name(MPIX_COMM_LOCAL, name, &len);
    check(!strcmp(name, "MPIX_COMM_LOCAL"), "MPIX_COMM_LOCAL has another name");
    serve(np, !strcmp(mode, "forever"));
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPIX_COMM_LOCAL);
    check(sum == np + 1, "the MPI_Allreduce over MPIX_COMM_LOCAL");
    printf("io_rank: I/O rank OK\n");
}

/* Rank 0's ping-pong with the I/O rank: small messages, then large ones. */
static void ping_pong(int io) {
    static const int sizes[] = {8, BIG_BYTES};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (int round = 0; round < ROUNDS; ++round) {
            for (int i = 0; i < sizes[s]; ++i)
                big[i] = pattern(round, i);
            MPI_Send(big, sizes[s], MPI_BYTE, io, TAG_PING, MPIX_COMM_LOCAL);
            memset(big, 0, sizeof big);
            MPI_Status st;
            int bytes;
            MPI_Recv(big, sizeof big, MPI_BYTE, io, TAG_PING, MPIX_COMM_LOCAL, &st);
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            check(bytes == sizes[s], "a ping came back with another size");
            for (int i = 0; i < sizes[s]; ++i)
                check(big[i] == pattern(round, i), "a ping came back changed");
        }
}

static void world_rank(int np, const char *mode) {
    int size, rank, local_size, local_rank, appnum, flag, *attr;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(who, sizeof who, "rank %d", rank);
    check(size == np, "MPI_COMM_WORLD's size is not the world's -np");
    MPI_Comm_size(MPIX_COMM_LOCAL, &local_size);
    MPI_Comm_rank(MPIX_COMM_LOCAL, &local_rank);
    check(local_size == np + 1, "MPIX_COMM_LOCAL is not the world and the I/O rank");
    check(local_rank == rank, "my rank in MPIX_COMM_LOCAL is not my world rank");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &attr, &flag);
    appnum = flag ? *attr : -1;
    check(appnum == 0, "my MPI_APPNUM is not 0");
    const int io = np;
    for (long value = 0; value < REQUESTS; ++value) {
        const long request = value * 100 + rank;
        long reply = -1;
        MPI_Send(&request, 1, MPI_LONG, io, TAG_REQUEST, MPIX_COMM_LOCAL);
        MPI_Recv(&reply, 1, MPI_LONG, io, TAG_REQUEST, MPIX_COMM_LOCAL, MPI_STATUS_IGNORE);
        check(reply == answer(rank, request), "a wrong answer from the I/O rank");
    }
    if (rank == 0) ping_pong(io);
    /* A barrier of the world alone: the I/O rank is in no MPI_COMM_WORLD of ours. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(NULL, 0, MPI_BYTE, io, TAG_DONE, MPIX_COMM_LOCAL);
    if (!strcmp(mode, "finalize")) {
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPIX_COMM_LOCAL);
        check(sum == np + 1, "the MPI_Allreduce over MPIX_COMM_LOCAL");
    }
    printf("io_rank: rank %d OK\n", rank);
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[1], "world") && strcmp(argv[1], "io")))
        fail("usage: io_rank_test world|io NP finalize|forever|fail");
    const int np = atoi(argv[2]);
    if (!strcmp(argv[1], "io") && !strcmp(argv[3], "fail")) return 3;
    MPI_Init(&argc, &argv);
    if (!strcmp(argv[1], "io"))
        io_rank(np, argv[3]);
    else
        world_rank(np, argv[3]);
    MPI_Finalize();
    return 0;
}
