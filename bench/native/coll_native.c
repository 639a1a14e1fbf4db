/* coll_native [BATCHES]: the time of a collective operation in portable MPI
 * C, so the same source runs on Tessera (linux64) and on the Linux MPI
 * libraries (Open MPI, MPICH) for `make bench`'s native comparison
 * (bench/README.md).
 *
 * With any number of processes (make bench runs 8), on MPI_COMM_WORLD:
 * MPI_Barrier, MPI_Bcast of 8 bytes from rank 0, and MPI_Allreduce of one
 * double (MPI_SUM). Each is timed by median_time (timing.h): BATCHES
 * (default 21) batches of about 2 ms (at least one call), a batch's time
 * per call being its slowest rank's. Then one more broadcast and
 * reduction, not timed, check their results on every rank.
 *
 * Output: `row OPERATION BYTES NS` per operation (NS: nanoseconds per call,
 * the median batch's), then `coll_native: done`. Bad arguments: a usage
 * line, exit 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

/* The operations' buffers. */
struct coll {
    unsigned char bytes[8];
    double value, sum;
};

static void barrier(void *ctx) {
    (void)ctx;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void bcast(void *ctx) {
    struct coll *c = ctx;
    MPI_Bcast(c->bytes, sizeof c->bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void allreduce(void *ctx) {
    struct coll *c = ctx;
    MPI_Allreduce(&c->value, &c->sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static const struct {
    const char *name;
    int bytes;
    timed_op op;
} OPS[] = {{"barrier", 0, barrier}, {"bcast", 8, bcast}, {"allreduce", 8, allreduce}};

/* A broadcast of 1..8 from rank 0 and a sum of rank + 1 over the np ranks:
 * 1 when this rank got both right. */
static int results_checked(struct coll *c, int rank, int np) {
    static const unsigned char want[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    memcpy(c->bytes, want, sizeof want);
    if (rank != 0) memset(c->bytes, 0, sizeof c->bytes);
    bcast(c);
    c->value = rank + 1;
    allreduce(c);
    return memcmp(c->bytes, want, sizeof want) == 0 && c->sum == np * (np + 1) / 2.0;
}

int main(int argc, char **argv) {
    int rank = 0, np = 1;
    char *end = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const long batches = argc == 2 ? strtol(argv[1], &end, 10) : 21;
    if (argc > 2 || (end && *end) || batches < 1 || batches > 1001) {
        if (rank == 0) fprintf(stderr, "usage: coll_native [BATCHES 1..1001]\n");
        MPI_Finalize();
        return 2;
    }
    struct coll c = {{0}, rank + 1, 0};
    double *times = malloc(sizeof(double) * (size_t)batches);
    if (!times) {
        fprintf(stderr, "coll_native: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; ++i) {
        const double ns = median_time(OPS[i].op, &c, (int)batches, times) * 1e9;
        if (rank == 0) {
            printf("row %s %d %.1f\n", OPS[i].name, OPS[i].bytes, ns);
            fflush(stdout);
        }
    }
    if (!results_checked(&c, rank, np)) {
        fprintf(stderr, "coll_native: rank %d: wrong broadcast or sum\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) printf("coll_native: done\n");
    free(times);
    MPI_Finalize();
    return 0;
}
