/*
 * mpi_topo_test: graph and distributed graph topologies, Cartesian
 * subgrids and maps, and the neighbourhood collectives (MPI 3.1 sections
 * 7.5 and 7.6).
 *
 *   graphs: Graph_create (a ring, a star, fewer nodes than processes),
 *   Topo_test, Graphdims_get, Graph_get, Graph_neighbors(_count),
 *   Graph_map; a dup keeps the graph;
 *   distributed graphs: Dist_graph_create_adjacent (weighted and
 *   MPI_UNWEIGHTED), Dist_graph_create with edges given by other ranks,
 *   Dist_graph_neighbors(_count), graphs without edges (weighted unless
 *   MPI_UNWEIGHTED);
 *   neighbourhood collectives: Neighbor_allgather(v), Neighbor_alltoall(v,w)
 *   on Cartesian grids (periodic and not: MPI_PROC_NULL neighbours leave
 *   their blocks untouched; a periodic dimension of size 1 or 2 sends the
 *   -1 block into the neighbour's +1 block), on graphs and distributed
 *   graphs (the k-th edge from a rank matches its k-th edge to us);
 *   Cart_sub of a 3-D grid (every choice of dimensions), Cart_map;
 *   zero-dimensional grids (Cart_create, _get, _coords, _rank, _sub, _map
 *   and Dims_create with ndims 0);
 *   error classes with MPI_ERRORS_RETURN.
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes. Rank 0 prints "mpi_topo_test: OK" at the end; the first
 * failed check prints "FAIL mpi_topo_test.c:<line>: ..." and ends the job
 * with a non-zero status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_topo_test"

#include "mpitest.h"

#define MAXN 64 /* neighbours of a rank in these tests, at most */

#define EXPECT(call, cls)                                                                          \
    do {                                                                                           \
        int rc_ = (call), class_ = -1;                                                             \
        MPI_Error_class(rc_, &class_);                                                             \
        if (class_ != (cls)) FAIL("%s gave class %d, expected %s (%d)", #call, class_, #cls, cls); \
    } while (0)

/* Open MPI 3/4 check fewer arguments than MPI 3.1 names classes for, and
 * answer MPI_Cart_map and MPI_Graph_map with the caller's rank even when
 * it is not in the grid: those checks are left out there (a note says
 * so). */
static _Thread_local int lax;

/* The index of the k-th (from 0) occurrence of x in list[0..n), or -1. */
static int kth(const int *list, int n, int x, int k) {
    for (int i = 0; i < n; ++i)
        if (list[i] == x && k-- == 0) return i;
    return -1;
}

/* How many times x occurs in list[0..i). */
static int occurrences_before(const int *list, int i, int x) {
    int k = 0;
    for (int j = 0; j < i; ++j)
        k += list[j] == x;
    return k;
}

/* ---- Graphs ------------------------------------------------------------- */

/* A graph on all processes as MPI_Graph_create takes it. */
struct graph {
    int nnodes;
    int index[MAXN];
    int edges[4 * MAXN];
};

static _Thread_local struct graph ring, star;

/* The ring: node r's neighbours are r-1 then r+1 (the same process twice
 * when np is 2, itself twice when np is 1). */
static void make_ring(struct graph *g) {
    g->nnodes = np;
    for (int r = 0; r < np; ++r) {
        g->edges[2 * r] = (r + np - 1) % np;
        g->edges[2 * r + 1] = (r + 1) % np;
        g->index[r] = 2 * r + 2;
    }
}

/* A star of n nodes: node 0 in the middle. */
static void make_star(struct graph *g, int n) {
    int e = 0;
    g->nnodes = n;
    for (int r = 1; r < n; ++r)
        g->edges[e++] = r;
    g->index[0] = e;
    for (int r = 1; r < n; ++r) {
        g->edges[e++] = 0;
        g->index[r] = e;
    }
}

static const int *neighbours_of(const struct graph *g, int r, int *n) {
    int first = r ? g->index[r - 1] : 0;
    *n = g->index[r] - first;
    return g->edges + first;
}

/* The queries answer what Graph_create was given. */
static void check_graph_queries(MPI_Comm c, const struct graph *g) {
    int status = -1, nnodes = -1, nedges = -1, index[MAXN], edges[4 * MAXN];
    MPI_OK(MPI_Topo_test(c, &status));
    CHECK_EQ(status, MPI_GRAPH);
    MPI_OK(MPI_Graphdims_get(c, &nnodes, &nedges));
    CHECK_EQ(nnodes, g->nnodes);
    CHECK_EQ(nedges, g->index[g->nnodes - 1]);
    MPI_OK(MPI_Graph_get(c, nnodes, nedges, index, edges));
    for (int i = 0; i < nnodes; ++i)
        CHECK_EQ(index[i], g->index[i]);
    for (int i = 0; i < nedges; ++i)
        CHECK_EQ(edges[i], g->edges[i]);
    for (int r = 0; r < nnodes; ++r) {
        int n = -1, count = -1, got[MAXN];
        const int *want = neighbours_of(g, r, &n);
        MPI_OK(MPI_Graph_neighbors_count(c, r, &count));
        CHECK_EQ(count, n);
        MPI_OK(MPI_Graph_neighbors(c, r, MAXN, got));
        for (int i = 0; i < n; ++i)
            CHECK_EQ(got[i], want[i]);
    }
}

/* Neighbor_alltoall on graph c (the caller's neighbours nb[0..n)): block
 * j of sender s is s * 1000 + j, and lands in the block of the receiver
 * that is the same edge counted from the other end. */
static void check_graph_alltoall(MPI_Comm c, const struct graph *g) {
    int n, send[MAXN] = {0}, recv[MAXN];
    const int *nb = neighbours_of(g, me, &n);
    for (int j = 0; j < n; ++j) {
        send[j] = me * 1000 + j;
        recv[j] = -1;
    }
    MPI_OK(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c));
    for (int i = 0; i < n; ++i) {
        int m;
        const int *theirs = neighbours_of(g, nb[i], &m);
        CHECK_EQ(recv[i], nb[i] * 1000 + kth(theirs, m, me, occurrences_before(nb, i, nb[i])));
    }
}

