/*
 * mpi_comm_test: groups, communicators and Cartesian topologies (MPI 3.1
 * sections 6.3, 6.4, 6.8, 7.5).
 *
 *   groups: size, rank, translate_ranks, compare, union, intersection,
 *   difference, incl, excl, range_incl, range_excl, free, MPI_GROUP_EMPTY;
 *   communicators: size, rank, group, compare (IDENT, CONGRUENT, SIMILAR,
 *   UNEQUAL), dup, create, split (MPI_UNDEFINED colors, keys that reverse
 *   the order, tied keys), free, set_name/get_name, and the isolation of
 *   their contexts (a message on one never matches a receive on another);
 *   Cartesian topologies: Dims_create, Cart_create (periodic or not, with
 *   fewer nodes than processes), Cart_coords, Cart_rank, Cart_shift,
 *   Cart_get, Cartdim_get, Topo_test, and messages along the shifts.
 *
 * Only point-to-point calls and MPI_Barrier carry messages here (the
 * constructors are collective themselves).
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes. Rank 0 prints "mpi_comm_test: OK" at the end; the first
 * failed check prints "FAIL mpi_comm_test.c:<line>: ..." and ends the job
 * with a non-zero status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_comm_test"

#include "mpitest.h"

/* The sum of v over MPI_COMM_WORLD, with point-to-point calls only. */
static int world_sum(int v) {
    int sum = v;
    if (me == 0) {
        for (int r = 1; r < np; ++r) {
            int x = 0;
            MPI_OK(MPI_Recv(&x, 1, MPI_INT, r, 990, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            sum += x;
        }
        for (int r = 1; r < np; ++r)
            MPI_OK(MPI_Send(&sum, 1, MPI_INT, r, 991, MPI_COMM_WORLD));
    } else {
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 990, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&sum, 1, MPI_INT, 0, 991, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    return sum;
}

/* ---- Groups ---------------------------------------------------------------- */

static _Thread_local MPI_Group world_group = MPI_GROUP_NULL;

/* The group holds exactly the world ranks `ranks` (n of them), in that
 * order, and the caller's rank in it is right. */
static void check_members_at(int line, MPI_Group g, const int *ranks, int n) {
    int size = -1, rank = -2, mine = MPI_UNDEFINED;
    MPI_OK(MPI_Group_size(g, &size));
    if (size != n) fail_at(line, "group size %d, expected %d", size, n);
    int *idx = xmalloc(sizeof(int) * (size_t)(n + 1)), *out = xmalloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; ++i) {
        idx[i] = i;
        out[i] = -7;
        if (ranks[i] == me) mine = i;
    }
    if (n > 0) {
        MPI_OK(MPI_Group_translate_ranks(g, n, idx, world_group, out));
        for (int i = 0; i < n; ++i)
            if (out[i] != ranks[i])
                fail_at(line, "member %d of the group is world rank %d, expected %d", i, out[i], ranks[i]);
    }
    MPI_OK(MPI_Group_rank(g, &rank));
    if (rank != mine) fail_at(line, "MPI_Group_rank is %d, expected %d", rank, mine);
    free(idx);
    free(out);
}
#define CHECK_MEMBERS(g, ranks, n) check_members_at(__LINE__, g, ranks, n)

/* What MPI_Group_compare must say of two lists of world ranks. */
static int compare_lists(const int *a, int na, const int *b, int nb) {
    if (na != nb) return MPI_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < na; ++i) {
        if (a[i] != b[i]) same_order = 0;
        int found = 0;
        for (int j = 0; j < nb; ++j)
            found |= a[i] == b[j];
        if (!found) return MPI_UNEQUAL;
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

static void check_compare_at(int line, MPI_Group g1, MPI_Group g2, int expected) {
    int result = -1;
    MPI_OK(MPI_Group_compare(g1, g2, &result));
    if (result != expected) fail_at(line, "MPI_Group_compare is %d, expected %d", result, expected);
}
#define CHECK_COMPARE(g1, g2, e) check_compare_at(__LINE__, g1, g2, e)

static void free_group(MPI_Group *g) {
    MPI_OK(MPI_Group_free(g));
    CHECK(*g == MPI_GROUP_NULL);
}

static void test_groups(void) {
    int n = np, ne = (np + 1) / 2, no = np / 2;
    int *all = xmalloc(sizeof(int) * (size_t)n), *rev = xmalloc(sizeof(int) * (size_t)n);
    int *evens = xmalloc(sizeof(int) * (size_t)ne), *odds = xmalloc(sizeof(int) * (size_t)(no + 1));
    int *list = xmalloc(sizeof(int) * (size_t)(2 * n + 2)), *out = xmalloc(sizeof(int) * (size_t)(2 * n + 2));
    for (int r = 0; r < n; ++r) {
        all[r] = r;
        rev[r] = n - 1 - r;
        if (r % 2 == 0)
            evens[r / 2] = r;
        else
            odds[r / 2] = r;
    }
    MPI_Group g_rev, g_even, g_odd, g, g2;

    phase = "group of MPI_COMM_WORLD";
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    CHECK_MEMBERS(world_group, all, n);
    CHECK_COMPARE(world_group, world_group, MPI_IDENT);

    phase = "MPI_Group_incl";
    MPI_OK(MPI_Group_incl(world_group, ne, evens, &g_even));
    CHECK_MEMBERS(g_even, evens, ne);
    MPI_OK(MPI_Group_incl(world_group, n, rev, &g_rev));
    CHECK_MEMBERS(g_rev, rev, n);
    CHECK_COMPARE(world_group, g_rev, compare_lists(all, n, rev, n));
    CHECK_COMPARE(g_even, world_group, compare_lists(evens, ne, all, n));

    phase = "MPI_Group_excl";
    MPI_OK(MPI_Group_excl(world_group, ne, evens, &g_odd));
    CHECK_MEMBERS(g_odd, odds, no);
    MPI_OK(MPI_Group_excl(world_group, 0, evens, &g));
    CHECK_MEMBERS(g, all, n);
    CHECK_COMPARE(g, world_group, MPI_IDENT);
    free_group(&g);

    phase = "MPI_Group_translate_ranks";
    for (int r = 0; r < n; ++r)
        list[r] = r;
    list[n] = MPI_PROC_NULL; /* translates to itself (6.3.1) */
    MPI_OK(MPI_Group_translate_ranks(world_group, n + 1, list, g_even, out));
    for (int r = 0; r < n; ++r)
        if (out[r] != (r % 2 ? MPI_UNDEFINED : r / 2))
            FAIL("world rank %d is rank %d of the even group, expected %d", r, out[r],
                 r % 2 ? MPI_UNDEFINED : r / 2);
    CHECK_EQ(out[n], MPI_PROC_NULL);
    MPI_OK(MPI_Group_translate_ranks(g_rev, n, list, g_even, out));
    for (int r = 0; r < n; ++r) {
        int w = n - 1 - r;
        CHECK_EQ(out[r], w % 2 ? MPI_UNDEFINED : w / 2);
    }

    phase = "MPI_Group_union";
    MPI_OK(MPI_Group_union(g_even, g_odd, &g));
    memcpy(list, evens, sizeof(int) * (size_t)ne);
    memcpy(list + ne, odds, sizeof(int) * (size_t)no);
    CHECK_MEMBERS(g, list, n); /* the first group's, then the second's others */
    CHECK_COMPARE(g, world_group, compare_lists(list, n, all, n));
    free_group(&g);
    MPI_OK(MPI_Group_union(g_rev, g_even, &g));
    CHECK_MEMBERS(g, rev, n);
    free_group(&g);
    MPI_OK(MPI_Group_union(g_even, g_even, &g));
    CHECK_MEMBERS(g, evens, ne);
    CHECK_COMPARE(g, g_even, MPI_IDENT);
    free_group(&g);

    phase = "MPI_Group_intersection";
    MPI_OK(MPI_Group_intersection(g_rev, g_even, &g));
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (rev[i] % 2 == 0) list[k++] = rev[i];
    CHECK_MEMBERS(g, list, k); /* in the first group's order */
    CHECK_COMPARE(g, g_even, compare_lists(list, k, evens, ne));
    free_group(&g);
    MPI_OK(MPI_Group_intersection(g_even, g_odd, &g));
    CHECK_MEMBERS(g, list, 0);
    CHECK_COMPARE(g, MPI_GROUP_EMPTY, MPI_IDENT);
    free_group(&g);

    phase = "MPI_Group_difference";
    MPI_OK(MPI_Group_difference(world_group, g_even, &g));
    CHECK_MEMBERS(g, odds, no);
    CHECK_COMPARE(g, g_odd, MPI_IDENT);
    free_group(&g);
    MPI_OK(MPI_Group_difference(g_rev, g_odd, &g));
    k = 0;
    for (int i = 0; i < n; ++i)
        if (rev[i] % 2 == 0) list[k++] = rev[i];
    CHECK_MEMBERS(g, list, k);
    free_group(&g);
    MPI_OK(MPI_Group_difference(g_even, world_group, &g));
    CHECK_MEMBERS(g, list, 0);
    free_group(&g);

    phase = "MPI_Group_range_incl";
    {
        int r1[1][3] = {{0, n - 1, 2}};
        MPI_OK(MPI_Group_range_incl(world_group, 1, r1, &g));
        CHECK_MEMBERS(g, evens, ne);
        CHECK_COMPARE(g, g_even, MPI_IDENT);
        free_group(&g);
        int r2[1][3] = {{n - 1, 0, -3}};
        MPI_OK(MPI_Group_range_incl(world_group, 1, r2, &g));
        k = 0;
        for (int r = n - 1; r >= 0; r -= 3)
            list[k++] = r;
        CHECK_MEMBERS(g, list, k);
        free_group(&g);
        if (n >= 2) {
            int r3[2][3] = {{0, 0, 1}, {n - 1, 1, -2}};
            MPI_OK(MPI_Group_range_incl(world_group, 2, r3, &g));
            k = 0;
            list[k++] = 0;
            for (int r = n - 1; r >= 1; r -= 2)
                list[k++] = r;
            CHECK_MEMBERS(g, list, k);
            free_group(&g);
            /* A range of the reversed group: its ranks, not the world's. */
            int r4[1][3] = {{1, n - 1, 1}};
            MPI_OK(MPI_Group_range_incl(g_rev, 1, r4, &g));
            CHECK_MEMBERS(g, rev + 1, n - 1);
            free_group(&g);
        }
    }

    phase = "MPI_Group_range_excl";
    if (n >= 2) {
        int r1[1][3] = {{1, n - 1, 2}};
        MPI_OK(MPI_Group_range_excl(world_group, 1, r1, &g));
        CHECK_MEMBERS(g, evens, ne);
        free_group(&g);
        int r2[2][3] = {{0, 0, 1}, {n - 1, n - 1, 1}};
        MPI_OK(MPI_Group_range_excl(world_group, n > 2 ? 2 : 1, r2, &g));
        CHECK_MEMBERS(g, all + 1, n > 2 ? n - 2 : n - 1);
        free_group(&g);
    }

    phase = "MPI_GROUP_EMPTY";
    {
        int size = -1, rank = -1;
        MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &size));
        CHECK_EQ(size, 0);
        MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &rank));
        CHECK_EQ(rank, MPI_UNDEFINED);
        MPI_OK(MPI_Group_union(MPI_GROUP_EMPTY, world_group, &g));
        CHECK_MEMBERS(g, all, n);
        CHECK_COMPARE(g, world_group, MPI_IDENT);
        free_group(&g);
        MPI_OK(MPI_Group_intersection(world_group, MPI_GROUP_EMPTY, &g));
        CHECK_MEMBERS(g, all, 0);
        free_group(&g);
        MPI_OK(MPI_Group_incl(world_group, 0, all, &g));
        CHECK_MEMBERS(g, all, 0);
        CHECK_COMPARE(g, MPI_GROUP_EMPTY, MPI_IDENT);
        CHECK_COMPARE(world_group, MPI_GROUP_EMPTY, MPI_UNEQUAL);
        free_group(&g);
        MPI_OK(MPI_Group_translate_ranks(world_group, n, all, MPI_GROUP_EMPTY, out));
        for (int r = 0; r < n; ++r)
            CHECK_EQ(out[r], MPI_UNDEFINED);
    }

    phase = "many groups made and freed";
    for (int i = 0; i < 100; ++i) {
        MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
        MPI_OK(MPI_Group_incl(g, 1, &all[i % n], &g2));
        CHECK_MEMBERS(g2, &all[i % n], 1);
        free_group(&g2);
        free_group(&g);
    }

    free_group(&g_rev);
    free_group(&g_even);
    free_group(&g_odd);
    free(all);
    free(rev);
    free(evens);
    free(odds);
    free(list);
    free(out);
}

