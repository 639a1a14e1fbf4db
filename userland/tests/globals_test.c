/*
 * globals_test: on-target test that ordinary C globals, static locals and
 * the heap are private to each MPI rank (docs/ARCHITECTURE.md, "The ranks
 * of one cluster": mpirun --ranks processes, the default on QEMU). No
 * _Thread_local anywhere: the point is that unmodified programs work.
 *
 *   mpirun -np N [--map-by compact|scatter] globals_test
 *
 * Checks, over ROUNDS rounds with MPI_Barrier between them:
 *   data     `int counter = 7;` (.data): each rank adds rank + 1 per round
 *   bss      an array in .bss: each rank adds rank + k to element k
 *   static   a static local of a function: each rank adds rank + 1
 *            (each rank checks its own values; rank 0 gathers them and
 *            checks every rank's and the totals against the formulas)
 *   global   each rank writes rank + 1000 to a global; after a barrier
 *            each must still find its own value
 *   neighbour each rank sends its neighbour (rank + 1) the address of
 *            that global and the value in it: the address must be its
 *            own global's (same virtual address), the value the sender's
 *            (different content)
 *   heap     the same two checks for a block each rank malloc'd (before
 *            MPI_Init, so that every rank's heap hands out the same
 *            address) through a pointer in a global
 *   alias    processes mode: a rank reads its neighbour's global and heap
 *            block through the neighbour's alias (ts_job_info), when both
 *            run on one cluster; skipped otherwise
 * Rank 0 prints one PASS, FAIL or SKIP line per check, each failing rank a
 * line saying what it found, and rank 0 then "globals_test: N checks, M
 * failed, S skipped". Every rank exits with M (at most 255).
 *
 * With --ranks threads, ranks that share a cluster share its globals, so
 * data, bss, static, global and neighbour fail there: the runner uses that
 * to show that the test sees sharing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <tessera/runtime.h>

#define ROUNDS     5
#define BSS_INTS   2048 /* 8 KiB: more than one page of .bss */
#define HEAP_INTS  1024
#define GLOBAL_TAG 1000 /* rank + 1000 in the global */
#define HEAP_TAG   2000 /* rank + 2000 in the heap block */

/* ---- the variables under test --------------------------------------------- */

int counter = 7;         /* .data */
int bss_array[BSS_INTS]; /* .bss */
int mine;                /* .bss: rank + GLOBAL_TAG */
int *heap_block;         /* .bss: a block of this rank's heap */

/* A static local: the sum of what every call added. */
static int add_to_static(int by) {
    static int sum;
    sum += by;
    return sum;
}

/* ---- the checks --------------------------------------------------------- */

enum check { DATA, BSS, STATIC, GLOBAL, NEIGHBOUR, HEAP, ALIAS, NCHECKS };

static const char *const names[NCHECKS] = {"data", "bss", "static", "global", "neighbour", "heap", "alias"};

/* What a passing check shows (rank 0's PASS line). */
static const char *const what[NCHECKS] = {
    "int counter = 7 holds 7 + rounds * (rank + 1) in every rank",
    "every element k of an int array in .bss holds rounds * (rank + k) in every rank",
    "a static local holds rounds * (rank + 1) in every rank",
    "every rank still finds its own rank + 1000 in a global after all wrote theirs",
    "the neighbour's global is at the same virtual address and holds the neighbour's value",
    "a malloc'd block through a global pointer: same address in every rank, each rank's own value",
    "each rank reads its neighbour's global and heap block through the neighbour's alias",
};

/* The test's own state lives on main's stack, never in a global: with
 * --ranks threads it must still work, to report the sharing it sees. */
struct me {
    int rank, size;
    int failed[NCHECKS]; /* this rank's failures (0 or 1 per check) */
    int ran[NCHECKS];    /* 1 when this rank made the check */
};

/* This rank's verdict on check c; a failure is said with its detail. */
static void verdict(struct me *me, enum check c, int ok, const char *fmt, long got, long want) {
    me->ran[c] = 1;
    if (ok) return;
    me->failed[c] = 1;
    printf("globals_test: rank %d: %s: ", me->rank, names[c]);
    printf(fmt, got, want);
    printf("\n");
}

/* ---- data, bss, static -------------------------------------------------- */

static long bss_expected(int r, int k) { return (long)ROUNDS * (r + k); }

static long bss_sum_expected(int r) {
    return (long)ROUNDS * ((long)r * BSS_INTS + (long)BSS_INTS * (BSS_INTS - 1) / 2);
}

/* What rank r's counter, .bss element sum and static local hold at the end. */
static void expected(int r, long want[3]) {
    want[0] = 7 + ROUNDS * (r + 1);
    want[1] = bss_sum_expected(r);
    want[2] = ROUNDS * (r + 1);
}

