/* ikc_bench [--quick] [--portal MIN_BYTES MAX_BYTES]: what IKC costs
 * between two compute clusters.
 *
 * Run it with one process on each of the first two compute clusters:
 *   tools/mpirun -np 2 --map-by scatter ikc_bench
 * The first compute cluster (the *sender*) echoes mailbox messages and
 * writes portal data; the second (the *meter*) pings, reads, times every
 * figure on its main thread, checks every byte it gets and prints the
 * table. Any other process of the job exits at once.
 *
 *   1. mailbox round trip: one message of the full payload to the sender
 *      and its echo back; then the same between two threads of the meter
 *      (a loopback through the meter's own hardware mailbox).
 *   2. portal throughput sender -> meter through one virtual portal, for
 *      1 KiB to 1 MiB, next to a memcpy of the same size on the meter's
 *      main thread.
 *   3. the same transfer split over 2 and 4 virtual portals on different
 *      ports of the meter, all carried by its single hardware input portal
 *      and moved concurrently by as many threads on each side.
 *
 * Each figure is the min and median over samples. A portal sample moves K
 * transfers back to back (K * size >= the batch) and is divided by K: one
 * small transfer is short next to a `time` tick and to the barrier that
 * starts the sample. Every received byte is checked against the sender's
 * pattern; a short or failed transfer, or a wrong byte, ends the job with
 * status 1. --quick: few samples and small sizes (a smoke run).
 * --portal: section 2 alone, for MIN_BYTES, twice that, ... MAX_BYTES
 * (powers of two, 1 KiB to 4 MiB): the raw-IKC side of `make bench`'s
 * streaming experiment, which needs the sizes LWMPI streams and not the
 * rest. See bench/README.md for what the figures mean. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/runtime.h>

#include "bench.h"

#define MAILBOX_PORT 20 /* each cluster's input mailbox */
#define ECHO_PORT    21 /* input mailbox of the meter's loopback echo thread */
#define PORTAL_PORT  20 /* part i uses portal port PORTAL_PORT + i at both ends */
#define BARRIER_PORT 20
#define MAX_PARTS    4
#define MAX_SAMPLES  401
#define MAX_MESSAGE  256 /* more than any profile's mailbox payload */
#define KIB          1024ul
#define PAGE         4096ul
#define MAX_PORTAL   (4096 * KIB) /* --portal: the meter holds two buffers of it in its cluster */
#define COUNT(a)     ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- what to measure ------------------------------------------------------------ */

struct config {
    int mailbox_samples; /* section 1 (0: skipped) */
    int portal_samples;
    size_t batch;        /* bytes a portal sample moves at least */
    const size_t *sizes; /* section 2 */
    int nsizes;
    const size_t *mux_sizes; /* section 3 (none: skipped) */
    int nmux_sizes;
};

static const size_t full_sizes[] = {1 * KIB, 4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, 1024 * KIB};
static const size_t full_mux_sizes[] = {64 * KIB, 1024 * KIB};
static const size_t quick_sizes[] = {1 * KIB, 16 * KIB};
static const size_t quick_mux_sizes[] = {16 * KIB};
static const int part_counts[] = {1, 2, 4}; /* section 3: 1 is the reference */

static const struct config full = {
    201, 11, 256 * KIB, full_sizes, COUNT(full_sizes), full_mux_sizes, COUNT(full_mux_sizes)};
static const struct config quick = {
    11, 3, 16 * KIB, quick_sizes, COUNT(quick_sizes), quick_mux_sizes, COUNT(quick_mux_sizes)};
static const struct config *cfg; /* full or quick, or portal_only */

/* --portal: section 2 of full or quick, for the sizes it gives (1 KiB to
 * MAX_PORTAL, powers of two: at most 13). */
static size_t portal_sizes[13];
static struct config portal_only;

/* ---- roles and failures ------------------------------------------------------------ */

static int sender, meter; /* cluster ids */
static bool is_meter;
static ts_barrier_t barrier; /* the sender first: it leaves a barrier before the meter */

static void barrier_wait(void) { bench_check(ts_barrier_wait(&barrier), "barrier_wait"); }

/* ---- clocks and samples --------------------------------------------------------------- */

struct stamp {
    unsigned long cycles, ticks;
};

static struct stamp now(void) {
    const unsigned long t = read_time();
    return (struct stamp){read_cycle(), t};
}

