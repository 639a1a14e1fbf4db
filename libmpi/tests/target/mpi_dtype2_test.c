/*
 * mpi_dtype2_test: the rest of MPI 3.1 chapter 4.
 *
 *   Type_create_subarray (C and Fortran order, 2-D and 3-D) and
 *   Type_create_darray (block, cyclic, cyclic(k), none; both orders) with
 *   layouts and packed orders checked against hand-computed ones, a
 *   distributed array gathered on rank 0 through every rank's darray;
 *   Type_create_hindexed_block; Type_get_envelope and Type_get_contents
 *   for every constructor (a returned derived type usable and freed, also
 *   after its original was freed); Type_get_name/set_name; the _x extent
 *   calls; Type_match_size; Type_create_f90_real/complex/integer;
 *   Pack_external, Unpack_external,
 *   Pack_external_size (external32 bytes checked by hand);
 *   Status_set_elements(_x) with Get_count/Get_elements(_x).
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes. Rank 0 prints "mpi_dtype2_test: OK" at the end; the first
 * failed check prints "FAIL mpi_dtype2_test.c:<line>: ..." and ends the
 * job with a non-zero status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_dtype2_test"

#include "mpitest.h"

static void check_layout_at(int line, MPI_Datatype t, long size, long lb, long extent, long true_lb,
                            long true_extent) {
    int s = -1;
    MPI_Aint l = -1, e = -1, tl = -1, te = -1;
    MPI_Count lx = -1, ex = -1, tlx = -1, tex = -1, sx = -1;
    MPI_OK(MPI_Type_size(t, &s));
    MPI_OK(MPI_Type_get_extent(t, &l, &e));
    MPI_OK(MPI_Type_get_true_extent(t, &tl, &te));
    MPI_OK(MPI_Type_size_x(t, &sx));
    MPI_OK(MPI_Type_get_extent_x(t, &lx, &ex));
    MPI_OK(MPI_Type_get_true_extent_x(t, &tlx, &tex));
    if (s != size || l != lb || e != extent || tl != true_lb || te != true_extent)
        fail_at(line,
                "size %d, lb %ld, extent %ld, true lb %ld, true extent %ld; expected %ld, %ld, %ld, %ld, %ld",
                s, (long)l, (long)e, (long)tl, (long)te, size, lb, extent, true_lb, true_extent);
    if (sx != s || lx != l || ex != e || tlx != tl || tex != te) fail_at(line, "the _x calls disagree");
}
#define CHECK_LAYOUT(t, size, lb, ext, tlb, text) check_layout_at(__LINE__, t, size, lb, ext, tlb, text)

/* Packs one element of `t` from `buf` (ints) and checks it holds want[0..n). */
static void check_packed_at(int line, MPI_Datatype t, const int *buf, const int *want, int n) {
    int size = 0, pos = 0;
    MPI_OK(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size));
    if (size < n * (int)sizeof(int)) fail_at(line, "Pack_size %d < %d ints", size, n);
    int *out = xmalloc((size_t)size);
    MPI_OK(MPI_Pack(buf, 1, t, out, size, &pos, MPI_COMM_WORLD));
    if (pos != n * (int)sizeof(int)) fail_at(line, "packed %d bytes, expected %d", pos, n * (int)sizeof(int));
    for (int i = 0; i < n; ++i)
        if (out[i] != want[i]) fail_at(line, "packed int %d is %d, expected %d", i, out[i], want[i]);
    free(out);
}
#define CHECK_PACKED(t, buf, want, n) check_packed_at(__LINE__, t, buf, want, n)

static void commit(MPI_Datatype *t) { MPI_OK(MPI_Type_commit(t)); }
static void free_type(MPI_Datatype *t) {
    MPI_OK(MPI_Type_free(t));
    CHECK(*t == MPI_DATATYPE_NULL);
}

/* ---- Subarrays ------------------------------------------------------------------ */