static void test_graphs(void) {
    MPI_Comm c, dup;
    int newrank = -1;

    phase = "ring";
    make_ring(&ring);
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, ring.nnodes, ring.index, ring.edges, 0, &c));
    check_graph_queries(c, &ring);
    check_graph_alltoall(c, &ring);
    MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, ring.nnodes, ring.index, ring.edges, &newrank));
    CHECK(newrank >= 0 && newrank < np);
    {
        int got[2] = {-1, -1};
        MPI_OK(MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, c));
        CHECK_EQ(got[0], (me + np - 1) % np);
        CHECK_EQ(got[1], (me + 1) % np);
    }
    phase = "ring dup";
    MPI_OK(MPI_Comm_dup(c, &dup));
    MPI_OK(MPI_Comm_free(&c));
    check_graph_queries(dup, &ring);
    check_graph_alltoall(dup, &ring);
    MPI_OK(MPI_Comm_free(&dup));

    phase = "star";
    make_star(&star, np);
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, star.nnodes, star.index, star.edges, 1, &c));
    check_graph_queries(c, &star);
    check_graph_alltoall(c, &star);
    {
        /* Allgatherv: leaf r sends r + 1 ints r, r, ...; the middle takes
         * them at gaps of one int, which stay untouched. */
        int n, counts[MAXN], displs[MAXN], got[MAXN * MAXN], mine[MAXN], at = 0;
        const int *nb = neighbours_of(&star, me, &n);
        for (int i = 0; i < me + 1; ++i)
            mine[i] = me;
        for (int i = 0; i < n; ++i) {
            counts[i] = nb[i] + 1;
            displs[i] = at;
            at += counts[i] + 1;
        }
        for (int i = 0; i < at; ++i)
            got[i] = -7;
        MPI_OK(MPI_Neighbor_allgatherv(mine, me + 1, MPI_INT, got, counts, displs, MPI_INT, c));
        for (int i = 0; i < n; ++i) {
            for (int k = 0; k < counts[i]; ++k)
                CHECK_EQ(got[displs[i] + k], nb[i]);
            CHECK_EQ(got[displs[i] + counts[i]], -7);
        }
    }
    MPI_OK(MPI_Comm_free(&c));

    phase = "smaller star";
    if (np > 1) {
        make_star(&star, np - 1);
        MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, star.nnodes, star.index, star.edges, 0, &c));
        if (me == np - 1) {
            CHECK(c == MPI_COMM_NULL);
        } else {
            int size = -1;
            MPI_OK(MPI_Comm_size(c, &size));
            CHECK_EQ(size, np - 1);
            check_graph_queries(c, &star);
            check_graph_alltoall(c, &star);
            MPI_OK(MPI_Comm_free(&c));
        }
    }
}

