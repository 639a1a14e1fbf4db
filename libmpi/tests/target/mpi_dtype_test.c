/*
 * mpi_dtype_test: derived datatypes and packing (MPI 3.1 chapter 4).
 *
 *   contiguous, vector (and a negative stride), hvector, indexed,
 *   hindexed, indexed_block, struct (with MPI_Get_address), resized, dup,
 *   commit, free; get_extent, get_true_extent, size (and _x), the pair
 *   types' layout; such types in Send/Recv (non-contiguous on either side,
 *   several elements, 32 KB of a strided type), in Bcast, Allreduce
 *   (contiguous MPI_INT with MPI_SUM, which MPI 3.1 lets an implementation
 *   refuse, and with a user operation) and Gather; Pack, Unpack,
 *   Pack_size and MPI_PACKED messages; Get_count and Get_elements on a
 *   struct type, whole and partial; Fortran's and C++'s named types in C
 *   (names, layouts, reductions by group, 2-type pairs, external32); a
 *   vector of a billion pieces (size and extent beyond int), strided
 *   vectors of 200000 ints and an hvector of them in messages.
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes (pair tests pair rank 2k with 2k+1). Rank 0 prints
 * "mpi_dtype_test: OK" at the end; the first failed check prints
 * "FAIL mpi_dtype_test.c:<line>: ..." and ends the job with a non-zero
 * status.
 */
#include <complex.h>
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_dtype_test"

#include "mpitest.h"

static _Thread_local int peer = -1;

/* size, lb, extent, true_lb, true_extent of a type. */
static void check_layout_at(int line, MPI_Datatype t, long size, long lb, long extent, long true_lb,
                            long true_extent) {
    int s = -1;
    MPI_Count sx = -1;
    MPI_Aint l = -1, e = -1, tl = -1, te = -1;
    MPI_OK(MPI_Type_size(t, &s));
    MPI_OK(MPI_Type_size_x(t, &sx));
    MPI_OK(MPI_Type_get_extent(t, &l, &e));
    MPI_OK(MPI_Type_get_true_extent(t, &tl, &te));
    if (s != size || sx != size || l != lb || e != extent || tl != true_lb || te != true_extent)
        fail_at(line,
                "size %d (_x %lld), lb %ld, extent %ld, true lb %ld, true extent %ld; expected "
                "%ld, %ld, %ld, %ld, %ld",
                s, (long long)sx, (long)l, (long)e, (long)tl, (long)te, size, lb, extent, true_lb,
                true_extent);
}
#define CHECK_LAYOUT(t, size, lb, ext, tlb, text) check_layout_at(__LINE__, t, size, lb, ext, tlb, text)

static void free_type(MPI_Datatype *t) {
    MPI_OK(MPI_Type_free(t));
    CHECK(*t == MPI_DATATYPE_NULL);
}

/* ---- Layouts ------------------------------------------------------------------ */

typedef struct {
    char c;
    double d;
    int i[3];
} rec;

static MPI_Datatype make_rec_type(int resized) {
    rec r;
    memset(&r, 0, sizeof r);
    MPI_Aint base, disp[3];
    int blocks[3] = {1, 1, 3};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t, t2;
    MPI_OK(MPI_Get_address(&r, &base));
    MPI_OK(MPI_Get_address(&r.c, &disp[0]));
    MPI_OK(MPI_Get_address(&r.d, &disp[1]));
    MPI_OK(MPI_Get_address(&r.i[0], &disp[2]));
    for (int k = 0; k < 3; ++k)
        disp[k] -= base;
    CHECK(disp[0] == (MPI_Aint)offsetof(rec, c) && disp[1] == (MPI_Aint)offsetof(rec, d) &&
          disp[2] == (MPI_Aint)offsetof(rec, i));
    MPI_OK(MPI_Type_create_struct(3, blocks, disp, types, &t));
    if (!resized) return t;
    MPI_OK(MPI_Type_create_resized(t, 0, (MPI_Aint)sizeof(rec), &t2));
    free_type(&t);
    return t2;
}