/* ---- Communicators --------------------------------------------------------- */

static void check_comm_compare_at(int line, MPI_Comm a, MPI_Comm b, int expected) {
    int result = -1;
    MPI_OK(MPI_Comm_compare(a, b, &result));
    if (result != expected) fail_at(line, "MPI_Comm_compare is %d, expected %d", result, expected);
}
#define CHECK_COMM_COMPARE(a, b, e) check_comm_compare_at(__LINE__, a, b, e)

/* comm holds the world ranks `ranks` in order, and a message goes around
 * it (each rank sends its world rank to the next). */
static void check_comm_at(int line, MPI_Comm comm, const int *ranks, int n) {
    int size = -1, rank = -1, mine = -1;
    MPI_Group g;
    MPI_OK(MPI_Comm_size(comm, &size));
    MPI_OK(MPI_Comm_rank(comm, &rank));
    for (int i = 0; i < n; ++i)
        if (ranks[i] == me) mine = i;
    if (size != n || rank != mine)
        fail_at(line, "communicator of size %d, rank %d; expected size %d, rank %d", size, rank, n, mine);
    MPI_OK(MPI_Comm_group(comm, &g));
    check_members_at(line, g, ranks, n);
    free_group(&g);
    int left = (rank + n - 1) % n, right = (rank + 1) % n, got = -1;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&me, 1, MPI_INT, right, 31, &got, 1, MPI_INT, left, 31, comm, &st));
    if (got != ranks[left] || st.MPI_SOURCE != left)
        fail_at(line, "from rank %d of the communicator: world rank %d (source %d), expected %d", left, got,
                st.MPI_SOURCE, ranks[left]);
}
#define CHECK_COMM(c, ranks, n) check_comm_at(__LINE__, c, ranks, n)

