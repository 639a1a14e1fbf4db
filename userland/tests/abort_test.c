/* abort_test [CODE]: rank 0 aborts the job with CODE (default 3) while
 * every other rank is blocked in a receive that never completes; the job
 * must end with CODE's exit status. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, value;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Abort(MPI_COMM_WORLD, argc > 1 ? atoi(argv[1]) : 3);
    MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
