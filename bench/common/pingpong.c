/* The ping-pong benchmarks' shared part (pingpong.h). */
#include "pingpong.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Both sides of the eager threshold (512) and of the mailbox payload
 * (120 B in every profile), then up to the largest. */
static const int sizes[] = {0, 1, 8, 64, 512, 513, 1024, 4096, 32768, 65536, 262144, PINGPONG_MAX_BYTES};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int parse_long(const char *s, long min, long max, long *out) {
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int pingpong_parse(int argc, char **argv, struct pingpong_args *a) {
    long reps = PINGPONG_DEFAULT_REPS, max_bytes = PINGPONG_MAX_BYTES;
    if (argc > 3 || (argc > 1 && parse_long(argv[1], 1, PINGPONG_MAX_REPS, &reps)) ||
        (argc > 2 && parse_long(argv[2], 0, PINGPONG_MAX_BYTES, &max_bytes)))
        return -1;
    a->reps = (int)reps;
    a->max_bytes = max_bytes;
    return 0;
}

void pingpong_usage(const char *program) {
    printf("usage: mpirun -np 2 %s [REPS 1..%d [MAX_BYTES 0..%d]]\n", program, PINGPONG_MAX_REPS,
           PINGPONG_MAX_BYTES);
}

/* ---- the messages ------------------------------------------------------------------- */

/* Message `rep` of size `row` from rank `from`: every message of the run
 * gets its own seed, and word i of it is a splitmix64 mix of seed + i,
 * so a stale message, one from the wrong size or sender, or a chunk in the
 * wrong place differs from what the receiver expects. */
static uint64_t seed_of(int rep, int row, int from) {
    return (((uint64_t)rep * NSIZES + (uint64_t)row) * 2 + (uint64_t)from) << 20;
}

static uint64_t word(uint64_t seed, int i) {
    uint64_t z = seed + (uint64_t)i;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Byte k of a message is byte k % 8 of word k / 8, least significant
 * first: the memory order of the word on this little-endian machine, so
 * whole words are stored and compared at once. */
static void fill(unsigned char *p, int bytes, uint64_t seed) {
    for (int k = 0; k < bytes; k += 8) {
        const uint64_t w = word(seed, k / 8);
        memcpy(p + k, &w, bytes - k < 8 ? (size_t)(bytes - k) : 8);
    }
}

/* The first byte of p that differs from the pattern, or -1. */
static int first_wrong(const unsigned char *p, int bytes, uint64_t seed) {
    for (int k = 0; k < bytes; k += 8) {
        const uint64_t w = word(seed, k / 8);
        const int n = bytes - k < 8 ? bytes - k : 8;
        if (memcmp(p + k, &w, (size_t)n) == 0) continue;
        for (int b = 0; b < n; ++b)
            if (p[k + b] != (unsigned char)(w >> 8 * b)) return k + b;
    }
    return -1;
}

/* ---- the timed loop ------------------------------------------------------------------ */

struct run {
    const char *program;
    const struct pingpong_args *args;
    int rank;
    unsigned long timebase;
    const struct pingpong_ops *ops;
    void *ctx;
    void *out_block, *in_block;      /* what malloc gave */
    unsigned char *out, *in;         /* PINGPONG_MAX_BYTES each, in them */
    unsigned long *cycles, *ticks10; /* one-way, per timed round trip */
};

/* QEMU's software TLB is direct-mapped on page numbers, so a memcpy
 * between two buffers whose distance is (near) a multiple of its size, a
 * power of two of at least 64 pages, misses on every access: LWMPI's
 * local path, which copies rank 0's out into rank 1's in and back, ran
 * over 10 times slower from 64 KiB up with two plain 1 MiB mallocs per
 * rank (measured). So each of the four buffers starts at its own colour,
 * 16 pages apart past a 64-page boundary: any two of them are then 16, 32
 * or 48 pages apart modulo 64, whatever the heap does. */
#define PAGE        4096ul
#define COLOUR_SPAN (64 * PAGE)
#define COLOUR_STEP (16 * PAGE)

static unsigned char *coloured(void **block, int colour) {
    *block = malloc(PINGPONG_MAX_BYTES + COLOUR_SPAN + 3 * COLOUR_STEP);
    if (!*block) return NULL;
    const uintptr_t start = ((uintptr_t)*block + COLOUR_SPAN - 1) & ~(uintptr_t)(COLOUR_SPAN - 1);
    return (unsigned char *)(start + (uintptr_t)colour * COLOUR_STEP);
}

static void print_row(const struct run *r, int bytes) {
    const struct bench_row row = {"", bench_median(r->cycles, r->args->reps),
                                  bench_median(r->ticks10, r->args->reps)};
    const unsigned long ns = bench_ns(&row, r->timebase);
    printf("row %10d %12lu %10.1f %10.2f\n", bytes, row.cycles, ns / 1000.0, ns ? bytes * 1000.0 / ns : 0.0);
}

/* All the round trips of size `row`: 0, or -1 on a wrong byte. */
static int measure(struct run *r, int row) {
    const int n = sizes[row];
    for (int i = 0; i <= r->args->reps; ++i) {
        fill(r->out, n, seed_of(i, row, r->rank));
        r->ops->ready(r->ctx, r->rank);
        const unsigned long c0 = read_cycle(), t0 = read_time();
        r->ops->trip(r->ctx, r->rank, row, r->out, r->in, n);
        const unsigned long c1 = read_cycle(), t1 = read_time();
        if (i > 0) {
            r->cycles[i - 1] = (c1 - c0) / 2;
            r->ticks10[i - 1] = (t1 - t0) * 10 / 2;
        }
        const int wrong = first_wrong(r->in, n, seed_of(i, row, 1 - r->rank));
        if (wrong >= 0) {
            printf("%s: rank %d: byte %d of round trip %d of %d bytes is wrong\n", r->program, r->rank, wrong,
                   i, n);
            return -1;
        }
    }
    if (r->rank == 0) print_row(r, n);
    return 0;
}

int pingpong_run(const char *program, const struct pingpong_args *a, int rank, unsigned long timebase,
                 const struct pingpong_ops *ops, void *ctx) {
    struct run r = {
        .program = program, .args = a, .rank = rank, .timebase = timebase, .ops = ops, .ctx = ctx};
    r.out = coloured(&r.out_block, 2 * rank);
    r.in = coloured(&r.in_block, 2 * rank + 1);
    r.cycles = malloc((size_t)a->reps * sizeof(unsigned long));
    r.ticks10 = malloc((size_t)a->reps * sizeof(unsigned long));
    int status = -1;
    if (!r.out || !r.in || !r.cycles || !r.ticks10) {
        printf("%s: rank %d: out of memory for the buffers\n", program, rank);
    } else {
        if (rank == 0) {
            bench_print_clocks(timebase);
            printf("#%13s %12s %10s %10s\n", "bytes", "cycles", "us", "MB/s");
        }
        status = 0;
        for (int row = 0; row < NSIZES && sizes[row] <= a->max_bytes && status == 0; ++row)
            status = measure(&r, row);
    }
    free(r.out_block);
    free(r.in_block);
    free(r.cycles);
    free(r.ticks10);
    return status;
}
