// Topologies (MPI 3.1 chapter 7): the records and their arithmetic, and
// the MPI_Dims_create, MPI_Cart_* and MPI_Topo_test calls (graph.cpp has
// the graph calls, neighbor.cpp the neighbourhood collectives).
#include "topo.hpp"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "comm.hpp"
#include "env/errors.hpp"
#include "quiet.hpp"
#include "env/state.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/text.hpp>

namespace lwmpi {

namespace {

// d^k >= n (d, n >= 1), without overflow: the product stops growing once
// it reaches n, so it stays below 2^62.
bool power_reaches(long long d, int k, long long n) {
    long long p = 1;
    for (int i = 0; i < k && p < n; ++i)
        p *= d;
    return p >= n;
}

// Writes into f[0..k) the factors of n (k >= 1), each at most cap, in
// non-increasing order, whose sorted list is the smallest lexicographically;
// false when n has no such factorization. The first factor d is the
// smallest divisor of n with d^k >= n that leaves a factorization of n / d
// under d; divisors are visited in increasing order, those up to sqrt(n)
// first and then their cofactors, so that the search costs O(sqrt(n)) per
// level and needs no list.
bool balanced(int n, int k, int cap, int f[]) {
    if (k == 1) {
        f[0] = n;
        return n <= cap;
    }
    const auto fits = [&](int d) {
        if (!power_reaches(d, k, n) || !balanced(n / d, k - 1, d, f + 1)) return false;
        f[0] = d;
        return true;
    };
    long long i = 1;
    for (; i * i <= n && i <= cap; ++i)
        if (n % i == 0 && fits(static_cast<int>(i))) return true;
    for (--i; i >= 1 && n / i <= cap; --i)
        if (n % i == 0 && i * i != n && fits(static_cast<int>(n / i))) return true;
    return false;
}

// c brought into 0..d-1 (d >= 1), modulo d.
int wrap(long long c, int d) { return static_cast<int>((c % d + d) % d); }

}  // namespace

GraphTopology *graph_alloc(int count) {
    auto *g = static_cast<GraphTopology *>(
        malloc(sizeof(GraphTopology) + sizeof(int) * static_cast<size_t>(count)));
    if (!g) return nullptr;
    *g = GraphTopology{};
    g->count = count;
    return g;
}

int topo_copy(const Topology &from, Topology *to) {
    *to = from;
    if (!from.graph) return MPI_SUCCESS;
    const size_t bytes = sizeof(GraphTopology) + sizeof(int) * static_cast<size_t>(from.graph->count);
    to->graph = static_cast<GraphTopology *>(malloc(bytes));
    if (!to->graph) {
        *to = Topology{};
        return MPI_ERR_NO_MEM;
    }
    memcpy(to->graph, from.graph, bytes);
    return MPI_SUCCESS;
}

void topo_free(Topology &t) {
    free(t.graph);
    t = Topology{};
}

int dims_create(int nnodes, int ndims, int dims[]) {
    if (nnodes < 1) return MPI_ERR_ARG;
    if (ndims < 0 || ndims > kMaxDims) return MPI_ERR_DIMS;
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] < 0) return MPI_ERR_DIMS;
        if (dims[i] == 0)
            ++nfree;
        else if ((fixed *= dims[i]) > nnodes)  // also keeps the product from overflowing
            return MPI_ERR_DIMS;
    }
    if (nnodes % fixed != 0) return MPI_ERR_DIMS;
    const int rest = static_cast<int>(nnodes / fixed);
    if (nfree == 0) return rest == 1 ? MPI_SUCCESS : MPI_ERR_DIMS;
    int f[kMaxDims];
    balanced(rest, nfree, rest, f);  // rest, 1, ..., 1 always fits
    for (int i = 0, k = 0; i < ndims; ++i)
        if (dims[i] == 0) dims[i] = f[k++];
    return MPI_SUCCESS;
}

int cart_size(const CartTopology &t) {
    int n = 1;
    for (int i = 0; i < t.ndims; ++i)
        n *= t.dims[i];
    return n;
}

void cart_coords(const CartTopology &t, int rank, int coords[]) {
    for (int i = t.ndims - 1; i >= 0; --i) {
        coords[i] = rank % t.dims[i];
        rank /= t.dims[i];
    }
}

int cart_rank(const CartTopology &t, const int coords[], int *rank) {
    int r = 0;
    for (int i = 0; i < t.ndims; ++i) {
        const int c = coords[i];
        if ((c < 0 || c >= t.dims[i]) && !t.periods[i]) return MPI_ERR_ARG;
        r = r * t.dims[i] + wrap(c, t.dims[i]);
    }
    *rank = r;
    return MPI_SUCCESS;
}

