/* MPI 3.1 sections 6.4.2, 6.6 and 5.2.2: intercommunicators and the
 * communicator constructors around them.
 *
 * MPI_COMM_WORLD is cut into group A (the first third of the ranks, at
 * least one) and group B (the rest, in reverse order, so that the groups
 * differ in size and order); MPI_Intercomm_create joins them. On it:
 * the queries, point-to-point both ways, every collective with results
 * checked (each rank's contribution depends on its rank and group),
 * blocking and then in its non-blocking form (section 5.12) completed at
 * once, then every non-blocking one outstanding together with
 * MPI_Comm_idup, completed in an order that depends on the rank;
 * MPI_Intercomm_merge with both orders, MPI_Comm_dup, _create and _split
 * of the intercommunicator (a message on each), MPI_Comm_compare;
 * MPI_Comm_create_group on MPI_COMM_WORLD; the error classes of calls
 * given the wrong kind of communicator or root. With one process only
 * MPI_Comm_create_group and the error checks run. */
#define NAME "mpi_intercomm_test"
#include <string.h>

#include "mpitest.h"

static _Thread_local MPI_Comm inter = MPI_COMM_NULL, half = MPI_COMM_NULL;
static _Thread_local int in_a, lsize, rsize, lrank; /* my group, sizes, my rank in it */

/* World rank of rank r of group A (a) or B (!a). */
static int world_of(int a, int r) { return a ? r : np - 1 - r; }

/* What rank r of group A/B contributes: distinct per rank and group. */
static int value_of(int a, int r) { return a ? 100 + r : 1000 + 3 * r; }

static void make_intercomm(void) {
    const int na = np / 3 > 0 ? np / 3 : 1;
    in_a = me < na;
    const int key = in_a ? me : np - 1 - me;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, in_a, key, &half));
    const int remote_leader = in_a ? world_of(0, 0) : world_of(1, 0);
    MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 77, &inter));
    MPI_OK(MPI_Comm_size(inter, &lsize));
    MPI_OK(MPI_Comm_rank(inter, &lrank));
    MPI_OK(MPI_Comm_remote_size(inter, &rsize));
    CHECK_EQ(lsize, in_a ? na : np - na);
    CHECK_EQ(rsize, in_a ? np - na : na);
    CHECK_EQ(lrank, in_a ? me : np - 1 - me);
}

static void test_queries(void) {
    int flag = -1, result;
    MPI_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK_EQ(flag, 0);
    /* The remote group, translated to MPI_COMM_WORLD. */
    MPI_Group remote, world;
    MPI_OK(MPI_Comm_remote_group(inter, &remote));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int size;
    MPI_OK(MPI_Group_size(remote, &size));
    CHECK_EQ(size, rsize);
    int *ranks = xmalloc(sizeof(int) * rsize), *in_world = xmalloc(sizeof(int) * rsize);
    for (int r = 0; r < rsize; ++r)
        ranks[r] = r;
    MPI_OK(MPI_Group_translate_ranks(remote, rsize, ranks, world, in_world));
    for (int r = 0; r < rsize; ++r)
        CHECK_EQ(in_world[r], world_of(!in_a, r));
    free(ranks);
    free(in_world);
    MPI_OK(MPI_Group_free(&remote));
    MPI_OK(MPI_Group_free(&world));
    MPI_OK(MPI_Comm_compare(inter, inter, &result));
    CHECK_EQ(result, MPI_IDENT);
    MPI_OK(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result));
    CHECK_EQ(result, MPI_UNEQUAL);
}

/* Every rank sends to remote rank lrank % rsize; each receives from every
 * remote rank that aims at it, by source and with MPI_ANY_SOURCE. */
static void test_p2p(MPI_Comm comm) {
    const int to = lrank % rsize;
    MPI_Request req;
    int mine = value_of(in_a, lrank);
    MPI_OK(MPI_Isend(&mine, 1, MPI_INT, to, 5, comm, &req));
    for (int r = 0; r < rsize; ++r) {
        if (r % lsize != lrank) continue;
        int got = -1;
        MPI_Status st;
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, r, 5, comm, &st));
        CHECK_EQ(got, value_of(!in_a, r));
        CHECK_EQ(st.MPI_SOURCE, r);
    }
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    /* Both leaders at once, any source. */
    if (lrank == 0) {
        int got = -1;
        MPI_Status st;
        MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 6, &got, 1, MPI_INT, MPI_ANY_SOURCE, 6, comm, &st));
        CHECK_EQ(got, value_of(!in_a, 0));
        CHECK_EQ(st.MPI_SOURCE, 0);
    }
}

