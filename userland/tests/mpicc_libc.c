/* An ordinary single-file MPI C program, built with tools/mpicc by
 * test_mpicc.py: it uses printf, malloc, <string.h>, <math.h> and the
 * sleeps of <unistd.h>. Each rank fills 1 MiB of heap (4 MiB per compute
 * cluster at 4 ranks a cluster) and sends sqrt(rank + 1) * 2^(rank % 3) to
 * rank 0, which prints the sum; rank 0 also checks that sleep and usleep
 * sleep. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const size_t n = 1u << 20;
    unsigned char *heap = malloc(n);
    if (!heap) {
        printf("rank %d: malloc of %zu bytes failed\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(heap, rank + 1, n);
    unsigned long sum_bytes = 0;
    for (size_t i = 0; i < n; i += 4096)
        sum_bytes += heap[i];
    char line[64];
    snprintf(line, sizeof line, "rank %d heap %lu", rank, sum_bytes);
    printf("%s\n", line);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        double t0 = MPI_Wtime();
        int u = usleep(20000);
        double t1 = MPI_Wtime();
        unsigned s = sleep(1);
        double t2 = MPI_Wtime();
        printf("usleep %d %s, sleep %u %s\n", u, t1 - t0 >= 0.02 ? "slept" : "did not sleep", s,
               t2 - t1 >= 1.0 ? "slept" : "did not sleep");
    }

    double v = sqrt((double)(rank + 1)) * pow(2.0, rank % 3);
    if (rank == 0) {
        double sum = v;
        for (int r = 1; r < size; ++r) {
            double x;
            MPI_Recv(&x, 1, MPI_DOUBLE, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += x;
        }
        printf("sum %.6f\n", sum);
    } else {
        MPI_Send(&v, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    }
    free(heap);
    MPI_Finalize();
    return 0;
}
