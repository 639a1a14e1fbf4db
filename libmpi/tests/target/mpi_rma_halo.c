/*
 * mpi_rma_halo: a 1-D halo exchange with MPI_Put and MPI_Win_fence (MPI
 * 3.1 sections 11.3.1, 11.5.1), the way a stencil code does it.
 *
 * Each process owns N cells of a periodic 1-D array of np * N cells, with
 * one ghost cell on each side, all in one window. Each step it puts its
 * first cell into its left neighbour's right ghost and its last cell into
 * its right neighbour's left ghost, fences, and replaces each cell by the
 * sum of itself and its two neighbours (integers: exact). After STEPS
 * steps the result must equal a sequential computation of the whole
 * array, which every process checks for its own cells. The first fence
 * says MPI_MODE_NOPRECEDE, the last MPI_MODE_NOSUCCEED; fences between
 * steps say MPI_MODE_NOSTORE/NOPUT where they hold.
 *
 * Arguments: N (cells per process, default 64), STEPS (default 20).
 * A portable MPI program (mpi.h and the C library only). Rank 0 prints
 * "mpi_rma_halo: OK (np=N, cells=..., steps=...)"; a failed check prints
 * "FAIL mpi_rma_halo.c:<line>: ..." and ends the job with a non-zero
 * status.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_rma_halo"
#include "mpitest.h"

/* The starting value of global cell g: small, so that sums stay exact in
 * 64 bits for the steps asked (each step at most triples a value). */
static long long initial(long long g) { return (g * 7 + 3) % 11 - 5; }

/* One step of the stencil over a periodic array of n cells. */
static void step(const long long *in, long long *out, long long n) {
    for (long long i = 0; i < n; ++i)
        out[i] = in[(i + n - 1) % n] + in[i] + in[(i + 1) % n];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const int n = argc > 1 ? atoi(argv[1]) : 64;
    const int steps = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 1 || steps < 0 || steps > 30) FAIL("usage: mpi_rma_halo [N >= 1] [STEPS 0..30]");
    const int left = (me + np - 1) % np, right = (me + 1) % np;

    /* cells[0] and cells[n + 1] are the ghosts. */
    long long *cells = NULL, *next = xmalloc(sizeof(long long) * (size_t)(n + 2));
    MPI_Win win;
    phase = "window";
    MPI_OK(MPI_Win_allocate((MPI_Aint)sizeof(long long) * (n + 2), sizeof(long long), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &cells, &win));
    for (int i = 0; i < n; ++i)
        cells[i + 1] = initial((long long)me * n + i);
    cells[0] = cells[n + 1] = -999;

    phase = "steps";
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int s = 0; s < steps; ++s) {
        /* My first cell is my left neighbour's right ghost, my last cell
         * my right neighbour's left ghost. */
        MPI_OK(MPI_Put(&cells[1], 1, MPI_LONG_LONG, left, n + 1, 1, MPI_LONG_LONG, win));
        MPI_OK(MPI_Put(&cells[n], 1, MPI_LONG_LONG, right, 0, 1, MPI_LONG_LONG, win));
        MPI_OK(MPI_Win_fence(MPI_MODE_NOSTORE, win));
        for (int i = 1; i <= n; ++i)
            next[i] = cells[i - 1] + cells[i] + cells[i + 1];
        /* Nobody puts into the window until the next fence: the cells are
         * written by their owner only (NOPUT). */
        memcpy(&cells[1], &next[1], sizeof(long long) * (size_t)n);
        MPI_OK(MPI_Win_fence(MPI_MODE_NOPUT | (s == steps - 1 ? MPI_MODE_NOSUCCEED : 0), win));
    }
    if (steps == 0) MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

    /* The same computation on the whole array, sequentially. */
    phase = "check";
    const long long total = (long long)np * n;
    long long *a = xmalloc(sizeof(long long) * (size_t)total),
              *b = xmalloc(sizeof(long long) * (size_t)total);
    for (long long g = 0; g < total; ++g)
        a[g] = initial(g);
    for (int s = 0; s < steps; ++s) {
        step(a, b, total);
        long long *t = a;
        a = b;
        b = t;
    }
    for (int i = 0; i < n; ++i)
        if (cells[i + 1] != a[(long long)me * n + i])
            FAIL("cell %d (global %lld) is %lld, expected %lld", i, (long long)me * n + i, cells[i + 1],
                 a[(long long)me * n + i]);
    /* And every process agrees on a checksum of the whole. */
    long long mine = 0, sum = 0, expect = 0;
    for (int i = 0; i < n; ++i)
        mine += cells[i + 1];
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    for (long long g = 0; g < total; ++g)
        expect += a[g];
    CHECK_EQ(sum, expect);

    MPI_OK(MPI_Win_free(&win));
    free(a);
    free(b);
    free(next);
    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d, cells=%d, steps=%d)\n", np, n, steps);
    return 0;
}