/* ---- Distributed graphs ---------------------------------------------------- */

/* Adjacent: sources r-1, r-2 and destinations r+1, r+2 (mod np), weights
 * 100 * from + to. */
static void test_dist_adjacent(int weighted) {
    int sources[2], sw[2], dests[2], dw[2];
    MPI_Comm c;
    for (int k = 0; k < 2; ++k) {
        sources[k] = (me + 2 * np - 1 - k) % np;
        dests[k] = (me + 1 + k) % np;
        sw[k] = 100 * sources[k] + me;
        dw[k] = 100 * me + dests[k];
    }
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, weighted ? sw : MPI_UNWEIGHTED, 2,
                                          dests, weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    int status = -1, in = -1, out = -1, w = -1, s2[2], sw2[2] = {-1, -1}, d2[2], dw2[2] = {-1, -1};
    MPI_OK(MPI_Topo_test(c, &status));
    CHECK_EQ(status, MPI_DIST_GRAPH);
    MPI_OK(MPI_Dist_graph_neighbors_count(c, &in, &out, &w));
    CHECK_EQ(in, 2);
    CHECK_EQ(out, 2);
    CHECK_EQ(w != 0, weighted);
    MPI_OK(MPI_Dist_graph_neighbors(c, 2, s2, sw2, 2, d2, dw2));
    for (int k = 0; k < 2; ++k) {
        CHECK_EQ(s2[k], sources[k]);
        CHECK_EQ(d2[k], dests[k]);
        if (weighted) {
            CHECK_EQ(sw2[k], sw[k]);
            CHECK_EQ(dw2[k], dw[k]);
        }
    }
    /* Block j of s goes to dests[j]; it lands in my block i where i is the
     * same edge counted from my end. */
    int send[2] = {me * 1000, me * 1000 + 1}, recv[2] = {-1, -1};
    MPI_OK(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c));
    for (int i = 0; i < 2; ++i) {
        int s = sources[i], their_dests[2] = {(s + 1) % np, (s + 2) % np};
        CHECK_EQ(recv[i], s * 1000 + kth(their_dests, 2, me, occurrences_before(sources, i, s)));
    }
    MPI_OK(MPI_Comm_free(&c));
}

/* General: rank r gives edges r -> r+1 (weight r), r -> r+3 (1000 + r)
 * and r+2 -> r (5000 + r), all mod np. Each rank checks its lists as
 * sets (their order is the implementation's), then an alltoall whose
 * blocks name their edge. */
