/*
 * mpi_coll_test: MPI collective operations (MPI 3.1 chapter 5).
 *
 *   Barrier, Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v),
 *   Reduce, Allreduce, Reduce_scatter, Reduce_scatter_block, Scan, Exscan
 *   and Reduce_local, with their MPI_IN_PLACE forms, every root, counts
 *   1, 7 and N (default 1000), on MPI_COMM_WORLD and on a communicator
 *   split into even and odd ranks (with the rank order reversed), with
 *   MPI_INT, MPI_DOUBLE, MPI_LONG_LONG and MPI_UNSIGNED_CHAR; every
 *   predefined operation on every type it is defined for; MINLOC and
 *   MAXLOC on all six pair types with ties; user operations (commutative,
 *   and a non-commutative 2x2 matrix product) through Op_create/Op_free.
 *   Every result is checked against the same computation done on each rank
 *   sequentially.
 *
 * usage: mpi_coll_test [N]   (largest count, default 1000)
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes. Rank 0 prints "mpi_coll_test: OK" at the end; the first
 * failed check prints "FAIL mpi_coll_test.c:<line>: ..." and ends the job
 * with a non-zero status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_coll_test"

#include "mpitest.h"

static _Thread_local int big_count = 1000;
static _Thread_local long calls = 0; /* checks made */
/* The communicator under test. */
static _Thread_local MPI_Comm comm = MPI_COMM_NULL;
static _Thread_local int crank = -1, csize = 0;
static _Thread_local const char *cname = "";
/* The phase of failure reports: what is being checked. */
static _Thread_local char what[200] = "init";

static void describe(const char *fmt, ...) {
    va_list ap;
    ++calls;
    int n = snprintf(what, sizeof what, "%s: ", cname);
    va_start(ap, fmt);
    vsnprintf(what + n, sizeof what - (size_t)n, fmt, ap);
    va_end(ap);
    phase = what;
}

/* ---- Basic types -------------------------------------------------------- */

enum { T_INT, T_DOUBLE, T_LL, T_UCHAR, NTYPES };
static const char *const type_names[NTYPES] = {"MPI_INT", "MPI_DOUBLE", "MPI_LONG_LONG", "MPI_UNSIGNED_CHAR"};
static const size_t type_sizes[NTYPES] = {sizeof(int), sizeof(double), sizeof(long long),
                                          sizeof(unsigned char)};

static MPI_Datatype mpi_type(int t) {
    return t == T_INT ? MPI_INT : t == T_DOUBLE ? MPI_DOUBLE : t == T_LL ? MPI_LONG_LONG : MPI_UNSIGNED_CHAR;
}

/* Element i of buf (of type t) set to v, converted as C converts. */
static void put(int t, void *buf, long i, long long v) {
    switch (t) {
    case T_INT: ((int *)buf)[i] = (int)v; break;
    case T_DOUBLE: ((double *)buf)[i] = (double)v; break;
    case T_LL: ((long long *)buf)[i] = v; break;
    case T_UCHAR: ((unsigned char *)buf)[i] = (unsigned char)v; break;
    }
}

static double elem_value(int t, const void *buf, long i) {
    switch (t) {
    case T_INT: return ((const int *)buf)[i];
    case T_DOUBLE: return ((const double *)buf)[i];
    case T_LL: return (double)((const long long *)buf)[i];
    default: return ((const unsigned char *)buf)[i];
    }
}

/* n elements of type t: got against expected. */
static void compare_at(int line, int t, const void *got, const void *exp, long n) {
    for (long i = 0; i < n; ++i) {
        int same = t == T_DOUBLE ? ((const double *)got)[i] == ((const double *)exp)[i]
                                 : memcmp((const char *)got + i * type_sizes[t],
                                          (const char *)exp + i * type_sizes[t], type_sizes[t]) == 0;
        if (!same)
            fail_at(line, "%s element %ld of %ld is %.17g, expected %.17g", type_names[t], i, n,
                    elem_value(t, got, i), elem_value(t, exp, i));
    }
}
#define COMPARE(t, got, exp, n) compare_at(__LINE__, t, got, exp, n)

/* What rank s sends to rank d, element i (data movement collectives). */
static long long dval(int s, int d, long i, int salt) {
    return ((long long)s * 1000003 + (long long)d * 7919 + i * 31 + salt * 101) % 2000003 - 1000000;
}

#define SENTINEL 0x5a
static void poison(void *buf, size_t bytes) { memset(buf, SENTINEL, bytes); }

/* ---- Predefined operations ----------------------------------------------- */

enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_BAND, O_LOR, O_BOR, O_LXOR, O_BXOR, NOPS };
static const char *const op_names[NOPS] = {"MPI_MAX",  "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND",
                                           "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR"};

static MPI_Op mpi_op(int o) {
    switch (o) {
    case O_MAX: return MPI_MAX;
    case O_MIN: return MPI_MIN;
    case O_SUM: return MPI_SUM;
    case O_PROD: return MPI_PROD;
    case O_LAND: return MPI_LAND;
    case O_BAND: return MPI_BAND;
    case O_LOR: return MPI_LOR;
    case O_BOR: return MPI_BOR;
    case O_LXOR: return MPI_LXOR;
    default: return MPI_BXOR;
    }
}

/* Logical and bitwise operations are not defined on floating types
 * (5.9.2). */
static int op_defined(int o, int t) { return t != T_DOUBLE || o <= O_PROD; }

/* Rank r's contribution, element i, for operation o on type t: small
 * values (sums and products never overflow: MPI leaves overflow to the
 * implementation, and Open MPI 4.1's vector operations saturate), logical
 * values that make AND and OR come out both ways, bit patterns for the
 * bitwise operations. */