static void test_subarray(void) {
    phase = "subarray";
    /* a[6][8] = 100 i + j; rows 1..3, columns 2..5 in C order. */
    int a[6][8], b[6][8];
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 8; ++j)
            a[i][j] = 100 * i + j;
    const int sizes[2] = {6, 8}, subsizes[2] = {3, 4}, starts[2] = {1, 2};
    MPI_Datatype sub;
    MPI_OK(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &sub));
    commit(&sub);
    const int is = (int)sizeof(int);
    CHECK_LAYOUT(sub, 12 * is, 0, 48 * is, 10 * is, 20 * is);
    int want[12], n = 0;
    for (int i = 1; i <= 3; ++i)
        for (int j = 2; j <= 5; ++j)
            want[n++] = 100 * i + j;
    CHECK_PACKED(sub, &a[0][0], want, 12);
    /* Through a message to oneself: only the subarray is written. */
    memset(b, 0, sizeof b);
    MPI_OK(MPI_Sendrecv(a, 1, sub, me, 1, b, 1, sub, me, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 8; ++j) {
            const int in = i >= 1 && i <= 3 && j >= 2 && j <= 5;
            if (b[i][j] != (in ? a[i][j] : 0)) FAIL("b[%d][%d] = %d", i, j, b[i][j]);
        }
    /* Two elements: the second starts one whole array later. */
    int two[2][6][8];
    for (int k = 0; k < 2; ++k)
        memcpy(two[k], a, sizeof a);
    two[1][1][2] = -7;
    int packed[24], pos = 0;
    MPI_OK(MPI_Pack(two, 2, sub, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK_EQ(packed[12], -7);
    CHECK_EQ(packed[23], 305);
    free_type(&sub);

    /* Fortran order: the first index varies fastest. An array f(6, 8)
     * stored column-major, f(i, j) at i + 6 j; rows 1..3, columns 2..5. */
    int f[48];
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 6; ++i)
            f[i + 6 * j] = 100 * i + j;
    MPI_OK(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    commit(&sub);
    CHECK_LAYOUT(sub, 12 * is, 0, 48 * is, (1 + 6 * 2) * is, (3 + 6 * 5 + 1 - (1 + 6 * 2)) * is);
    n = 0;
    for (int j = 2; j <= 5; ++j)
        for (int i = 1; i <= 3; ++i)
            want[n++] = 100 * i + j;
    CHECK_PACKED(sub, f, want, 12);
    free_type(&sub);

    /* 3-D of doubles, C order: [2][3][4], taking [1][0..1][1..3]. */
    double d[2][3][4];
    for (int i = 0; i < 24; ++i)
        (&d[0][0][0])[i] = i;
    const int s3[3] = {2, 3, 4}, ss3[3] = {1, 2, 3}, st3[3] = {1, 0, 1};
    MPI_OK(MPI_Type_create_subarray(3, s3, ss3, st3, MPI_ORDER_C, MPI_DOUBLE, &sub));
    commit(&sub);
    const int ds = (int)sizeof(double);
    CHECK_LAYOUT(sub, 6 * ds, 0, 24 * ds, 13 * ds, (20 - 13) * ds);
    double dp[6];
    pos = 0;
    MPI_OK(MPI_Pack(d, 1, sub, dp, (int)sizeof dp, &pos, MPI_COMM_WORLD));
    const double dwant[6] = {13, 14, 15, 17, 18, 19};
    for (int i = 0; i < 6; ++i)
        if (dp[i] != dwant[i]) FAIL("3-D subarray: packed %d is %g, expected %g", i, dp[i], dwant[i]);
    free_type(&sub);

    /* Errors. */
    MPI_Datatype bad = MPI_DATATYPE_NULL;
    const int big_start[2] = {4, 2};
    CHECK_EQ(MPI_Type_create_subarray(2, sizes, subsizes, big_start, MPI_ORDER_C, MPI_INT, &bad),
             MPI_ERR_ARG);
    const int zero_sizes[2] = {0, 8};
    CHECK_EQ(MPI_Type_create_subarray(2, zero_sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &bad),
             MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_create_subarray(2, sizes, subsizes, starts, 77, MPI_INT, &bad), MPI_ERR_ARG);
}

/* ---- Distributed arrays --------------------------------------------------------- */

/* Which process coordinate owns index i of a dimension of n indices. */
static int owner(int i, int n, int distrib, int darg, int p) {
    if (distrib == MPI_DISTRIBUTE_NONE) return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        const int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (n + p - 1) / p : darg;
        return i / b;
    }
    const int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (i / b) % p;
}

/* A 2-D darray over the process grid psizes (row-major): rank r's type
 * must pack exactly the elements it owns, in storage order. */
static void check_darray(const int gsizes[2], const int distribs[2], const int dargs[2], const int psizes[2],
                         int order) {
    const int n = gsizes[0] * gsizes[1], size = psizes[0] * psizes[1];
    int *a = xmalloc(sizeof(int) * (size_t)n), *want = xmalloc(sizeof(int) * (size_t)n);
    /* Element (i, j) is at i * g1 + j in C order, i + g0 * j in Fortran. */
    for (int i = 0; i < gsizes[0]; ++i)
        for (int j = 0; j < gsizes[1]; ++j)
            a[order == MPI_ORDER_C ? i * gsizes[1] + j : i + gsizes[0] * j] = 1000 * i + j;
    int total = 0;
    for (int r = 0; r < size; ++r) {
        const int pr = r / psizes[1], pc = r % psizes[1];
        MPI_Datatype t;
        MPI_OK(MPI_Type_create_darray(size, r, 2, gsizes, distribs, dargs, psizes, order, MPI_INT, &t));
        commit(&t);
        int k = 0;
        /* In storage order: the fastest index inside. */
        for (int outer = 0; outer < gsizes[order == MPI_ORDER_C ? 0 : 1]; ++outer)
            for (int inner = 0; inner < gsizes[order == MPI_ORDER_C ? 1 : 0]; ++inner) {
                const int i = order == MPI_ORDER_C ? outer : inner, j = order == MPI_ORDER_C ? inner : outer;
                if (owner(i, gsizes[0], distribs[0], dargs[0], psizes[0]) == pr &&
                    owner(j, gsizes[1], distribs[1], dargs[1], psizes[1]) == pc)
                    want[k++] = 1000 * i + j;
            }
        int s = -1;
        MPI_Aint lb = -1, extent = -1;
        MPI_OK(MPI_Type_size(t, &s));
        MPI_OK(MPI_Type_get_extent(t, &lb, &extent));
        CHECK_EQ(s, k * (int)sizeof(int));
        CHECK_EQ(lb, 0);
        CHECK_EQ(extent, n * (int)sizeof(int));
        if (k > 0) CHECK_PACKED(t, a, want, k);
        total += k;
        free_type(&t);
    }
    CHECK_EQ(total, n); /* every element has exactly one owner */
    free(a);
    free(want);
}

static void test_darray(void) {
    phase = "darray layouts";
    const int g[2] = {7, 5};
    const int block_cyclic[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    const int dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    const int p23[2] = {2, 3}, p31[3] = {3, 1};
    check_darray(g, block_cyclic, dflt, p23, MPI_ORDER_C);
    check_darray(g, block_cyclic, dflt, p23, MPI_ORDER_FORTRAN);
    const int cyclic_block[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
    const int dargs2[2] = {2, 2};
    check_darray(g, cyclic_block, dargs2, p23, MPI_ORDER_C);
    const int block_none[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE};
    check_darray(g, block_none, dflt, p31, MPI_ORDER_C);
    check_darray(g, block_none, dflt, p31, MPI_ORDER_FORTRAN);

    /* The job's own grid: every rank sends its part of a 2-D array to
     * rank 0, which receives each part through that rank's darray. */
    phase = "darray gather";
    int psizes[2] = {0, 0};
    MPI_OK(MPI_Dims_create(np, 2, psizes));
    const int gs[2] = {3 * psizes[0] + 1, 2 * psizes[1] + 1};
    const int distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    const int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    const int n = gs[0] * gs[1];
    int *mine = xmalloc(sizeof(int) * (size_t)n), *all = xmalloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < n; ++k)
        mine[k] = me == 0 ? -1 : 1000 * me + k; /* rank 0's part is read from the others' */
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_darray(np, me, 2, gs, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t));
    commit(&t);
    if (me == 0) {
        for (int k = 0; k < n; ++k)
            all[k] = -2;
        for (int r = 1; r < np; ++r) {
            MPI_Datatype tr;
            MPI_OK(MPI_Type_create_darray(np, r, 2, gs, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &tr));
            commit(&tr);
            MPI_OK(MPI_Recv(all, 1, tr, r, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            free_type(&tr);
        }
        for (int i = 0; i < gs[0]; ++i)
            for (int j = 0; j < gs[1]; ++j) {
                const int r = owner(i, gs[0], distribs[0], dargs[0], psizes[0]) * psizes[1] +
                              owner(j, gs[1], distribs[1], dargs[1], psizes[1]);
                const int k = i * gs[1] + j;
                if (all[k] != (r == 0 ? -2 : 1000 * r + k)) FAIL("element (%d, %d) is %d", i, j, all[k]);
            }
    } else {
        MPI_OK(MPI_Send(mine, 1, t, 0, 5, MPI_COMM_WORLD));
    }
    free_type(&t);
    free(mine);
    free(all);

    phase = "darray errors";
    MPI_Datatype bad;
    const int p22[2] = {2, 2};
    CHECK_EQ(MPI_Type_create_darray(3, 0, 2, g, block_cyclic, dflt, p22, MPI_ORDER_C, MPI_INT, &bad),
             MPI_ERR_ARG); /* 4 processes in the grid, size 3 */
    CHECK_EQ(MPI_Type_create_darray(6, 6, 2, g, block_cyclic, dflt, p23, MPI_ORDER_C, MPI_INT, &bad),
             MPI_ERR_ARG);
    const int small_blocks[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}; /* 2 x 2 rows < 7 */
    CHECK_EQ(MPI_Type_create_darray(6, 0, 2, g, block_cyclic, small_blocks, p23, MPI_ORDER_C, MPI_INT, &bad),
             MPI_ERR_ARG);
}

/* ---- hindexed_block ------------------------------------------------------------- */

static void test_hindexed_block(void) {
    phase = "hindexed_block";
    int a[16];
    for (int i = 0; i < 16; ++i)
        a[i] = i;
    const MPI_Aint disps[3] = {10 * sizeof(int), 0, 4 * sizeof(int)};
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_hindexed_block(3, 2, disps, MPI_INT, &t));
    commit(&t);
    const int is = (int)sizeof(int);
    CHECK_LAYOUT(t, 6 * is, 0, 12 * is, 0, 12 * is);
    const int want[6] = {10, 11, 0, 1, 4, 5};
    CHECK_PACKED(t, a, want, 6);
    free_type(&t);
}

/* ---- Envelope and contents ------------------------------------------------------ */

/* Checks the envelope of t, then fetches its contents into the arrays. */
static void contents_at(int line, MPI_Datatype t, int combiner, int ni, int na, int nd, int *ints,
                        MPI_Aint *addrs, MPI_Datatype *types) {
    int gi = -1, ga = -1, gd = -1, gc = -1;
    MPI_OK(MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc));
    if (gc != combiner || gi != ni || ga != na || gd != nd)
        fail_at(line, "envelope (%d, %d, %d, combiner %d), expected (%d, %d, %d, combiner %d)", gi, ga, gd,
                gc, ni, na, nd, combiner);
    MPI_OK(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types));
}
#define CONTENTS(t, c, ni, na, nd) contents_at(__LINE__, t, c, ni, na, nd, ints, addrs, types)

