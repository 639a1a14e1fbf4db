/* Friendly Numbers' computation (fn_kernel.h). */
#include "fn_kernel.h"

#include <stdio.h>
#include <stdlib.h>

#include "capbench.h"

int fn_parse(int argc, char **argv, long *a, long *b) {
    if (argc != 3 || capb_parse_long(argv[1], 1, FN_MAX, a) || capb_parse_long(argv[2], 1, FN_MAX, b) ||
        *a > *b)
        return -1;
    return 0;
}

void fn_usage(const char *program) {
    fprintf(stderr, "usage: %s [--verify] A B  (1 <= A <= B <= %ld)\n", program, FN_MAX);
}

static long gcd(long a, long b) {
    while (b) {
        const long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

long fn_sigma(long n) {
    long sum = 0;
    for (long i = 1; i * i <= n; ++i)
        if (n % i == 0) sum += i == n / i ? i : i + n / i;
    return sum;
}

void fn_abundances(long first, long count, struct fn_fraction *out) {
    /* fn_omp (the hybrid form): the rank's numbers spread over its team.
     * sigma(n) costs about sqrt(n), so the chunks are handed out as the
     * threads come free. */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64)
#endif
    for (long i = 0; i < count; ++i) {
        const long n = first + i, s = fn_sigma(n), g = gcd(s, n);
        out[i].num = s / g;
        out[i].den = n / g;
    }
}

static int by_value(const void *a, const void *b) {
    const struct fn_fraction *x = a, *y = b;
    if (x->num != y->num) return x->num < y->num ? -1 : 1;
    return (x->den > y->den) - (x->den < y->den);
}

long fn_count_pairs(struct fn_fraction *f, long n) {
    qsort(f, (size_t)n, sizeof *f, by_value);
    long pairs = 0;
    for (long i = 0; i < n;) {
        long j = i + 1;
        while (j < n && f[j].num == f[i].num && f[j].den == f[i].den)
            ++j;
        pairs += (j - i) * (j - i - 1) / 2;
        i = j;
    }
    return pairs;
}

long fn_sequential(long a, long b, struct fn_fraction *scratch) {
    fn_abundances(a, b - a + 1, scratch);
    return fn_count_pairs(scratch, b - a + 1);
}

int fn_compare(long pairs, long expected) {
    if (pairs == expected) {
        printf("verify: OK\n");
        return 0;
    }
    printf("verify: MISMATCH pairs=%ld expected %ld\n", pairs, expected);
    return 1;
}

void fn_print_pairs(long pairs) { printf("friendly pairs: %ld\n", pairs); }
