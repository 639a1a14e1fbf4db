/*
 * K-Means' computation, shared by the MPI form (km.c), the raw-IKC form
 * (km_ikc.c) and the sequential --verify path: the arguments, the points,
 * the assign-and-accumulate step, the centroid update and the lines the
 * master prints. Portable C, no MPI and no Tessera call.
 *
 * Points and centroids are int32 coordinates, `dims` per point, stored one
 * point after the other. All arithmetic is integer, so every machine and
 * every decomposition computes the same centroids.
 */
#ifndef KM_KERNEL_H
#define KM_KERNEL_H

#include <stdint.h>

#define KM_MAX_DIMS       16
#define KM_MAX_CENTROIDS  64
#define KM_MAX_POINTS     (1L << 26) /* keeps points * dims an int (MPI counts) */
#define KM_MAX_ITERATIONS 100
#define KM_COORD_BITS     20 /* coordinates are in [0, 2^20) */

/* The run's parameters: `km [--verify] [N [D [K [SEED]]]]`. */
struct km_params {
    long points;   /* N, 1..KM_MAX_POINTS */
    int dims;      /* D, 1..KM_MAX_DIMS */
    int centroids; /* K, 1..KM_MAX_CENTROIDS and <= N */
    uint64_t seed; /* SEED, 0..LONG_MAX */
};

/* Parses argv[1..argc-1] (--verify already taken out) into *p, the
 * defaults (4096 4 8 1) filling what is missing: 0, or -1 when an
 * argument is malformed, out of range or extra. */
int km_parse(int argc, char **argv, struct km_params *p);
/* Prints the usage line on stderr. */
void km_usage(const char *prog);

/* Fills points[0 .. n*dims) with coordinates in [0, 2^KM_COORD_BITS) from
 * capb_random seeded by `seed`, point after point. */
void km_generate(int32_t *points, long n, int dims, uint64_t seed);

/* The initial centroids: a copy of the first k points. */
void km_first_centroids(int32_t *centroids, const int32_t *points, int k, int dims);

/* The length, in int64, of an accumulator: the per-centroid coordinate sums
 * (k * dims), then the per-centroid point counts (k), then the number of
 * points that changed centroid (1). Accumulators add up element-wise, so
 * one MPI_SUM (or km_acc_add) merges them. */
long km_acc_len(int k, int dims);
/* into[i] += acc[i] for the len elements. */
void km_acc_add(int64_t *into, const int64_t *acc, long len);

/* Marks n points as assigned to no centroid, so the first km_assign counts
 * them all as changed. */
void km_unassigned(int32_t *assign, long n);

/* Assigns each of the n points to its nearest centroid (squared distance
 * in int64, ties to the lower index), updating assign[0..n), and adds the
 * points to acc (km_acc_len(k, dims) elements, which the caller zeroes
 * first or reuses to merge several calls). */
void km_assign(const int32_t *points, long n, int dims, const int32_t *centroids, int k, int32_t *assign,
               int64_t *acc);

/* Moves each centroid to the floor of the mean of its points, from the
 * merged accumulator of all points; a centroid with no point keeps its
 * place. `iteration` counts this one (1 for the first). Returns whether
 * to go on: some point changed and fewer than KM_MAX_ITERATIONS were run. */
int km_update(int32_t *centroids, int k, int dims, const int64_t *acc, int iteration);

/* The whole algorithm on one core, for --verify: fills centroids[k*dims]
 * with the final centroids and returns the number of iterations, or -1
 * when its scratch memory (the assignments and sums) cannot be had. */
int km_sequential(const int32_t *points, long n, int dims, int k, int32_t *centroids);

/* Prints "km: points=N dims=D centroids=K iterations=I checksum=0x...",
 * the checksum being capb_hash over the final centroids. */
void km_print_result(const struct km_params *p, int iterations, const int32_t *centroids);

/* Compares a run with the sequential reference and prints "verify: OK" or
 * "verify: MISMATCH ..." (the first difference): 0 when they are the same,
 * 1 otherwise (the job's exit status). */
int km_compare(const struct km_params *p, int iterations, const int32_t *centroids, int ref_iterations,
               const int32_t *ref_centroids);

#endif
