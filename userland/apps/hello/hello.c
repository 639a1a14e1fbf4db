/* hello: every MPI process says where it runs, in one line. */
#include <mpi.h>
#include <stdio.h>
#include <tessera/runtime.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("hello from rank %d of %d on cluster %d\n", rank, size, ts_job()->cluster_id);
    MPI_Finalize();
    return 0;
}
