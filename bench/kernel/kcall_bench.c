/* kcall_bench [REPS]: what kernel calls cost, seen from a user thread.
 *
 * Each figure is the median over REPS samples (default 501) of one
 * operation, read from the `cycle` and `time` CSRs around it:
 *   empty             nothing between the two reads: the floor of every row
 *   null local        a raw ecall of TS_SYS_THREAD_SELF (served on the
 *                     calling core)
 *   null forwarded    a raw TS_SYS_FUTEX_WAKE of a word nobody waits on
 *                     (served by the master); its result is printed, since
 *                     a kernel without the call answers -TS_ENOSYS locally
 *   ikc drain (none)  TS_SYS_MAILBOX_DRAIN of a ringed mailbox nothing came
 *                     for: the IKC data path's lock-free answer
 *   ikc trywrite (full)  TS_SYS_MAILBOX_TRYWRITE to a slot still full: a
 *                     data-path call served on the calling core under the
 *                     master's lock, which wakes nobody
 *   thread create+join  ts_thread_create of an empty function, then
 *                     ts_thread_join
 *   brk +1 page (new)   growing the break by one page the process never had
 *   brk +1 page (again) the same over pages it had before (the kernel keeps
 *                     heap pages when the break shrinks)
 * Short operations are timed in batches of BATCH and divided, since the
 * time CSR ticks far slower than one call takes. Run it alone (np 1).
 * See bench/README.md for what the figures mean. */
#include <stdio.h>
#include <stdlib.h>

#include <tessera/runtime.h>

#include "bench.h"

#define DEFAULT_REPS 501
#define MAX_REPS     4001
#define BATCH        16 /* operations per sample for the short ones */
#define PAGE         4096ul

/* A raw kernel call: the runtime's wrappers may cache (ts_thread_self
 * does). */
static inline long raw_call(long number, long a0, long a1) { return ts_arch_kcall(number, a0, a1, 0, 0); }

/* ---- samples and medians ------------------------------------------------ */

struct samples {
    unsigned long cycles[MAX_REPS];
    unsigned long ticks[MAX_REPS];
    int n;
};

/* Static: the benchmark moves the break, so it must not need malloc while
 * it measures. */
static struct samples s;

static void record(unsigned long c0, unsigned long t0, unsigned long c1, unsigned long t1) {
    s.cycles[s.n] = c1 - c0;
    s.ticks[s.n] = t1 - t0;
    ++s.n;
}

static struct bench_row summarize(const char *name, int per_sample) {
    struct bench_row r = {name, bench_median(s.cycles, s.n) / (unsigned long)per_sample,
                          bench_median(s.ticks, s.n) * 10 / (unsigned long)per_sample};
    s.n = 0;
    return r;
}

/* ---- the operations --------------------------------------------------------- */

static unsigned futex_word; /* nobody ever waits on it */
static long forwarded_result;

static void op_empty(void) {}
static void op_null_local(void) { raw_call(TS_SYS_THREAD_SELF, 0, 0); }
static void op_null_forwarded(void) { forwarded_result = raw_call(TS_SYS_FUTEX_WAKE, (long)&futex_word, 1); }

/* A mailbox of our own (loopback) with a ring: the data-path rows. */
#define IKC_PORT  20
#define IKC_SLOTS 1
static uint64_t ring_space[(TS_RING_BYTES(IKC_SLOTS, 256) + 7) / 8];
static int ikc_in, ikc_out;
static long drain_result, trywrite_result;

static void ikc_setup(void) {
    ikc_in = ts_mailbox_create(IKC_PORT);
    ikc_out = ts_mailbox_open(IKC_PORT + 1, ts_job()->cluster_id, IKC_PORT);
    const long ring = ts_mailbox_ring(ikc_in, (struct ts_ring *)ring_space, IKC_SLOTS);
    if (ikc_in < 0 || ikc_out < 0 || ring < 0) {
        printf("kcall_bench: mailbox setup failed: %d %d %ld\n", ikc_in, ikc_out, ring);
        exit(1);
    }
}

/* Writes to our ring until it is full and a message waits behind it in our
 * slot, which then stays full: nobody takes from the ring. */
static void ikc_fill(void) {
    const struct ts_ring *r = (const struct ts_ring *)ring_space;
    for (int tries = 0; !(r->head - r->tail == IKC_SLOTS && r->stalled); ++tries) {
        const long w = ts_mailbox_trywrite(ikc_out, "x", 1);
        if (w == -TS_EAGAIN) ts_mailbox_drain(ikc_in);
        if (tries == 1000 || (w < 0 && w != -TS_EAGAIN)) {
            printf("kcall_bench: cannot fill the mailbox: %ld\n", w);
            exit(1);
        }
        ts_sleep_ns(100000);
    }
}

