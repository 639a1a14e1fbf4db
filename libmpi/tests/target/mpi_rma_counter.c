/*
 * mpi_rma_counter: a distributed counter under MPI_Fetch_and_op (MPI 3.1
 * sections 11.3.4, 11.5.3), from every process at once.
 *
 * Rank 0's window holds a counter (a long long, 0). Every process, in a
 * passive target epoch (MPI_Win_lock_all, or MPI_Win_lock shared per
 * increment: both ways, one after the other), adds 1 to it K times with
 * MPI_Fetch_and_op(MPI_SUM), keeping the values it fetched. The fetched
 * values of all processes together must be exactly 0 .. np*K-1, each once
 * (the increments are atomic), and the counter must end at np*K; the same
 * again on a counter held by the last rank, and then with MPI_NO_OP reads
 * racing the adds (each read between 0 and np*K, non-decreasing per
 * reader).
 *
 * Arguments: K (increments per process and way, default 100).
 * A portable MPI program (mpi.h and the C library only). Rank 0 prints
 * "mpi_rma_counter: OK (np=N, K=...)"; a failed check prints
 * "FAIL mpi_rma_counter.c:<line>: ..." and ends the job with a non-zero
 * status.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_rma_counter"
#include "mpitest.h"

/* Every process adds 1 to the counter at `owner` k times (lock_all: in
 * one epoch; else a shared lock per add), fetched values into got[]. */
static void count(MPI_Win win, int owner, int k, int lock_all, long long *got) {
    const long long one = 1;
    if (lock_all) MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < k; ++i) {
        if (!lock_all) MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, owner, 0, win));
        MPI_OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG_LONG, owner, 0, MPI_SUM, win));
        if (lock_all)
            MPI_OK(MPI_Win_flush(owner, win));
        else
            MPI_OK(MPI_Win_unlock(owner, win));
    }
    if (lock_all) MPI_OK(MPI_Win_unlock_all(win));
}

/* The fetched values of all processes are base .. base + np*k - 1, each
 * once. */
static void check_permutation(const long long *got, int k, long long base) {
    const int total = np * k;
    long long *all = xmalloc(sizeof(long long) * (size_t)total);
    MPI_OK(MPI_Allgather(got, k, MPI_LONG_LONG, all, k, MPI_LONG_LONG, MPI_COMM_WORLD));
    char *seen = calloc((size_t)total, 1);
    if (!seen) FAIL("out of memory");
    for (int i = 0; i < total; ++i) {
        const long long v = all[i] - base;
        if (v < 0 || v >= total) FAIL("fetched %lld, outside %lld..%lld", all[i], base, base + total - 1);
        if (seen[v]) FAIL("fetched %lld twice", all[i]);
        seen[v] = 1;
    }
    /* Each process's own values increase. */
    for (int i = 1; i < k; ++i)
        if (got[i] <= got[i - 1]) FAIL("fetched %lld after %lld", got[i], got[i - 1]);
    free(seen);
    free(all);
}

/* The counter's value, read by its owner in an epoch on itself. */
static long long value(MPI_Win win, int owner, const long long *counter) {
    long long v = -1;
    if (me == owner) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, owner, 0, win));
        v = *counter;
        MPI_OK(MPI_Win_unlock(owner, win));
    }
    MPI_OK(MPI_Bcast(&v, 1, MPI_LONG_LONG, owner, MPI_COMM_WORLD));
    return v;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const int k = argc > 1 ? atoi(argv[1]) : 100;
    if (k < 1) FAIL("usage: mpi_rma_counter [K >= 1]");
    long long *counter = NULL, *got = xmalloc(sizeof(long long) * (size_t)k);
    MPI_Win win;
    phase = "window";
    MPI_OK(MPI_Win_allocate(sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter,
                            &win));
    *counter = 0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    const int owners[2] = {0, np - 1};
    long long base = 0;
    for (int o = 0; o < 2; ++o) {
        for (int way = 0; way < 2; ++way) {
            phase = way ? "lock_all" : "lock shared";
            count(win, owners[o], k, way, got);
            check_permutation(got, k, base);
            base += (long long)np * k;
            CHECK_EQ(value(win, owners[o], counter), base);
        }
        /* The next owner's counter starts from 0. */
        base = 0;
        if (o == 0 && np > 1) MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (o == 0 && np == 1) break; /* (one owner only) */
    }

    /* Reads (MPI_NO_OP) racing the adds: odd ranks read, even ones add. */
    phase = "reads and adds";
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        *counter = 0;
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    const int adders = (np + 1) / 2;
    MPI_OK(MPI_Win_lock_all(0, win));
    long long last = -1;
    for (int i = 0; i < k; ++i) {
        const long long one = 1;
        long long v = -1;
        if (me % 2 == 0) {
            MPI_OK(MPI_Fetch_and_op(&one, &v, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
        } else {
            MPI_OK(MPI_Fetch_and_op(NULL, &v, MPI_LONG_LONG, 0, 0, MPI_NO_OP, win));
        }
        MPI_OK(MPI_Win_flush(0, win));
        if (v < 0 || v > (long long)adders * k) FAIL("read %lld", v);
        if (v < last) FAIL("read %lld after %lld", v, last);
        last = v;
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_EQ(value(win, 0, counter), (long long)adders * k);

    MPI_OK(MPI_Win_free(&win));
    free(got);
    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d, K=%d)\n", np, k);
    return 0;
}