static void test_layouts(void) {
    MPI_Datatype t, t2;

    phase = "predefined types";
    CHECK_LAYOUT(MPI_INT, sizeof(int), 0, sizeof(int), 0, sizeof(int));
    CHECK_LAYOUT(MPI_DOUBLE, sizeof(double), 0, sizeof(double), 0, sizeof(double));
    CHECK_LAYOUT(MPI_CHAR, 1, 0, 1, 0, 1);
    CHECK_LAYOUT(MPI_LONG_LONG, sizeof(long long), 0, sizeof(long long), 0, sizeof(long long));
    /* The pair types are laid out as C structs {value; int} (5.9.4). */
    {
        struct {
            int v;
            int i;
        } p2;
        struct {
            float v;
            int i;
        } pf;
        struct {
            double v;
            int i;
        } pd;
        struct {
            long v;
            int i;
        } pl;
        struct {
            short v;
            int i;
        } ps;
        struct {
            long double v;
            int i;
        } pld;
        MPI_Aint lb = -1, ext = -1;
        int size = -1;
#define PAIR(T, S, V)                                                                            \
    MPI_OK(MPI_Type_get_extent(T, &lb, &ext));                                                   \
    MPI_OK(MPI_Type_size(T, &size));                                                             \
    if (lb != 0 || ext != (MPI_Aint)sizeof(S) || size != (int)(sizeof(V) + sizeof(int)))         \
        FAIL("%s: lb %ld extent %ld size %d; expected 0, %d, %d", #T, (long)lb, (long)ext, size, \
             (int)sizeof(S), (int)(sizeof(V) + sizeof(int)));
        PAIR(MPI_2INT, p2, int)
        PAIR(MPI_FLOAT_INT, pf, float)
        PAIR(MPI_DOUBLE_INT, pd, double)
        PAIR(MPI_LONG_INT, pl, long)
        PAIR(MPI_SHORT_INT, ps, short)
        PAIR(MPI_LONG_DOUBLE_INT, pld, long double)
#undef PAIR
    }

    phase = "MPI_Type_contiguous";
    MPI_OK(MPI_Type_contiguous(5, MPI_INT, &t));
    CHECK_LAYOUT(t, 20, 0, 20, 0, 20);
    MPI_OK(MPI_Type_contiguous(3, t, &t2)); /* of a derived type */
    CHECK_LAYOUT(t2, 60, 0, 60, 0, 60);
    free_type(&t2);
    free_type(&t);
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &t));
    CHECK_LAYOUT(t, 0, 0, 0, 0, 0);
    free_type(&t);

    phase = "MPI_Type_vector";
    MPI_OK(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t));
    CHECK_LAYOUT(t, 48, 0, 80, 0, 80);
    free_type(&t);
    MPI_OK(MPI_Type_vector(3, 1, -2, MPI_INT, &t)); /* blocks at 0, -8, -16 bytes */
    CHECK_LAYOUT(t, 12, -16, 20, -16, 20);
    free_type(&t);

    phase = "MPI_Type_create_hvector";
    MPI_OK(MPI_Type_create_hvector(3, 1, 24, MPI_INT, &t));
    CHECK_LAYOUT(t, 12, 0, 52, 0, 52);
    free_type(&t);

    phase = "MPI_Type_indexed";
    {
        int bl[3] = {2, 1, 3}, dp[3] = {0, 5, 9};
        MPI_OK(MPI_Type_indexed(3, bl, dp, MPI_INT, &t));
        CHECK_LAYOUT(t, 24, 0, 48, 0, 48);
        free_type(&t);
        int bl2[2] = {1, 1}, dp2[2] = {4, 1}; /* out of order, not from 0 */
        MPI_OK(MPI_Type_indexed(2, bl2, dp2, MPI_INT, &t));
        CHECK_LAYOUT(t, 8, 4, 16, 4, 16);
        free_type(&t);
    }

    phase = "MPI_Type_create_hindexed";
    {
        int bl[2] = {1, 2};
        MPI_Aint dp[2] = {4, 16};
        MPI_OK(MPI_Type_create_hindexed(2, bl, dp, MPI_INT, &t));
        CHECK_LAYOUT(t, 12, 4, 20, 4, 20);
        free_type(&t);
    }

    phase = "MPI_Type_create_indexed_block";
    {
        int dp[3] = {3, 0, 7};
        MPI_OK(MPI_Type_create_indexed_block(3, 2, dp, MPI_SHORT, &t));
        CHECK_LAYOUT(t, 12, 0, 18, 0, 18);
        free_type(&t);
    }

    phase = "MPI_Type_create_struct";
    {
        t = make_rec_type(0);
        int size = -1;
        MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;
        MPI_OK(MPI_Type_size(t, &size));
        MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
        MPI_OK(MPI_Type_get_true_extent(t, &tlb, &text));
        CHECK_EQ(size, 1 + sizeof(double) + 3 * sizeof(int));
        CHECK_EQ(lb, 0);
        CHECK_EQ(tlb, 0);
        CHECK_EQ(text, offsetof(rec, i) + 3 * sizeof(int));
        /* The extent may be padded for alignment (4.1.6). */
        CHECK(ext >= text && ext <= (MPI_Aint)sizeof(rec));
        free_type(&t);
        t = make_rec_type(1);
        CHECK_LAYOUT(t, 1 + sizeof(double) + 3 * sizeof(int), 0, sizeof(rec), 0,
                     offsetof(rec, i) + 3 * sizeof(int));
        free_type(&t);
    }

    phase = "MPI_Type_create_resized";
    MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 12, &t));
    CHECK_LAYOUT(t, 4, -4, 12, 0, 4);
    MPI_OK(MPI_Type_contiguous(2, t, &t2)); /* elements one extent apart */
    CHECK_LAYOUT(t2, 8, -4, 24, 0, 16);
    free_type(&t2);
    free_type(&t);

    phase = "MPI_Type_dup";
    MPI_OK(MPI_Type_vector(2, 3, 5, MPI_INT, &t));
    MPI_OK(MPI_Type_dup(t, &t2));
    CHECK_LAYOUT(t2, 24, 0, 32, 0, 32);
    free_type(&t);
    CHECK_LAYOUT(t2, 24, 0, 32, 0, 32); /* not affected by freeing the original */
    free_type(&t2);
}