static long long rval(int o, int t, int r, long i, int salt) {
    long k = (long)r * 7 + i * 3 + salt;
    if (t == T_UCHAR && o == O_SUM) /* csize values below 256 / csize */
        return k % (256 / csize);
    if (t == T_UCHAR && o == O_PROD) /* at most a few factors of 2 */
        return (r + i + salt) % 8 == 0 ? 2 : 1;
    switch (o) {
    case O_MAX:
    case O_MIN: return (r * 37L + i * 11 + salt) % 101 - 50;
    case O_SUM: return k % 19 - 9;
    case O_PROD: {
        static const int f[4] = {1, 2, -1, 3};
        return f[(r + i + salt) % 4];
    }
    case O_LAND: return ((i + salt) % 3 == 0 && r == i % csize) ? 0 : 1 + (r + i) % 3;
    case O_LOR: return ((i + salt) % 3 == 0 && r == i % csize) ? 2 + r % 2 : 0;
    case O_LXOR: return (r + i + salt) % 3 == 0 ? 2 : 0;
    case O_BAND: return ~(1LL << ((r * 3 + i + salt) % 24));
    case O_BOR: return 1LL << ((r * 3 + i + salt) % 24);
    default: return (long long)(((unsigned long long)k * 0x9E3779B97F4A7C15ULL) >> 20);
    }
}

#define COMBINE_INT(T)                            \
    do {                                          \
        const T *x = in;                          \
        T *y = inout;                             \
        for (long i = 0; i < n; ++i) {            \
            T a = x[i], b = y[i], r;              \
            switch (o) {                          \
            case O_MAX: r = a > b ? a : b; break; \
            case O_MIN: r = a < b ? a : b; break; \
            case O_SUM: r = (T)(a + b); break;    \
            case O_PROD: r = (T)(a * b); break;   \
            case O_LAND: r = a && b; break;       \
            case O_BAND: r = a & b; break;        \
            case O_LOR: r = a || b; break;        \
            case O_BOR: r = a | b; break;         \
            case O_LXOR: r = !a != !b; break;     \
            default: r = a ^ b; break;            \
            }                                     \
            y[i] = r;                             \
        }                                         \
    } while (0)

/* inout[i] = in[i] o inout[i], computed in type t as C would. */
static void combine(int o, int t, const void *in, void *inout, long n) {
    switch (t) {
    case T_INT: COMBINE_INT(int); break;
    case T_LL: COMBINE_INT(long long); break;
    case T_UCHAR: COMBINE_INT(unsigned char); break;
    case T_DOUBLE: {
        const double *x = in;
        double *y = inout;
        for (long i = 0; i < n; ++i) {
            double a = x[i], b = y[i];
            y[i] = o == O_MAX ? (a > b ? a : b) : o == O_MIN ? (a < b ? a : b) : o == O_SUM ? a + b : a * b;
        }
        break;
    }
    }
}

/* contribution of comm rank r: n elements of rval(o, r, first + i). */
static void contribution(int o, int t, int r, void *buf, long first, long n, int salt) {
    for (long i = 0; i < n; ++i)
        put(t, buf, i, rval(o, t, r, first + i, salt));
}

/* The reduction over ranks lo..hi-1 in rank order, of elements first ..
 * first+n-1, into out; tmp has room for n elements. */
static void reference(int o, int t, int lo, int hi, void *out, void *tmp, long first, long n, int salt) {
    contribution(o, t, lo, out, first, n, salt);
    for (int r = lo + 1; r < hi; ++r) {
        contribution(o, t, r, tmp, first, n, salt);
        combine(o, t, out, tmp, n); /* tmp = out o tmp */
        memcpy(out, tmp, (size_t)n * type_sizes[t]);
    }
}

/* ---- Buffers --------------------------------------------------------------- */

static _Thread_local char *sbuf, *rbuf, *ebuf, *tbuf;
static _Thread_local size_t buf_bytes;
static const int counts3[3] = {1, 7, 0}; /* 0 stands for big_count */

static int count_of(int k) { return counts3[k % 3] ? counts3[k % 3] : big_count; }

/* ---- Barrier -------------------------------------------------------------- */

/* No rank leaves a barrier before every rank entered it: rank 0 waits a
 * little before entering, and the others send to it as soon as they leave;
 * nothing may have arrived before rank 0 entered. */
static void test_barrier(void) {
    int flag = -1;
    describe("MPI_Barrier");
    for (int round = 0; round < 3; ++round) {
        if (crank == 0) {
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.01) {
                MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 77, comm, &flag, MPI_STATUS_IGNORE));
                if (flag) FAIL("a rank left the barrier before rank 0 entered it");
            }
            MPI_OK(MPI_Barrier(comm));
            for (int r = 1; r < csize; ++r)
                MPI_OK(MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 77, comm, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Barrier(comm));
            MPI_OK(MPI_Send(NULL, 0, MPI_INT, 0, 77, comm));
        }
    }
    for (int k = 0; k < 5; ++k)
        MPI_OK(MPI_Barrier(comm));
}

/* ---- Data movement ---------------------------------------------------------- */

static void test_bcast(void) {
    for (int root = 0; root < csize; ++root)
        for (int t = 0; t < NTYPES; ++t) {
            int c = count_of(root + t);
            describe("MPI_Bcast %s count %d root %d", type_names[t], c, root);
            for (long i = 0; i < c; ++i)
                put(t, ebuf, i, dval(root, 0, i, t));
            if (crank == root)
                memcpy(rbuf, ebuf, (size_t)c * type_sizes[t]);
            else
                poison(rbuf, (size_t)c * type_sizes[t]);
            MPI_OK(MPI_Bcast(rbuf, c, mpi_type(t), root, comm));
            COMPARE(t, rbuf, ebuf, c);
        }
}

static void test_gather(void) {
    for (int root = 0; root < csize; ++root)
        for (int t = 0; t < NTYPES + 1; ++t) {
            int inplace = t == NTYPES, tt = inplace ? root % NTYPES : t;
            int c = inplace ? 7 : count_of(root + t);
            size_t es = type_sizes[tt];
            describe("MPI_Gather %s count %d root %d%s", type_names[tt], c, root,
                     inplace ? " MPI_IN_PLACE" : "");
            for (long i = 0; i < c; ++i)
                put(tt, sbuf, i, dval(crank, root, i, 1));
            if (crank == root) {
                poison(rbuf, (size_t)c * csize * es);
                const void *send = sbuf;
                if (inplace) {
                    memcpy(rbuf + (size_t)root * c * es, sbuf, (size_t)c * es);
                    send = MPI_IN_PLACE;
                }
                MPI_OK(MPI_Gather(send, c, mpi_type(tt), rbuf, c, mpi_type(tt), root, comm));
                for (int r = 0; r < csize; ++r)
                    for (long i = 0; i < c; ++i)
                        put(tt, ebuf, (long)r * c + i, dval(r, root, i, 1));
                COMPARE(tt, rbuf, ebuf, (long)c * csize);
            } else {
                /* recvbuf is not significant here: NULL is allowed. */
                MPI_OK(MPI_Gather(sbuf, c, mpi_type(tt), NULL, 0, MPI_DATATYPE_NULL, root, comm));
            }
        }
}