static void counters(struct me *me) {
    const int rank = me->rank, size = me->size;
    int statics = 0, statics_ok = 1;
    for (int round = 1; round <= ROUNDS; ++round) {
        counter += rank + 1;
        for (int k = 0; k < BSS_INTS; ++k)
            bss_array[k] += rank + k;
        statics = add_to_static(rank + 1);
        if (statics != round * (rank + 1)) statics_ok = 0;
        /* Everyone's round before the next: in threads mode the other
         * ranks' additions land in between. */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    long want[3];
    expected(rank, want);
    verdict(me, DATA, counter == want[0], "counter is %ld, expected %ld", counter, want[0]);
    long sum = 0;
    int bad = -1;
    for (int k = 0; k < BSS_INTS; ++k) {
        sum += bss_array[k];
        if (bad < 0 && bss_array[k] != bss_expected(rank, k)) bad = k;
    }
    verdict(me, BSS, bad < 0, "element sum is %ld, expected %ld", sum, want[1]);
    verdict(me, STATIC, statics_ok && statics == want[2], "the static local is %ld, expected %ld", statics,
            want[2]);

    /* Rank 0 checks every rank's values and the totals. */
    long mine3[3] = {counter, sum, statics}, *all = 0;
    if (rank == 0) all = malloc(sizeof(long) * 3 * (size_t)size);
    MPI_Gather(mine3, 3, MPI_LONG, all, 3, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    long total[3] = {0, 0, 0}, sum_want[3] = {0, 0, 0}, expect[3];
    int wrong[3] = {0, 0, 0};
    for (int r = 0; r < size; ++r) {
        expected(r, expect);
        for (int i = 0; i < 3; ++i) {
            total[i] += all[3 * r + i];
            sum_want[i] += expect[i];
            if (all[3 * r + i] != expect[i] && wrong[i]++ == 0) /* say the first */
                printf("globals_test: rank 0: %s: rank %d sent %ld, expected %ld\n", names[DATA + i], r,
                       all[3 * r + i], expect[i]);
        }
    }
    for (int i = 0; i < 3; ++i) {
        if (!wrong[i]) continue;
        me->failed[DATA + i] = 1;
        printf("globals_test: rank 0: %s: %d of %d ranks sent a wrong value\n", names[DATA + i], wrong[i],
               size);
    }
    /* The formulas, summed over the ranks, as closed forms. */
    const long n = size;
    const long closed[3] = {7 * n + ROUNDS * n * (n + 1) / 2,
                            ROUNDS * (BSS_INTS * n * (n - 1) / 2 + n * (long)BSS_INTS * (BSS_INTS - 1) / 2),
                            ROUNDS * n * (n + 1) / 2};
    for (int i = 0; i < 3; ++i) {
        if (total[i] != closed[i] || sum_want[i] != closed[i]) {
            me->failed[DATA + i] = 1;
            printf("globals_test: rank 0: %s: total %ld, expected %ld\n", names[DATA + i], total[i],
                   closed[i]);
        }
    }
    printf("globals_test: totals over %d ranks: counters %ld, bss sums %ld, statics %ld\n", size, total[0],
           total[1], total[2]);
    free(all);
}

/* ---- privacy: global, neighbour, heap ------------------------------------ */

/* Sends (address, value) of this rank's variable to the right neighbour
 * and returns the left neighbour's. */
static void exchange(const struct me *me, const int *addr, unsigned long got[2]) {
    const int rank = me->rank, size = me->size;
    unsigned long out[2] = {(unsigned long)(uintptr_t)addr, (unsigned long)*addr};
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(out, 2, MPI_UNSIGNED_LONG, right, 7, got, 2, MPI_UNSIGNED_LONG, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

static void privacy(struct me *me) {
    const int rank = me->rank, size = me->size;
    const int left = (rank + size - 1) % size;
    mine = rank + GLOBAL_TAG;
    *heap_block = rank + HEAP_TAG;
    heap_block[HEAP_INTS - 1] = rank + HEAP_TAG;
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has written its own */

    verdict(me, GLOBAL, mine == rank + GLOBAL_TAG,
            "the global holds %ld, not its own %ld (another rank wrote it)", mine, rank + GLOBAL_TAG);

    unsigned long got[2];
    exchange(me, &mine, got);
    if (size == 1) {
        /* No neighbour: nothing to compare with. */
    } else if (got[0] != (unsigned long)(uintptr_t)&mine) {
        verdict(me, NEIGHBOUR, 0, "rank %ld's global is at 0x%lx, not at this rank's address", left,
                (long)got[0]);
    } else if ((int)got[1] == mine) {
        verdict(me, NEIGHBOUR, 0, "rank %ld's global, at the same address, holds %ld as this rank's: shared",
                left, (long)got[1]);
    } else {
        verdict(me, NEIGHBOUR, (long)got[1] == left + GLOBAL_TAG,
                "rank %ld's global, at the same address, held %ld, not its own value", left, (long)got[1]);
    }

    /* The heap: the block's address was taken before MPI_Init, by the
     * same calls in every rank; its content is each rank's. */
    const int ok_here = *heap_block == rank + HEAP_TAG && heap_block[HEAP_INTS - 1] == rank + HEAP_TAG;
    exchange(me, heap_block, got);
    if (!ok_here)
        verdict(me, HEAP, 0, "the heap block holds %ld, not its own %ld", *heap_block, rank + HEAP_TAG);
    else if (got[0] != (unsigned long)(uintptr_t)heap_block)
        verdict(me, HEAP, 0, "rank %ld's heap block is at 0x%lx, not at this rank's address", left,
                (long)got[0]);
    else
        verdict(me, HEAP, (long)got[1] == left + HEAP_TAG,
                "the neighbour's heap block held %ld, expected %ld", (long)got[1], left + HEAP_TAG);
    MPI_Barrier(MPI_COMM_WORLD); /* nobody changes them while the others look */
}

/* Where this rank sees `at` of the cluster's rank with local index l, or 0
 * without aliases. */
static const volatile int *alias_of(const int *at, int l) {
    const struct ts_job_info *job = ts_job();
    const uintptr_t a = (uintptr_t)at;
    if (!job->alias_base || a < job->private_base || a - job->private_base >= job->private_size) return 0;
    return (const volatile int *)(job->alias_base + (uintptr_t)l * job->private_size +
                                  (a - job->private_base));
}

static void aliases(struct me *me) {
    const int rank = me->rank, size = me->size;
    const int right = (rank + 1) % size;
    int cluster, local;
    if (right == rank || ts_rank_place(right, &cluster, &local) != 0 || cluster != ts_job()->cluster_id)
        return;
    const volatile int *global = alias_of(&mine, local), *heap = alias_of(heap_block, local);
    if (!global || !heap) return;
    if (*global != right + GLOBAL_TAG)
        verdict(me, ALIAS, 0, "the neighbour's global through its alias holds %ld, expected %ld", *global,
                right + GLOBAL_TAG);
    else
        verdict(me, ALIAS, *heap == right + HEAP_TAG,
                "the neighbour's heap block through its alias holds %ld, expected %ld", *heap,
                right + HEAP_TAG);
    /* No barrier: the neighbour's values stay until it ends, and no rank
     * ends before rank 0 has every rank's report (MPI_Bcast in report). */
}

/* ---- the report ------------------------------------------------------------ */

static int report(const struct me *me) {
    int failed[NCHECKS], ran[NCHECKS];
    MPI_Reduce(me->failed, failed, NCHECKS, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(me->ran, ran, NCHECKS, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    int nfailed = 0, skipped = 0;
    if (me->rank == 0) {
        for (int c = 0; c < NCHECKS; ++c) {
            if (!ran[c]) {
                ++skipped;
                printf("SKIP %s: %s\n", names[c],
                       c == ALIAS ? "no aliases (ranks as threads), or no neighbour on its rank's cluster"
                                  : "one rank: no neighbour");
            } else if (failed[c]) {
                ++nfailed;
                printf("FAIL %s: %s: wrong in %d of %d ranks\n", names[c], what[c], failed[c], ran[c]);
            } else {
                printf("PASS %s: %s (%d ranks)\n", names[c], what[c], ran[c]);
            }
        }
        printf("globals_test: %d checks, %d failed, %d skipped\n", NCHECKS, nfailed, skipped);
    }
    MPI_Bcast(&nfailed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return nfailed > 255 ? 255 : nfailed;
}

int main(int argc, char **argv) {
    /* Before MPI_Init: every rank's process has made the same calls so
     * far, so its heap hands out the same address. */
    heap_block = malloc(sizeof(int) * HEAP_INTS);
    if (!heap_block) {
        printf("globals_test: no heap\n");
        return 1;
    }
    struct me me = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &me.size);
    if (me.rank == 0)
        printf("globals_test: %d ranks (ranks as %s), %d rounds\n", me.size,
               ts_job()->ranks_mode == TS_RANKS_PROCESSES ? "processes" : "threads", ROUNDS);

    counters(&me);
    privacy(&me);
    aliases(&me);
    const int status = report(&me);
    MPI_Finalize();
    return status;
}
