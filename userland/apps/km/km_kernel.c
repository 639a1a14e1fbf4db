/* K-Means' shared computation (km_kernel.h). */
#include "km_kernel.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capbench.h"

int km_parse(int argc, char **argv, struct km_params *p) {
    long dims = 4, k = 8, seed = 1;
    p->points = 4096;
    if (argc > 5 || (argc > 1 && capb_parse_long(argv[1], 1, KM_MAX_POINTS, &p->points)) ||
        (argc > 2 && capb_parse_long(argv[2], 1, KM_MAX_DIMS, &dims)) ||
        (argc > 3 && capb_parse_long(argv[3], 1, KM_MAX_CENTROIDS, &k)) ||
        (argc > 4 && capb_parse_long(argv[4], 0, LONG_MAX, &seed)) || k > p->points)
        return -1;
    p->dims = (int)dims;
    p->centroids = (int)k;
    p->seed = (uint64_t)seed;
    return 0;
}

void km_usage(const char *prog) {
    fprintf(stderr,
            "usage: %s [--verify] [N [D [K [SEED]]]]  (points 1..%ld, dims 1..%d, "
            "centroids 1..%d and <= N, seed >= 0)\n",
            prog, KM_MAX_POINTS, KM_MAX_DIMS, KM_MAX_CENTROIDS);
}

void km_generate(int32_t *points, long n, int dims, uint64_t seed) {
    uint64_t state = seed;
    for (long i = 0; i < n * dims; ++i)
        points[i] = (int32_t)(capb_random(&state) >> (64 - KM_COORD_BITS));
}

void km_first_centroids(int32_t *centroids, const int32_t *points, int k, int dims) {
    memcpy(centroids, points, (size_t)k * (size_t)dims * sizeof *centroids);
}

long km_acc_len(int k, int dims) { return (long)k * dims + k + 1; }

void km_acc_add(int64_t *into, const int64_t *acc, long len) {
    for (long i = 0; i < len; ++i)
        into[i] += acc[i];
}

void km_unassigned(int32_t *assign, long n) {
    for (long i = 0; i < n; ++i)
        assign[i] = -1;
}

static int64_t distance2(const int32_t *a, const int32_t *b, int dims) {
    int64_t d2 = 0;
    for (int j = 0; j < dims; ++j) {
        const int64_t d = (int64_t)a[j] - b[j];
        d2 += d * d;
    }
    return d2;
}

/* Strictly nearer only, so a tie keeps the lower index. */
static int nearest(const int32_t *point, const int32_t *centroids, int k, int dims) {
    int best = 0;
    int64_t best_d2 = distance2(point, centroids, dims);
    for (int c = 1; c < k; ++c) {
        const int64_t d2 = distance2(point, centroids + (long)c * dims, dims);
        if (d2 < best_d2) {
            best = c;
            best_d2 = d2;
        }
    }
    return best;
}

void km_assign(const int32_t *points, long n, int dims, const int32_t *centroids, int k, int32_t *assign,
               int64_t *acc) {
    /* km_omp (the hybrid form): the rank's points spread over its team,
     * each thread summing into its own copy of acc, added up at the end.
     * The sums are integers, so any order gives the same centroids; the
     * pointers into acc are taken inside, where acc is the thread's copy. */
#ifdef _OPENMP
    const long len = km_acc_len(k, dims);
#pragma omp parallel for schedule(static) reduction(+ : acc[:len])
#endif
    for (long i = 0; i < n; ++i) {
        int64_t *sums = acc, *counts = acc + (long)k * dims, *changed = counts + k;
        const int32_t *point = points + i * dims;
        const int c = nearest(point, centroids, k, dims);
        if (assign[i] != c) {
            assign[i] = c;
            ++*changed;
        }
        ++counts[c];
        for (int j = 0; j < dims; ++j)
            sums[(long)c * dims + j] += point[j];
    }
}

int km_update(int32_t *centroids, int k, int dims, const int64_t *acc, int iteration) {
    const int64_t *sums = acc, *counts = acc + (long)k * dims, changed = counts[k];
    for (int c = 0; c < k; ++c)
        if (counts[c])
            for (int j = 0; j < dims; ++j) /* sums are >= 0: division is the floor */
                centroids[(long)c * dims + j] = (int32_t)(sums[(long)c * dims + j] / counts[c]);
    return changed != 0 && iteration < KM_MAX_ITERATIONS;
}

int km_sequential(const int32_t *points, long n, int dims, int k, int32_t *centroids) {
    const long len = km_acc_len(k, dims);
    int32_t *assign = malloc((size_t)n * sizeof *assign);
    int64_t *acc = malloc((size_t)len * sizeof *acc);
    int iteration = 0, more = assign && acc;
    km_first_centroids(centroids, points, k, dims);
    km_unassigned(assign, n);
    while (more) {
        memset(acc, 0, (size_t)len * sizeof *acc);
        km_assign(points, n, dims, centroids, k, assign, acc);
        more = km_update(centroids, k, dims, acc, ++iteration);
    }
    if (!assign || !acc) iteration = -1;
    free(assign);
    free(acc);
    return iteration;
}

void km_print_result(const struct km_params *p, int iterations, const int32_t *centroids) {
    const unsigned long bytes = (unsigned long)p->centroids * p->dims * sizeof *centroids;
    const uint64_t h = capb_hash(CAPB_HASH_INIT, centroids, bytes);
    printf("km: points=%ld dims=%d centroids=%d iterations=%d checksum=0x%016llx\n", p->points, p->dims,
           p->centroids, iterations, (unsigned long long)h);
}

int km_compare(const struct km_params *p, int iterations, const int32_t *centroids, int ref_iterations,
               const int32_t *ref_centroids) {
    if (iterations != ref_iterations) {
        printf("verify: MISMATCH iterations=%d expected %d\n", iterations, ref_iterations);
        return 1;
    }
    for (long i = 0; i < (long)p->centroids * p->dims; ++i)
        if (centroids[i] != ref_centroids[i]) {
            printf("verify: MISMATCH centroid %ld coordinate %ld: %d expected %d\n", i / p->dims, i % p->dims,
                   (int)centroids[i], (int)ref_centroids[i]);
            return 1;
        }
    printf("verify: OK\n");
    return 0;
}