static void free_comm(MPI_Comm *c) {
    MPI_OK(MPI_Comm_free(c));
    CHECK(*c == MPI_COMM_NULL);
}

static void test_comms(void) {
    int n = np, size = -1, rank = -1;
    int *all = xmalloc(sizeof(int) * (size_t)n), *rev = xmalloc(sizeof(int) * (size_t)n);
    int *list = xmalloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; ++r) {
        all[r] = r;
        rev[r] = n - 1 - r;
    }
    MPI_Comm dup, c, c2;
    MPI_Group g;

    phase = "MPI_COMM_WORLD and MPI_COMM_SELF";
    CHECK_COMM(MPI_COMM_WORLD, all, n);
    MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &size));
    MPI_OK(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    CHECK(size == 1 && rank == 0);
    CHECK_COMM_COMPARE(MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_IDENT);
    CHECK_COMM_COMPARE(MPI_COMM_WORLD, MPI_COMM_SELF, n > 1 ? MPI_UNEQUAL : MPI_CONGRUENT);

    phase = "MPI_Comm_dup";
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(dup != MPI_COMM_WORLD && dup != MPI_COMM_NULL);
    CHECK_COMM(dup, all, n);
    CHECK_COMM_COMPARE(dup, MPI_COMM_WORLD, MPI_CONGRUENT);
    CHECK_COMM_COMPARE(dup, dup, MPI_IDENT);
    MPI_OK(MPI_Comm_dup(dup, &c));
    CHECK_COMM_COMPARE(dup, c, MPI_CONGRUENT);
    free_comm(&c);

    phase = "MPI_Comm_split, reversed";
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -me, &c));
    CHECK_COMM(c, rev, n);
    CHECK_COMM_COMPARE(c, MPI_COMM_WORLD, n > 1 ? MPI_SIMILAR : MPI_CONGRUENT);
    free_comm(&c);

    phase = "MPI_Comm_split, tied keys";
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 5, me / 3, &c)); /* ties keep the old order */
    CHECK_COMM(c, all, n);
    CHECK_COMM_COMPARE(c, MPI_COMM_WORLD, MPI_CONGRUENT);
    free_comm(&c);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 1, 0, &c));
    CHECK_COMM(c, all, n);
    free_comm(&c);

    phase = "MPI_Comm_split, colors and MPI_UNDEFINED";
    {
        int color = me % 4 == 3 ? MPI_UNDEFINED : me % 3;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, (me * 7) % 5 - me, &c));
        if (color == MPI_UNDEFINED) {
            CHECK(c == MPI_COMM_NULL);
        } else {
            /* Members: same color, ordered by (key, world rank). */
            int k = 0;
            for (int r = 0; r < n; ++r)
                if (r % 4 != 3 && r % 3 == color) list[k++] = r;
            for (int i = 1; i < k; ++i)
                for (int j = i; j > 0; --j) {
                    int a = list[j - 1], b = list[j];
                    int ka = (a * 7) % 5 - a, kb = (b * 7) % 5 - b;
                    if (ka > kb || (ka == kb && a > b)) {
                        list[j - 1] = b;
                        list[j] = a;
                    }
                }
            CHECK_COMM(c, list, k);
            int gc = compare_lists(list, k, all, n); /* a new context: IDENT -> CONGRUENT */
            CHECK_COMM_COMPARE(c, MPI_COMM_WORLD, gc == MPI_IDENT ? MPI_CONGRUENT : gc);
            /* A split of the split. */
            int sub = -1;
            MPI_OK(MPI_Comm_rank(c, &sub));
            MPI_OK(MPI_Comm_split(c, sub % 2, 0, &c2));
            int m = 0;
            for (int i = sub % 2; i < k; i += 2)
                list[m++] = list[i];
            CHECK_COMM(c2, list, m);
            free_comm(&c2);
            free_comm(&c);
        }
    }

    phase = "MPI_Comm_split_type, MPI_COMM_TYPE_SHARED";
    {
        /* Ranks share memory exactly when their processor names agree up
         * to the first '.' (Tessera: "clusterC.coreK"; Linux: the host). */
        char name[MPI_MAX_PROCESSOR_NAME], names[64][MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_OK(MPI_Get_processor_name(name, &len));
        name[strcspn(name, ".")] = 0;
        CHECK(n <= 64);
        MPI_OK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                             MPI_COMM_WORLD));
        MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -me, MPI_INFO_NULL, &c));
        int k = 0;
        for (int r = n - 1; r >= 0; --r) /* key -me: world order reversed */
            if (strcmp(names[r], name) == 0) list[k++] = r;
        CHECK_COMM(c, list, k);
        free_comm(&c);
        MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
        CHECK(c == MPI_COMM_NULL);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int e = MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c), cls = -1;
        MPI_Error_class(e, &cls);
        CHECK_EQ(cls, MPI_ERR_ARG);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }

    phase = "MPI_Comm_create";
    MPI_OK(MPI_Group_incl(world_group, n, rev, &g));
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    CHECK_COMM(c, rev, n);
    CHECK_COMM_COMPARE(c, MPI_COMM_WORLD, n > 1 ? MPI_SIMILAR : MPI_CONGRUENT);
    free_comm(&c);
    free_group(&g);
    {
        int k = 0;
        for (int r = 0; r < n; r += 2)
            list[k++] = r;
        MPI_OK(MPI_Group_incl(world_group, k, list, &g));
        MPI_OK(MPI_Comm_create(dup, g, &c)); /* from the dup: same members */
        if (me % 2) {
            CHECK(c == MPI_COMM_NULL);
        } else {
            CHECK_COMM(c, list, k);
            CHECK_COMM_COMPARE(c, MPI_COMM_WORLD, k == n ? MPI_CONGRUENT : MPI_UNEQUAL);
            free_comm(&c);
        }
        free_group(&g);
        MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
        CHECK(c == MPI_COMM_NULL);
    }

    phase = "names";
    {
        char name[MPI_MAX_OBJECT_NAME];
        int len = -1;
        MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
        CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == (int)strlen(name));
        MPI_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
        CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == (int)strlen(name));
        MPI_OK(MPI_Comm_set_name(dup, "a duplicate of the world"));
        memset(name, 0x7f, sizeof name);
        MPI_OK(MPI_Comm_get_name(dup, name, &len));
        CHECK(strcmp(name, "a duplicate of the world") == 0 && len == (int)strlen(name));
        MPI_OK(MPI_Comm_set_name(dup, "renamed"));
        MPI_OK(MPI_Comm_get_name(dup, name, &len));
        CHECK(strcmp(name, "renamed") == 0 && len == 7);
        MPI_OK(MPI_Comm_set_name(MPI_COMM_WORLD, "world, renamed"));
        MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
        CHECK(strcmp(name, "world, renamed") == 0 && len == (int)strlen(name));
        MPI_OK(MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD"));
    }

    phase = "many communicators made and freed";
    for (int i = 0; i < 40; ++i) {
        MPI_OK(MPI_Comm_dup(i % 2 ? dup : MPI_COMM_WORLD, &c));
        MPI_OK(MPI_Comm_split(c, me % 2, me, &c2));
        free_comm(&c);
        MPI_OK(MPI_Barrier(c2));
        free_comm(&c2);
    }

    free_comm(&dup);
    free(all);
    free(rev);
    free(list);
}