/* Counts and displacements of the v-collectives: rank r's block has
 * vcount(c, r) elements (some 0) at vdispl: blocks in reverse rank order
 * with a gap of 2 elements after each. Returns the extent in elements. */
static int vcount(int c, int r) { return r % 4 == 1 ? 0 : c + r % 3; }

static int vlayout(int c, int *counts, int *displs) {
    int pos = 0;
    for (int r = csize - 1; r >= 0; --r) {
        counts[r] = vcount(c, r);
        displs[r] = pos;
        pos += counts[r] + 2;
    }
    return pos;
}

static void test_gatherv(void) {
    int *counts = xmalloc(sizeof(int) * (size_t)csize), *displs = xmalloc(sizeof(int) * (size_t)csize);
    for (int root = 0; root < csize; ++root)
        for (int t = 0; t < NTYPES + 1; ++t) {
            int inplace = t == NTYPES, tt = inplace ? (root + 1) % NTYPES : t;
            int c = inplace ? 7 : count_of(root + t);
            size_t es = type_sizes[tt];
            int extent = vlayout(c, counts, displs), mine = counts[crank];
            describe("MPI_Gatherv %s count %d root %d%s", type_names[tt], c, root,
                     inplace ? " MPI_IN_PLACE" : "");
            for (long i = 0; i < mine; ++i)
                put(tt, sbuf, i, dval(crank, root, i, 2));
            if (crank == root) {
                poison(rbuf, (size_t)extent * es);
                poison(ebuf, (size_t)extent * es);
                const void *send = sbuf;
                if (inplace) {
                    memcpy(rbuf + (size_t)displs[root] * es, sbuf, (size_t)mine * es);
                    send = MPI_IN_PLACE;
                }
                MPI_OK(MPI_Gatherv(send, mine, mpi_type(tt), rbuf, counts, displs, mpi_type(tt), root, comm));
                for (int r = 0; r < csize; ++r)
                    for (long i = 0; i < counts[r]; ++i)
                        put(tt, ebuf, displs[r] + i, dval(r, root, i, 2));
                /* The gaps between blocks keep their sentinels. */
                if (memcmp(rbuf, ebuf, (size_t)extent * es) != 0) COMPARE(tt, rbuf, ebuf, extent);
            } else {
                MPI_OK(
                    MPI_Gatherv(sbuf, mine, mpi_type(tt), NULL, NULL, NULL, MPI_DATATYPE_NULL, root, comm));
            }
        }
    free(counts);
    free(displs);
}

static void test_scatter(void) {
    for (int root = 0; root < csize; ++root)
        for (int t = 0; t < NTYPES + 1; ++t) {
            int inplace = t == NTYPES, tt = inplace ? (root + 2) % NTYPES : t;
            int c = inplace ? 7 : count_of(root + t);
            size_t es = type_sizes[tt];
            describe("MPI_Scatter %s count %d root %d%s", type_names[tt], c, root,
                     inplace ? " MPI_IN_PLACE" : "");
            for (long i = 0; i < c; ++i)
                put(tt, ebuf, i, dval(root, crank, i, 3));
            if (crank == root) {
                for (int r = 0; r < csize; ++r)
                    for (long i = 0; i < c; ++i)
                        put(tt, sbuf, (long)r * c + i, dval(root, r, i, 3));
                if (inplace) {
                    MPI_OK(MPI_Scatter(sbuf, c, mpi_type(tt), MPI_IN_PLACE, c, mpi_type(tt), root, comm));
                    COMPARE(tt, sbuf + (size_t)root * c * es, ebuf, c);
                    continue;
                }
                poison(rbuf, (size_t)c * es);
                MPI_OK(MPI_Scatter(sbuf, c, mpi_type(tt), rbuf, c, mpi_type(tt), root, comm));
            } else {
                poison(rbuf, (size_t)c * es);
                /* sendbuf is not significant here: NULL is allowed. */
                MPI_OK(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, rbuf, c, mpi_type(tt), root, comm));
            }
            COMPARE(tt, rbuf, ebuf, c);
        }
}

static void test_scatterv(void) {
    int *counts = xmalloc(sizeof(int) * (size_t)csize), *displs = xmalloc(sizeof(int) * (size_t)csize);
    for (int root = 0; root < csize; ++root)
        for (int t = 0; t < NTYPES + 1; ++t) {
            int inplace = t == NTYPES, tt = inplace ? (root + 3) % NTYPES : t;
            int c = inplace ? 7 : count_of(root + t);
            size_t es = type_sizes[tt];
            vlayout(c, counts, displs);
            int mine = counts[crank];
            describe("MPI_Scatterv %s count %d root %d%s", type_names[tt], c, root,
                     inplace ? " MPI_IN_PLACE" : "");
            for (long i = 0; i < mine; ++i)
                put(tt, ebuf, i, dval(root, crank, i, 4));
            poison(rbuf, (size_t)(mine + 1) * es);
            if (crank == root) {
                for (int r = 0; r < csize; ++r)
                    for (long i = 0; i < counts[r]; ++i)
                        put(tt, sbuf, displs[r] + i, dval(root, r, i, 4));
                if (inplace) {
                    MPI_OK(MPI_Scatterv(sbuf, counts, displs, mpi_type(tt), MPI_IN_PLACE, mine, mpi_type(tt),
                                        root, comm));
                    COMPARE(tt, sbuf + (size_t)displs[root] * es, ebuf, mine);
                    continue;
                }
                MPI_OK(
                    MPI_Scatterv(sbuf, counts, displs, mpi_type(tt), rbuf, mine, mpi_type(tt), root, comm));
            } else {
                MPI_OK(
                    MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, rbuf, mine, mpi_type(tt), root, comm));
            }
            COMPARE(tt, rbuf, ebuf, mine);
            /* Nothing past the block. */
            poison(ebuf, es);
            if (memcmp(rbuf + (size_t)mine * es, ebuf, es) != 0)
                FAIL("MPI_Scatterv wrote past the %d elements received", mine);
        }
    free(counts);
    free(displs);
}

