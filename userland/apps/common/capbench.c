/* The CAP Bench applications' shared, portable helpers (capbench.h). */
#include "capbench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void capb_block(long n, int parts, int i, long *first, long *count) {
    const long base = n / parts, extra = n % parts;
    *first = i * base + (i < extra ? i : extra);
    *count = base + (i < extra ? 1 : 0);
}

void capb_blocks(long n, int parts, int first_part, int nparts, long *first, long *count) {
    long last_first, last_count;
    capb_block(n, parts, first_part, first, count);
    capb_block(n, parts, first_part + nparts - 1, &last_first, &last_count);
    *count = last_first + last_count - *first;
}

void capb_units_set(struct capb_units *u, int nclusters, const int *sizes) {
    u->nclusters = nclusters;
    u->np = 0;
    for (int c = 0; c < nclusters; ++c) {
        u->sizes[c] = sizes[c];
        u->first_unit[c] = u->np;
        u->np += sizes[c];
    }
}

void capb_cluster_share(const struct capb_units *u, long n, int c, long *first, long *count) {
    capb_blocks(n, u->np, u->first_unit[c], u->sizes[c], first, count);
}

void capb_rank_share(const struct capb_units *u, long n, int c, int i, long *first, long *count) {
    capb_block(n, u->np, u->first_unit[c] + i, first, count);
}

uint64_t capb_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

unsigned long long capb_cycles(void) {
#if defined(__riscv)
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
#elif defined(__x86_64__)
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (unsigned long long)hi << 32 | lo;
#else
    return 0;
#endif
}

int capb_parse_long(const char *s, long min, long max, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int capb_take_verify(int *argc, char **argv) {
    int found = 0, n = 0;
    for (int i = 0; i < *argc; ++i) {
        if (i > 0 && strcmp(argv[i], "--verify") == 0)
            found = 1;
        else
            argv[n++] = argv[i];
    }
    argv[n] = NULL;
    *argc = n;
    return found;
}

void capb_print_time(unsigned long long ns, unsigned long long cycles) {
    printf("time: ns=%llu cycles=%llu\n", ns, cycles);
}

uint64_t capb_hash(uint64_t h, const void *data, unsigned long n) {
    const unsigned char *p = data;
    for (unsigned long i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