static void test_dist_general(void) {
    int sources[2] = {me, (me + 2) % np}, degrees[2] = {2, 1};
    int dests[3] = {(me + 1) % np, (me + 3) % np, me}, weights[3] = {me, 1000 + me, 5000 + me};
    MPI_Comm c;
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, sources, degrees, dests, weights, MPI_INFO_NULL, 0, &c));
    int in = -1, out = -1, w = -1, s[MAXN], sw[MAXN], d[MAXN], dw[MAXN];
    MPI_OK(MPI_Dist_graph_neighbors_count(c, &in, &out, &w));
    CHECK_EQ(in, 3);
    CHECK_EQ(out, 3);
    CHECK(w);
    MPI_OK(MPI_Dist_graph_neighbors(c, in, s, sw, out, d, dw));
    /* In-edges (from, weight): (r-1, r-1), (r-3, 1000 + r-3), (r, 5000 + r-2)...
     * given by rank r-2: edge r -> r-2, so at r it is an out-edge. */
    int want_in[3][2] = {{(me + np - 1) % np, (me + np - 1) % np},
                         {(me + 3 * np - 3) % np, 1000 + (me + 3 * np - 3) % np},
                         {(me + 2) % np, 5000 + me}};
    int want_out[3][2] = {{(me + 1) % np, me},
                          {(me + 3) % np, 1000 + me},
                          {(me + np - 2 + np) % np, 5000 + (me + np - 2) % np}};
    int used_in[3] = {0, 0, 0}, used_out[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        int found = 0;
        for (int k = 0; k < 3 && !found; ++k)
            if (!used_in[k] && want_in[k][0] == s[i] && want_in[k][1] == sw[i]) found = used_in[k] = 1;
        if (!found) FAIL("in-edge %d from %d weight %d is not expected", i, s[i], sw[i]);
        found = 0;
        for (int k = 0; k < 3 && !found; ++k)
            if (!used_out[k] && want_out[k][0] == d[i] && want_out[k][1] == dw[i]) found = used_out[k] = 1;
        if (!found) FAIL("out-edge %d to %d weight %d is not expected", i, d[i], dw[i]);
    }
    /* Each block carries its edge's weight; a received block's weight is
     * that of the in-edge, unless the same source is there twice (then
     * the pairing of its edges is the implementation's). */
    int send[3], recv[3] = {-1, -1, -1};
    for (int j = 0; j < 3; ++j)
        send[j] = dw[j] * MAXN + me;
    MPI_OK(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c));
    for (int i = 0; i < 3; ++i) {
        CHECK_EQ(recv[i] % MAXN, s[i]);
        if (kth(s, 3, s[i], 1) < 0) CHECK_EQ(recv[i] / MAXN, sw[i]);
    }
    MPI_OK(MPI_Comm_free(&c));
}

/* Graphs without edges: weighted unless MPI_UNWEIGHTED was given, whether
 * the weights were NULL or MPI_WEIGHTS_EMPTY (7.5.4, 7.5.5). */
static void test_dist_empty(void) {
    const int *given[3] = {NULL, MPI_WEIGHTS_EMPTY, MPI_UNWEIGHTED};
    for (int k = 0; k < 3; ++k) {
        const int want = given[k] != MPI_UNWEIGHTED;
        int in = -1, out = -1, w = -1;
        MPI_Comm c;
        MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, given[k], 0, NULL, given[k],
                                              MPI_INFO_NULL, 0, &c));
        MPI_OK(MPI_Dist_graph_neighbors_count(c, &in, &out, &w));
        CHECK_EQ(in, 0);
        CHECK_EQ(out, 0);
        CHECK_EQ(w != 0, want);
        MPI_OK(MPI_Comm_free(&c));
        MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, given[k], MPI_INFO_NULL, 0, &c));
        MPI_OK(MPI_Dist_graph_neighbors_count(c, &in, &out, &w));
        CHECK_EQ(in + out, 0);
        CHECK_EQ(w != 0, want);
        MPI_OK(MPI_Comm_free(&c));
    }
}

/* ---- Cartesian neighbourhoods ---------------------------------------------- */

/* The neighbourhood collectives on a grid of dims with periods: block j
 * of a sender lands in block j ^ 1 of the receiver; MPI_PROC_NULL blocks
 * stay untouched. */