static void test_allgather(void) {
    for (int k = 0; k < 3 * NTYPES + NTYPES; ++k) {
        int inplace = k >= 3 * NTYPES, t = k % NTYPES, c = inplace ? 7 : count_of(k / NTYPES);
        size_t es = type_sizes[t];
        describe("MPI_Allgather %s count %d%s", type_names[t], c, inplace ? " MPI_IN_PLACE" : "");
        for (long i = 0; i < c; ++i)
            put(t, sbuf, i, dval(crank, 0, i, 5 + k));
        poison(rbuf, (size_t)c * csize * es);
        const void *send = sbuf;
        if (inplace) {
            memcpy(rbuf + (size_t)crank * c * es, sbuf, (size_t)c * es);
            send = MPI_IN_PLACE;
        }
        MPI_OK(MPI_Allgather(send, c, mpi_type(t), rbuf, c, mpi_type(t), comm));
        for (int r = 0; r < csize; ++r)
            for (long i = 0; i < c; ++i)
                put(t, ebuf, (long)r * c + i, dval(r, 0, i, 5 + k));
        COMPARE(t, rbuf, ebuf, (long)c * csize);
    }
}

static void test_allgatherv(void) {
    int *counts = xmalloc(sizeof(int) * (size_t)csize), *displs = xmalloc(sizeof(int) * (size_t)csize);
    for (int k = 0; k < 3 * NTYPES + NTYPES; ++k) {
        int inplace = k >= 3 * NTYPES, t = k % NTYPES, c = inplace ? 7 : count_of(k / NTYPES);
        size_t es = type_sizes[t];
        int extent = vlayout(c, counts, displs), mine = counts[crank];
        describe("MPI_Allgatherv %s count %d%s", type_names[t], c, inplace ? " MPI_IN_PLACE" : "");
        for (long i = 0; i < mine; ++i)
            put(t, sbuf, i, dval(crank, 0, i, 30 + k));
        poison(rbuf, (size_t)extent * es);
        poison(ebuf, (size_t)extent * es);
        const void *send = sbuf;
        if (inplace) {
            memcpy(rbuf + (size_t)displs[crank] * es, sbuf, (size_t)mine * es);
            send = MPI_IN_PLACE;
        }
        MPI_OK(MPI_Allgatherv(send, mine, mpi_type(t), rbuf, counts, displs, mpi_type(t), comm));
        for (int r = 0; r < csize; ++r)
            for (long i = 0; i < counts[r]; ++i)
                put(t, ebuf, displs[r] + i, dval(r, 0, i, 30 + k));
        if (memcmp(rbuf, ebuf, (size_t)extent * es) != 0) COMPARE(t, rbuf, ebuf, extent);
    }
    free(counts);
    free(displs);
}

static void test_alltoall(void) {
    for (int k = 0; k < 3 * NTYPES + NTYPES; ++k) {
        int inplace = k >= 3 * NTYPES, t = k % NTYPES, c = inplace ? 7 : count_of(k / NTYPES);
        size_t es = type_sizes[t];
        describe("MPI_Alltoall %s count %d%s", type_names[t], c, inplace ? " MPI_IN_PLACE" : "");
        for (int d = 0; d < csize; ++d)
            for (long i = 0; i < c; ++i)
                put(t, sbuf, (long)d * c + i, dval(crank, d, i, 60 + k));
        const void *send = sbuf;
        if (inplace) {
            memcpy(rbuf, sbuf, (size_t)c * csize * es);
            send = MPI_IN_PLACE;
        } else {
            poison(rbuf, (size_t)c * csize * es);
        }
        MPI_OK(MPI_Alltoall(send, c, mpi_type(t), rbuf, c, mpi_type(t), comm));
        for (int s = 0; s < csize; ++s)
            for (long i = 0; i < c; ++i)
                put(t, ebuf, (long)s * c + i, dval(s, crank, i, 60 + k));
        COMPARE(t, rbuf, ebuf, (long)c * csize);
    }
}

/* Alltoallv: rank s sends a2a_count(s, d) elements to rank d; blocks with
 * gaps, receive side in reverse order. The MPI_IN_PLACE form needs the
 * symmetric counts. */
static int a2a_count(int c, int s, int d, int symmetric) {
    if (symmetric) return c + (s + d) % 3;
    return (s + 2 * d) % 4 == 0 ? 0 : c + (s + d) % 3;
}