static unsigned long ticks_to_ns(unsigned long ticks) { return ticks * 1000000000ul / ts_job()->timebase_hz; }

/* Per operation, over `ops` operations since t0. */
struct samples {
    unsigned long cycles[MAX_SAMPLES], ns[MAX_SAMPLES];
    int n;
};

static void record(struct samples *s, struct stamp t0, unsigned long ops) {
    const unsigned long c1 = read_cycle(), t1 = read_time();
    s->cycles[s->n] = (c1 - t0.cycles) / ops;
    s->ns[s->n] = ticks_to_ns(t1 - t0.ticks) / ops;
    ++s->n;
}

struct figure {
    unsigned long cycles_min, cycles_med, ns_min, ns_med;
};

/* bench_median sorts, so the first sample is then the smallest. */
static struct figure summarize(struct samples *s) {
    const unsigned long cycles_med = bench_median(s->cycles, s->n);
    const unsigned long ns_med = bench_median(s->ns, s->n);
    return (struct figure){s->cycles[0], cycles_med, s->ns[0], ns_med};
}

/* Bytes per microsecond: 10^6 bytes per second. */
static double mb_per_s(size_t bytes, unsigned long ns) { return ns ? bytes * 1000.0 / ns : 0; }

/* ---- 1. mailbox round trip ---------------------------------------------------------- */

static int payload(void) { return ts_job()->mailbox_payload; }

/* Message `seq`: every byte depends on it, so a stale or mixed-up echo shows. */
static void fill_message(unsigned char *m, int seq) {
    for (int k = 0; k < payload(); ++k)
        m[k] = (unsigned char)(seq * 31 + k * 7 + 1);
}

/* Sends message 0..samples-1 on `out`, waits for each one's echo on `in`. */
static struct figure ping(int in, int out, int samples) {
    unsigned char sent[MAX_MESSAGE], got[MAX_MESSAGE];
    static struct samples s;
    s.n = 0;
    for (int i = 0; i < samples; ++i) {
        fill_message(sent, i);
        const struct stamp t0 = now();
        bench_expect(ts_mailbox_write(out, sent, (unsigned long)payload()), (unsigned long)payload(),
                     "mailbox_write");
        bench_expect(ts_mailbox_read(in, got, sizeof got), (unsigned long)payload(), "mailbox_read");
        record(&s, t0, 1);
        if (memcmp(sent, got, (size_t)payload()) != 0)
            bench_fail("mailbox: the echo differs from message", i);
    }
    return summarize(&s);
}

/* The other end of ping(): checks each message, sends it back. */
static void echo(int in, int out, int samples) {
    unsigned char want[MAX_MESSAGE], got[MAX_MESSAGE];
    for (int i = 0; i < samples; ++i) {
        bench_expect(ts_mailbox_read(in, got, sizeof got), (unsigned long)payload(), "mailbox_read");
        fill_message(want, i);
        if (memcmp(want, got, (size_t)payload()) != 0) bench_fail("mailbox: wrong content in message", i);
        bench_expect(ts_mailbox_write(out, got, (unsigned long)payload()), (unsigned long)payload(),
                     "mailbox_write");
    }
}

struct echo_job {
    int in, out, samples;
};

static void echo_thread(void *arg) {
    const struct echo_job *j = arg;
    echo(j->in, j->out, j->samples);
}

/* Two threads of the meter, each with its own input mailbox on its own
 * port: both ports share the cluster's one hardware mailbox. */
static struct figure loopback(int samples) {
    struct echo_job j = {bench_check(ts_mailbox_create(ECHO_PORT), "mailbox_create echo"),
                         bench_check(ts_mailbox_open(ECHO_PORT, meter, MAILBOX_PORT), "mailbox_open echo"),
                         samples};
    const int in = bench_check(ts_mailbox_create(MAILBOX_PORT), "mailbox_create loopback");
    const int out = bench_check(ts_mailbox_open(MAILBOX_PORT, meter, ECHO_PORT), "mailbox_open loopback");
    const int tid = bench_check(ts_thread_create(echo_thread, &j), "thread_create echo");
    const struct figure f = ping(in, out, samples);
    bench_check(ts_thread_join(tid, 0), "thread_join echo");
    bench_check(ts_mailbox_unlink(j.in), "mailbox_unlink echo");
    bench_check(ts_mailbox_close(j.out), "mailbox_close echo");
    bench_check(ts_mailbox_unlink(in), "mailbox_unlink loopback");
    bench_check(ts_mailbox_close(out), "mailbox_close loopback");
    return f;
}