void cart_shift(const CartTopology &t, int rank, int direction, int disp, int *source, int *dest) {
    int coords[kMaxDims];
    cart_coords(t, rank, coords);
    const int here = coords[direction];
    const auto neighbour = [&](long long c) {
        if (!t.periods[direction] && (c < 0 || c >= t.dims[direction])) return MPI_PROC_NULL;
        coords[direction] = wrap(c, t.dims[direction]);
        int r;
        cart_rank(t, coords, &r);
        return r;
    };
    *source = neighbour(static_cast<long long>(here) - disp);
    *dest = neighbour(static_cast<long long>(here) + disp);
}

void cart_sub(const CartTopology &t, const bool remain[], int rank, CartTopology *sub, int *color, int *key) {
    int coords[kMaxDims];
    cart_coords(t, rank, coords);
    *sub = CartTopology{};
    *color = *key = 0;
    for (int i = 0; i < t.ndims; ++i) {
        if (!remain[i]) {
            *color = *color * t.dims[i] + coords[i];
            continue;
        }
        *key = *key * t.dims[i] + coords[i];
        sub->dims[sub->ndims] = t.dims[i];
        sub->periods[sub->ndims++] = t.periods[i];
    }
}

int graph_check(int size, int nnodes, const int index[], const int edges[]) {
    if (nnodes < 0 || nnodes > size) return MPI_ERR_ARG;
    for (int i = 0; i < nnodes; ++i)
        if (index[i] < (i ? index[i - 1] : 0)) return MPI_ERR_ARG;
    for (int e = 0; e < (nnodes ? index[nnodes - 1] : 0); ++e)
        if (edges[e] < 0 || edges[e] >= nnodes) return MPI_ERR_TOPOLOGY;
    return MPI_SUCCESS;
}

GraphTopology *graph_make(int nnodes, const int index[], const int edges[]) {
    const int nedges = nnodes ? index[nnodes - 1] : 0;
    GraphTopology *g = graph_alloc(nnodes + nedges);
    if (!g) return nullptr;
    g->nnodes = nnodes;
    g->nedges = nedges;
    memcpy(g->ints(), index, sizeof(int) * static_cast<size_t>(nnodes));
    memcpy(g->ints() + nnodes, edges, sizeof(int) * static_cast<size_t>(nedges));
    return g;
}

const int *graph_neighbors(const GraphTopology &g, int rank, int *count) {
    const int first = rank ? g.index()[rank - 1] : 0;
    *count = g.index()[rank] - first;
    return g.edges() + first;
}

GraphTopology *dist_graph_make(bool weighted, int indegree, const int sources[], const int sourceweights[],
                               int outdegree, const int destinations[], const int destweights[]) {
    GraphTopology *g = graph_alloc(2 * (indegree + outdegree));
    if (!g) return nullptr;
    g->indegree = indegree;
    g->outdegree = outdegree;
    g->weighted = weighted;
    int *p = g->ints();
    const auto put = [&p, weighted](int n, const int *list, const int *weights) {
        for (int i = 0; i < n; ++i)
            p[i] = list[i];
        for (int i = 0; i < n; ++i)
            p[n + i] = weighted ? weights[i] : 1;
        p += 2 * n;
    };
    put(indegree, sources, sourceweights);
    put(outdegree, destinations, destweights);
    return g;
}

void neighbor_counts(const Topology &t, int rank, int *indegree, int *outdegree) {
    switch (t.kind) {
    case TopoKind::cart: *indegree = *outdegree = 2 * t.cart.ndims; return;
    case TopoKind::graph:
        graph_neighbors(*t.graph, rank, indegree);
        *outdegree = *indegree;
        return;
    case TopoKind::dist_graph:
        *indegree = t.graph->indegree;
        *outdegree = t.graph->outdegree;
        return;
    case TopoKind::none: *indegree = *outdegree = 0; return;
    }
}

void neighbor_lists(const Topology &t, int rank, int sources[], int destinations[]) {
    int in, out;
    neighbor_counts(t, rank, &in, &out);
    const int *from = nullptr, *to = nullptr;
    switch (t.kind) {
    case TopoKind::cart:
        for (int d = 0; d < t.cart.ndims; ++d) {
            cart_shift(t.cart, rank, d, 1, &sources[2 * d], &sources[2 * d + 1]);
            destinations[2 * d] = sources[2 * d];
            destinations[2 * d + 1] = sources[2 * d + 1];
        }
        return;
    case TopoKind::graph: from = to = graph_neighbors(*t.graph, rank, &in); break;
    case TopoKind::dist_graph:
        from = t.graph->sources();
        to = t.graph->destinations();
        break;
    case TopoKind::none: return;
    }
    memcpy(sources, from, sizeof(int) * static_cast<size_t>(in));
    memcpy(destinations, to, sizeof(int) * static_cast<size_t>(out));
}