static void test_alltoallv(void) {
    size_t n = (size_t)csize;
    int *sc = xmalloc(sizeof(int) * n), *sd = xmalloc(sizeof(int) * n);
    int *rc = xmalloc(sizeof(int) * n), *rd = xmalloc(sizeof(int) * n);
    for (int k = 0; k < 3 * NTYPES + NTYPES; ++k) {
        int inplace = k >= 3 * NTYPES, t = k % NTYPES, c = inplace ? 7 : count_of(k / NTYPES);
        size_t es = type_sizes[t];
        int spos = 0, rpos = 0;
        for (int d = 0; d < csize; ++d) {
            sc[d] = a2a_count(c, crank, d, inplace);
            sd[d] = spos;
            spos += sc[d] + 1;
        }
        for (int s = csize - 1; s >= 0; --s) {
            rc[s] = a2a_count(c, s, crank, inplace);
            rd[s] = rpos;
            rpos += rc[s] + 3;
        }
        describe("MPI_Alltoallv %s count %d%s", type_names[t], c, inplace ? " MPI_IN_PLACE" : "");
        poison(rbuf, (size_t)rpos * es);
        poison(ebuf, (size_t)rpos * es);
        const void *send = sbuf;
        if (inplace) {
            /* Data for rank d sits where d's data will arrive. */
            for (int d = 0; d < csize; ++d)
                for (long i = 0; i < rc[d]; ++i)
                    put(t, rbuf, rd[d] + i, dval(crank, d, i, 90 + k));
            send = MPI_IN_PLACE;
        } else {
            for (int d = 0; d < csize; ++d)
                for (long i = 0; i < sc[d]; ++i)
                    put(t, sbuf, sd[d] + i, dval(crank, d, i, 90 + k));
        }
        MPI_OK(MPI_Alltoallv(send, sc, sd, mpi_type(t), rbuf, rc, rd, mpi_type(t), comm));
        for (int s = 0; s < csize; ++s)
            for (long i = 0; i < rc[s]; ++i)
                put(t, ebuf, rd[s] + i, dval(s, crank, i, 90 + k));
        if (memcmp(rbuf, ebuf, (size_t)rpos * es) != 0) COMPARE(t, rbuf, ebuf, rpos);
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

/* ---- Reductions -------------------------------------------------------------- */

static void test_reduce(void) {
    /* Every root, MPI_SUM, each type and count; then every operation on
     * every type it is defined for, roots in turn; then MPI_IN_PLACE. */
    int k = 0;
    for (int pass = 0; pass < 3; ++pass)
        for (int t = 0; t < NTYPES; ++t)
            for (int o = 0; o < NOPS; ++o) {
                if (!op_defined(o, t)) continue;
                if (pass == 0 && o != O_SUM) continue;
                int nroots = pass == 0 ? csize : 1;
                for (int rr = 0; rr < nroots; ++rr, ++k) {
                    int root = pass == 0 ? rr : (o + t + pass) % csize;
                    int c = pass == 2 ? 7 : count_of(pass == 0 ? rr + t : o + t);
                    int inplace = pass == 2, salt = k;
                    describe("MPI_Reduce %s %s count %d root %d%s", op_names[o], type_names[t], c, root,
                             inplace ? " MPI_IN_PLACE" : "");
                    contribution(o, t, crank, sbuf, 0, c, salt);
                    if (crank == root) {
                        const void *send = sbuf;
                        if (inplace) {
                            memcpy(rbuf, sbuf, (size_t)c * type_sizes[t]);
                            send = MPI_IN_PLACE;
                        } else {
                            poison(rbuf, (size_t)c * type_sizes[t]);
                        }
                        MPI_OK(MPI_Reduce(send, rbuf, c, mpi_type(t), mpi_op(o), root, comm));
                        reference(o, t, 0, csize, ebuf, tbuf, 0, c, salt);
                        COMPARE(t, rbuf, ebuf, c);
                    } else {
                        MPI_OK(MPI_Reduce(sbuf, NULL, c, mpi_type(t), mpi_op(o), root, comm));
                    }
                }
            }
}

static void test_allreduce(void) {
    int k = 0;
    for (int t = 0; t < NTYPES; ++t)
        for (int o = 0; o < NOPS; ++o) {
            if (!op_defined(o, t)) continue;
            for (int ci = 0; ci < 3; ++ci, ++k) {
                int c = count_of(ci), inplace = (o + ci) % 2, salt = 500 + k;
                describe("MPI_Allreduce %s %s count %d%s", op_names[o], type_names[t], c,
                         inplace ? " MPI_IN_PLACE" : "");
                contribution(o, t, crank, sbuf, 0, c, salt);
                const void *send = sbuf;
                if (inplace) {
                    memcpy(rbuf, sbuf, (size_t)c * type_sizes[t]);
                    send = MPI_IN_PLACE;
                } else {
                    poison(rbuf, (size_t)c * type_sizes[t]);
                }
                MPI_OK(MPI_Allreduce(send, rbuf, c, mpi_type(t), mpi_op(o), comm));
                reference(o, t, 0, csize, ebuf, tbuf, 0, c, salt);
                COMPARE(t, rbuf, ebuf, c);
            }
        }
}

/* Reduce_scatter, Reduce_scatter_block, Scan, Exscan: every operation on
 * every type, the count turning with the operation, MPI_IN_PLACE on every
 * other call. */
static void test_reduce_scatter(void) {
    int *rcounts = xmalloc(sizeof(int) * (size_t)csize), k = 0;
    for (int t = 0; t < NTYPES; ++t)
        for (int o = 0; o < NOPS; ++o) {
            if (!op_defined(o, t)) continue;
            for (int block = 0; block < 2; ++block, ++k) {
                int c = count_of(o + t + block), inplace = k % 2, salt = 900 + k;
                size_t es = type_sizes[t];
                long total = 0, first = 0;
                for (int r = 0; r < csize; ++r) {
                    rcounts[r] = block ? c : (r % 3 == 2 ? 0 : c + r % 2);
                    if (r < crank) first += rcounts[r];
                    total += rcounts[r];
                }
                int mine = rcounts[crank];
                describe("MPI_Reduce_scatter%s %s %s count %d%s", block ? "_block" : "", op_names[o],
                         type_names[t], c, inplace ? " MPI_IN_PLACE" : "");
                contribution(o, t, crank, sbuf, 0, total, salt);
                const void *send = sbuf;
                if (inplace) {
                    memcpy(rbuf, sbuf, (size_t)total * es);
                    send = MPI_IN_PLACE;
                } else {
                    poison(rbuf, (size_t)(mine + 1) * es);
                }
                if (block)
                    MPI_OK(MPI_Reduce_scatter_block(send, rbuf, c, mpi_type(t), mpi_op(o), comm));
                else
                    MPI_OK(MPI_Reduce_scatter(send, rbuf, rcounts, mpi_type(t), mpi_op(o), comm));
                reference(o, t, 0, csize, ebuf, tbuf, first, mine, salt);
                COMPARE(t, rbuf, ebuf, mine);
                if (!inplace) {
                    poison(ebuf, es);
                    if (memcmp(rbuf + (size_t)mine * es, ebuf, es) != 0)
                        FAIL("wrote past the %d elements of this rank", mine);
                }
            }
        }
    free(rcounts);
}

static void test_scan(void) {
    int k = 0;
    for (int t = 0; t < NTYPES; ++t)
        for (int o = 0; o < NOPS; ++o) {
            if (!op_defined(o, t)) continue;
            for (int ex = 0; ex < 2; ++ex, ++k) {
                int c = count_of(o + t + ex), inplace = (k / 2) % 2, salt = 1300 + k;
                size_t es = type_sizes[t];
                describe("MPI_%s %s %s count %d%s", ex ? "Exscan" : "Scan", op_names[o], type_names[t], c,
                         inplace ? " MPI_IN_PLACE" : "");
                contribution(o, t, crank, sbuf, 0, c, salt);
                const void *send = sbuf;
                if (inplace) {
                    memcpy(rbuf, sbuf, (size_t)c * es);
                    send = MPI_IN_PLACE;
                } else {
                    poison(rbuf, (size_t)c * es);
                }
                if (ex)
                    MPI_OK(MPI_Exscan(send, rbuf, c, mpi_type(t), mpi_op(o), comm));
                else
                    MPI_OK(MPI_Scan(send, rbuf, c, mpi_type(t), mpi_op(o), comm));
                if (ex && crank == 0) /* undefined on rank 0 */
                    continue;
                reference(o, t, 0, ex ? crank : crank + 1, ebuf, tbuf, 0, c, salt);
                COMPARE(t, rbuf, ebuf, c);
            }
        }
}

/* ---- MINLOC and MAXLOC on the pair types ---------------------------------- */

typedef struct {
    float v;
    int i;
} pair_float;
typedef struct {
    double v;
    int i;
} pair_double;
typedef struct {
    long v;
    int i;
} pair_long;
typedef struct {
    int v;
    int i;
} pair_int;
typedef struct {
    short v;
    int i;
} pair_short;
typedef struct {
    long double v;
    int i;
} pair_ldouble;

/* Values with ties: ranks 2k and 2k+1 always hold the same value, so the
 * winning value is held by two ranks (but for a lone last rank). The index
 * falls as the rank rises, so a tie must pick the higher rank's (smaller)
 * index (5.9.4). */
static int pv(int r, long i, int salt) { return (int)(((r / 2) * 5 + i + salt) % 3); }
static int pi(int r, long i) { return (csize - r) * 10 + (int)(i % 7); }

#define DEF_PAIR(P, V)                                                                                     \
    static void P##_fill(P *b, int r, long n, int salt) {                                                  \
        for (long i = 0; i < n; ++i) {                                                                     \
            memset(&b[i], 0, sizeof b[i]);                                                                 \
            b[i].v = (V)pv(r, i, salt);                                                                    \
            b[i].i = pi(r, i);                                                                             \
        }                                                                                                  \
    }                                                                                                      \
    /* The reduction over ranks lo..hi-1. */                                                               \
    static void P##_ref(P *out, int maxloc, int lo, int hi, long n, int salt) {                            \
        for (long i = 0; i < n; ++i) {                                                                     \
            V best = (V)pv(lo, i, salt);                                                                   \
            int idx = pi(lo, i);                                                                           \
            for (int r = lo + 1; r < hi; ++r) {                                                            \
                V v = (V)pv(r, i, salt);                                                                   \
                int j = pi(r, i);                                                                          \
                if ((maxloc ? v > best : v < best) || (v == best && j < idx)) {                            \
                    best = v;                                                                              \
                    idx = j;                                                                               \
                }                                                                                          \
            }                                                                                              \
            out[i].v = best;                                                                               \
            out[i].i = idx;                                                                                \
        }                                                                                                  \
    }                                                                                                      \
    static void P##_compare(int line, const P *got, const P *exp, long n) {                                \
        for (long i = 0; i < n; ++i)                                                                       \
            if (got[i].v != exp[i].v || got[i].i != exp[i].i)                                              \
                fail_at(line, "element %ld of %ld is (%g, %d), expected (%g, %d)", i, n, (double)got[i].v, \
                        got[i].i, (double)exp[i].v, exp[i].i);                                             \
    }