static void check_cart_collectives(int ndims, const int *dims, const int *periods) {
    MPI_Comm c;
    int src[2 * 3], n = 2 * ndims;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &c));
    for (int d = 0; d < ndims; ++d)
        MPI_OK(MPI_Cart_shift(c, d, 1, &src[2 * d], &src[2 * d + 1]));

    int send[6], recv[6];
    for (int j = 0; j < n; ++j) {
        send[j] = me * 100 + j;
        recv[j] = -1;
    }
    MPI_OK(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c));
    for (int i = 0; i < n; ++i)
        CHECK_EQ(recv[i], src[i] == MPI_PROC_NULL ? -1 : src[i] * 100 + (i ^ 1));

    for (int i = 0; i < n; ++i)
        recv[i] = -1;
    MPI_OK(MPI_Neighbor_allgather(&me, 1, MPI_INT, recv, 1, MPI_INT, c));
    for (int i = 0; i < n; ++i)
        CHECK_EQ(recv[i], src[i] == MPI_PROC_NULL ? -1 : src[i]);

    /* v: block j holds j + 1 ints, so block i receives (i ^ 1) + 1; one
     * int of gap after each receive block. */
    int vs[6 * 7], vscounts[6], vsdispls[6], vr[6 * 8], vrcounts[6], vrdispls[6], at = 0;
    for (int j = 0; j < n; ++j) {
        vscounts[j] = j + 1;
        vsdispls[j] = 7 * j;
        for (int k = 0; k <= j; ++k)
            vs[7 * j + k] = me * 100 + j * 10 + k;
        vrcounts[j] = (j ^ 1) + 1;
        vrdispls[j] = at;
        at += vrcounts[j] + 1;
    }
    for (int i = 0; i < at; ++i)
        vr[i] = -1;
    MPI_OK(MPI_Neighbor_alltoallv(vs, vscounts, vsdispls, MPI_INT, vr, vrcounts, vrdispls, MPI_INT, c));
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < vrcounts[i]; ++k)
            CHECK_EQ(vr[vrdispls[i] + k], src[i] == MPI_PROC_NULL ? -1 : src[i] * 100 + (i ^ 1) * 10 + k);
        CHECK_EQ(vr[vrdispls[i] + vrcounts[i]], -1);
    }

    /* w: dimension d in doubles when d is odd, ints otherwise; byte
     * displacements from a struct-like buffer. */
    struct {
        int i[6];
        double x[6];
    } ws, wr;
    int wcounts[6];
    MPI_Aint sdis[6], rdis[6];
    MPI_Datatype types[6];
    for (int j = 0; j < n; ++j) {
        int dbl = (j / 2) % 2;
        wcounts[j] = 1;
        types[j] = dbl ? MPI_DOUBLE : MPI_INT;
        sdis[j] = dbl ? (char *)&ws.x[j] - (char *)&ws : (char *)&ws.i[j] - (char *)&ws;
        rdis[j] = dbl ? (char *)&wr.x[j] - (char *)&wr : (char *)&wr.i[j] - (char *)&wr;
        ws.i[j] = me * 100 + j;
        ws.x[j] = me * 100 + j + 0.5;
        wr.i[j] = -1;
        wr.x[j] = -1;
    }
    MPI_OK(MPI_Neighbor_alltoallw(&ws, wcounts, sdis, types, &wr, wcounts, rdis, types, c));
    for (int i = 0; i < n; ++i) {
        int dbl = (i / 2) % 2;
        double want = src[i] == MPI_PROC_NULL ? -1 : src[i] * 100 + (i ^ 1) + (dbl ? 0.5 : 0);
        if (dbl) {
            if (wr.x[i] != want) FAIL("alltoallw block %d: %g, expected %g", i, wr.x[i], want);
        } else {
            CHECK_EQ(wr.i[i], (int)want);
        }
    }
    MPI_OK(MPI_Comm_free(&c));
}

static void test_cart_neighbours(void) {
    int dims[3] = {0, 0, 0};
    const int periodic[3] = {1, 1, 1}, open[3] = {0, 0, 0}, mixed[3] = {1, 0, 1};
    phase = "cart ring";
    dims[0] = np;
    check_cart_collectives(1, dims, periodic);
    phase = "cart line";
    check_cart_collectives(1, dims, open);
    dims[0] = 0;
    MPI_OK(MPI_Dims_create(np, 2, dims));
    phase = "cart 2-D torus";
    check_cart_collectives(2, dims, periodic);
    phase = "cart 2-D grid";
    check_cart_collectives(2, dims, open);
    phase = "cart 2-D mixed";
    check_cart_collectives(2, dims, mixed);
    dims[0] = dims[1] = dims[2] = 0;
    MPI_OK(MPI_Dims_create(np, 3, dims));
    phase = "cart 3-D mixed";
    check_cart_collectives(3, dims, mixed);
}

/* ---- Cart_sub, Cart_map ---------------------------------------------------- */