static void test_contents(void) {
    phase = "envelope and contents";
    int ints[32];
    MPI_Aint addrs[8];
    MPI_Datatype types[8];
    int gi, ga, gd, gc;
    MPI_OK(MPI_Type_get_envelope(MPI_DOUBLE, &gi, &ga, &gd, &gc));
    CHECK_EQ(gc, MPI_COMBINER_NAMED);
    CHECK(gi == 0 && ga == 0 && gd == 0);

    MPI_Datatype contig, vec, hvec, idx, hidx, iblk, hblk, st, rs, dup, sub, dar;
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &contig));
    CONTENTS(contig, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    CHECK(ints[0] == 3 && types[0] == MPI_INT);

    MPI_OK(MPI_Type_vector(2, 1, 4, contig, &vec));
    CONTENTS(vec, MPI_COMBINER_VECTOR, 3, 0, 1);
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 4);
    /* A derived old type comes back as a type of its own, freed by us;
     * the same after the original is freed. */
    MPI_Datatype inner = types[0];
    MPI_OK(MPI_Type_get_envelope(inner, &gi, &ga, &gd, &gc));
    CHECK_EQ(gc, MPI_COMBINER_CONTIGUOUS);
    free_type(&inner);
    free_type(&contig);
    CONTENTS(vec, MPI_COMBINER_VECTOR, 3, 0, 1);
    inner = types[0];
    int size = 0;
    MPI_OK(MPI_Type_size(inner, &size));
    CHECK_EQ(size, 3 * (int)sizeof(int));
    MPI_OK(MPI_Type_get_contents(inner, 1, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 3 && types[0] == MPI_INT);
    free_type(&inner);

    MPI_OK(MPI_Type_create_hvector(2, 3, 40, MPI_DOUBLE, &hvec));
    CONTENTS(hvec, MPI_COMBINER_HVECTOR, 2, 1, 1);
    CHECK(ints[0] == 2 && ints[1] == 3 && addrs[0] == 40 && types[0] == MPI_DOUBLE);

    const int lens[3] = {1, 2, 3}, disps[3] = {9, 0, 4};
    MPI_OK(MPI_Type_indexed(3, lens, disps, MPI_SHORT, &idx));
    CONTENTS(idx, MPI_COMBINER_INDEXED, 7, 0, 1);
    CHECK(ints[0] == 3 && ints[1] == 1 && ints[3] == 3 && ints[4] == 9 && ints[6] == 4);

    const MPI_Aint bdisps[3] = {100, 0, 48};
    MPI_OK(MPI_Type_create_hindexed(3, lens, bdisps, MPI_CHAR, &hidx));
    CONTENTS(hidx, MPI_COMBINER_HINDEXED, 4, 3, 1);
    CHECK(ints[0] == 3 && ints[2] == 2 && addrs[0] == 100 && addrs[2] == 48 && types[0] == MPI_CHAR);

    MPI_OK(MPI_Type_create_indexed_block(3, 2, disps, MPI_FLOAT, &iblk));
    CONTENTS(iblk, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 9 && ints[4] == 4 && types[0] == MPI_FLOAT);

    MPI_OK(MPI_Type_create_hindexed_block(3, 2, bdisps, MPI_BYTE, &hblk));
    CONTENTS(hblk, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1);
    CHECK(ints[0] == 3 && ints[1] == 2 && addrs[1] == 0 && addrs[2] == 48 && types[0] == MPI_BYTE);

    const int slens[2] = {1, 2};
    const MPI_Aint sdisps[2] = {0, 8};
    const MPI_Datatype stypes[2] = {MPI_DOUBLE, hvec};
    MPI_OK(MPI_Type_create_struct(2, slens, sdisps, stypes, &st));
    CONTENTS(st, MPI_COMBINER_STRUCT, 3, 2, 2);
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && addrs[1] == 8 && types[0] == MPI_DOUBLE);
    MPI_OK(MPI_Type_get_envelope(types[1], &gi, &ga, &gd, &gc));
    CHECK_EQ(gc, MPI_COMBINER_HVECTOR);
    free_type(&types[1]);

    MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &rs));
    CONTENTS(rs, MPI_COMBINER_RESIZED, 0, 2, 1);
    CHECK(addrs[0] == -4 && addrs[1] == 16 && types[0] == MPI_INT);

    MPI_OK(MPI_Type_dup(MPI_LONG, &dup));
    CONTENTS(dup, MPI_COMBINER_DUP, 0, 0, 1);
    CHECK(types[0] == MPI_LONG);

    const int sizes[2] = {6, 8}, subsizes[2] = {3, 4}, starts[2] = {1, 2};
    MPI_OK(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    CONTENTS(sub, MPI_COMBINER_SUBARRAY, 8, 0, 1);
    const int sub_want[8] = {2, 6, 8, 3, 4, 1, 2, MPI_ORDER_FORTRAN};
    for (int i = 0; i < 8; ++i)
        CHECK_EQ(ints[i], sub_want[i]);

    const int g[2] = {7, 5}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
              dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 3};
    MPI_OK(MPI_Type_create_darray(6, 4, 2, g, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &dar));
    CONTENTS(dar, MPI_COMBINER_DARRAY, 12, 0, 1);
    const int dar_want[12] = {
        6, 4, 2, 7,          5, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG,
        2, 2, 3, MPI_ORDER_C};
    for (int i = 0; i < 12; ++i)
        CHECK_EQ(ints[i], dar_want[i]);

    /* Errors: a predefined type has no contents; arrays too short. */
    CHECK(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, addrs, types) != MPI_SUCCESS);
    CHECK(MPI_Type_get_contents(dar, 11, 0, 1, ints, addrs, types) != MPI_SUCCESS);

    MPI_Datatype *all[] = {&vec, &hvec, &idx, &hidx, &iblk, &hblk, &st, &rs, &dup, &sub, &dar};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        free_type(all[i]);
}

