/*
 * fn A B: CAP Bench Friendly Numbers.
 *
 * The abundance of n is sigma(n)/n, sigma(n) being the sum of all divisors
 * of n (1 and n included). i < j in [A, B] are a friendly pair when their
 * abundances are equal, compared exactly as reduced fractions. Rank 0 deals
 * the range out in blocks to the other ranks (or does it all when alone),
 * gathers every (numerator, denominator), sorts them and counts the pairs
 * inside each run of equal fractions.
 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_RANGE 1
#define TAG_RESULT 2
#define FN_MAX 100000000L /* keeps sigma(n) and the message sizes in range */

/* A reduced fraction; sent as two MPI_LONGs (long is 64-bit on LP64). */
struct fraction {
    long num, den;
};

static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static long sigma(long n)
{
    long sum = 0;
    for (long i = 1; i * i <= n; ++i)
        if (n % i == 0)
            sum += i == n / i ? i : i + n / i;
    return sum;
}

static void abundances(long lo, long hi, struct fraction *out)
{
    for (long n = lo; n <= hi; ++n) {
        long s = sigma(n), g = gcd(s, n);
        out[n - lo].num = s / g;
        out[n - lo].den = n / g;
    }
}

static int by_value(const void *a, const void *b)
{
    const struct fraction *x = a, *y = b;
    if (x->num != y->num)
        return x->num < y->num ? -1 : 1;
    return (x->den > y->den) - (x->den < y->den);
}

/* Pairs of equal fractions: sort, then k equal ones make k(k-1)/2 pairs. */
static long count_pairs(struct fraction *f, long n)
{
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

static int parse(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || v > FN_MAX)
        return -1;
    *out = v;
    return 0;
}

static void *alloc_or_abort(long count, size_t size)
{
    void *p = malloc(count > 0 ? (size_t)count * size : 1);
    if (!p) {
        fprintf(stderr, "fn: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Block w of nworkers over [lo, hi]: the first (n % nworkers) get one more. */
static void block(long lo, long hi, int w, int nworkers, long range[2])
{
    long n = hi - lo + 1, base = n / nworkers, extra = n % nworkers;
    range[0] = lo + w * base + (w < extra ? w : extra);
    range[1] = range[0] + base + (w < extra ? 1 : 0) - 1;
}

static long master(long a, long b, int np)
{
    long n = b - a + 1;
    struct fraction *all = alloc_or_abort(n, sizeof *all);
    if (np == 1) {
        abundances(a, b, all);
        return count_pairs(all, n);
    }
    long range[2];
    for (int w = 1; w < np; ++w) {
        block(a, b, w - 1, np - 1, range);
        MPI_Send(range, 2, MPI_LONG, w, TAG_RANGE, MPI_COMM_WORLD);
    }
    for (int w = 1; w < np; ++w) {
        block(a, b, w - 1, np - 1, range);
        long count = range[1] - range[0] + 1;
        if (count > 0)
            MPI_Recv(all + (range[0] - a), (int)(2 * count), MPI_LONG, w, TAG_RESULT,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return count_pairs(all, n);
}

static void worker(void)
{
    long range[2];
    MPI_Recv(range, 2, MPI_LONG, 0, TAG_RANGE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long count = range[1] - range[0] + 1;
    if (count <= 0)
        return;
    struct fraction *part = alloc_or_abort(count, sizeof *part);
    abundances(range[0], range[1], part);
    MPI_Send(part, (int)(2 * count), MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
    free(part);
}

int main(int argc, char **argv)
{
    int rank, np;
    long a, b;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    /* Every rank sees the same arguments, so all agree on failing. */
    if (argc != 3 || parse(argv[1], &a) || parse(argv[2], &b) || a > b) {
        if (rank == 0)
            fprintf(stderr, "usage: %s A B  (1 <= A <= B <= %ld)\n", argv[0], FN_MAX);
        MPI_Finalize();
        return 1;
    }
    if (rank == 0)
        printf("friendly pairs: %ld\n", master(a, b, np));
    else
        worker();
    MPI_Finalize();
    return 0;
}
