/* name_bench [REPS]: what a name resolution through the local name daemon
 * costs, seen from a user thread. Run it with -np 2 --map-by scatter: rank
 * 0 registers NREMOTE names on its cluster, rank 1 (alone on another
 * cluster) measures; rank 0's daemon answers its port queries.
 *
 * Each figure is the median over REPS samples (default 201) of one call,
 * read from the `cycle` and `time` CSRs around it:
 *   resolve, cold cache   ts_name_resolve of a remote name the cache does not
 *                         hold: the name server gives the cluster, that
 *                         cluster's daemon the port. The names are taken in
 *                         turn, more of them than the cache holds, so every
 *                         one was evicted since it was last resolved.
 *   resolve, warm cache   ts_name_resolve of one remote name, again and
 *                         again: answered from the cache
 *   resolve, local name   ts_name_resolve of a name of rank 1's own cluster:
 *                         answered from the daemon's table
 *   name server lookup    ts_name_lookup of a remote name (no daemon)
 * The daemon's counters are checked around each row, so a row measures what
 * it says (the program fails otherwise). See bench/README.md. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera/names.h>
#include <tessera/runtime.h>

#include "bench.h"

#define DEFAULT_REPS 201
#define MAX_REPS     2001
#define NREMOTE      24 /* more than the daemon's cache holds (16), fewer than its table (32) */
#define PORT         10

static unsigned long cycles[MAX_REPS], ticks[MAX_REPS];
static char remote[NREMOTE][16];

static struct ts_name_daemon_stats stats(void) {
    struct ts_name_daemon_stats st;
    if (ts_name_daemon_stats(&st) != 0) {
        printf("name_bench: no daemon statistics\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return st;
}

static void check(const char *what, unsigned long got, unsigned long want) {
    if (got != want) {
        printf("name_bench: %s: %lu, want %lu\n", what, got, want);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static int resolve(const char *name) {
    int cluster, port;
    return ts_name_resolve(name, &cluster, &port);
}

/* One call of op(name), which must succeed, timed into sample i. */
static void time_call(int (*op)(const char *), const char *name, int i) {
    const unsigned long t0 = read_time(), c0 = read_cycle();
    const int r = op(name);
    const unsigned long c1 = read_cycle(), t1 = read_time();
    check("failed calls", r < 0, 0);
    cycles[i] = c1 - c0;
    ticks[i] = t1 - t0;
}

static struct bench_row summarize(const char *name, int reps) {
    struct bench_row r = {name, bench_median(cycles, reps), bench_median(ticks, reps) * 10};
    return r;
}

static struct bench_row time_cold(int reps) {
    const struct ts_name_daemon_stats before = stats();
    for (int i = 0; i < reps; ++i)
        time_call(resolve, remote[i % NREMOTE], i);
    check("cold: misses", stats().misses - before.misses, (unsigned long)reps);
    return summarize("resolve, cold cache", reps);
}

static struct bench_row time_warm(int reps) {
    time_call(resolve, remote[0], 0); /* into the cache */
    const struct ts_name_daemon_stats before = stats();
    for (int i = 0; i < reps; ++i)
        time_call(resolve, remote[0], i);
    check("warm: cache hits", stats().cache_hits - before.cache_hits, (unsigned long)reps);
    return summarize("resolve, warm cache", reps);
}

static struct bench_row time_local(int reps) {
    const struct ts_name_daemon_stats before = stats();
    for (int i = 0; i < reps; ++i)
        time_call(resolve, "bench.local", i);
    check("local: local hits", stats().local_hits - before.local_hits, (unsigned long)reps);
    return summarize("resolve, local name", reps);
}

static struct bench_row time_lookup(int reps) {
    for (int i = 0; i < reps; ++i)
        time_call(ts_name_lookup, remote[i % NREMOTE], i);
    return summarize("name server lookup", reps);
}

/* cycles, ticks (one decimal), microseconds (two), and cycles over the warm row's. */
static void print_row(const struct bench_row *r, const struct bench_row *warm, unsigned long timebase) {
    const unsigned long ns = bench_ns(r, timebase);
    const unsigned long ratio10 = r->cycles * 10 / warm->cycles;
    printf("%-22s %10lu %8lu.%lu %6lu.%02lu %7lu.%lu\n", r->name, r->cycles, r->ticks10 / 10, r->ticks10 % 10,
           ns / 1000, ns % 1000 / 10, ratio10 / 10, ratio10 % 10);
}

static void measure(int reps) {
    const unsigned long timebase = ts_job()->timebase_hz;
    bench_print_clocks(timebase);
    struct bench_row rows[4];
    rows[0] = time_cold(reps);
    rows[1] = time_warm(reps);
    rows[2] = time_local(reps);
    rows[3] = time_lookup(reps);
    printf("median of %d samples, one call each\n", reps);
    printf("%-22s %10s %10s %9s %9s\n", "operation", "cycles", "ticks", "us", "x warm");
    for (int i = 0; i < 4; ++i)
        print_row(&rows[i], &rows[1], timebase);
    const unsigned long ratio10 = rows[0].cycles * 10 / rows[1].cycles;
    printf("cold/warm: %lu.%lu\n", ratio10 / 10, ratio10 % 10);
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || ts_job()->map_policy != TS_MAP_SCATTER) {
        if (rank == 0) printf("name_bench: run it with -np 2 --map-by scatter\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int reps = argc > 1 ? atoi(argv[1]) : DEFAULT_REPS;
    if (reps < 1 || reps > MAX_REPS) reps = DEFAULT_REPS;

    for (int i = 0; i < NREMOTE; ++i) {
        snprintf(remote[i], sizeof remote[i], "bench.%d", i);
        if (rank == 0) check("register", (unsigned long)ts_name_register(remote[i], PORT), 0);
    }
    if (rank == 1) check("register", (unsigned long)ts_name_register("bench.local", PORT), 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) measure(reps);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