/* ---- Messages with derived types --------------------------------------------- */

static void test_send_recv(void) {
    if (peer < 0) return;
    int sender = me % 2 == 0;
    MPI_Status st;
    int count = -1;
    MPI_Datatype vec, vec_dup, neg, resized, idx, hidx, blk, inner, outer;

    phase = "vector to contiguous";
    MPI_OK(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    {
        double a[40], b[13];
        for (int i = 0; i < 40; ++i)
            a[i] = i + 0.25;
        if (sender) {
            MPI_OK(MPI_Send(a, 2, vec, peer, 1, MPI_COMM_WORLD)); /* 2 vectors, 80 bytes apart */
        } else {
            b[12] = -1;
            MPI_OK(MPI_Recv(b, 12, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &st));
            static const int pick[12] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19};
            for (int i = 0; i < 12; ++i)
                if (b[i] != pick[i] + 0.25) FAIL("element %d is %g, expected %g", i, b[i], pick[i] + 0.25);
            CHECK(b[12] == -1);
            MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
            CHECK_EQ(count, 12);
            MPI_OK(MPI_Get_count(&st, vec, &count));
            CHECK_EQ(count, 2);
            MPI_OK(MPI_Get_elements(&st, vec, &count));
            CHECK_EQ(count, 12);
        }
    }

    phase = "contiguous to vector (holes kept)";
    {
        double a[12], b[24];
        for (int i = 0; i < 12; ++i)
            a[i] = 100 + i;
        if (!sender) {
            MPI_OK(MPI_Send(a, 12, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD));
        } else {
            for (int i = 0; i < 24; ++i)
                b[i] = -5;
            MPI_OK(MPI_Recv(b, 2, vec, peer, 2, MPI_COMM_WORLD, &st));
            static const int at[12] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19};
            int k = 0;
            for (int i = 0; i < 24; ++i) {
                double want = (k < 12 && at[k] == i) ? 100 + k++ : -5;
                if (b[i] != want) FAIL("double %d is %g, expected %g", i, b[i], want);
            }
        }
    }

    phase = "MPI_Type_dup of a committed type, used at once";
    MPI_OK(MPI_Type_dup(vec, &vec_dup)); /* committed like its original (4.1.10) */
    {
        double a[20], b[6];
        for (int i = 0; i < 20; ++i)
            a[i] = -i;
        if (sender) {
            MPI_OK(MPI_Send(a, 1, vec_dup, peer, 3, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Recv(b, 6, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &st));
            CHECK(b[0] == 0 && b[1] == -1 && b[2] == -4 && b[3] == -5 && b[4] == -8 && b[5] == -9);
        }
    }
    free_type(&vec_dup);
    free_type(&vec);

    phase = "negative stride";
    MPI_OK(MPI_Type_vector(3, 1, -2, MPI_INT, &neg));
    MPI_OK(MPI_Type_commit(&neg));
    {
        int a[5] = {10, 11, 12, 13, 14}, b[3] = {0, 0, 0};
        if (sender) {
            MPI_OK(MPI_Send(&a[4], 1, neg, peer, 4, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Recv(b, 3, MPI_INT, peer, 4, MPI_COMM_WORLD, &st));
            CHECK(b[0] == 14 && b[1] == 12 && b[2] == 10);
        }
    }
    free_type(&neg);

    phase = "resized MPI_INT, count 3";
    MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 12, &resized));
    MPI_OK(MPI_Type_commit(&resized));
    {
        int a[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, b[9];
        for (int i = 0; i < 9; ++i)
            b[i] = -1;
        if (sender) {
            MPI_OK(MPI_Send(a, 3, resized, peer, 5, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(a, 3, MPI_INT, peer, 6, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Recv(b, 3, MPI_INT, peer, 5, MPI_COMM_WORLD, &st));
            CHECK(b[0] == 0 && b[1] == 3 && b[2] == 6);
            for (int i = 0; i < 9; ++i)
                b[i] = -1;
            MPI_OK(MPI_Recv(b, 3, resized, peer, 6, MPI_COMM_WORLD, &st)); /* 12 bytes apart */
            for (int i = 0; i < 9; ++i)
                CHECK_EQ(b[i], i % 3 == 0 ? i / 3 : -1);
        }
    }
    free_type(&resized);

    phase = "indexed, hindexed, indexed_block";
    {
        int bl[3] = {2, 1, 3}, dp[3] = {0, 5, 9};
        int hb[2] = {1, 2}, ib[3] = {3, 0, 7};
        MPI_Aint hd[2] = {4, 16};
        MPI_OK(MPI_Type_indexed(3, bl, dp, MPI_INT, &idx));
        MPI_OK(MPI_Type_create_hindexed(2, hb, hd, MPI_INT, &hidx));
        MPI_OK(MPI_Type_create_indexed_block(3, 2, ib, MPI_SHORT, &blk));
        MPI_OK(MPI_Type_commit(&idx));
        MPI_OK(MPI_Type_commit(&hidx));
        MPI_OK(MPI_Type_commit(&blk));
        int a[24];
        short s[12];
        for (int i = 0; i < 24; ++i)
            a[i] = 1000 + i;
        for (int i = 0; i < 12; ++i)
            s[i] = (short)(-i - 1);
        if (sender) {
            MPI_OK(MPI_Send(a, 2, idx, peer, 7, MPI_COMM_WORLD)); /* second at 12 ints */
            MPI_OK(MPI_Send(a, 1, hidx, peer, 8, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(s, 1, blk, peer, 9, MPI_COMM_WORLD));
        } else {
            int b[12];
            short sb[6];
            MPI_OK(MPI_Recv(b, 12, MPI_INT, peer, 7, MPI_COMM_WORLD, &st));
            static const int want[12] = {0, 1, 5, 9, 10, 11, 12, 13, 17, 21, 22, 23};
            for (int i = 0; i < 12; ++i)
                CHECK_EQ(b[i], 1000 + want[i]);
            MPI_OK(MPI_Recv(b, 3, MPI_INT, peer, 8, MPI_COMM_WORLD, &st));
            CHECK(b[0] == 1001 && b[1] == 1004 && b[2] == 1005);
            MPI_OK(MPI_Recv(sb, 6, MPI_SHORT, peer, 9, MPI_COMM_WORLD, &st));
            CHECK(sb[0] == -4 && sb[1] == -5 && sb[2] == -1 && sb[3] == -2 && sb[4] == -8 && sb[5] == -9);
            /* And into the indexed type: its holes keep their values. */
        }
        if (!sender) {
            MPI_OK(MPI_Send(a, 12, MPI_INT, peer, 10, MPI_COMM_WORLD));
        } else {
            int b[24];
            for (int i = 0; i < 24; ++i)
                b[i] = -3;
            MPI_OK(MPI_Recv(b, 2, idx, peer, 10, MPI_COMM_WORLD, &st));
            static const int at[12] = {0, 1, 5, 9, 10, 11, 12, 13, 17, 21, 22, 23};
            int k = 0;
            for (int i = 0; i < 24; ++i) {
                int w = (k < 12 && at[k] == i) ? 1000 + k++ : -3;
                CHECK_EQ(b[i], w);
            }
        }
        free_type(&idx);
        free_type(&hidx);
        free_type(&blk);
    }

    phase = "a type built from a freed type";
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &inner));
    MPI_OK(MPI_Type_vector(2, 1, 2, inner, &outer)); /* ints 0-1 and 4-5 */
    free_type(&inner);
    MPI_OK(MPI_Type_commit(&outer));
    {
        int a[8] = {0, 1, 2, 3, 4, 5, 6, 7}, b[4] = {0};
        if (sender) {
            MPI_OK(MPI_Send(a, 1, outer, peer, 11, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Recv(b, 4, MPI_INT, peer, 11, MPI_COMM_WORLD, &st));
            CHECK(b[0] == 0 && b[1] == 1 && b[2] == 4 && b[3] == 5);
        }
    }
    free_type(&outer);

    phase = "32 KB of a strided type";
    {
        MPI_Datatype strided;
        enum { BLOCKS = 1000 };
        MPI_OK(MPI_Type_vector(BLOCKS, 8, 16, MPI_INT, &strided));
        MPI_OK(MPI_Type_commit(&strided));
        int *a = xmalloc(sizeof(int) * 16 * BLOCKS), *b = xmalloc(sizeof(int) * 16 * BLOCKS);
        for (int i = 0; i < 16 * BLOCKS; ++i) {
            a[i] = i * 7 + 1;
            b[i] = -1;
        }
        if (sender) {
            MPI_OK(MPI_Send(a, 1, strided, peer, 12, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(b, 1, strided, peer, 13, MPI_COMM_WORLD, &st));
            for (int i = 0; i < 16 * BLOCKS; ++i)
                CHECK_EQ(b[i], i % 16 < 8 ? (i / 16 * 8 + i % 16) * 3 : -1);
        } else {
            MPI_OK(MPI_Recv(b, 8 * BLOCKS, MPI_INT, peer, 12, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, strided, &count));
            CHECK_EQ(count, 1);
            for (int i = 0; i < 8 * BLOCKS; ++i)
                CHECK_EQ(b[i], (i / 8 * 16 + i % 8) * 7 + 1);
            for (int i = 0; i < 8 * BLOCKS; ++i)
                b[i] = i * 3;
            MPI_OK(MPI_Send(b, 8 * BLOCKS, MPI_INT, peer, 13, MPI_COMM_WORLD));
        }
        free(a);
        free(b);
        free_type(&strided);
    }
}

/* ---- Struct types and Get_elements --------------------------------------------- */

static void test_struct(void) {
    if (peer < 0) return;
    phase = "struct messages";
    int sender = me % 2 == 0, count = -1;
    MPI_Status st;
    MPI_Datatype rt = make_rec_type(1), head;
    MPI_OK(MPI_Type_commit(&rt));
    /* The first two fields only: a prefix of rt's type signature. */
    {
        int bl[2] = {1, 1};
        MPI_Aint dp[2] = {offsetof(rec, c), offsetof(rec, d)};
        MPI_Datatype ty[2] = {MPI_CHAR, MPI_DOUBLE};
        MPI_OK(MPI_Type_create_struct(2, bl, dp, ty, &head));
        MPI_OK(MPI_Type_commit(&head));
    }
    rec a[3], b[4];
    memset(a, 0, sizeof a);
    for (int k = 0; k < 3; ++k) {
        a[k].c = (char)('a' + k);
        a[k].d = k * 1.5 - 7;
        for (int j = 0; j < 3; ++j)
            a[k].i[j] = k * 10 + j;
    }
    if (sender) {
        MPI_OK(MPI_Send(a, 3, rt, peer, 20, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(a, 1, head, peer, 21, MPI_COMM_WORLD));
    } else {
        memset(b, 0x33, sizeof b);
        MPI_OK(MPI_Recv(b, 4, rt, peer, 20, MPI_COMM_WORLD, &st));
        for (int k = 0; k < 3; ++k) {
            CHECK(b[k].c == 'a' + k && b[k].d == k * 1.5 - 7);
            for (int j = 0; j < 3; ++j)
                CHECK_EQ(b[k].i[j], k * 10 + j);
        }
        CHECK(b[3].c == 0x33 && b[3].i[2] == 0x33333333);
        MPI_OK(MPI_Get_count(&st, rt, &count));
        CHECK_EQ(count, 3);
        MPI_OK(MPI_Get_elements(&st, rt, &count)); /* 5 basic elements each */
        CHECK_EQ(count, 15);
        MPI_Count xc = -1;
        MPI_OK(MPI_Get_elements_x(&st, rt, &xc));
        CHECK_EQ(xc, 15);
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK_EQ(count, 3 * (1 + sizeof(double) + 3 * sizeof(int)));

        memset(b, 0x44, sizeof b);
        MPI_OK(MPI_Recv(b, 1, rt, peer, 21, MPI_COMM_WORLD, &st));
        CHECK(b[0].c == 'a' && b[0].d == -7);
        CHECK_EQ(b[0].i[0], 0x44444444);
        MPI_OK(MPI_Get_count(&st, rt, &count));
        CHECK_EQ(count, MPI_UNDEFINED); /* not a whole element */
        MPI_OK(MPI_Get_elements(&st, rt, &count));
        CHECK_EQ(count, 2);
    }
    free_type(&head);
    free_type(&rt);
}

/* ---- Collectives with derived types --------------------------------------------- */

/* A user operation: sums the ints of *len elements of a contiguous type of
 * 3 ints. */
static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < 3 * *len; ++i)
        b[i] += a[i];
}

static void test_collectives(void) {
    phase = "MPI_Bcast of a contiguous type";
    MPI_Datatype four, three, pick;
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &four));
    MPI_OK(MPI_Type_commit(&four));
    for (int root = 0; root < np; ++root) {
        int v[12];
        for (int i = 0; i < 12; ++i)
            v[i] = me == root ? root * 100 + i : -1;
        MPI_OK(MPI_Bcast(v, 3, four, root, MPI_COMM_WORLD));
        for (int i = 0; i < 12; ++i)
            CHECK_EQ(v[i], root * 100 + i);
    }
    free_type(&four);

    phase = "MPI_Allreduce of a contiguous MPI_INT type with MPI_SUM";
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &three));
    MPI_OK(MPI_Type_commit(&three));
    {
        /* MPI 3.1 defines the predefined operations on the predefined types
         * only (5.9.2; derived types of one basic type only for
         * MPI_Accumulate, 11.3.4): an implementation may refuse this with
         * MPI_ERR_OP (Open MPI 4.1 does). If it takes it, the result must
         * be right. */
        MPI_Comm c;
        int s[15], r[15];
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
        for (int i = 0; i < 15; ++i)
            s[i] = me * 1000 + i;
        int rc = MPI_Allreduce(s, r, 5, three, MPI_SUM, c), cls = -1;
        MPI_OK(MPI_Error_class(rc, &cls));
        if (cls == MPI_SUCCESS) {
            for (int i = 0; i < 15; ++i)
                CHECK_EQ(r[i], 1000 * np * (np - 1) / 2 + np * i);
            MPI_OK(MPI_Allreduce(MPI_IN_PLACE, s, 5, three, MPI_SUM, c));
            for (int i = 0; i < 15; ++i)
                CHECK_EQ(s[i], r[i]);
        } else if (cls == MPI_ERR_OP) {
            if (me == 0) printf(NAME ": note: this MPI refuses MPI_SUM on a derived type (MPI_ERR_OP)\n");
        } else {
            FAIL("MPI_Allreduce(contiguous of MPI_INT, MPI_SUM) returned class %d", cls);
        }
        MPI_OK(MPI_Comm_free(&c));

        /* The portable way: a user operation on the derived type. */
        MPI_Op sum3;
        MPI_OK(MPI_Op_create(sum_ints, 1, &sum3));
        for (int i = 0; i < 15; ++i)
            s[i] = me * 1000 + i;
        MPI_OK(MPI_Allreduce(s, r, 5, three, sum3, MPI_COMM_WORLD));
        for (int i = 0; i < 15; ++i)
            CHECK_EQ(r[i], 1000 * np * (np - 1) / 2 + np * i);
        MPI_OK(MPI_Op_free(&sum3));
    }
    free_type(&three);

    phase = "MPI_Gather of a vector into ints";
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &pick)); /* ints 0 and 3 */
    MPI_OK(MPI_Type_commit(&pick));
    {
        int s[4] = {me, -1, -1, me + 500};
        int *r = xmalloc(sizeof(int) * 2 * (size_t)np);
        for (int root = 0; root < np; ++root) {
            MPI_OK(MPI_Gather(s, 1, pick, r, 2, MPI_INT, root, MPI_COMM_WORLD));
            if (me == root)
                for (int k = 0; k < np; ++k)
                    CHECK(r[2 * k] == k && r[2 * k + 1] == k + 500);
        }
        free(r);
    }
    free_type(&pick);
}

