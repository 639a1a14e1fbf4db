/*
 * Friendly Numbers' computation, shared by fn (MPI), fn_ikc (raw IKC) and
 * their --verify path: the abundance sigma(n)/n of each number as a
 * reduced fraction, and the count of pairs of equal abundances. Portable
 * C, integers only (long is 64-bit on every target: LP64).
 */
#ifndef FN_KERNEL_H
#define FN_KERNEL_H

/* The largest B: sigma(n), a few times n, stays far inside a long, and
 * 2 * (B - A + 1) longs fit an MPI count (int). */
#define FN_MAX 100000000L

/* A reduced fraction num/den; moved between ranks as two longs (MPI_LONG
 * pairs in fn, raw bytes in fn_ikc). */
struct fn_fraction {
    long num, den;
};

/* Reads the arguments left after --verify ("fn A B", 1 <= A <= B <= FN_MAX)
 * into *a and *b: 0, or -1 when they are bad (nothing to print here). */
int fn_parse(int argc, char **argv, long *a, long *b);
/* The usage line, on stderr. */
void fn_usage(const char *program);

/* sigma(n): the sum of all divisors of n >= 1, 1 and n included. */
long fn_sigma(long n);

/* out[i] = sigma(first + i) / (first + i), reduced, for i in [0, count). */
void fn_abundances(long first, long count, struct fn_fraction *out);

/* The pairs i < j of the n fractions f[] that are equal: a run of k equal
 * ones makes k(k-1)/2. Sorts f[] in place. */
long fn_count_pairs(struct fn_fraction *f, long n);

/* The sequential path (--verify): the friendly pairs of [a, b], using
 * scratch, room for b - a + 1 fractions. */
long fn_sequential(long a, long b, struct fn_fraction *scratch);

/* Prints "verify: OK", or "verify: MISMATCH ..." and returns 1 when the
 * pairs found differ from the sequential count; 0 otherwise. */
int fn_compare(long pairs, long expected);

/* Prints the result line the driver reads: "friendly pairs: N". */
void fn_print_pairs(long pairs);

#endif