static void test_cart_sub(void) {
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1}, coords[3];
    MPI_Comm grid;
    phase = "Cart_sub";
    MPI_OK(MPI_Dims_create(np, 3, dims));
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &grid));
    MPI_OK(MPI_Cart_coords(grid, me, 3, coords));
    for (int mask = 0; mask < 8; ++mask) {
        int remain[3], kept = 0, size = 1, want_rank = 0, color_sum = 0, sum = -1, sub_size = -1,
                       sub_rank = -1;
        MPI_Comm sub;
        for (int d = 0; d < 3; ++d) {
            remain[d] = (mask >> d) & 1;
            if (remain[d]) {
                ++kept;
                size *= dims[d];
                want_rank = want_rank * dims[d] + coords[d];
            }
        }
        MPI_OK(MPI_Cart_sub(grid, remain, &sub));
        MPI_OK(MPI_Comm_size(sub, &sub_size));
        MPI_OK(MPI_Comm_rank(sub, &sub_rank));
        CHECK_EQ(sub_size, size);
        CHECK_EQ(sub_rank, want_rank);
        int nd = -1, status = -1;
        MPI_OK(MPI_Topo_test(sub, &status));
        CHECK_EQ(status, MPI_CART);
        MPI_OK(MPI_Cartdim_get(sub, &nd));
        CHECK_EQ(nd, kept);
        if (kept > 0) {
            int sd[3], sp[3], sc[3], k = 0;
            MPI_OK(MPI_Cart_get(sub, 3, sd, sp, sc));
            for (int d = 0; d < 3; ++d)
                if (remain[d]) {
                    CHECK_EQ(sd[k], dims[d]);
                    CHECK_EQ(sp[k] != 0, periods[d]);
                    CHECK_EQ(sc[k], coords[d]);
                    ++k;
                }
        }
        /* The members: the ranks that share my dropped coordinates. */
        for (int r = 0; r < np; ++r) {
            int rc[3], same = 1;
            MPI_OK(MPI_Cart_coords(grid, r, 3, rc));
            for (int d = 0; d < 3; ++d)
                if (!remain[d] && rc[d] != coords[d]) same = 0;
            color_sum += same ? r : 0;
        }
        MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sub));
        CHECK_EQ(sum, color_sum);
        MPI_OK(MPI_Comm_free(&sub));
    }
    MPI_OK(MPI_Comm_free(&grid));

    phase = "zero-dimensional";
    {
        /* ndims 0: rank 0 alone, in a grid of no dimensions. */
        MPI_Comm point;
        int status = -1, nd = -1, size = -1;
        MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &point));
        if (me != 0) {
            CHECK(point == MPI_COMM_NULL);
        } else {
            MPI_OK(MPI_Comm_size(point, &size));
            CHECK_EQ(size, 1);
            MPI_OK(MPI_Topo_test(point, &status));
            CHECK_EQ(status, MPI_CART);
            MPI_OK(MPI_Cartdim_get(point, &nd));
            CHECK_EQ(nd, 0);
            /* No arrays are read or written with no dimensions. */
            int r = -1;
            MPI_OK(MPI_Cart_get(point, 0, NULL, NULL, NULL));
            MPI_OK(MPI_Cart_coords(point, 0, 0, NULL));
            MPI_OK(MPI_Cart_rank(point, NULL, &r));
            CHECK_EQ(r, 0);
            MPI_Comm sub;
            MPI_OK(MPI_Cart_sub(point, NULL, &sub));
            MPI_OK(MPI_Comm_size(sub, &size));
            CHECK_EQ(size, 1);
            nd = -1;
            MPI_OK(MPI_Cartdim_get(sub, &nd));
            CHECK_EQ(nd, 0);
            MPI_OK(MPI_Comm_free(&sub));
            MPI_OK(MPI_Comm_free(&point));
        }
        /* One node, zero dimensions (MPI 4.0's erratum of 3.1). */
        MPI_OK(MPI_Dims_create(1, 0, NULL));
        if (!lax) {
            int newrank = -2;
            MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 0, NULL, NULL, &newrank));
            CHECK_EQ(newrank, me == 0 ? 0 : MPI_UNDEFINED);
        }
    }

    phase = "Cart_map";
    if (lax) {
        int nodes = 1, newrank = -2;
        const int p = 0;
        MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, &nodes, &p, &newrank));
    } else {
        /* A grid of np/2 (at least 1) nodes: every answer a distinct rank
         * of the grid or MPI_UNDEFINED, np - nodes of them undefined. */
        int nodes = np > 1 ? np / 2 : 1, newrank = -2, all[4 * MAXN], undefined = 0, seen[4 * MAXN] = {0};
        const int p = 0;
        MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, &nodes, &p, &newrank));
        MPI_OK(MPI_Allgather(&newrank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < np; ++r) {
            if (all[r] == MPI_UNDEFINED) {
                ++undefined;
                continue;
            }
            CHECK(all[r] >= 0 && all[r] < nodes);
            CHECK(!seen[all[r]]);
            seen[all[r]] = 1;
        }
        CHECK_EQ(undefined, np - nodes);
    }
}

