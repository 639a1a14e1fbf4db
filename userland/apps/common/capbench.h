/*
 * What the CAP Bench applications share, in their MPI and raw-IKC forms:
 * the split of work into blocks, a deterministic random generator, the
 * cycle counter, argument parsing and the lines the benchmark driver reads.
 * Portable C (no MPI, no Tessera call), so `make crosscheck` builds it for
 * Linux too. userland/apps/README.md describes the applications.
 */
#ifndef CAPBENCH_H
#define CAPBENCH_H

#include <stdint.h>

/* Block `i` of `parts` over n items: items [*first, *first + *count).
 * The first n % parts blocks get one item more. */
void capb_block(long n, int parts, int i, long *first, long *count);

/* Blocks [first_part, first_part + nparts) of `parts` over n items, as one
 * range: what a cluster hosting those ranks' parts gets as a whole. */
void capb_blocks(long n, int parts, int first_part, int nparts, long *first, long *count);

/* How a job's np ranks sit on its clusters, numbered by their lowest rank
 * (cluster 0 hosts rank 0, the global master). The work of an application
 * is split into np blocks, the units; cluster c gets the consecutive units
 * [first_unit[c], first_unit[c] + sizes[c]), one per rank it hosts. */
#define CAPB_MAX_CLUSTERS 64
struct capb_units {
    int np, nclusters;
    int sizes[CAPB_MAX_CLUSTERS];      /* ranks of each cluster */
    int first_unit[CAPB_MAX_CLUSTERS]; /* ranks of the clusters before it */
};

/* Fills *u from the ranks of each of nclusters clusters (at most
 * CAPB_MAX_CLUSTERS): np and first_unit follow from them. */
void capb_units_set(struct capb_units *u, int nclusters, const int *sizes);

/* The range of n items cluster c gets, and the part of it its local rank i
 * gets (a range of the whole): the items the flat np-block split gives
 * that rank's unit. */
void capb_cluster_share(const struct capb_units *u, long n, int c, long *first, long *count);
void capb_rank_share(const struct capb_units *u, long n, int c, int i, long *first, long *count);

/* splitmix64: the next number of the sequence *state (same on every
 * machine, unlike rand()). */
uint64_t capb_random(uint64_t *state);

/* The CPU's cycle counter: rdcycle on RISC-V (the guest's cycles under
 * QEMU), the TSC on x86-64, 0 elsewhere. */
unsigned long long capb_cycles(void);

/* Parses s as a decimal integer in [min, max]: 0, or -1 (nothing written). */
int capb_parse_long(const char *s, long min, long max, long *out);

/* Removes "--verify" from argv wherever it is (argc shrinks) and returns
 * whether it was there. */
int capb_take_verify(int *argc, char **argv);

/* The timing line every application prints once, last, from its master:
 *   "time: ns=<wall nanoseconds> cycles=<cycles>"
 * measured from the first distribution of work to the last result in. */
void capb_print_time(unsigned long long ns, unsigned long long cycles);

/* A 64-bit FNV-1a hash of n bytes, continued from h (start with
 * CAPB_HASH_INIT): the checksums the applications print. */
#define CAPB_HASH_INIT 0xcbf29ce484222325ull
uint64_t capb_hash(uint64_t h, const void *data, unsigned long n);

#endif