/* The collective `blocking` with its arguments or, with nb, its
 * non-blocking form `nonblocking` completed at once: the same checks
 * follow either. */
#define COLL(nb, blocking, nonblocking, ...)                 \
    do {                                                     \
        if (nb) {                                            \
            MPI_Request coll_req_;                           \
            MPI_OK(nonblocking(__VA_ARGS__, &coll_req_));    \
            MPI_OK(MPI_Wait(&coll_req_, MPI_STATUS_IGNORE)); \
            CHECK(coll_req_ == MPI_REQUEST_NULL);            \
        } else {                                             \
            MPI_OK(blocking(__VA_ARGS__));                   \
        }                                                    \
    } while (0)

static int root_arg(int root_in_a, int root) {
    if (in_a == root_in_a) return lrank == root ? MPI_ROOT : MPI_PROC_NULL;
    return root;
}

static void test_rooted(int nb) {
    for (int g = 0; g < 2; ++g) { /* the root's group: B, then A */
        const int root_in_a = g, nroot = root_in_a == in_a ? lsize : rsize,
                  nother = nroot == lsize ? rsize : lsize;
        for (int root = 0; root < nroot; ++root) {
            const int arg = root_arg(root_in_a, root), i_am_root = arg == MPI_ROOT;
            const int in_other = in_a != root_in_a;
            /* Bcast */
            int v = i_am_root ? 4242 + root : -1;
            COLL(nb, MPI_Bcast, MPI_Ibcast, &v, 1, MPI_INT, arg, inter);
            if (in_other) CHECK_EQ(v, 4242 + root);
            if (!in_other && !i_am_root) CHECK_EQ(v, -1);
            /* Reduce: the other group's values summed at the root. */
            int sum = -1, x = value_of(in_a, lrank);
            COLL(nb, MPI_Reduce, MPI_Ireduce, &x, &sum, 1, MPI_INT, MPI_SUM, arg, inter);
            if (i_am_root) {
                int want = 0;
                for (int r = 0; r < nother; ++r)
                    want += value_of(!root_in_a, r);
                CHECK_EQ(sum, want);
            }
            /* Gather and Gatherv (block r at r * 2 with r + 1 ints... two
             * ints each in Gatherv, displaced by 3). */
            int *all = xmalloc(sizeof(int) * 3 * (nother + 1));
            for (int i = 0; i < 3 * (nother + 1); ++i)
                all[i] = -1;
            COLL(nb, MPI_Gather, MPI_Igather, &x, 1, MPI_INT, all, 1, MPI_INT, arg, inter);
            if (i_am_root)
                for (int r = 0; r < nother; ++r)
                    CHECK_EQ(all[r], value_of(!root_in_a, r));
            int *counts = xmalloc(sizeof(int) * nother), *displs = xmalloc(sizeof(int) * nother);
            for (int r = 0; r < nother; ++r) {
                counts[r] = 2;
                displs[r] = 3 * r;
            }
            int pair[2] = {x, -x};
            COLL(nb, MPI_Gatherv, MPI_Igatherv, pair, 2, MPI_INT, all, counts, displs, MPI_INT, arg, inter);
            if (i_am_root)
                for (int r = 0; r < nother; ++r) {
                    CHECK_EQ(all[3 * r], value_of(!root_in_a, r));
                    CHECK_EQ(all[3 * r + 1], -value_of(!root_in_a, r));
                }
            /* Scatter and Scatterv: the root sends r * 7 + root to rank r. */
            for (int r = 0; r < nother; ++r)
                all[3 * r] = all[3 * r + 1] = r * 7 + root;
            int got[2] = {-1, -1};
            COLL(nb, MPI_Scatterv, MPI_Iscatterv, all, counts, displs, MPI_INT, got, 2, MPI_INT, arg, inter);
            if (in_other) {
                CHECK_EQ(got[0], lrank * 7 + root);
                CHECK_EQ(got[1], lrank * 7 + root);
            }
            for (int r = 0; r < nother; ++r)
                all[r] = r * 5 + root;
            got[0] = -1;
            COLL(nb, MPI_Scatter, MPI_Iscatter, all, 1, MPI_INT, got, 1, MPI_INT, arg, inter);
            if (in_other) CHECK_EQ(got[0], lrank * 5 + root);
            free(all);
            free(counts);
            free(displs);
        }
    }
}