/* ---- Errors ---------------------------------------------------------------- */

static void test_errors(void) {
    MPI_Comm c = MPI_COMM_NULL, cart;
    int x, y, z, buf[8], idx[2] = {1, 2}, bad_edges[2] = {1, 5}, too_many = np + 1;
    const int one = 1, zero = 0, minus = -1, weights[1] = {1};
    phase = "errors";
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, np + 1, idx, bad_edges, 0, &c), MPI_ERR_ARG);
    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, -1, idx, bad_edges, 0, &c), MPI_ERR_ARG);
    EXPECT(MPI_Graphdims_get(MPI_COMM_WORLD, &x, &y), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &x), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &x, &y, &z), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_sub(MPI_COMM_WORLD, &one, &c), MPI_ERR_TOPOLOGY);
    if (!lax) {
        EXPECT(MPI_Neighbor_allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
        EXPECT(MPI_Neighbor_alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
        EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 1, &minus, &zero, &x), MPI_ERR_DIMS);
        EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 1, &too_many, &zero, &x), MPI_ERR_ARG);
    }
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, &zero, weights, 0, &zero, weights,
                                          MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG);
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, &minus, 0, &zero, weights, MPI_INFO_NULL,
                                          0, &c),
           MPI_ERR_ARG);
    EXPECT(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &minus, &zero, weights, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG);

    /* A Cartesian communicator refuses the graph calls, and the other way. */
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &np, &one, 0, &cart));
    MPI_OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    EXPECT(MPI_Graph_neighbors(cart, 0, 8, buf), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Dist_graph_neighbors(cart, 8, buf, buf, 8, buf, buf), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Neighbor_alltoall(buf, -1, MPI_INT, buf, 1, MPI_INT, cart), MPI_ERR_COUNT);
    EXPECT(MPI_Neighbor_alltoall(buf, 1, MPI_DATATYPE_NULL, buf, 1, MPI_INT, cart), MPI_ERR_TYPE);
    MPI_OK(MPI_Comm_free(&cart));
    make_ring(&ring);
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, ring.nnodes, ring.index, ring.edges, 0, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    EXPECT(MPI_Cart_get(c, 1, buf, buf, buf), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Dist_graph_neighbors_count(c, &x, &y, &z), MPI_ERR_TOPOLOGY);
    if (!lax) EXPECT(MPI_Graph_neighbors_count(c, np, &x), MPI_ERR_RANK);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np > MAXN) {
        if (me == 0) printf(NAME ": at most %d processes\n", MAXN);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t0 = MPI_Wtime();
    lax = open_mpi_3_or_4();
    if (lax && me == 0)
        printf(NAME
               ": note: Open MPI 3/4: MPI_Cart_map's MPI_UNDEFINED and the error classes it does not "
               "check are left out\n");

    sync_all("graphs");
    test_graphs();
    sync_all("dist graph adjacent");
    test_dist_adjacent(1);
    test_dist_adjacent(0);
    sync_all("dist graph");
    test_dist_general();
    test_dist_empty();
    sync_all("cart neighbours");
    test_cart_neighbours();
    sync_all("cart sub");
    test_cart_sub();
    sync_all("errors");
    test_errors();
    sync_all("finalize");

    double t = MPI_Wtime() - t0;
    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d, %.2f s)\n", np, t);
    return 0;
}