static void print_mailbox_row(const char *where, const struct figure *f) {
    printf("mailbox round trip %-24s %4d B %11lu %11lu %9.1f %9.1f\n", where, payload(), f->cycles_min,
           f->cycles_med, f->ns_min / 1000.0, f->ns_med / 1000.0);
}

/* The sender echoes; the meter pings it, then itself. The barrier: both
 * input mailboxes exist before the first message. */
static void mailbox_section(void) {
    const int in = bench_check(ts_mailbox_create(MAILBOX_PORT), "mailbox_create");
    const int out =
        bench_check(ts_mailbox_open(MAILBOX_PORT, is_meter ? sender : meter, MAILBOX_PORT), "mailbox_open");
    barrier_wait();
    if (!is_meter) {
        echo(in, out, cfg->mailbox_samples);
    } else {
        const struct figure remote = ping(in, out, cfg->mailbox_samples);
        bench_check(ts_mailbox_unlink(in), "mailbox_unlink"); /* loopback() takes its port */
        const struct figure local = loopback(cfg->mailbox_samples);
        char where[32];
        printf("\n%-43s %6s %11s %11s %9s %9s\n", "", "message", "cycles min", "cycles med", "us min",
               "us med");
        snprintf(where, sizeof where, "%d <-> %d", meter, sender);
        print_mailbox_row(where, &remote);
        snprintf(where, sizeof where, "loopback in %d, 2 threads", meter);
        print_mailbox_row(where, &local);
    }
}

/* ---- portal transfers -------------------------------------------------------------------- */

/* One part of a transfer: a virtual portal (the meter's input, the
 * sender's output) on port PORTAL_PORT + i at both ends, and the part's
 * slice of each of the sample's transfers in this side's buffer. */
struct part {
    int portal, port;
    unsigned char *first; /* the slice in the first transfer */
    size_t bytes;         /* the part's share of one transfer */
    size_t stride;        /* one transfer: from a slice to the next transfer's */
    int transfers;        /* per sample */
    unsigned long moved;  /* bytes since the start: the kernel's statistics must agree */
};

static long read_part(const struct part *p, unsigned char *at) {
    bench_check(ts_portal_allow(p->portal, sender, p->port, 0), "portal_allow");
    return ts_portal_read(p->portal, at, p->bytes, 0);
}

static void run_part(struct part *p) {
    for (int t = 0; t < p->transfers; ++t) {
        unsigned char *at = p->first + (size_t)t * p->stride;
        const long n = is_meter ? read_part(p, at) : ts_portal_write(p->portal, at, p->bytes, 0);
        bench_expect(n, p->bytes, is_meter ? "portal_read" : "portal_write");
        p->moved += p->bytes;
    }
}

/* The threads that move parts 1..n-1 while the main thread moves part 0.
 * They stay for all the samples of one measurement, so a sample times the
 * transfers and not the thread start-ups: each waits for the next round. */
static struct crew {
    ts_mutex_t lock;
    ts_cond_t changed; /* a round started, a part finished, or quit */
    unsigned round;
    int unfinished; /* parts 1..n-1 still moving in this round */
    bool quit;
    int n;
    int tids[MAX_PARTS];
    struct part parts[MAX_PARTS];
} crew; /* all zeros: the lock free, no round yet (TS_MUTEX_INIT, TS_COND_INIT) */

static void crew_worker(void *arg) {
    struct part *p = arg;
    unsigned seen = 0;
    for (;;) {
        ts_mutex_lock(&crew.lock);
        while (crew.round == seen && !crew.quit)
            ts_cond_wait(&crew.changed, &crew.lock);
        seen = crew.round;
        const bool quit = crew.quit;
        ts_mutex_unlock(&crew.lock);
        if (quit) return;
        run_part(p);
        ts_mutex_lock(&crew.lock);
        --crew.unfinished;
        ts_cond_broadcast(&crew.changed);
        ts_mutex_unlock(&crew.lock);
    }
}