/* ---- Pack, Unpack ------------------------------------------------------------- */

/* Fortran's and C++'s named types in C (3.2.2, Annex A.1.1): their names,
 * layouts, reductions by their group (5.9.2: LOGICAL takes no MPI_SUM),
 * MINLOC/MAXLOC pairs whose index has the value's type (5.9.4), and
 * external32. */
static void test_language_types(void) {
    phase = "Fortran's and C++'s types: names and layouts";
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    const MPI_Datatype named[] = {MPI_INTEGER4,  MPI_COMPLEX, MPI_DOUBLE_PRECISION, MPI_CXX_BOOL, MPI_2REAL,
                                  MPI_INTEGER16, MPI_REAL16};
    const char *names[] = {"MPI_INTEGER4", "MPI_COMPLEX", "MPI_DOUBLE_PRECISION",
                           "MPI_CXX_BOOL", "MPI_2REAL",   "MPI_INTEGER16",
                           "MPI_REAL16"};
    for (int i = 0; i < 7; ++i) {
        MPI_OK(MPI_Type_get_name(named[i], name, &len));
        if (strcmp(name, names[i]) != 0) FAIL("type %d is named %s; expected %s", i, name, names[i]);
    }
    CHECK_LAYOUT(MPI_INTEGER, 4, 0, 4, 0, 4);
    CHECK_LAYOUT(MPI_INTEGER8, 8, 0, 8, 0, 8);
    CHECK_LAYOUT(MPI_REAL, 4, 0, 4, 0, 4);
    CHECK_LAYOUT(MPI_COMPLEX16, 16, 0, 16, 0, 16);
    CHECK_LAYOUT(MPI_CXX_BOOL, 1, 0, 1, 0, 1);
    CHECK_LAYOUT(MPI_CXX_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double), 0, 2 * sizeof(long double), 0,
                 2 * sizeof(long double));
    CHECK_LAYOUT(MPI_2DOUBLE_PRECISION, 16, 0, 16, 0, 16);
    CHECK_LAYOUT(MPI_INTEGER16, 16, 0, 16, 0, 16);
    CHECK_LAYOUT(MPI_COMPLEX32, 32, 0, 32, 0, 32);

    phase = "Fortran's and C++'s types: reductions";
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int32_t i4 = me + 1, i4_sum = 0;
    MPI_OK(MPI_Allreduce(&i4, &i4_sum, 1, MPI_INTEGER4, MPI_SUM, c));
    CHECK_EQ(i4_sum, np * (np + 1) / 2);
    int logical = me != 0 || np == 1, all = -1, any = -1;
    MPI_OK(MPI_Allreduce(&logical, &all, 1, MPI_LOGICAL, MPI_LAND, c));
    MPI_OK(MPI_Allreduce(&logical, &any, 1, MPI_LOGICAL, MPI_LOR, c));
    CHECK_EQ(all, np == 1);
    CHECK_EQ(any, 1);
    EXPECT_CLASS(MPI_Allreduce(&logical, &all, 1, MPI_LOGICAL, MPI_SUM, c), MPI_ERR_OP);
    float pair[2] = {(float)(me % 3), (float)me}, best[2];
    MPI_OK(MPI_Allreduce(pair, best, 1, MPI_2REAL, MPI_MAXLOC, c));
    const int top = np > 2 ? 2 : np - 1; /* the largest me % 3, first reached at me == top */
    CHECK(best[0] == (float)top && best[1] == (float)top);
    double _Complex z = me + 1.0 * _Complex_I, zsum = 0;
    MPI_OK(MPI_Allreduce(&z, &zsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, c));
    CHECK(__real__ zsum == np * (np - 1) / 2.0 && __imag__ zsum == np);
    MPI_OK(MPI_Comm_free(&c));

    phase = "Fortran's types in external32";
    int v = 0x01020304;
    unsigned char ext[4] = {0};
    MPI_Aint pos = 0;
    MPI_OK(MPI_Pack_external("external32", &v, 1, MPI_INTEGER, ext, sizeof ext, &pos));
    CHECK(pos == 4 && ext[0] == 1 && ext[1] == 2 && ext[2] == 3 && ext[3] == 4);
}

