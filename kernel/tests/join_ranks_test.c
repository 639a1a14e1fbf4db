/* On-target test: a thread's id is a core number, and once the thread has
 * ended, another rank's thread may run on that core. Joining the first
 * thread must still give its own exit status (the kernel keeps it with the
 * thread's process, not with the core).
 *
 * Rank 0 starts a thread that ends with status 0 and joins it (which
 * waits for its end), then lets rank 1 start one, which takes
 * the first free core: the one rank 0's thread had. Rank 1 joins its own;
 * then rank 0 joins its thread again, and must get the same answer (the
 * kernel keeps a thread's status until its process starts another thread
 * on that core). (A thread's non-zero status would end the job: the first
 * one is its process's.) Needs two ranks on one cluster (-np 2 --map-by compact).
 * Prints "join_ranks_test: OK" or FAIL lines, and exits 1 on a failure. */
#include <mpi.h>
#include <stdio.h>
#include <tessera/runtime.h>

static void end_with(void *status) { ts_thread_exit((int)(long)status); }

/* Starts a thread that ends with `status`; its id. */
static int start(long status) { return ts_thread_create(end_with, (void *)status); }

int main(int argc, char **argv) {
    int rank, token = 0, status = -1, failed = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const int tid = start(0);
        int r = ts_thread_join(tid, &status);
        if (r != 0 || status != 0) {
            printf("join_ranks_test: FAIL: join of thread %d gave %d, status %d (want 0, 0)\n", tid, r,
                   status);
            failed = 1;
        }
        MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        int theirs = 0;
        MPI_Recv(&theirs, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (theirs != tid) {
            printf("join_ranks_test: FAIL: rank 1's thread ran on core %d, not on %d\n", theirs, tid);
            failed = 1;
        }
        status = -1;
        r = ts_thread_join(tid, &status);
        if (r != 0 || status != 0) {
            printf(
                "join_ranks_test: FAIL: after the core's reuse, join of thread %d gave %d, status %d "
                "(want 0, 0)\n",
                tid, r, status);
            failed = 1;
        }
    } else if (rank == 1) {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const int tid = start(0);
        const int r = ts_thread_join(tid, &status);
        if (r != 0 || status != 0) {
            printf("join_ranks_test: FAIL: rank 1's join gave %d, status %d (want 0, 0)\n", r, status);
            failed = 1;
        }
        MPI_Send(&tid, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !failed) printf("join_ranks_test: OK\n");
    MPI_Finalize();
    return failed;
}