/* No worker runs here: the last crew was dismissed and joined. */
static void crew_hire(int n) {
    crew.n = n;
    crew.round = 0;
    crew.quit = false;
    for (int i = 1; i < n; ++i)
        crew.tids[i] = bench_check(ts_thread_create(crew_worker, &crew.parts[i]), "thread_create");
}

static void crew_run(void) {
    ts_mutex_lock(&crew.lock);
    crew.unfinished = crew.n - 1;
    ++crew.round;
    ts_cond_broadcast(&crew.changed);
    ts_mutex_unlock(&crew.lock);
    run_part(&crew.parts[0]);
    ts_mutex_lock(&crew.lock);
    while (crew.unfinished > 0)
        ts_cond_wait(&crew.changed, &crew.lock);
    ts_mutex_unlock(&crew.lock);
}

static void crew_dismiss(void) {
    ts_mutex_lock(&crew.lock);
    crew.quit = true;
    ts_cond_broadcast(&crew.changed);
    ts_mutex_unlock(&crew.lock);
    for (int i = 1; i < crew.n; ++i)
        bench_check(ts_thread_join(crew.tids[i], 0), "thread_join");
}

static void open_portals(void) {
    for (int i = 0; i < MAX_PARTS; ++i) {
        struct part *p = &crew.parts[i];
        p->port = PORTAL_PORT + i;
        p->portal = is_meter ? bench_check(ts_portal_create(p->port), "portal_create")
                             : bench_check(ts_portal_open(p->port, meter, p->port), "portal_open");
    }
}

/* ---- the data and its check ---------------------------------------------------------- */

/* The sender's buffer holds word_at(i) at word i; a sample's transfers
 * cover its first batch bytes in order (transfer t, part i at t * size +
 * i * size / n), so the meter's buffer must hold the same: a word from
 * the wrong place, transfer or part, or one never written, differs. */
static uint64_t word_at(size_t i) { return (i + 1) * 0x9e3779b97f4a7c15ull; }

static void fill_pattern(unsigned char *buf, size_t bytes) {
    uint64_t *w = (uint64_t *)buf;
    for (size_t i = 0; i < bytes / sizeof *w; ++i)
        w[i] = word_at(i);
}

static void verify_pattern(const unsigned char *buf, size_t bytes) {
    const uint64_t *w = (const uint64_t *)buf;
    for (size_t i = 0; i < bytes / sizeof *w; ++i)
        if (w[i] != word_at(i))
            bench_fail("portal: received data differs from the pattern at byte", (long)(i * sizeof *w));
}

static unsigned char *data; /* the sender's pattern; the meter's receive buffer */
static unsigned char *copy; /* the meter's memcpy destination */

static size_t batch_for(size_t size) { return size > cfg->batch ? size : cfg->batch; }

/* The largest batch of n sizes, or `most` if that is larger. */
static size_t largest_batch(const size_t *sizes, int n, size_t most) {
    for (int k = 0; k < n; ++k)
        most = batch_for(sizes[k]) > most ? batch_for(sizes[k]) : most;
    return most;
}

/* The meter's two buffers come from one block with a page between them:
 * buffers a power-of-two number of pages apart use the same entries of
 * QEMU's direct-mapped software TLB, and a memcpy from one to the other
 * then misses on every access (about 15 times slower, measured). */
static void alloc_buffers(void) {
    const size_t most =
        largest_batch(cfg->mux_sizes, cfg->nmux_sizes, largest_batch(cfg->sizes, cfg->nsizes, cfg->batch));
    data = malloc(is_meter ? 2 * most + PAGE : most);
    if (!data) bench_fail("out of memory for buffers of bytes", (long)most);
    if (is_meter)
        copy = data + most + PAGE;
    else
        fill_pattern(data, most);
}

/* Transfers of `size` bytes split over n parts, batch / size per sample. */
static void plan(size_t size, int n) {
    for (int i = 0; i < n; ++i) {
        struct part *p = &crew.parts[i];
        p->first = data + (size_t)i * (size / (size_t)n);
        p->bytes = size / (size_t)n;
        p->stride = size;
        p->transfers = (int)(batch_for(size) / size);
    }
}

/* The sender leaves the barrier first, so its writers are usually waiting
 * for the allows when the meter starts the clock. The meter's buffer is
 * cleared first: data left from the last sample must not pass the check. */
