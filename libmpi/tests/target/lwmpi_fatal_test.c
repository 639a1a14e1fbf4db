/*
 * lwmpi_fatal_test: the ways an MPI job ends early, chosen by argv[1]
 * (tests/target_tests.toml checks the report and the exit status):
 *   (none)        the last rank sends to a rank that does not exist:
 *                 the default error handler ends the job with MPI_ERR_RANK
 *   exit S        rank 0 returns S from main without MPI_Finalize while
 *                 the others wait for it in MPI_Recv
 *   early S       rank 0 returns S before MPI_Init (its rank from the
 *                 runtime), while the others wait for it in MPI_Recv
 *   giveup S      rank 0 calls MPI_Finalize, then exit(S), while the
 *                 others wait for it in MPI_Recv (MPI_Finalize is
 *                 collective: a deadlock LWMPI can see)
 *   late S        every rank calls MPI_Finalize; then rank 0 calls
 *                 exit(S) while the others sleep for 10 minutes
 *   deadlock      every rank r waits in MPI_Recv (tag 7) for rank r + 1
 *                 (mod size), after rank 0 sent rank 1 a message with
 *                 tag 5 that nobody receives: a deadlock LWMPI can see
 *   truncate      rank 1 leaves a partial line in its stdout buffer, then
 *                 receives 1 of the 4 ints rank 0 sends
 *   spin          a job that hangs where LWMPI cannot see it (3 ranks or
 *                 more): rank 0 computes forever; rank 1 waits in MPI_Recv
 *                 (tag 4) until rank 2 sends, 2 s after its start, then
 *                 computes forever; rank 2 then waits in MPI_Recv (tag 3)
 *                 for rank 0, the others in MPI_Barrier
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tessera/runtime.h>

int main(int argc, char **argv) {
    int rank, size, v[4] = {1, 2, 3, 4};
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "early") == 0 && ts_rank() == 0) {
        printf("rank 0: leaving before MPI_Init\n");
        return argc > 2 ? atoi(argv[2]) : 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "exit") == 0 || strcmp(mode, "early") == 0) {
        if (rank == 0) {
            printf("rank 0: leaving early\n");
            return argc > 2 ? atoi(argv[2]) : 0;
        }
        MPI_Recv(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "giveup") == 0) {
        if (rank == 0) {
            printf("rank 0: giving up\n");
            MPI_Finalize();
            exit(argc > 2 ? atoi(argv[2]) : 1);
        }
        MPI_Recv(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "late") == 0) {
        MPI_Finalize();
        if (rank == 0) {
            printf("rank 0: failing after MPI_Finalize\n");
            exit(argc > 2 ? atoi(argv[2]) : 1);
        }
        sleep(600);
        return 0;
    } else if (strcmp(mode, "deadlock") == 0) {
        if (rank == 0 && size > 1) MPI_Send(v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        MPI_Recv(v, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "truncate") == 0) {
        if (rank == 1) {
            printf("rank 1: partial line");
            MPI_Recv(v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 0) {
            MPI_Send(v, 4, MPI_INT, 1, 5, MPI_COMM_WORLD);
        }
    } else if (strcmp(mode, "spin") == 0) {
        if (rank == 1) MPI_Recv(v, 1, MPI_INT, 2, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 2) {
            sleep(2);
            MPI_Send(v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
            MPI_Recv(v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank < 2) {
            printf("rank %d: computing\n", rank);
            fflush(stdout);
            for (volatile unsigned long i = 0;; ++i) {}
        }
    } else if (rank == size - 1) {
        MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