static void op_ikc_drain(void) { drain_result = raw_call(TS_SYS_MAILBOX_DRAIN, ikc_in, 0); }
static void op_ikc_trywrite(void) { trywrite_result = ts_mailbox_trywrite(ikc_out, "y", 1); }

/* BATCH back-to-back operations per sample. */
static struct bench_row time_batched(const char *name, void (*op)(void), int reps) {
    for (int i = 0; i < reps; ++i) {
        const unsigned long t0 = read_time(), c0 = read_cycle();
        for (int k = 0; k < BATCH; ++k)
            op();
        const unsigned long c1 = read_cycle(), t1 = read_time();
        record(c0, t0, c1, t1);
    }
    return summarize(name, BATCH);
}

static void empty_thread(void *arg) { (void)arg; }

static struct bench_row time_thread(int reps) {
    for (int i = 0; i < reps; ++i) {
        const unsigned long t0 = read_time(), c0 = read_cycle();
        const int tid = ts_thread_create(empty_thread, 0);
        const int joined = tid > 0 ? ts_thread_join(tid, 0) : tid;
        const unsigned long c1 = read_cycle(), t1 = read_time();
        if (joined < 0) {
            printf("kcall_bench: thread create/join failed: %d\n", joined);
            exit(1);
        }
        record(c0, t0, c1, t1);
    }
    return summarize("thread create+join", 1);
}

/* Grows the break from `from` by one page per call, `pages` times, then
 * puts it back. malloc's own break (picolibc's sbrk) is left as it was. */
static struct bench_row time_brk(const char *name, unsigned long from, int pages) {
    long failed = 0;
    for (int i = 1; i <= pages && !failed; ++i) {
        const unsigned long want = from + (unsigned long)i * PAGE;
        const unsigned long t0 = read_time(), c0 = read_cycle();
        const long got = raw_call(TS_SYS_BRK, (long)want, 0);
        const unsigned long c1 = read_cycle(), t1 = read_time();
        if (got != (long)want)
            failed = got;
        else
            record(c0, t0, c1, t1);
    }
    raw_call(TS_SYS_BRK, (long)from, 0);
    if (failed) {
        printf("kcall_bench: brk failed: %ld\n", failed);
        exit(1);
    }
    return summarize(name, 1);
}

/* ---- report -------------------------------------------------------------------- */

static void print_row(const struct bench_row *r, const struct bench_row *base, unsigned long timebase) {
    const unsigned long ns = bench_ns(r, timebase);
    const unsigned long ratio10 = base->cycles ? r->cycles * 10 / base->cycles : 0;
    printf("%-22s %10lu %8lu.%lu %9lu %7lu.%lu\n", r->name, r->cycles, r->ticks10 / 10, r->ticks10 % 10, ns,
           ratio10 / 10, ratio10 % 10);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : DEFAULT_REPS;
    if (reps < 1 || reps > MAX_REPS) reps = DEFAULT_REPS;
    const unsigned long timebase = ts_job()->timebase_hz;
    bench_print_clocks(timebase);

    struct bench_row rows[8];
    rows[0] = time_batched("empty", op_empty, reps);
    rows[1] = time_batched("null local", op_null_local, reps);
    rows[2] = time_batched("null forwarded", op_null_forwarded, reps);
    rows[3] = time_thread(reps);
    ikc_setup();
    rows[6] = time_batched("ikc drain (none)", op_ikc_drain, reps);
    ikc_fill();
    rows[7] = time_batched("ikc trywrite (full)", op_ikc_trywrite, reps);
    if (drain_result != 0 || trywrite_result != -TS_EAGAIN) {
        printf("kcall_bench: data-path calls answered %ld and %ld (want 0 and -11)\n", drain_result,
               trywrite_result);
        exit(1);
    }

    /* The break after the last malloc (thread start-up blocks): nothing
     * from here on needs the heap to grow, so it may move under malloc. */
    const unsigned long brk0 = (unsigned long)raw_call(TS_SYS_BRK, 0, 0);
    const int pages = reps < 256 ? reps : 256;
    rows[4] = time_brk("brk +1 page (new)", brk0, pages);
    rows[5] = time_brk("brk +1 page (again)", brk0, pages);

    printf("null forwarded call (futex_wake) returns %ld%s\n", forwarded_result,
           forwarded_result == -TS_ENOSYS ? " (ENOSYS: not in this kernel, answered locally)" : "");
    printf("median of %d samples; %d calls per sample for the null calls, %d pages for brk\n", reps, BATCH,
           pages);
    printf("%-22s %10s %10s %9s %9s\n", "operation", "cycles", "ticks", "ns", "x local");
    for (int i = 0; i < 8; ++i)
        print_row(&rows[i], &rows[1], timebase);
    return 0;
}
