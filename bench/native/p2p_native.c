/* p2p_native [--memcpy] [BATCHES [MAX_BYTES]]: point-to-point latency and
 * bandwidth in portable MPI C, so the same source runs on Tessera (linux64)
 * and on the Linux MPI libraries (Open MPI, MPICH) for `make bench`'s
 * native comparison (bench/README.md).
 *
 * With 2 processes: ranks 0 and 1 ping-pong messages of 0 B .. MAX_BYTES
 * (default 1 MiB) with MPI_Send/MPI_Recv. Each size runs BATCHES (default
 * 21) batches of round trips, as many as take about 2 ms (at least 1, at
 * most 10000), timed with MPI_Wtime as a whole; the row is the median
 * batch's one-way time (batch time / trips / 2). The first and last byte
 * of every message are checked.
 * With --memcpy (1 process, MPI_Init only for MPI_Wtime): the same sizes
 * and batches, each trip two memcpy calls (there and back) of the size,
 * the floor any shared-memory transport has to pay.
 *
 * Output: `row BYTES NS MB/s` per size (NS: one-way nanoseconds, median),
 * then `p2p_native: done`. Bad arguments: a usage line, exit 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCH_TRIPS 10000
#define BATCH_SECONDS   0.002

struct options {
    int memcpy_only;
    int batches;
    long max_bytes;
};

static int parse(int argc, char **argv, struct options *o) {
    int i = 1, n = 0;
    long v[2] = {21, 1l << 20};
    o->memcpy_only = 0;
    if (i < argc && strcmp(argv[i], "--memcpy") == 0) {
        o->memcpy_only = 1;
        ++i;
    }
    for (; i < argc; ++i, ++n) {
        char *end;
        if (n == 2) return 0;
        v[n] = strtol(argv[i], &end, 10);
        if (*end || v[n] < 1 || v[n] > (n == 0 ? 1001 : 1l << 24)) return 0;
    }
    o->batches = (int)v[0];
    o->max_bytes = v[1];
    return 1;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One round trip of `bytes` between ranks 0 and 1 (or two copies). */
static void trip(const struct options *o, int rank, unsigned char *out, unsigned char *in, int bytes) {
    if (o->memcpy_only) {
        memcpy(in, out, (size_t)bytes);
        memcpy(out, in, (size_t)bytes);
    } else if (rank == 0) {
        MPI_Send(out, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(in, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
}

/* Rank 0 decides how many trips a batch has; rank 1 follows. */
static int batch_trips(const struct options *o, int rank, unsigned char *out, unsigned char *in, int bytes) {
    int trips = 1;
    if (rank == 0) {
        const double t0 = MPI_Wtime();
        trip(o, rank, out, in, bytes);
        const double one = MPI_Wtime() - t0;
        trips = one > 0 ? (int)(BATCH_SECONDS / one) : MAX_BATCH_TRIPS;
        trips = trips < 1 ? 1 : trips > MAX_BATCH_TRIPS ? MAX_BATCH_TRIPS : trips;
    } else {
        trip(o, rank, out, in, bytes);
    }
    if (!o->memcpy_only) MPI_Bcast(&trips, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return trips;
}

int main(int argc, char **argv) {
    struct options o;
    int rank = 0, np = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (!parse(argc, argv, &o) || np != (o.memcpy_only ? 1 : 2)) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: p2p_native [--memcpy] [BATCHES 1..1001 [MAX_BYTES]] "
                    "(2 processes; 1 with --memcpy)\n");
        MPI_Finalize();
        return 2;
    }
    unsigned char *out = malloc((size_t)o.max_bytes + 1), *in = malloc((size_t)o.max_bytes + 1);
    double *times = malloc(sizeof(double) * (size_t)o.batches);
    if (!out || !in || !times) {
        fprintf(stderr, "p2p_native: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(out, 0x5a + rank, (size_t)o.max_bytes + 1);
    for (long bytes = 0; bytes <= o.max_bytes; bytes = bytes ? bytes * 2 : 1) {
        const int n = (int)bytes;
        for (int b = 0; b < o.batches; ++b) {
            const int trips = batch_trips(&o, rank, out, in, n);
            const double t0 = MPI_Wtime();
            for (int t = 0; t < trips; ++t)
                trip(&o, rank, out, in, n);
            times[b] = (MPI_Wtime() - t0) / trips / 2;
            const unsigned char want = (unsigned char)(o.memcpy_only ? 0x5a : 0x5a + (1 - rank));
            if (n > 0 && (in[0] != want || in[n - 1] != want)) {
                fprintf(stderr, "p2p_native: rank %d: wrong data at %d bytes\n", rank, n);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        if (rank == 0) {
            qsort(times, (size_t)o.batches, sizeof(double), by_value);
            const double ns = times[o.batches / 2] * 1e9;
            printf("row %ld %.1f %.1f\n", bytes, ns, ns > 0 ? bytes / ns * 1e3 : 0.0);
            fflush(stdout);
        }
    }
    if (rank == 0) printf("p2p_native: done\n");
    free(out);
    free(in);
    free(times);
    MPI_Finalize();
    return 0;
}