/* ---- Names, _x calls, match_size ------------------------------------------------ */

static void check_name_at(int line, MPI_Datatype t, const char *want) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_OK(MPI_Type_get_name(t, name, &len));
    if (strcmp(name, want) != 0 || len != (int)strlen(want))
        fail_at(line, "name \"%s\" (%d), expected \"%s\"", name, len, want);
}
#define CHECK_NAME(t, want) check_name_at(__LINE__, t, want)

static void test_names(void) {
    phase = "names";
    CHECK_NAME(MPI_INT, "MPI_INT");
    CHECK_NAME(MPI_DOUBLE, "MPI_DOUBLE");
    CHECK_NAME(MPI_CHAR, "MPI_CHAR");
    CHECK_NAME(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG");
    CHECK_NAME(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    CHECK_NAME(MPI_2INT, "MPI_2INT");
    CHECK_NAME(MPI_BYTE, "MPI_BYTE");
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_NAME(t, "");
    MPI_OK(MPI_Type_set_name(t, "pair of ints"));
    CHECK_NAME(t, "pair of ints");
    free_type(&t);
    MPI_OK(MPI_Type_set_name(MPI_FLOAT, "my float"));
    CHECK_NAME(MPI_FLOAT, "my float");
    MPI_OK(MPI_Type_set_name(MPI_FLOAT, "MPI_FLOAT"));
    CHECK_NAME(MPI_FLOAT, "MPI_FLOAT");

    phase = "match_size";
    const int classes[3] = {MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL, MPI_TYPECLASS_COMPLEX};
    const int sizes[3][2] = {{4, 8}, {4, 8}, {8, 16}};
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 2; ++k) {
            MPI_Datatype m = MPI_DATATYPE_NULL;
            int size = -1;
            MPI_OK(MPI_Type_match_size(classes[c], sizes[c][k], &m));
            MPI_OK(MPI_Type_size(m, &size));
            CHECK_EQ(size, sizes[c][k]);
        }
    MPI_Datatype m;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m) != MPI_SUCCESS);
}

