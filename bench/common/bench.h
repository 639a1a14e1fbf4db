/* What the benchmark programs share: the two clocks a user thread can
 * read, medians, and the line that says how fast the cycle counter runs.
 * See bench/README.md for what the clocks are under QEMU. */
#ifndef TESSERA_BENCH_H
#define TESSERA_BENCH_H

#include <tessera/arch.h>

/* The CPU's cycle counter and the time in ticks of the job's timebase_hz
 * (on QEMU the kernel enables U-mode reads of both, scounteren.CY and
 * .TM). */
static inline unsigned long read_cycle(void) { return ts_arch_cycles(); }

static inline unsigned long read_time(void) { return ts_arch_time(); }

/* The median of v[0..n-1] (n >= 1), which it sorts. */
unsigned long bench_median(unsigned long *v, int n);

/* One row of a report: an operation's median cost in cycles and in ticks
 * of the time CSR, in tenths (a tick is long next to a short call). */
struct bench_row {
    const char *name;
    unsigned long cycles;
    unsigned long ticks10;
};

/* A row's ticks in nanoseconds, at timebase ticks per second. */
unsigned long bench_ns(const struct bench_row *r, unsigned long timebase);

/* Failures of the raw-IKC benchmarks: bench_fail prints
 * "<program> FAIL cluster C rank R: <what> (<value>)" and ends the job
 * with status 1; bench_check returns r, or fails when r < 0 (a -TS_E*
 * error); bench_expect fails unless the call moved exactly `want` bytes. */
void bench_fail(const char *what, long value) __attribute__((noreturn));
long bench_check(long r, const char *what);
void bench_expect(long r, unsigned long want, const char *what);

/* Prints the time CSR's frequency (timebase Hz) and how many cycles pass
 * per tick of it, measured over ~10 ms. */
void bench_print_clocks(unsigned long timebase);

#endif