static void portal_sample(struct samples *s, size_t size) {
    const size_t batch = batch_for(size);
    if (is_meter) memset(data, 0, batch);
    barrier_wait();
    const struct stamp t0 = now();
    crew_run();
    record(s, t0, batch / size);
    if (is_meter) verify_pattern(data, batch);
}

/* Both sides run it; only the meter's figure means something. */
static struct figure measure_portal(size_t size, int n) {
    static struct samples s;
    s.n = 0;
    plan(size, n);
    crew_hire(n);
    for (int i = 0; i < cfg->portal_samples; ++i)
        portal_sample(&s, size);
    crew_dismiss();
    return summarize(&s);
}

/* The meter's main thread copies what the portal brought, in the same
 * pieces, into another buffer. */
static struct figure measure_memcpy(size_t size) {
    static struct samples s;
    s.n = 0;
    const size_t batch = batch_for(size);
    for (int i = 0; i < cfg->portal_samples; ++i) {
        const struct stamp t0 = now();
        for (size_t at = 0; at < batch; at += size)
            memcpy(copy + at, data + at, size);
        record(&s, t0, batch / size);
    }
    if (memcmp(copy, data, batch) != 0) bench_fail("memcpy: the copy differs", (long)size);
    return summarize(&s);
}

/* ---- 2. throughput, 3. multiplexing ---------------------------------------------------- */

static void print_size(size_t size) {
    if (size >= 1024 * KIB)
        printf("%4lu MiB", (unsigned long)(size / (1024 * KIB)));
    else
        printf("%4lu KiB", (unsigned long)(size / KIB));
}

static void throughput_section(void) {
    if (is_meter)
        printf(
            "\nportal %d -> %d, one virtual portal, against memcpy on the meter's main thread\n"
            "    size  xfers  cycles min  cycles med    us min    us med      MB/s"
            "  memcpy cyc med  memcpy MB/s  portal/memcpy\n",
            sender, meter);
    for (int k = 0; k < cfg->nsizes; ++k) {
        const size_t size = cfg->sizes[k];
        const struct figure p = measure_portal(size, 1);
        if (!is_meter) continue;
        const struct figure m = measure_memcpy(size);
        print_size(size);
        printf(" %6lu %11lu %11lu %9.1f %9.1f %9.1f %15lu %12.1f %14.4f\n",
               (unsigned long)(batch_for(size) / size), p.cycles_min, p.cycles_med, p.ns_min / 1000.0,
               p.ns_med / 1000.0, mb_per_s(size, p.ns_med), m.cycles_med, mb_per_s(size, m.ns_med),
               (double)m.cycles_med / (double)p.cycles_med);
    }
}

static void multiplex_section(void) {
    if (is_meter)
        printf(
            "\nthe same transfer over n virtual portals (ports %d..) on the meter's one hardware"
            " portal, n threads each side\n"
            "    size  n  cycles min  cycles med    us min    us med      MB/s  x single\n",
            PORTAL_PORT);
    for (int k = 0; k < cfg->nmux_sizes; ++k) {
        const size_t size = cfg->mux_sizes[k];
        struct figure single = {0};
        for (int j = 0; j < COUNT(part_counts); ++j) {
            const struct figure f = measure_portal(size, part_counts[j]);
            if (part_counts[j] == 1) single = f;
            if (!is_meter) continue;
            print_size(size);
            printf(" %2d %11lu %11lu %9.1f %9.1f %9.1f %9.3f\n", part_counts[j], f.cycles_min, f.cycles_med,
                   f.ns_min / 1000.0, f.ns_med / 1000.0, mb_per_s(size, f.ns_med),
                   (double)single.cycles_med / (double)f.cycles_med);
        }
    }
}

/* The kernel counts every virtual portal's transfers: its bytes must be
 * the ones this program moved. */
static void statistics_section(void) {
    printf("\nkernel statistics of the meter's virtual portals\n");
    for (int i = 0; i < MAX_PARTS; ++i) {
        const struct part *p = &crew.parts[i];
        struct ts_ikc_stats st;
        bench_check(ts_portal_ioctl(p->portal, TS_IKC_IOCTL_STATS, &st), "portal_ioctl");
        printf("portal port %d: %lu allows, %lu reads, %lu bytes, %.1f us per read\n", p->port, st.allows,
               st.reads, st.bytes, st.reads ? st.transfer_ns / 1000.0 / st.reads : 0);
        if (st.bytes != p->moved || st.reads != st.allows)
            bench_fail("portal statistics disagree with the bytes moved on port", p->port);
    }
}

