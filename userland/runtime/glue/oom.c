/* The line a process writes on stderr when its heap cannot grow: what ran
 * out (its cluster's memory, or its private area) and what gives more
 * (docs/programs.md, "Memory"). Said once per process: a program that
 * tries again, or frees and goes on, is not flooded. The allocation fails
 * as before; this only explains it. It runs under the C library's malloc
 * lock, so it formats by hand: stdio may allocate. */
#include "../internal.h"

#define KIB 1024ul
#define MIB (1024ul * 1024ul)

/* A line being built, cut short rather than overflowed. */
struct line {
    char text[320];
    unsigned len;
};

static void put(struct line *l, const char *s) {
    while (*s && l->len < sizeof l->text - 1)
        l->text[l->len++] = *s++;
}

static void put_number(struct line *l, unsigned long n) {
    char digits[20];
    int k = 0;
    do {
        digits[k++] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    while (k > 0 && l->len < sizeof l->text - 1)
        l->text[l->len++] = digits[--k];
}

void ts__out_of_memory(unsigned long heap, unsigned long more) {
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) return;
    const struct ts_job_info *job = ts_job();
    struct ts_mem_info mem = {0};
    const int known = TS__SC(TS_SYS_MEM_INFO, &mem) == 0;
    const unsigned long free_bytes = mem.free_pages * mem.page_size;
    struct line l = {.len = 0};
    put(&l, "tessera: ");
    if (ts_rank() >= 0) {
        put(&l, "rank ");
        put_number(&l, (unsigned long)ts_rank());
        put(&l, " (cluster ");
        put_number(&l, (unsigned long)job->cluster_id);
        put(&l, ")");
    } else {
        put(&l, "cluster ");
        put_number(&l, (unsigned long)job->cluster_id);
    }
    put(&l, ": out of memory: its heap of ");
    put_number(&l, heap / KIB);
    put(&l, " KiB cannot grow by ");
    put_number(&l, (more + KIB - 1) / KIB);
    put(&l, " KiB: ");
    if (known && free_bytes >= more) {
        /* The cluster has the frames: the heap would pass the end of the
         * process's private area (the stacks above it). */
        put(&l, "that would pass the end of the process's private area (");
        put_number(&l, free_bytes / MIB);
        put(&l, " MiB of the cluster's ");
        put_number(&l, job->window_size / MIB);
        put(&l, " MiB are free)\n");
    } else if (job->cluster_id < job->nio_clusters) {
        put(&l, "the ");
        put_number(&l, job->window_size / MIB);
        put(&l,
            " MiB of its I/O cluster are in use (a profile with a larger io_memory_mb gives "
            "each I/O cluster more)\n");
    } else {
        put(&l, "the ");
        put_number(&l, job->window_size / MIB);
        put(&l,
            " MiB of its compute cluster are in use (mpirun --cluster-memory SIZE gives "
            "each compute cluster more)\n");
    }
    if (l.text[l.len - 1] != '\n') l.text[l.len - 1] = '\n';
    ts__console_write_through(l.text, l.len);
}
