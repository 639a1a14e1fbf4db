/* timing.h: the timing loop of the native programs (p2p_native,
 * coll_native), portable MPI C like them.
 *
 * median_time() times an operation in batches. It first runs it twice: a
 * warm-up, then a call that tells how many calls take about BATCH_SECONDS
 * by the slowest rank's clock (at least 1, at most MAX_BATCH_CALLS). For
 * each batch, every rank leaves a barrier, runs the calls and times them
 * with MPI_Wtime as a whole. A batch's time per call is the slowest rank's;
 * the result is the median batch's. */
#ifndef NATIVE_TIMING_H
#define NATIVE_TIMING_H

#include <mpi.h>
#include <stdlib.h>

#define MAX_BATCH_CALLS 10000
#define BATCH_SECONDS   0.002

/* An operation every rank of MPI_COMM_WORLD calls together. */
typedef void (*timed_op)(void *ctx);

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds per call of op(ctx), the median of `batches` batches (times:
 * room for that many), on rank 0 (0 on the others). */
static double median_time(timed_op op, void *ctx, int batches, double *times) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    op(ctx);
    const double start = MPI_Wtime();
    op(ctx);
    const double mine = MPI_Wtime() - start;
    double one;
    MPI_Allreduce(&mine, &one, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int calls = one > 0 ? (int)(BATCH_SECONDS / one) : MAX_BATCH_CALLS;
    calls = calls < 1 ? 1 : calls > MAX_BATCH_CALLS ? MAX_BATCH_CALLS : calls;
    for (int b = 0; b < batches; ++b) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int c = 0; c < calls; ++c)
            op(ctx);
        const double each = (MPI_Wtime() - t0) / calls;
        MPI_Reduce(&each, &times[b], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (rank != 0) return 0;
    qsort(times, (size_t)batches, sizeof(double), by_value);
    return times[batches / 2];
}

#endif