/* ---- start -------------------------------------------------------------------------------- */

/* The first two compute clusters, which must both host a process of the
 * job; false when this cluster is neither. */
static bool pick_clusters(const struct ts_job_info *job) {
    sender = job->nio_clusters;
    meter = sender + 1;
    const bool scatter = job->map_policy == TS_MAP_SCATTER;
    if (meter >= job->nclusters || job->np <= (scatter ? 1 : job->slots_per_cluster))
        bench_fail("run it on two compute clusters (-np 2 --map-by scatter); np", job->np);
    is_meter = job->cluster_id == meter;
    return job->cluster_id == sender || is_meter;
}

static void print_header(const struct ts_job_info *job) {
    printf(
        "ikc_bench: sender cluster %d, meter cluster %d; %d hw mailbox(es), %d hw portal(s), "
        "%d virtual per hw; mailbox payload %d B, portal chunk %d B\n",
        sender, meter, job->hw_mailboxes, job->hw_portals, job->virtual_per_hw, payload(), job->portal_chunk);
    printf("figures: min and median of ");
    if (cfg->mailbox_samples) printf("%d samples (mailbox) and ", cfg->mailbox_samples);
    printf("%d samples (portal, memcpy); us from rdtime at %lu Hz; MB/s = 10^6 bytes/s\n",
           cfg->portal_samples, job->timebase_hz);
}

/* How fast the cycle counter ran against `time` over the whole run. */
static void print_clock(struct stamp start) {
    const struct stamp end = now();
    const double per_tick = (double)(end.cycles - start.cycles) / (double)(end.ticks - start.ticks);
    printf("\ncycle counter: %.1f per time tick over the run (%.0f MHz)\n", per_tick,
           per_tick * (double)ts_job()->timebase_hz / 1e6);
}

/* *v from the whole of s, when it is a size --portal takes. */
static bool portal_size(const char *s, size_t *v) {
    char *end;
    *v = strtoul(s, &end, 10);
    return end != s && !*end && *v >= KIB && *v <= MAX_PORTAL && (*v & (*v - 1)) == 0;
}

/* NULL when the arguments make cfg, else what is wrong with them. */
static const char *parse(int argc, char **argv) {
    bool is_quick = false;
    size_t min = 0, max = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            is_quick = true;
        } else if (strcmp(argv[i], "--portal") == 0) {
            if (i + 2 >= argc || !portal_size(argv[i + 1], &min) || !portal_size(argv[i + 2], &max) ||
                min > max)
                return "--portal takes MIN_BYTES <= MAX_BYTES, powers of two from 1024 to 4194304";
            i += 2;
        } else {
            return "unknown argument";
        }
    }
    cfg = is_quick ? &quick : &full;
    if (max) {
        portal_only = (struct config){0, cfg->portal_samples, cfg->batch, portal_sizes, 0, NULL, 0};
        for (size_t size = min; size <= max; size *= 2)
            portal_sizes[portal_only.nsizes++] = size;
        cfg = &portal_only;
    }
    return NULL;
}

int main(int argc, char **argv) {
    const struct ts_job_info *job = ts_job();
    if (ts_local_index() > 0) return 0; /* one process per cluster takes part: its first */
    const char *wrong = parse(argc, argv);
    if (wrong) {
        if (job->cluster_id == job->nio_clusters) /* once for the job */
            printf("ikc_bench: %s\nusage: ikc_bench [--quick] [--portal MIN_BYTES MAX_BYTES]\n", wrong);
        return 2;
    }
    if (!pick_clusters(job)) return 0;
    if (payload() > MAX_MESSAGE) bench_fail("mailbox payload larger than the benchmark's buffer", payload());
    const struct stamp start = now();

    alloc_buffers();

    const int clusters[2] = {sender, meter};
    bench_check(ts_barrier_create(&barrier, clusters, 2, BARRIER_PORT), "barrier_create");
    open_portals();
    if (is_meter) print_header(job);

    if (cfg->mailbox_samples) mailbox_section();
    throughput_section();
    if (cfg->nmux_sizes) multiplex_section();
    if (!is_meter) return 0;
    statistics_section();
    print_clock(start);
    printf("ikc_bench: done\n");
    return 0;
}
