/* On-target test: another thread of a rank calls MPI
 * (MPI_THREAD_SERIALIZED, MPI 3.1 section 12.4), with ranks as processes
 * or as threads: it sees the rank's state, not a state of its own. Needs an even number of ranks and a free
 * core per rank for its thread (-np 2, any mapping).
 *
 * Each rank asks for MPI_THREAD_SERIALIZED and starts a helper thread,
 * which checks MPI_Initialized, the rank, the thread level and
 * MPI_Is_thread_main, exchanges 50 small messages and one of 100,000
 * bytes with the peer rank, and posts a receive. The main thread waits
 * for it to end, sends, and completes the helper's receive. Each rank
 * prints "mpi_thread_test: rank R OK" or a FAIL line, and exits 1 on a
 * failure. */
#include <mpi.h>
#include <stdio.h>
#include <tessera/runtime.h>

#define BIG 100000

static int rank, peer;
static MPI_Request posted;
static int got[2];

static int exchange_small(void) {
    int out[2] = {rank, 10 + rank}, in[2] = {0, 0};
    for (int k = 0; k < 50; ++k)
        if (MPI_Sendrecv(out, 2, MPI_INT, peer, 0, in, 2, MPI_INT, peer, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            in[0] != peer || in[1] != 10 + peer)
            return 0;
    return 1;
}

static int exchange_big(void) {
    static char out[BIG], in[BIG];
    for (int i = 0; i < BIG; ++i)
        out[i] = (char)(i * 7 + rank);
    if (MPI_Sendrecv(out, BIG, MPI_CHAR, peer, 2, in, BIG, MPI_CHAR, peer, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return 0;
    for (int i = 0; i < BIG; ++i)
        if (in[i] != (char)(i * 7 + peer)) return 0;
    return 1;
}

/* The helper thread: its result is its exit status (0: all passed). */
static void helper(void *arg) {
    (void)arg;
    int inited = 0, me = -1, level = -1, main_thread = -1;
    MPI_Initialized(&inited);
    if (!inited) { /* MPI would raise its error: the thread is no rank */
        printf("mpi_thread_test: FAIL: rank %d's thread sees MPI not initialized\n", rank);
        ts_thread_exit(0x40);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Query_thread(&level);
    MPI_Is_thread_main(&main_thread);
    if (me != rank || level != MPI_THREAD_SERIALIZED || main_thread != 0) {
        printf("mpi_thread_test: FAIL: rank %d's thread sees rank %d, level %d, main %d\n", rank, me, level,
               main_thread);
        ts_thread_exit(0x40);
    }
    if (!exchange_small())
        printf("mpi_thread_test: FAIL: rank %d's thread: small messages\n", rank);
    else if (!exchange_big())
        printf("mpi_thread_test: FAIL: rank %d's thread: a large message\n", rank);
    else if (MPI_Irecv(got, 2, MPI_INT, peer, 1, MPI_COMM_WORLD, &posted) != MPI_SUCCESS)
        printf("mpi_thread_test: FAIL: rank %d's thread: MPI_Irecv\n", rank);
    else
        ts_thread_exit(0);
    ts_thread_exit(0x40);
}

int main(int argc, char **argv) {
    int provided = -1, main_thread = -1, status = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Is_thread_main(&main_thread);
    peer = rank ^ 1;
    const int tid = ts_thread_create(helper, 0);
    if (tid < 0) {
        printf("mpi_thread_test: FAIL: rank %d cannot start a thread (error %d)\n", rank, tid);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    ts_thread_join(tid, &status);
    if (status != 0) MPI_Abort(MPI_COMM_WORLD, 1); /* its receive may not be posted */
    const int mine[2] = {20 + rank, 30 + rank};
    MPI_Send(mine, 2, MPI_INT, peer, 1, MPI_COMM_WORLD);
    MPI_Wait(&posted, MPI_STATUS_IGNORE);
    const int ok =
        provided == MPI_THREAD_SERIALIZED && main_thread == 1 && got[0] == 20 + peer && got[1] == 30 + peer;
    if (ok)
        printf("mpi_thread_test: rank %d OK\n", rank);
    else
        printf("mpi_thread_test: FAIL: rank %d: provided %d, main %d, received %d %d\n", rank, provided,
               main_thread, got[0], got[1]);
    MPI_Finalize();
    return !ok;
}