DEF_PAIR(pair_float, float)
DEF_PAIR(pair_double, double)
DEF_PAIR(pair_long, long)
DEF_PAIR(pair_int, int)
DEF_PAIR(pair_short, short)
DEF_PAIR(pair_ldouble, long double)

#define RUN_PAIR(P, DT)                                                    \
    do {                                                                   \
        P *s = (P *)sbuf, *r = (P *)rbuf, *e = (P *)ebuf;                  \
        P##_fill(s, crank, c, salt);                                       \
        memset(r, SENTINEL, sizeof(P) * (size_t)c);                        \
        const void *send = s;                                              \
        if (kind == 0) {                                                   \
            if (crank == root) {                                           \
                MPI_OK(MPI_Reduce(send, r, c, DT, op, root, comm));        \
                P##_ref(e, maxloc, 0, csize, c, salt);                     \
                P##_compare(__LINE__, r, e, c);                            \
            } else {                                                       \
                MPI_OK(MPI_Reduce(send, NULL, c, DT, op, root, comm));     \
            }                                                              \
        } else {                                                           \
            if (kind == 2) {                                               \
                memcpy(r, s, sizeof(P) * (size_t)c);                       \
                send = MPI_IN_PLACE;                                       \
            }                                                              \
            if (kind == 3)                                                 \
                MPI_OK(MPI_Scan(send, r, c, DT, op, comm));                \
            else                                                           \
                MPI_OK(MPI_Allreduce(send, r, c, DT, op, comm));           \
            P##_ref(e, maxloc, 0, kind == 3 ? crank + 1 : csize, c, salt); \
            P##_compare(__LINE__, r, e, c);                                \
        }                                                                  \
    } while (0)