/* ---- Isolation of contexts ------------------------------------------------- */

/* The same (source, tag) on two communicators: receives posted on the
 * second first must not take the first's message. */
static void test_isolation(void) {
    MPI_Comm dup, pair;
    MPI_Request req[4];
    MPI_Status st[4];
    int peer = (me ^ 1) < np ? (me ^ 1) : -1;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &pair)); /* ranks 2k, 2k+1 */

    phase = "isolation of MPI_COMM_SELF";
    {
        int a = -1, b = -1, x = 100 + me, y = 200 + me;
        MPI_OK(MPI_Irecv(&a, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &req[0]));
        MPI_OK(MPI_Irecv(&b, 1, MPI_INT, me, 9, MPI_COMM_WORLD, &req[1]));
        MPI_OK(MPI_Send(&y, 1, MPI_INT, me, 9, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
        MPI_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CHECK_EQ(a, 100 + me);
        CHECK_EQ(b, 200 + me);
    }

    phase = "isolation of a dup and a split";
    if (peer >= 0) {
        int pr = -1;
        MPI_OK(MPI_Comm_rank(pair, &pr));
        int ppeer = 1 - pr; /* the peer's rank in `pair` */
        for (int dir = 0; dir < 2; ++dir) {
            if (me % 2 == dir) {
                /* Receiver: the other communicators' receives first, the
                 * world's last; all with the same source and tag. */
                int v[4] = {-1, -1, -1, -1};
                MPI_OK(MPI_Irecv(&v[0], 1, MPI_INT, peer, 5, dup, &req[0]));
                MPI_OK(MPI_Irecv(&v[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, pair, &req[1]));
                MPI_OK(MPI_Irecv(&v[2], 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &req[2]));
                MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 6, MPI_COMM_WORLD)); /* ready */
                MPI_OK(MPI_Waitall(3, req, st));
                if (v[0] != 1002 || v[1] != 1003 || v[2] != 1001)
                    FAIL("dup got %d, pair got %d, world got %d; expected 1002, 1003, 1001", v[0], v[1],
                         v[2]);
                CHECK(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 5);
                CHECK(st[1].MPI_SOURCE == ppeer && st[1].MPI_TAG == 5);
                CHECK(st[2].MPI_SOURCE == peer && st[2].MPI_TAG == 5);
                /* A message on the dup is not seen on the world. */
                MPI_OK(MPI_Probe(peer, 7, dup, &st[0]));
                int flag = -1;
                MPI_OK(MPI_Iprobe(peer, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                CHECK_EQ(flag, 0);
                MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, pair, &flag, MPI_STATUS_IGNORE));
                CHECK_EQ(flag, 0);
                MPI_OK(MPI_Recv(&v[3], 1, MPI_INT, peer, 7, dup, MPI_STATUS_IGNORE));
                CHECK_EQ(v[3], 1004);
            } else {
                int a = 1001, b = 1002, c = 1003, d = 1004;
                MPI_OK(MPI_Recv(NULL, 0, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Send(&a, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
                MPI_OK(MPI_Send(&b, 1, MPI_INT, peer, 5, dup));
                MPI_OK(MPI_Send(&c, 1, MPI_INT, ppeer, 5, pair));
                MPI_OK(MPI_Send(&d, 1, MPI_INT, peer, 7, dup));
            }
            MPI_OK(MPI_Barrier(pair));
        }
    }

    phase = "isolation of collectives";
    /* Barriers on the dup while a world message waits: the message stays
     * for the world's receive. */
    {
        int v = me, w = -1, src = (me + np - 1) % np;
        MPI_OK(MPI_Irecv(&w, 1, MPI_INT, src, 0, MPI_COMM_WORLD, &req[0]));
        MPI_OK(MPI_Isend(&v, 1, MPI_INT, (me + 1) % np, 0, MPI_COMM_WORLD, &req[1]));
        MPI_OK(MPI_Barrier(dup));
        MPI_OK(MPI_Barrier(pair));
        MPI_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CHECK_EQ(w, src);
    }
    free_comm(&pair);
    free_comm(&dup);
}

/* ---- Cartesian topologies ---------------------------------------------------- */

static void check_dims_at(int line, int nnodes, int ndims, const int *given, const int *want) {
    int dims[8];
    memcpy(dims, given, sizeof(int) * (size_t)ndims);
    MPI_OK(MPI_Dims_create(nnodes, ndims, dims));
    for (int i = 0; i < ndims; ++i)
        if (dims[i] != want[i])
            fail_at(line, "MPI_Dims_create(%d, %d): dims[%d] is %d, expected %d", nnodes, ndims, i, dims[i],
                    want[i]);
}
#define CHECK_DIMS(nn, nd, given, ...)                 \
    do {                                               \
        const int want_[] = {__VA_ARGS__};             \
        check_dims_at(__LINE__, nn, nd, given, want_); \
    } while (0)

static void test_dims_create(void) {
    phase = "MPI_Dims_create";
    const int z[8] = {0};
    CHECK_DIMS(6, 2, z, 3, 2);
    CHECK_DIMS(8, 2, z, 4, 2);
    CHECK_DIMS(9, 2, z, 3, 3);
    CHECK_DIMS(12, 2, z, 4, 3);
    CHECK_DIMS(16, 2, z, 4, 4);
    CHECK_DIMS(7, 2, z, 7, 1);
    CHECK_DIMS(8, 3, z, 2, 2, 2);
    CHECK_DIMS(24, 3, z, 4, 3, 2);
    CHECK_DIMS(30, 3, z, 5, 3, 2);
    CHECK_DIMS(1, 3, z, 1, 1, 1);
    CHECK_DIMS(16, 4, z, 2, 2, 2, 2);
    const int fixed1[2] = {0, 2}, fixed2[3] = {0, 3, 0}, fixed3[2] = {4, 0}, all_fixed[2] = {3, 2};
    CHECK_DIMS(12, 2, fixed1, 6, 2);
    CHECK_DIMS(12, 3, fixed2, 2, 3, 2);
    CHECK_DIMS(8, 2, fixed3, 4, 2);
    CHECK_DIMS(6, 2, all_fixed, 3, 2);
    /* For this job: a product of np, in non-increasing order. */
    for (int nd = 1; nd <= 3; ++nd) {
        int dims[3] = {0, 0, 0}, prod = 1;
        MPI_OK(MPI_Dims_create(np, nd, dims));
        for (int i = 0; i < nd; ++i) {
            prod *= dims[i];
            if (i > 0) CHECK(dims[i] <= dims[i - 1]);
        }
        CHECK_EQ(prod, np);
    }
}

static void test_cart(void) {
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1}, coords[3], rank = -1, status = -1;
    int ndims = -1, src = -2, dst = -2;
    MPI_Comm cart, cart_dup;
    MPI_Status st;

    phase = "MPI_Topo_test";
    MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK_EQ(status, MPI_UNDEFINED);

    phase = "2-D Cartesian, periodic in dimension 0 only";
    MPI_OK(MPI_Dims_create(np, 2, dims));
    int d0 = dims[0], d1 = dims[1];
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK(cart != MPI_COMM_NULL);
    MPI_OK(MPI_Comm_rank(cart, &rank));
    CHECK_EQ(rank, me); /* no reordering */
    MPI_OK(MPI_Topo_test(cart, &status));
    CHECK_EQ(status, MPI_CART);
    MPI_OK(MPI_Cartdim_get(cart, &ndims));
    CHECK_EQ(ndims, 2);
    int gdims[2] = {-1, -1}, gper[2] = {-1, -1}, gco[2] = {-1, -1};
    MPI_OK(MPI_Cart_get(cart, 2, gdims, gper, gco));
    CHECK(gdims[0] == d0 && gdims[1] == d1);
    CHECK(gper[0] == 1 && gper[1] == 0);
    CHECK(gco[0] == me / d1 && gco[1] == me % d1); /* row-major */
    for (int r = 0; r < np; ++r) {
        MPI_OK(MPI_Cart_coords(cart, r, 2, coords));
        if (coords[0] != r / d1 || coords[1] != r % d1)
            FAIL("rank %d at (%d, %d), expected (%d, %d)", r, coords[0], coords[1], r / d1, r % d1);
        MPI_OK(MPI_Cart_rank(cart, coords, &rank));
        CHECK_EQ(rank, r);
    }
    /* Out of range in the periodic dimension: wraps around. */
    coords[0] = -1;
    coords[1] = d1 - 1;
    MPI_OK(MPI_Cart_rank(cart, coords, &rank));
    CHECK_EQ(rank, (d0 - 1) * d1 + d1 - 1);
    coords[0] = d0 + 1;
    coords[1] = 0;
    MPI_OK(MPI_Cart_rank(cart, coords, &rank));
    CHECK_EQ(rank, (1 % d0) * d1);

    phase = "MPI_Cart_shift";
    int c0 = me / d1, c1 = me % d1;
    for (int disp = -2; disp <= 2; ++disp) {
        MPI_OK(MPI_Cart_shift(cart, 0, disp, &src, &dst));
        CHECK_EQ(src, ((c0 - disp) % d0 + d0) % d0 * d1 + c1);
        CHECK_EQ(dst, ((c0 + disp) % d0 + d0) % d0 * d1 + c1);
        MPI_OK(MPI_Cart_shift(cart, 1, disp, &src, &dst));
        int s1 = c1 - disp, t1 = c1 + disp;
        CHECK_EQ(src, s1 >= 0 && s1 < d1 ? c0 * d1 + s1 : MPI_PROC_NULL);
        CHECK_EQ(dst, t1 >= 0 && t1 < d1 ? c0 * d1 + t1 : MPI_PROC_NULL);
    }
    /* Messages along both dimensions. */
    for (int dir = 0; dir < 2; ++dir) {
        int got = -1;
        MPI_OK(MPI_Cart_shift(cart, dir, 1, &src, &dst));
        MPI_OK(MPI_Sendrecv(&me, 1, MPI_INT, dst, 40 + dir, &got, 1, MPI_INT, src, 40 + dir, cart, &st));
        if (src == MPI_PROC_NULL)
            CHECK(got == -1 && st.MPI_SOURCE == MPI_PROC_NULL);
        else
            CHECK(got == src && st.MPI_SOURCE == src);
    }
    /* A dup keeps the topology. */
    MPI_OK(MPI_Comm_dup(cart, &cart_dup));
    MPI_OK(MPI_Topo_test(cart_dup, &status));
    CHECK_EQ(status, MPI_CART);
    MPI_OK(MPI_Cart_get(cart_dup, 2, gdims, gper, gco));
    CHECK(gdims[0] == d0 && gdims[1] == d1 && gper[0] == 1 && gper[1] == 0);
    free_comm(&cart_dup);
    free_comm(&cart);

    phase = "1-D Cartesian on part of the processes";
    {
        int n1 = (np + 1) / 2, per = 1;
        MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &n1, &per, 0, &cart));
        int in = cart != MPI_COMM_NULL;
        CHECK_EQ(world_sum(in), n1);
        if (in) {
            int size = -1;
            MPI_OK(MPI_Comm_size(cart, &size));
            CHECK_EQ(size, n1);
            MPI_OK(MPI_Comm_rank(cart, &rank));
            CHECK(rank >= 0 && rank < n1);
            MPI_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
            CHECK(src == (rank + n1 - 1) % n1 && dst == (rank + 1) % n1);
            int got = -1;
            MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 50, &got, 1, MPI_INT, src, 50, cart, &st));
            CHECK_EQ(got, src);
            free_comm(&cart);
        }
    }

    phase = "3-D Cartesian, periodic, reordered";
    {
        int d3[3] = {0, 0, 0}, p3[3] = {1, 1, 1}, my[3], other[3];
        MPI_OK(MPI_Dims_create(np, 3, d3));
        MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, 1, &cart));
        CHECK(cart != MPI_COMM_NULL);
        MPI_OK(MPI_Comm_rank(cart, &rank));
        MPI_OK(MPI_Cart_coords(cart, rank, 3, my));
        int back = -1;
        MPI_OK(MPI_Cart_rank(cart, my, &back));
        CHECK_EQ(back, rank);
        int g3[3] = {-1, -1, -1}, gp3[3] = {-1, -1, -1};
        MPI_OK(MPI_Cart_get(cart, 3, g3, gp3, other));
        for (int i = 0; i < 3; ++i)
            CHECK(other[i] == my[i] && g3[i] == d3[i] && gp3[i] == 1);
        for (int dir = 0; dir < 3; ++dir) {
            MPI_OK(MPI_Cart_shift(cart, dir, 1, &src, &dst));
            MPI_OK(MPI_Cart_coords(cart, dst, 3, other));
            for (int i = 0; i < 3; ++i)
                CHECK_EQ(other[i], i == dir ? (my[i] + 1) % d3[i] : my[i]);
            MPI_OK(MPI_Cart_coords(cart, src, 3, other));
            for (int i = 0; i < 3; ++i)
                CHECK_EQ(other[i], i == dir ? (my[i] + d3[i] - 1) % d3[i] : my[i]);
            int got = -1;
            MPI_OK(
                MPI_Sendrecv(&rank, 1, MPI_INT, dst, 60 + dir, &got, 1, MPI_INT, src, 60 + dir, cart, &st));
            CHECK_EQ(got, src);
        }
        free_comm(&cart);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double t0 = MPI_Wtime();

    sync_all("groups");
    test_groups();
    sync_all("communicators");
    test_comms();
    sync_all("isolation");
    test_isolation();
    sync_all("dims");
    test_dims_create();
    sync_all("cartesian");
    test_cart();
    sync_all("finalize");
    free_group(&world_group);

    double t = MPI_Wtime() - t0;
    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d, %.2f s)\n", np, t);
    return 0;
}