static void test_pack(void) {
    phase = "MPI_Pack and MPI_Unpack";
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int one = 12345, s_int = 0, s_vec = 0, s_dbl = 0, pos = 0;
    double grid[20], five[5];
    for (int i = 0; i < 20; ++i)
        grid[i] = i * 0.5;
    for (int i = 0; i < 5; ++i)
        five[i] = -i - 0.125;
    MPI_OK(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &s_int));
    MPI_OK(MPI_Pack_size(1, vec, MPI_COMM_WORLD, &s_vec));
    MPI_OK(MPI_Pack_size(5, MPI_DOUBLE, MPI_COMM_WORLD, &s_dbl));
    CHECK(s_int >= (int)sizeof(int) && s_vec >= 6 * (int)sizeof(double) && s_dbl >= 5 * (int)sizeof(double));
    int total = s_int + s_vec + s_dbl;
    char *packed = xmalloc((size_t)total);
    MPI_OK(MPI_Pack(&one, 1, MPI_INT, packed, total, &pos, MPI_COMM_WORLD));
    CHECK(pos > 0 && pos <= s_int);
    int p1 = pos;
    MPI_OK(MPI_Pack(grid, 1, vec, packed, total, &pos, MPI_COMM_WORLD));
    CHECK(pos > p1 && pos <= p1 + s_vec);
    int p2 = pos;
    MPI_OK(MPI_Pack(five, 5, MPI_DOUBLE, packed, total, &pos, MPI_COMM_WORLD));
    CHECK(pos > p2 && pos <= total);
    int used = pos;

    /* Unpack here, in the same order. */
    int one_back = 0;
    double grid_back[20], five_back[5];
    for (int i = 0; i < 20; ++i)
        grid_back[i] = -100;
    pos = 0;
    MPI_OK(MPI_Unpack(packed, used, &pos, &one_back, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK_EQ(pos, p1);
    MPI_OK(MPI_Unpack(packed, used, &pos, grid_back, 1, vec, MPI_COMM_WORLD));
    CHECK_EQ(pos, p2);
    MPI_OK(MPI_Unpack(packed, used, &pos, five_back, 5, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK_EQ(pos, used);
    CHECK_EQ(one_back, 12345);
    for (int i = 0; i < 20; ++i) {
        int in_vec = i < 12 && i % 4 < 2;
        CHECK(grid_back[i] == (in_vec ? i * 0.5 : -100));
    }
    for (int i = 0; i < 5; ++i)
        CHECK(five_back[i] == -i - 0.125);

    if (peer >= 0) {
        phase = "MPI_PACKED messages";
        MPI_Status st;
        if (me % 2 == 0) {
            /* Packed bytes out, unpacked there. */
            MPI_OK(MPI_Send(packed, used, MPI_PACKED, peer, 30, MPI_COMM_WORLD));
            /* A typed message received as MPI_PACKED there. */
            MPI_OK(MPI_Send(grid, 1, vec, peer, 31, MPI_COMM_WORLD));
            /* Packed doubles received as doubles there. */
            pos = 0;
            MPI_OK(MPI_Pack(grid, 1, vec, packed, total, &pos, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(packed, pos, MPI_PACKED, peer, 32, MPI_COMM_WORLD));
        } else {
            char *in = xmalloc((size_t)total);
            int n = -1;
            MPI_OK(MPI_Recv(in, total, MPI_PACKED, peer, 30, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_PACKED, &n));
            CHECK_EQ(n, used);
            pos = 0;
            one_back = 0;
            MPI_OK(MPI_Unpack(in, n, &pos, &one_back, 1, MPI_INT, MPI_COMM_WORLD));
            MPI_OK(MPI_Unpack(in, n, &pos, grid_back, 1, vec, MPI_COMM_WORLD));
            MPI_OK(MPI_Unpack(in, n, &pos, five_back, 5, MPI_DOUBLE, MPI_COMM_WORLD));
            CHECK_EQ(one_back, 12345);
            CHECK(grid_back[9] == 4.5 && five_back[4] == -4.125);

            MPI_OK(MPI_Recv(in, total, MPI_PACKED, peer, 31, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_PACKED, &n));
            pos = 0;
            double six[6];
            MPI_OK(MPI_Unpack(in, n, &pos, six, 6, MPI_DOUBLE, MPI_COMM_WORLD));
            CHECK(six[0] == 0 && six[1] == 0.5 && six[2] == 2 && six[3] == 2.5 && six[4] == 4 &&
                  six[5] == 4.5);

            for (int i = 0; i < 6; ++i)
                six[i] = -1;
            MPI_OK(MPI_Recv(six, 6, MPI_DOUBLE, peer, 32, MPI_COMM_WORLD, &st));
            CHECK(six[0] == 0 && six[1] == 0.5 && six[2] == 2 && six[3] == 2.5 && six[4] == 4 &&
                  six[5] == 4.5);
            free(in);
        }
    }
    free(packed);
    free_type(&vec);
}

/* ---- Large counts ---------------------------------------------------------------- */

/* A vector of a billion pieces is made, measured and freed without its
 * type map growing with its count; a vector of 200000 strided ints, and
 * an hvector of such vectors, carry a message intact. */
static void test_large_counts(void) {
    MPI_Datatype four, huge, col, cols;
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &four));
    const int n = INT32_MAX / 2;
    MPI_OK(MPI_Type_vector(n, 1, 3, four, &huge));
    MPI_OK(MPI_Type_commit(&huge));
    MPI_Count size = -1, lb = -1, extent = -1;
    int small = 0;
    MPI_OK(MPI_Type_size_x(huge, &size));
    MPI_OK(MPI_Type_size(huge, &small));
    MPI_OK(MPI_Type_get_extent_x(huge, &lb, &extent));
    CHECK(size == (MPI_Count)16 * n && small == MPI_UNDEFINED);
    CHECK(lb == 0 && extent == (MPI_Count)48 * (n - 1) + 16);
    free_type(&huge);
    free_type(&four);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_EQ(MPI_Type_vector(-1, 1, 3, MPI_INT, &huge), MPI_ERR_COUNT);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    if (peer < 0) return;

    enum { N = 200000, ROWS = 3 };
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &col));
    MPI_OK(MPI_Type_create_hvector(ROWS, 1, (MPI_Aint)(2 * N * sizeof(int)), col, &cols));
    MPI_OK(MPI_Type_commit(&col));
    MPI_OK(MPI_Type_commit(&cols));
    int *buf = xmalloc(sizeof(int) * 2 * N * ROWS);
    for (int i = 0; i < 2 * N * ROWS; ++i)
        buf[i] = me % 2 == 0 ? i : -1;
    if (me % 2 == 0) {
        MPI_OK(MPI_Send(buf, 1, col, peer, 70, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(buf, 1, cols, peer, 71, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        int count = -1;
        MPI_OK(MPI_Recv(buf, N, MPI_INT, peer, 70, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_EQ(count, N);
        for (int i = 0; i < N; ++i)
            if (buf[i] != 2 * i) FAIL("vector: int %d is %d", i, buf[i]);
        for (int i = 0; i < 2 * N * ROWS; ++i)
            buf[i] = -1;
        MPI_OK(MPI_Recv(buf, 1, cols, peer, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 2 * N * ROWS; ++i)
            if (buf[i] != (i % 2 ? -1 : i)) FAIL("hvector of vectors: int %d is %d", i, buf[i]);
    }
    free(buf);
    free_type(&cols);
    free_type(&col);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    peer = (me ^ 1) < np ? (me ^ 1) : -1;
    double t0 = MPI_Wtime();

    sync_all("layouts");
    test_layouts();
    sync_all("send/recv");
    test_send_recv();
    sync_all("struct");
    test_struct();
    sync_all("collectives");
    test_collectives();
    sync_all("pack");
    test_pack();
    sync_all("Fortran's and C++'s types");
    test_language_types();
    sync_all("large counts");
    test_large_counts();
    sync_all("finalize");

    double t = MPI_Wtime() - t0;
    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d, %.2f s)\n", np, t);
    return 0;
}
