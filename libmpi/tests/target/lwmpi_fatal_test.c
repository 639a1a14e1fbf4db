/*
 * lwmpi_fatal_test: the default error handler. The last rank sends to a
 * rank that does not exist; the job must print
 * "MPI error: MPI_Send: invalid rank" and exit with MPI_ERR_RANK.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1)
        MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