/* Fortran 90's parameterized types (17.1.9): the kind chosen, the
 * combiner and contents, the same handle for the same arguments, usable
 * in a reduction; too precise a kind is MPI_ERR_ARG. */
static void test_f90_types(void) {
    phase = "MPI_Type_create_f90_*";
    MPI_Datatype real, again, cplx, integer;
    int size = -1, ni, na, nt, combiner, ints[2] = {0, 0};
    MPI_OK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &real)); /* p 10: double precision */
    MPI_OK(MPI_Type_size(real, &size));
    CHECK_EQ(size, 8);
    MPI_OK(MPI_Type_get_envelope(real, &ni, &na, &nt, &combiner));
    CHECK(combiner == MPI_COMBINER_F90_REAL && ni == 2 && na == 0 && nt == 0);
    MPI_OK(MPI_Type_get_contents(real, 2, 0, 0, ints, NULL, NULL));
    CHECK(ints[0] == 10 && ints[1] == MPI_UNDEFINED);
    MPI_OK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &again));
    CHECK(again == real);
    double in[2] = {1.5, 2.0}, inout[2] = {0.25, 1.0};
    MPI_OK(MPI_Reduce_local(in, inout, 2, real, MPI_SUM));
    CHECK(inout[0] == 1.75 && inout[1] == 3.0);
    MPI_OK(MPI_Type_create_f90_complex(3, 30, &cplx)); /* single precision complex */
    MPI_OK(MPI_Type_size(cplx, &size));
    CHECK_EQ(size, 8);
    MPI_OK(MPI_Type_create_f90_integer(12, &integer)); /* 10^12 needs 64 bits */
    MPI_OK(MPI_Type_size(integer, &size));
    CHECK_EQ(size, 8);
    MPI_OK(MPI_Type_get_envelope(integer, &ni, &na, &nt, &combiner));
    CHECK(combiner == MPI_COMBINER_F90_INTEGER && ni == 1);
    MPI_OK(MPI_Type_create_f90_integer(30, &integer)); /* 10^30 needs 128 bits */
    MPI_OK(MPI_Type_size(integer, &size));
    CHECK_EQ(size, 16);
    MPI_OK(MPI_Type_create_f90_real(30, MPI_UNDEFINED, &real)); /* binary128 */
    MPI_OK(MPI_Type_size(real, &size));
    CHECK_EQ(size, 16);
    EXPECT_CLASS(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &real), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_integer(39, &integer), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &real), MPI_ERR_ARG);
}

