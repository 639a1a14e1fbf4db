/* What the benchmark programs share: the two clocks a user thread can
 * read, medians, and the line that says how fast the cycle counter runs.
 * See bench/README.md for what the clocks are under QEMU. */
#ifndef TESSERA_BENCH_H
#define TESSERA_BENCH_H

/* The kernel enables U-mode reads of both (scounteren.CY and .TM). */
static inline unsigned long read_cycle(void)
{
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

static inline unsigned long read_time(void)
{
    unsigned long t;
    __asm__ volatile("rdtime %0" : "=r"(t));
    return t;
}

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

/* Prints the time CSR's frequency (timebase Hz) and how many cycles pass
 * per tick of it, measured over ~10 ms. */
void bench_print_clocks(unsigned long timebase);

#endif