int neighbor_send_tag(const Topology &t, int j) { return t.kind == TopoKind::cart ? j : 0; }

int neighbor_recv_tag(const Topology &t, int i) { return t.kind == TopoKind::cart ? i ^ 1 : 0; }

namespace {

// enter_comm(), then comm must have a Cartesian topology (MPI_ERR_TOPOLOGY).
int enter_cart(const char *fn, MPI_Comm comm, Comm **out) {
    if (int e = enter_comm(fn, comm, out)) return e;
    if ((*out)->topo.kind != TopoKind::cart)
        return raise_error(comm, fn, MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology");
    return MPI_SUCCESS;
}

// Raises MPI_ERR_DIMS for an ndims out of 0..kMaxDims.
int raise_ndims(MPI_Comm comm, const char *fn, int ndims) {
    char why[48];
    TextBuilder(why, sizeof why).put("ndims ").put_int(ndims).put(" is out of range");
    return raise_error(comm, fn, MPI_ERR_DIMS, why);
}

// Raises MPI_ERR_ARG for maxdims below the topology's dimensions.
int raise_maxdims(MPI_Comm comm, const char *fn, int maxdims, int ndims) {
    char why[64];
    TextBuilder(why, sizeof why)
        .put("maxdims ")
        .put_int(maxdims)
        .put("; the topology has ")
        .put_int(ndims)
        .put(" dimensions");
    return raise_error(comm, fn, MPI_ERR_ARG, why);
}

}  // namespace

}  // namespace lwmpi

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Dims_create";
    if (int e = require_active(fn)) return e;
    if (ndims < 0 || ndims > kMaxDims) return raise_ndims(MPI_COMM_WORLD, fn, ndims);
    if (!dims && ndims > 0) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
    if (int e = dims_create(nnodes, ndims, dims)) {
        char why[64];
        TextBuilder t(why, sizeof why);
        if (e == MPI_ERR_ARG)
            t.put("nnodes ").put_int(nnodes);
        else
            t.put("no grid of ").put_int(nnodes).put(" nodes has these dims");
        return raise_error(MPI_COMM_WORLD, fn, e, why);
    }
    return MPI_SUCCESS;
}