static void test_all(int nb) {
    const int x = value_of(in_a, lrank);
    /* Allreduce: each group gets the sum of the other's. */
    int sum = -1, want = 0;
    for (int r = 0; r < rsize; ++r)
        want += value_of(!in_a, r);
    COLL(nb, MPI_Allreduce, MPI_Iallreduce, &x, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK_EQ(sum, want);
    /* Allgather(v): each gets the other group's blocks. */
    int *all = xmalloc(sizeof(int) * 2 * rsize), *counts = xmalloc(sizeof(int) * rsize),
        *displs = xmalloc(sizeof(int) * rsize);
    COLL(nb, MPI_Allgather, MPI_Iallgather, &x, 1, MPI_INT, all, 1, MPI_INT, inter);
    for (int r = 0; r < rsize; ++r)
        CHECK_EQ(all[r], value_of(!in_a, r));
    for (int r = 0; r < rsize; ++r) {
        counts[r] = 1;
        displs[r] = rsize - 1 - r; /* reversed */
    }
    COLL(nb, MPI_Allgatherv, MPI_Iallgatherv, &x, 1, MPI_INT, all, counts, displs, MPI_INT, inter);
    for (int r = 0; r < rsize; ++r)
        CHECK_EQ(all[rsize - 1 - r], value_of(!in_a, r));
    /* Alltoall: remote rank r gets 10000 * (my group) + 100 * lrank + r. */
    int *out = xmalloc(sizeof(int) * rsize), *in = xmalloc(sizeof(int) * rsize);
    for (int r = 0; r < rsize; ++r)
        out[r] = 10000 * in_a + 100 * lrank + r;
    COLL(nb, MPI_Alltoall, MPI_Ialltoall, out, 1, MPI_INT, in, 1, MPI_INT, inter);
    for (int r = 0; r < rsize; ++r)
        CHECK_EQ(in[r], 10000 * !in_a + 100 * r + lrank);
    COLL(nb, MPI_Alltoallv, MPI_Ialltoallv, out, counts, displs, MPI_INT, in, counts, displs, MPI_INT, inter);
    for (int r = 0; r < rsize; ++r) /* sent block at displs[r] = rsize-1-r, i.e. out[rsize-1-r] */
        CHECK_EQ(in[displs[r]], 10000 * !in_a + 100 * r + (lsize - 1 - lrank));
    free(out);
    free(in);
    free(all);
    free(counts);
    free(displs);
    /* Reduce_scatter_block: the vector has one element per local rank only
     * when both groups are the same size; use Reduce_scatter with counts
     * that sum alike on both sides: the total is lsize * rsize. */
    const int total = lsize * rsize;
    int *vec = xmalloc(sizeof(int) * total), *mine = xmalloc(sizeof(int) * rsize);
    int *rcounts = xmalloc(sizeof(int) * lsize);
    for (int i = 0; i < total; ++i)
        vec[i] = x + i;
    for (int r = 0; r < lsize; ++r)
        rcounts[r] = rsize;
    COLL(nb, MPI_Reduce_scatter, MPI_Ireduce_scatter, vec, mine, rcounts, MPI_INT, MPI_SUM, inter);
    for (int k = 0; k < rsize; ++k) {
        const int i = lrank * rsize + k;
        int w = 0;
        for (int r = 0; r < rsize; ++r)
            w += value_of(!in_a, r) + i;
        CHECK_EQ(mine[k], w);
    }
    if (lsize == rsize) {
        COLL(nb, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, vec, mine, rsize, MPI_INT, MPI_SUM,
             inter);
        for (int k = 0; k < rsize; ++k) {
            int w = 0;
            for (int r = 0; r < rsize; ++r)
                w += value_of(!in_a, r) + lrank * rsize + k;
            CHECK_EQ(mine[k], w);
        }
    }
    free(vec);
    free(mine);
    free(rcounts);
    COLL(nb, MPI_Barrier, MPI_Ibarrier, inter);
}

/* Completes reqs[0..n) in an order that depends on the rank: all at
 * once, one by one from the last, or as MPI_Testany finds them done. */
static void complete_all(MPI_Request *reqs, int n) {
    if (me % 3 == 0) {
        MPI_OK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
    } else if (me % 3 == 1) {
        for (int i = n - 1; i >= 0; --i)
            MPI_OK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    } else {
        for (int done = 0; done < n;) {
            int index, flag;
            MPI_OK(MPI_Testany(n, reqs, &index, &flag, MPI_STATUS_IGNORE));
            if (flag && index != MPI_UNDEFINED) ++done;
        }
    }
    for (int i = 0; i < n; ++i)
        CHECK(reqs[i] == MPI_REQUEST_NULL);
}

/* x op y = x: associative, not commutative, so the result names the rank
 * whose value is combined first (rank order, section 5.9.1). */
static void keep_first(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    memcpy(inout, in, sizeof(int) * (size_t)*len);
}

/* Element i of the root's buffer in test_outstanding's Scatter(v). */
static int src_at(int i) { return 50 * (i / 2) + 1 + i % 2; }

/* Every non-blocking collective on the intercommunicator at once (they
 * must not mix with each other), and an MPI_Comm_idup among them. Bcast
 * and Reduce are rooted at group A's last rank, Gather(v) and Scatter(v)
 * at group B's rank 0. */
static void test_outstanding(void) {
    enum { nreq = 18 };
    MPI_Request reqs[nreq];
    int k = 0;
    const int x = value_of(in_a, lrank), a_last = (in_a ? lsize : rsize) - 1;
    const int root_a = root_arg(1, a_last), root_b = root_arg(0, 0);
    const int max = lsize > rsize ? lsize : rsize, total = lsize * rsize;
    int bv = root_a == MPI_ROOT ? 31337 : -1, rsum = -1, asum = -1, first = -1, sgot = -1,
        svgot[2] = {-1, -1};
    MPI_Op first_op;
    MPI_OK(MPI_Op_create(keep_first, 0, &first_op));
    int *gath = xmalloc(sizeof(int) * max), *gathv = xmalloc(sizeof(int) * 2 * max);
    int *src = xmalloc(sizeof(int) * 2 * max), *ag = xmalloc(sizeof(int) * max);
    int *agv = xmalloc(sizeof(int) * max), *out = xmalloc(sizeof(int) * max);
    int *in = xmalloc(sizeof(int) * max), *inv = xmalloc(sizeof(int) * max),
        *inw = xmalloc(sizeof(int) * max);
    int *ones = xmalloc(sizeof(int) * max), *displs = xmalloc(sizeof(int) * max);
    int *bytes = xmalloc(sizeof(int) * max), *twos = xmalloc(sizeof(int) * max);
    int *dtwo = xmalloc(sizeof(int) * max), *rcounts = xmalloc(sizeof(int) * max);
    int *vec = xmalloc(sizeof(int) * total), *rs = xmalloc(sizeof(int) * rsize);
    int *rsb = xmalloc(sizeof(int) * rsize);
    MPI_Datatype *types = xmalloc(sizeof(MPI_Datatype) * max);
    for (int r = 0; r < max; ++r) {
        gath[r] = ag[r] = agv[r] = in[r] = inv[r] = inw[r] = -1;
        gathv[2 * r] = gathv[2 * r + 1] = -1;
        src[2 * r] = src_at(2 * r);
        src[2 * r + 1] = src_at(2 * r + 1);
        out[r] = 10000 * in_a + 100 * lrank + r;
        ones[r] = 1;
        displs[r] = max - 1 - r; /* reversed */
        bytes[r] = (int)sizeof(int) * r;
        twos[r] = 2;
        dtwo[r] = 2 * r;
        rcounts[r] = rsize;
        types[r] = MPI_INT;
    }
    for (int i = 0; i < total; ++i)
        vec[i] = x + 2 * i;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_OK(MPI_Ibarrier(inter, &reqs[k++]));
    MPI_OK(MPI_Ibcast(&bv, 1, MPI_INT, root_a, inter, &reqs[k++]));
    MPI_OK(MPI_Ireduce(&x, &rsum, 1, MPI_INT, MPI_SUM, root_a, inter, &reqs[k++]));
    MPI_OK(MPI_Igather(&x, 1, MPI_INT, gath, 1, MPI_INT, root_b, inter, &reqs[k++]));
    MPI_OK(MPI_Igatherv(&x, 1, MPI_INT, gathv, ones, dtwo, MPI_INT, root_b, inter, &reqs[k++]));
    MPI_OK(MPI_Iscatter(src, 1, MPI_INT, &sgot, 1, MPI_INT, root_b, inter, &reqs[k++]));
    MPI_OK(MPI_Iscatterv(src, twos, dtwo, MPI_INT, svgot, 2, MPI_INT, root_b, inter, &reqs[k++]));
    MPI_OK(MPI_Comm_idup(inter, &dup, &reqs[k++]));
    MPI_OK(MPI_Iallreduce(&x, &asum, 1, MPI_INT, MPI_SUM, inter, &reqs[k++]));
    MPI_OK(MPI_Iallreduce(&x, &first, 1, MPI_INT, first_op, inter, &reqs[k++]));
    MPI_OK(MPI_Iallgather(&x, 1, MPI_INT, ag, 1, MPI_INT, inter, &reqs[k++]));
    MPI_OK(MPI_Iallgatherv(&x, 1, MPI_INT, agv, ones, displs, MPI_INT, inter, &reqs[k++]));
    MPI_OK(MPI_Ialltoall(out, 1, MPI_INT, in, 1, MPI_INT, inter, &reqs[k++]));
    MPI_OK(MPI_Ialltoallv(out, ones, displs, MPI_INT, inv, ones, displs, MPI_INT, inter, &reqs[k++]));
    MPI_OK(MPI_Ialltoallw(out, ones, bytes, types, inw, ones, bytes, types, inter, &reqs[k++]));
    MPI_OK(MPI_Ireduce_scatter(vec, rs, rcounts, MPI_INT, MPI_SUM, inter, &reqs[k++]));
    /* rsize elements to each of my ranks: lsize * rsize on both sides. */
    MPI_OK(MPI_Ireduce_scatter_block(vec, rsb, rsize, MPI_INT, MPI_SUM, inter, &reqs[k++]));
    MPI_OK(MPI_Ibarrier(inter, &reqs[k++]));
    CHECK_EQ(k, nreq);
    complete_all(reqs, nreq);
    /* Rooted: only the root, or only the other group, has a result. */
    const int in_other_a = !in_a, in_other_b = in_a;
    int want = 0;
    for (int r = 0; r < rsize; ++r)
        want += value_of(!in_a, r);
    CHECK_EQ(bv, in_other_a ? 31337 : (root_a == MPI_ROOT ? 31337 : -1));
    CHECK_EQ(rsum, root_a == MPI_ROOT ? want : -1);
    for (int r = 0; r < rsize && root_b == MPI_ROOT; ++r) {
        CHECK_EQ(gath[r], value_of(1, r));
        CHECK_EQ(gathv[2 * r], value_of(1, r));
        CHECK_EQ(gathv[2 * r + 1], -1); /* the gaps untouched */
    }
    if (root_b != MPI_ROOT) CHECK_EQ(gath[0], -1);
    CHECK_EQ(sgot, in_other_b ? src_at(lrank) : -1);
    CHECK_EQ(svgot[0], in_other_b ? src_at(2 * lrank) : -1);
    CHECK_EQ(svgot[1], in_other_b ? src_at(2 * lrank + 1) : -1);
    /* Not rooted: each group gets the other's. */
    CHECK_EQ(asum, want);
    CHECK_EQ(first, value_of(!in_a, 0));
    MPI_OK(MPI_Op_free(&first_op));
    for (int r = 0; r < rsize; ++r) {
        const int from = 10000 * !in_a + 100 * r;
        CHECK_EQ(ag[r], value_of(!in_a, r));
        CHECK_EQ(agv[displs[r]], value_of(!in_a, r));
        CHECK_EQ(in[r], from + lrank);
        CHECK_EQ(inv[displs[r]], from + displs[lrank]);
        CHECK_EQ(inw[r], from + lrank);
    }
    for (int j = 0; j < rsize; ++j) {
        const int i = lrank * rsize + j;
        CHECK_EQ(rs[j], want + rsize * 2 * i);
        CHECK_EQ(rsb[j], want + rsize * 2 * i);
    }
    /* The new intercommunicator: the same groups, messages of its own. */
    int result;
    CHECK(dup != MPI_COMM_NULL);
    MPI_OK(MPI_Comm_compare(inter, dup, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    test_p2p(dup);
    MPI_OK(MPI_Comm_free(&dup));
    free(gath);
    free(gathv);
    free(src);
    free(ag);
    free(agv);
    free(out);
    free(in);
    free(inv);
    free(inw);
    free(ones);
    free(displs);
    free(bytes);
    free(twos);
    free(dtwo);
    free(rcounts);
    free(vec);
    free(rs);
    free(rsb);
    free(types);
}

static void test_merge(void) {
    for (int high_a = 0; high_a < 2; ++high_a) {
        MPI_Comm merged;
        MPI_OK(MPI_Intercomm_merge(inter, in_a ? high_a : !high_a, &merged));
        int size, rank, flag;
        MPI_OK(MPI_Comm_size(merged, &size));
        MPI_OK(MPI_Comm_rank(merged, &rank));
        MPI_OK(MPI_Comm_test_inter(merged, &flag));
        CHECK_EQ(size, np);
        CHECK_EQ(flag, 0);
        const int a_first = !high_a;
        const int want = in_a == a_first ? lrank : rsize + lrank;
        CHECK_EQ(rank, want);
        int s = 0;
        MPI_OK(MPI_Allreduce(&me, &s, 1, MPI_INT, MPI_SUM, merged));
        CHECK_EQ(s, np * (np - 1) / 2);
        MPI_OK(MPI_Comm_free(&merged));
    }
}

static void test_constructors(void) {
    MPI_Comm dup, sub, split;
    int result, flag;
    MPI_OK(MPI_Comm_dup(inter, &dup));
    MPI_OK(MPI_Comm_test_inter(dup, &flag));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Comm_compare(inter, dup, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    test_p2p(dup);
    MPI_OK(MPI_Comm_free(&dup));
    /* Create: even local ranks on each side. */
    MPI_Group local, even;
    MPI_OK(MPI_Comm_group(inter, &local));
    int range[1][3] = {{0, lsize - 1, 2}};
    MPI_OK(MPI_Group_range_incl(local, 1, range, &even));
    MPI_OK(MPI_Comm_create(inter, even, &sub));
    if (lrank % 2) {
        CHECK(sub == MPI_COMM_NULL);
    } else {
        int ls, rs;
        CHECK(sub != MPI_COMM_NULL);
        MPI_OK(MPI_Comm_size(sub, &ls));
        MPI_OK(MPI_Comm_remote_size(sub, &rs));
        CHECK_EQ(ls, (lsize + 1) / 2);
        CHECK_EQ(rs, (rsize + 1) / 2);
        int v = value_of(in_a, lrank), got = -1;
        MPI_OK(MPI_Allreduce(&v, &got, 1, MPI_INT, MPI_MAX, sub));
        CHECK_EQ(got, value_of(!in_a, 2 * ((rsize - 1) / 2)));
        MPI_OK(MPI_Comm_free(&sub));
    }
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Group_free(&local));
    /* Split by parity of the local rank, keys reversed: color 1 exists on
     * a side only with two ranks or more there. */
    const int color = lrank % 2;
    MPI_OK(MPI_Comm_split(inter, color, -lrank, &split));
    const int mine_of_color = color ? lsize / 2 : (lsize + 1) / 2;
    const int theirs_of_color = color ? rsize / 2 : (rsize + 1) / 2;
    if (theirs_of_color == 0) {
        CHECK(split == MPI_COMM_NULL);
    } else {
        int ls, rs, r;
        CHECK(split != MPI_COMM_NULL);
        MPI_OK(MPI_Comm_size(split, &ls));
        MPI_OK(MPI_Comm_remote_size(split, &rs));
        MPI_OK(MPI_Comm_rank(split, &r));
        CHECK_EQ(ls, mine_of_color);
        CHECK_EQ(rs, theirs_of_color);
        CHECK_EQ(r, mine_of_color - 1 - lrank / 2); /* reversed keys */
        MPI_OK(MPI_Barrier(split));
        MPI_OK(MPI_Comm_free(&split));
    }
}

/* Even ranks of MPI_COMM_WORLD make a communicator; odd ones do not call. */
static void test_create_group(void) {
    MPI_Group world, even;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int range[1][3] = {{0, np - 1, 2}};
    MPI_OK(MPI_Group_range_incl(world, 1, range, &even));
    if (me % 2 == 0) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, even, 9, &c));
        int size, rank, s = 0;
        MPI_OK(MPI_Comm_size(c, &size));
        MPI_OK(MPI_Comm_rank(c, &rank));
        CHECK_EQ(size, (np + 1) / 2);
        CHECK_EQ(rank, me / 2);
        MPI_OK(MPI_Allreduce(&me, &s, 1, MPI_INT, MPI_SUM, c));
        CHECK_EQ(s, 2 * (size * (size - 1) / 2));
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Group_free(&world));
}

