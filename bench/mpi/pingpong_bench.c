/* pingpong_bench [REPS]: LWMPI's point-to-point latency and bandwidth
 * between ranks 0 and 1, for message sizes on both sides of the eager
 * threshold. Run it with -np 2: --map-by scatter puts the ranks on two
 * clusters (eager or rendezvous over IKC), --map-by compact on one (the
 * local path, or IKC with --local-path ikc).
 *
 * Each row is the median over REPS round trips (default 51) of
 * MPI_Send + MPI_Recv there and back, halved: the one-way time, in guest
 * cycles (`cycle` CSR) and microseconds (`time` CSR), and the bandwidth
 * that gives. Every message is checked on arrival. See bench/README.md. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DEFAULT_REPS 51
#define MAX_REPS 501
#define MAX_BYTES (256 * 1024)

static unsigned long cycles[MAX_REPS], ticks[MAX_REPS];
static const int sizes[] = {0, 8, 64, 256, 512, 513, 1024, 4096, 16384, 65536, 262144};

static void fail(const char *what, int size)
{
    printf("pingpong_bench: %s (%d bytes)\n", what, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const int reps = argc > 1 ? atoi(argv[1]) : DEFAULT_REPS;
    if (np != 2 || reps < 1 || reps > MAX_REPS) {
        if (rank == 0)
            printf("usage: mpirun -np 2 pingpong_bench [REPS 1..%d]\n", MAX_REPS);
        MPI_Finalize();
        return 2;
    }
    char *out = malloc(MAX_BYTES), *in = malloc(MAX_BYTES);
    if (!out || !in)
        fail("no memory", MAX_BYTES);
    const unsigned long hz = (unsigned long)(1.0 / MPI_Wtick() + 0.5);
    char where[MPI_MAX_PROCESSOR_NAME], peer[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(where, &len);
    MPI_Sendrecv(where, len + 1, MPI_CHAR, 1 - rank, 0, peer, sizeof peer, MPI_CHAR, 1 - rank, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) {
        printf("pingpong_bench: rank 0 on %s, rank 1 on %s\n", where, peer);
        bench_print_clocks(hz);
        printf("%8s %12s %10s %10s\n", "bytes", "cycles", "us", "MB/s");
    }
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int n = sizes[s];
        for (int i = 0; i <= reps; ++i) {
            memset(out, (char)(i + s), n);
            const unsigned long c0 = read_cycle(), t0 = read_time();
            if (rank == 0) {
                MPI_Send(out, n, MPI_BYTE, 1, s, MPI_COMM_WORLD);
                MPI_Recv(in, n, MPI_BYTE, 1, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(in, n, MPI_BYTE, 0, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(out, n, MPI_BYTE, 0, s, MPI_COMM_WORLD);
            }
            if (i > 0) { /* the first round trip resolves the peer: not timed */
                cycles[i - 1] = (read_cycle() - c0) / 2;
                ticks[i - 1] = (read_time() - t0) * 10 / 2;
            }
            if (n > 0 && (in[0] != (char)(i + s) || in[n - 1] != (char)(i + s)))
                fail("wrong data", n);
        }
        if (rank == 0) {
            const struct bench_row row = {"", bench_median(cycles, reps), bench_median(ticks, reps)};
            const unsigned long ns = bench_ns(&row, hz);
            printf("%8d %12lu %10.1f %10.2f\n", n, row.cycles, ns / 1000.0, ns ? n * 1000.0 / ns : 0.0);
        }
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