// Ranks 0..n-1 of comm_old, n the product of dims, make up the new
// communicator in the same order (reorder is a hint; section 7.5.1). With
// ndims 0, n is 1: rank 0 alone, in a zero-dimensional topology.
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_create";
    (void)reorder;
    Comm *c;
    if (int e = enter_intracomm(fn, comm_old, &c)) return e;
    if (ndims < 0 || ndims > kMaxDims) return raise_ndims(comm_old, fn, ndims);
    if ((ndims > 0 && (!dims || !periods)) || !comm_cart) return raise_error(comm_old, fn, MPI_ERR_ARG);
    const int size = c->group.size;
    CartTopology topo{ndims, {}, {}};
    long long nodes = 1;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] <= 0) {
            char why[48];
            TextBuilder(why, sizeof why).put("dims[").put_int(i).put("] is ").put_int(dims[i]);
            return raise_error(comm_old, fn, MPI_ERR_DIMS, why);
        }
        topo.dims[i] = dims[i];
        topo.periods[i] = periods[i] != 0;
        // Capped just above size, so that it cannot overflow.
        nodes = nodes * dims[i] > size ? size + 1 : nodes * dims[i];
    }
    if (nodes > size) {
        char why[64];
        TextBuilder(why, sizeof why)
            .put("more nodes than the ")
            .put_int(size)
            .put(" ranks of the communicator");
        return raise_error(comm_old, fn, MPI_ERR_ARG, why);
    }
    GroupData members{};
    members.size = static_cast<int>(nodes);
    for (int r = 0; r < members.size; ++r)
        members.world[r] = c->group.world[r];
    const bool member = c->rank < members.size;
    if (int e = comm_make(*c, member ? &members : nullptr, comm_cart))
        return raise_error(comm_old, fn, e,
                           e == MPI_ERR_NO_MEM ? "too many communicators" : util::error_detail());
    if (member) comm_get(*comm_cart)->topo = Topology{TopoKind::cart, topo, nullptr};
    return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_coords";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    if (rank < 0 || rank >= c->group.size) {
        char why[64];
        TextBuilder(why, sizeof why)
            .put("rank ")
            .put_int(rank)
            .put("; the communicator has ")
            .put_int(c->group.size)
            .put(c->group.size == 1 ? " rank" : " ranks");
        return raise_error(comm, fn, MPI_ERR_RANK, why);
    }
    if (maxdims < c->topo.cart.ndims) return raise_maxdims(comm, fn, maxdims, c->topo.cart.ndims);
    if (!coords && c->topo.cart.ndims > 0) return raise_error(comm, fn, MPI_ERR_ARG);
    cart_coords(c->topo.cart, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_rank";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    if ((!coords && c->topo.cart.ndims > 0) || !rank) return raise_error(comm, fn, MPI_ERR_ARG);
    if (int e = cart_rank(c->topo.cart, coords, rank))
        return raise_error(comm, fn, e, "a coordinate is out of its non-periodic dimension");
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_shift";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    if (direction < 0 || direction >= c->topo.cart.ndims) {
        char why[64];
        TextBuilder(why, sizeof why)
            .put("direction ")
            .put_int(direction)
            .put("; the topology has ")
            .put_int(c->topo.cart.ndims)
            .put(" dimensions");
        return raise_error(comm, fn, MPI_ERR_ARG, why);
    }
    if (!rank_source || !rank_dest) return raise_error(comm, fn, MPI_ERR_ARG);
    cart_shift(c->topo.cart, c->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_get";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    const CartTopology &t = c->topo.cart;
    if (maxdims < t.ndims) return raise_maxdims(comm, fn, maxdims, t.ndims);
    if ((!dims || !periods || !coords) && t.ndims > 0) return raise_error(comm, fn, MPI_ERR_ARG);
    for (int i = 0; i < t.ndims; ++i) {
        dims[i] = t.dims[i];
        periods[i] = t.periods[i];
    }
    cart_coords(t, c->rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cartdim_get";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    if (!ndims) return raise_error(comm, fn, MPI_ERR_ARG);
    *ndims = c->topo.cart.ndims;
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Topo_test";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!status) return raise_error(comm, fn, MPI_ERR_ARG);
    static constexpr int kAnswer[] = {MPI_UNDEFINED, MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH};
    *status = kAnswer[static_cast<int>(c->topo.kind)];
    return MPI_SUCCESS;
}

// MPI_Comm_split of the grid by the coordinates of the dropped dimensions,
// each subgrid ordered by its own coordinates (section 7.5.7).
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_sub";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    if ((!remain_dims && c->topo.cart.ndims > 0) || !newcomm) return raise_error(comm, fn, MPI_ERR_ARG);
    bool remain[kMaxDims];
    for (int i = 0; i < c->topo.cart.ndims; ++i)
        remain[i] = remain_dims[i] != 0;
    CartTopology sub;
    int color, key;
    cart_sub(c->topo.cart, remain, c->rank, &sub, &color, &key);
    int e;
    {
        QuietErrors quiet(*c);
        e = MPI_Comm_split(comm, color, key, newcomm);
    }
    if (e) return raise_error(comm, fn, e, util::error_detail());
    comm_get(*newcomm)->topo = Topology{TopoKind::cart, sub, nullptr};
    return MPI_SUCCESS;
}

namespace lwmpi {
namespace {

// MPI_Cart_map and MPI_Graph_map's answer: LWMPI keeps the ranks of
// comm_old in order (section 7.5.8), so a rank within the first `nodes`
// keeps its rank and the others are left out.
int map_rank(const Comm &c, int nodes, int *newrank) {
    *newrank = c.rank < nodes ? c.rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

}  // namespace
}  // namespace lwmpi

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_map";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (ndims < 0 || ndims > kMaxDims) return raise_ndims(comm, fn, ndims);
    if ((ndims > 0 && (!dims || !periods)) || !newrank) return raise_error(comm, fn, MPI_ERR_ARG);
    long long nodes = 1;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] <= 0) return raise_error(comm, fn, MPI_ERR_DIMS, "a dimension is not positive");
        nodes = nodes * dims[i] > c->group.size ? c->group.size + 1 : nodes * dims[i];
    }
    if (nodes > c->group.size)
        return raise_error(comm, fn, MPI_ERR_ARG, "more nodes than the ranks of the communicator");
    return map_rank(*c, static_cast<int>(nodes), newrank);
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Graph_map";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if ((nnodes > 0 && (!index || !edges)) || !newrank) return raise_error(comm, fn, MPI_ERR_ARG);
    if (int e = graph_check(c->group.size, nnodes, index, edges))
        return raise_error(comm, fn, e, e == MPI_ERR_ARG ? "bad nnodes or index" : "an edge is no node");
    return map_rank(*c, nnodes, newrank);
}