static void test_minloc_maxloc(void) {
    static const char *const pair_names[6] = {"MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT",
                                              "MPI_2INT",      "MPI_SHORT_INT",  "MPI_LONG_DOUBLE_INT"};
    static const char *const kinds[4] = {"MPI_Reduce", "MPI_Allreduce", "MPI_Allreduce MPI_IN_PLACE",
                                         "MPI_Scan"};
    int salt = 0;
    for (int p = 0; p < 6; ++p)
        for (int maxloc = 0; maxloc < 2; ++maxloc)
            for (int kind = 0; kind < 4; ++kind, ++salt) {
                int c = count_of(p + maxloc + kind), root = salt % csize;
                MPI_Op op = maxloc ? MPI_MAXLOC : MPI_MINLOC;
                describe("%s %s %s count %d root %d", kinds[kind], maxloc ? "MPI_MAXLOC" : "MPI_MINLOC",
                         pair_names[p], c, root);
                switch (p) {
                case 0: RUN_PAIR(pair_float, MPI_FLOAT_INT); break;
                case 1: RUN_PAIR(pair_double, MPI_DOUBLE_INT); break;
                case 2: RUN_PAIR(pair_long, MPI_LONG_INT); break;
                case 3: RUN_PAIR(pair_int, MPI_2INT); break;
                case 4: RUN_PAIR(pair_short, MPI_SHORT_INT); break;
                case 5: RUN_PAIR(pair_ldouble, MPI_LONG_DOUBLE_INT); break;
                }
            }
}

/* ---- User operations --------------------------------------------------------- */

/* Commutative: a + b + 1 (associative too). Over n ranks: sum + n - 1, so
 * it also counts how often the operation ran per element. */
static void plus_one(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; ++i)
        b[i] = a[i] + b[i] + 1;
}

/* Non-commutative: 2x2 matrices modulo 65521 (four ints a b / c d),
 * inout = in x inout. */
#define MOD 65521
typedef struct {
    int a, b, c, d;
} mat;
static void mat_mul(const mat *x, const mat *y, mat *out) {
    mat m;
    m.a = (int)(((long long)x->a * y->a + (long long)x->b * y->c) % MOD);
    m.b = (int)(((long long)x->a * y->b + (long long)x->b * y->d) % MOD);
    m.c = (int)(((long long)x->c * y->a + (long long)x->d * y->c) % MOD);
    m.d = (int)(((long long)x->c * y->b + (long long)x->d * y->d) % MOD);
    *out = m;
}
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    const mat *x = in;
    mat *y = inout;
    for (int i = 0; i < *len; ++i)
        mat_mul(&x[i], &y[i], &y[i]);
}
static mat mat_of(int r, long i, int salt) {
    /* Upper/lower shears and a swap-like matrix: products depend on order. */
    mat m;
    switch ((r + i + salt) % 3) {
    case 0: m = (mat){1, r + 1 + (int)(i % 5), 0, 1}; break;
    case 1: m = (mat){1, 0, r + 2, 1}; break;
    default: m = (mat){(int)(i % 7), 1, 1, r % 4}; break;
    }
    return m;
}
static void mat_ref(mat *out, int lo, int hi, long first, long n, int salt) {
    for (long i = 0; i < n; ++i) {
        mat acc = mat_of(lo, first + i, salt);
        for (int r = lo + 1; r < hi; ++r) {
            mat m = mat_of(r, first + i, salt);
            mat_mul(&acc, &m, &acc);
        }
        out[i] = acc;
    }
}
static void mat_compare(int line, const mat *got, const mat *exp, long n) {
    for (long i = 0; i < n; ++i)
        if (memcmp(&got[i], &exp[i], sizeof(mat)) != 0)
            fail_at(line, "matrix %ld of %ld is [%d %d; %d %d], expected [%d %d; %d %d]", i, n, got[i].a,
                    got[i].b, got[i].c, got[i].d, exp[i].a, exp[i].b, exp[i].c, exp[i].d);
}

