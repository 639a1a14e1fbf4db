#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include <tessera/runtime.h>

void bench_fail(const char *what, long value) {
    /* argv[0] is the first of the job's arguments. */
    printf("%s FAIL cluster %d rank %d: %s (%ld)\n", ts_job()->args, ts_job()->cluster_id, ts_rank(), what,
           value);
    ts_sleep_ns(100000000); /* let the line reach the console before the job ends */
    ts_job_abort(1);
}

long bench_check(long r, const char *what) {
    if (r < 0) bench_fail(what, r);
    return r;
}

void bench_expect(long r, unsigned long want, const char *what) {
    if (bench_check(r, what) != (long)want) bench_fail(what, r);
}

static int compare(const void *a, const void *b) {
    const unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
    return (x > y) - (x < y);
}

unsigned long bench_median(unsigned long *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare);
    return v[n / 2];
}

unsigned long bench_ns(const struct bench_row *r, unsigned long timebase) {
    return r->ticks10 * 100000000ul / timebase; /* ticks10 / 10 / hz * 1e9 */
}

void bench_print_clocks(unsigned long timebase) {
    const unsigned long t0 = read_time(), c0 = read_cycle();
    ts_sleep_ns(10000000);
    const unsigned long c1 = read_cycle(), t1 = read_time();
    const unsigned long per_tick = (c1 - c0) / (t1 - t0 ? t1 - t0 : 1);
    printf("time: %lu Hz; cycle counter: %lu per tick (%lu MHz)\n", timebase, per_tick,
           per_tick * (timebase / 1000) / 1000);
}