static void test_errors(void) {
    int v = 0, size;
    /* MPI_Comm_remote_size or MPI_Intercomm_merge of an intracommunicator
     * is erroneous too, but Open MPI 4.1 answers 0 to the first, MPICH 4.0
     * the size, and MPICH fails an assertion on the second: LWMPI raises
     * MPI_ERR_COMM, which the host tests check. */
    if (inter != MPI_COMM_NULL) {
        MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
        MPI_Request req = MPI_REQUEST_NULL;
        EXPECT_CLASS(MPI_Scan(&v, &size, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Iscan(&v, &size, 1, MPI_INT, MPI_SUM, inter, &req), MPI_ERR_COMM);
        if (!open_mpi_3_or_4()) /* Open MPI 4.1.4 crashes (README.md) */
            EXPECT_CLASS(MPI_Iexscan(&v, &size, 1, MPI_INT, MPI_SUM, inter, &req), MPI_ERR_COMM);
        else if (me == 0)
            printf(NAME ": note: Open MPI 3/4: MPI_Iexscan on an intercommunicator is left out\n");
        EXPECT_CLASS(MPI_Bcast(&v, 1, MPI_INT, rsize, inter), MPI_ERR_ROOT);
        EXPECT_CLASS(MPI_Ibcast(&v, 1, MPI_INT, rsize, inter, &req), MPI_ERR_ROOT);
        EXPECT_CLASS(MPI_Ireduce(&v, &size, 1, MPI_INT, MPI_SUM, -5, inter, &req), MPI_ERR_ROOT);
        EXPECT_CLASS(MPI_Iallreduce(&v, &size, 1, MPI_INT, MPI_OP_NULL, inter, &req), MPI_ERR_OP);
        CHECK(req == MPI_REQUEST_NULL);
        EXPECT_CLASS(MPI_Send(&v, 1, MPI_INT, rsize, 0, inter), MPI_ERR_RANK);
        CHECK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, inter) != MPI_SUCCESS);
    }
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    if (np > 1) {
        phase = "create";
        make_intercomm();
        sync_all("queries");
        test_queries();
        sync_all("p2p");
        test_p2p(inter);
        for (int nb = 0; nb < 2; ++nb) {
            sync_all(nb ? "rooted collectives, non-blocking" : "rooted collectives");
            test_rooted(nb);
            sync_all(nb ? "all-to-all collectives, non-blocking" : "all-to-all collectives");
            test_all(nb);
        }
        sync_all("non-blocking collectives outstanding together");
        test_outstanding();
        sync_all("merge");
        test_merge();
        sync_all("dup, create, split");
        test_constructors();
    }
    sync_all("create_group");
    test_create_group();
    sync_all("errors");
    test_errors();
    sync_all("end");
    if (inter != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&inter));
    if (half != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&half));
    if (me == 0) printf(NAME ": OK (np=%d)\n", np);
    MPI_OK(MPI_Finalize());
    return 0;
}