static void test_user_ops(void) {
    MPI_Op plus, matmul;
    MPI_Datatype mat_type;
    int commute = -1;
    describe("MPI_Op_create");
    MPI_OK(MPI_Op_create(plus_one, 1, &plus));
    MPI_OK(MPI_Op_create(mat_op, 0, &matmul));
    MPI_OK(MPI_Op_commutative(plus, &commute));
    CHECK_EQ(commute, 1);
    MPI_OK(MPI_Op_commutative(matmul, &commute));
    CHECK_EQ(commute, 0);
    MPI_OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK_EQ(commute, 1);
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &mat_type));
    MPI_OK(MPI_Type_commit(&mat_type));

    int *si = (int *)sbuf, *ri = (int *)rbuf, *ei = (int *)ebuf;
    mat *sm = (mat *)sbuf, *rm = (mat *)rbuf, *em = (mat *)ebuf;
    for (int ci = 0; ci < 3; ++ci) {
        int c = count_of(ci);
        /* Commutative: Reduce at every root, Allreduce, Scan, Exscan. */
        for (int root = 0; root < csize; ++root) {
            describe("MPI_Reduce commutative user op count %d root %d", c, root);
            for (int i = 0; i < c; ++i)
                si[i] = crank * 3 + i;
            poison(rbuf, sizeof(int) * (size_t)c);
            MPI_OK(MPI_Reduce(si, crank == root ? ri : NULL, c, MPI_INT, plus, root, comm));
            if (crank == root)
                for (int i = 0; i < c; ++i)
                    CHECK_EQ(ri[i], 3 * csize * (csize - 1) / 2 + csize * i + csize - 1);
        }
        describe("MPI_Allreduce commutative user op count %d", c);
        for (int i = 0; i < c; ++i)
            si[i] = crank * 3 + i;
        MPI_OK(MPI_Allreduce(si, ri, c, MPI_INT, plus, comm));
        for (int i = 0; i < c; ++i)
            CHECK_EQ(ri[i], 3 * csize * (csize - 1) / 2 + csize * i + csize - 1);
        describe("MPI_Scan commutative user op count %d", c);
        MPI_OK(MPI_Scan(si, ri, c, MPI_INT, plus, comm));
        for (int i = 0; i < c; ++i)
            CHECK_EQ(ri[i], 3 * crank * (crank + 1) / 2 + (crank + 1) * i + crank);
        describe("MPI_Exscan commutative user op count %d", c);
        MPI_OK(MPI_Exscan(si, ri, c, MPI_INT, plus, comm));
        if (crank > 0)
            for (int i = 0; i < c; ++i)
                CHECK_EQ(ri[i], 3 * crank * (crank - 1) / 2 + crank * i + crank - 1);

        /* Non-commutative: the rank order must be kept. */
        int salt = 7 + ci;
        for (int root = 0; root < csize; ++root) {
            describe("MPI_Reduce matrix product count %d root %d", c, root);
            for (int i = 0; i < c; ++i)
                sm[i] = mat_of(crank, i, salt + root);
            poison(rbuf, sizeof(mat) * (size_t)c);
            MPI_OK(MPI_Reduce(sm, crank == root ? rm : NULL, c, mat_type, matmul, root, comm));
            if (crank == root) {
                mat_ref(em, 0, csize, 0, c, salt + root);
                mat_compare(__LINE__, rm, em, c);
            }
        }
        for (int i = 0; i < c; ++i)
            sm[i] = mat_of(crank, i, salt);
        describe("MPI_Allreduce matrix product count %d", c);
        MPI_OK(MPI_Allreduce(sm, rm, c, mat_type, matmul, comm));
        mat_ref(em, 0, csize, 0, c, salt);
        mat_compare(__LINE__, rm, em, c);
        describe("MPI_Allreduce MPI_IN_PLACE matrix product count %d", c);
        memcpy(rm, sm, sizeof(mat) * (size_t)c);
        MPI_OK(MPI_Allreduce(MPI_IN_PLACE, rm, c, mat_type, matmul, comm));
        mat_compare(__LINE__, rm, em, c);
        describe("MPI_Scan matrix product count %d", c);
        MPI_OK(MPI_Scan(sm, rm, c, mat_type, matmul, comm));
        mat_ref(em, 0, crank + 1, 0, c, salt);
        mat_compare(__LINE__, rm, em, c);
        describe("MPI_Exscan matrix product count %d", c);
        MPI_OK(MPI_Exscan(sm, rm, c, mat_type, matmul, comm));
        if (crank > 0) {
            mat_ref(em, 0, crank, 0, c, salt);
            mat_compare(__LINE__, rm, em, c);
        }
        describe("MPI_Reduce_scatter_block matrix product count %d", c);
        for (long i = 0; i < (long)c * csize; ++i)
            sm[i] = mat_of(crank, i, salt);
        MPI_OK(MPI_Reduce_scatter_block(sm, rm, c, mat_type, matmul, comm));
        mat_ref(em, 0, csize, (long)crank * c, c, salt);
        mat_compare(__LINE__, rm, em, c);
    }

    /* Reduce_local: inoutbuf = inbuf op inoutbuf. */
    describe("MPI_Reduce_local");
    mat x[2] = {{1, 2, 0, 1}, {0, 1, 1, 0}}, y[2] = {{1, 0, 3, 1}, {2, 0, 0, 5}}, want[2];
    mat_mul(&x[0], &y[0], &want[0]);
    mat_mul(&x[1], &y[1], &want[1]);
    MPI_OK(MPI_Reduce_local(x, y, 2, mat_type, matmul));
    mat_compare(__LINE__, y, want, 2);
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    MPI_OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM));
    CHECK(b[0] == 11 && b[1] == 22 && b[2] == 33);
    MPI_OK(MPI_Reduce_local(a, b, 3, MPI_INT, plus));
    CHECK(b[0] == 13 && b[1] == 25 && b[2] == 37);
    MPI_OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX));
    CHECK(b[0] == 13 && b[1] == 25 && b[2] == 37);

    MPI_OK(MPI_Type_free(&mat_type));
    MPI_OK(MPI_Op_free(&plus));
    MPI_OK(MPI_Op_free(&matmul));
    CHECK(plus == MPI_OP_NULL && matmul == MPI_OP_NULL);
    (void)ei;
}

/* ---- Driver ----------------------------------------------------------------- */

static void run_all(MPI_Comm c, const char *name) {
    comm = c;
    cname = name;
    MPI_OK(MPI_Comm_rank(comm, &crank));
    MPI_OK(MPI_Comm_size(comm, &csize));
    test_barrier();
    test_bcast();
    test_gather();
    test_gatherv();
    test_scatter();
    test_scatterv();
    test_allgather();
    test_allgatherv();
    test_alltoall();
    test_alltoallv();
    test_reduce();
    test_allreduce();
    test_reduce_scatter();
    test_scan();
    test_minloc_maxloc();
    test_user_ops();
    describe("end");
    MPI_OK(MPI_Barrier(comm));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 1) big_count = atoi(argv[1]);
    if (big_count < 8 || big_count > 1000000) {
        if (me == 0) printf("usage: " NAME " [N >= 8]\n");
        MPI_Finalize();
        return 2;
    }
    /* Room for the largest case: N + 4 elements per rank, plus gaps, of the
     * largest element (a long double pair). */
    size_t elem = sizeof(pair_ldouble) > sizeof(mat) ? sizeof(pair_ldouble) : sizeof(mat);
    buf_bytes = ((size_t)big_count + 8) * (size_t)np * 2 * elem + 64;
    sbuf = xmalloc(buf_bytes);
    rbuf = xmalloc(buf_bytes);
    ebuf = xmalloc(buf_bytes);
    tbuf = xmalloc(buf_bytes);
    double t0 = MPI_Wtime();

    run_all(MPI_COMM_WORLD, "MPI_COMM_WORLD");

    /* Even and odd ranks, in reverse order. */
    MPI_Comm half;
    describe("MPI_Comm_split");
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &half));
    int hr = -1, hs = -1;
    MPI_OK(MPI_Comm_rank(half, &hr));
    MPI_OK(MPI_Comm_size(half, &hs));
    CHECK_EQ(hs, me % 2 ? np / 2 : (np + 1) / 2);
    CHECK_EQ(hr, hs - 1 - me / 2);
    run_all(half, me % 2 ? "odd ranks" : "even ranks");
    MPI_OK(MPI_Comm_free(&half));

    long all_calls = 0;
    MPI_Reduce(&calls, &all_calls, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    free(sbuf);
    free(rbuf);
    free(ebuf);
    free(tbuf);
    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d, N=%d, %ld checks, %.2f s)\n", np, big_count, all_calls, t);
    return 0;
}