/* ---- external32 ----------------------------------------------------------------- */

static void test_external32(void) {
    phase = "external32";
    /* ints, a short, a double, chars: big-endian in the standard sizes. */
    const int ints[3] = {1, 0x01020304, -2};
    unsigned char buf[64];
    MPI_Aint pos = 0, size = 0;
    MPI_OK(MPI_Pack_external_size("external32", 3, MPI_INT, &size));
    CHECK_EQ(size, 12);
    MPI_OK(MPI_Pack_external("external32", ints, 3, MPI_INT, buf, sizeof buf, &pos));
    CHECK_EQ(pos, 12);
    const unsigned char want_ints[12] = {0, 0, 0, 1, 1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
    CHECK(memcmp(buf, want_ints, 12) == 0);
    const short sh = 0x0a0b;
    const double d = -2.0;
    MPI_OK(MPI_Pack_external("external32", &sh, 1, MPI_SHORT, buf, sizeof buf, &pos));
    MPI_OK(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, sizeof buf, &pos));
    CHECK_EQ(pos, 12 + 2 + 8);
    const unsigned char want_rest[10] = {0x0a, 0x0b, 0xc0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(memcmp(buf + 12, want_rest, 10) == 0);
    /* And back. */
    int ints_back[3] = {0};
    short sh_back = 0;
    double d_back = 0;
    MPI_Aint in = 0;
    MPI_OK(MPI_Unpack_external("external32", buf, pos, &in, ints_back, 3, MPI_INT));
    MPI_OK(MPI_Unpack_external("external32", buf, pos, &in, &sh_back, 1, MPI_SHORT));
    MPI_OK(MPI_Unpack_external("external32", buf, pos, &in, &d_back, 1, MPI_DOUBLE));
    CHECK_EQ(in, pos);
    CHECK(ints_back[0] == 1 && ints_back[1] == 0x01020304 && ints_back[2] == -2);
    CHECK(sh_back == 0x0a0b && d_back == -2.0);

    /* A derived type: a vector of every other int, then a struct. */
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    commit(&vec);
    const int src[6] = {0x11, -1, 0x22, -1, 0x33, -1};
    pos = 0;
    MPI_OK(MPI_Pack_external("external32", src, 1, vec, buf, sizeof buf, &pos));
    const unsigned char want_vec[12] = {0, 0, 0, 0x11, 0, 0, 0, 0x22, 0, 0, 0, 0x33};
    CHECK_EQ(pos, 12);
    CHECK(memcmp(buf, want_vec, 12) == 0);
    int dst[6] = {7, 7, 7, 7, 7, 7};
    in = 0;
    MPI_OK(MPI_Unpack_external("external32", buf, pos, &in, dst, 1, vec));
    CHECK(dst[0] == 0x11 && dst[1] == 7 && dst[2] == 0x22 && dst[4] == 0x33 && dst[5] == 7);
    free_type(&vec);

    struct {
        char c;
        float f;
    } s = {'x', 1.0f};
    const int slens[2] = {1, 1};
    const MPI_Aint sdisps[2] = {0, offsetof(__typeof__(s), f)};
    const MPI_Datatype stypes[2] = {MPI_CHAR, MPI_FLOAT};
    MPI_Datatype st;
    MPI_OK(MPI_Type_create_struct(2, slens, sdisps, stypes, &st));
    commit(&st);
    MPI_OK(MPI_Pack_external_size("external32", 2, st, &size));
    CHECK_EQ(size, 10);
    pos = 0;
    MPI_OK(MPI_Pack_external("external32", &s, 1, st, buf, sizeof buf, &pos));
    const unsigned char want_st[5] = {'x', 0x3f, 0x80, 0, 0};
    CHECK_EQ(pos, 5);
    CHECK(memcmp(buf, want_st, 5) == 0);
    free_type(&st);

    /* Errors: no room; another representation. */
    pos = 0;
    CHECK(MPI_Pack_external("external32", ints, 3, MPI_INT, buf, 8, &pos) != MPI_SUCCESS);
    /* Open MPI (4.1) ignores datarep: it packs external32 whatever it says. */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_OK(MPI_Get_library_version(lib, &len));
    if (strstr(lib, "Open MPI") == NULL)
        CHECK(MPI_Pack_external("no such representation", ints, 3, MPI_INT, buf, sizeof buf, &pos) !=
              MPI_SUCCESS);
    else if (me == 0)
        printf(NAME ": note: Open MPI accepts any datarep in MPI_Pack_external; not checked\n");
}

/* ---- Status_set_elements ---------------------------------------------------------- */

static void test_set_elements(void) {
    phase = "status_set_elements";
    MPI_Status st;
    int count = -1;
    MPI_Count xcount = -1;
    MPI_OK(MPI_Status_set_elements(&st, MPI_INT, 5));
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &count));
    CHECK_EQ(count, 5);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 5);
    MPI_OK(MPI_Get_count(&st, MPI_CHAR, &count));
    CHECK_EQ(count, 5 * (int)sizeof(int));
    /* {int, double}: 3 basic elements are one and a half elements. */
    const int lens[2] = {1, 1};
    const MPI_Aint disps[2] = {0, 8};
    const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_struct(2, lens, disps, types, &t));
    commit(&t);
    MPI_OK(MPI_Status_set_elements(&st, t, 3));
    MPI_OK(MPI_Get_elements(&st, t, &count));
    CHECK_EQ(count, 3);
    MPI_OK(MPI_Get_count(&st, t, &count));
    CHECK_EQ(count, MPI_UNDEFINED);
    MPI_OK(MPI_Status_set_elements_x(&st, t, 4));
    MPI_OK(MPI_Get_elements_x(&st, t, &xcount));
    CHECK_EQ(xcount, 4);
    MPI_OK(MPI_Get_count(&st, t, &count));
    CHECK_EQ(count, 2);
    free_type(&t);
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    /* Error classes are checked where calls must fail; MPI_OK elsewhere. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_subarray();
    sync_all("darray");
    test_darray();
    sync_all("hindexed_block");
    test_hindexed_block();
    test_contents();
    test_names();
    test_f90_types();
    test_external32();
    test_set_elements();
    sync_all("finalize");
    if (me == 0) printf(NAME ": OK (np=%d)\n", np);
    MPI_OK(MPI_Finalize());
    return 0;
}
