// Topologies (MPI 3.1 chapter 7): the records and their arithmetic
// (cart.cpp has the calls on Cartesian topologies, newcomm/ those that
// make a communicator with a topology, coll/neighbor.cpp the
// neighbourhood collectives).
#include "topo.hpp"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "env/call.hpp"
#include "env/errors.hpp"
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

// The smallest x >= 1 with x^k >= n, and the largest with x^k <= n (n >= 1,
// k >= 1), by bisection.
long long root_up(long long n, int k) {
    long long lo = 1, hi = n;
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (power_reaches(mid, k, n))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
long long root_down(long long n, int k) {
    const long long x = root_up(n, k);
    return power_reaches(x, k, n + 1) ? x - 1 : x;
}

// The search for dims_create's factorization of n into k factors: the
// divisors of n in increasing order, the factors being tried and the best
// found (k each), with that one's spread (largest minus smallest; -1: none
// yet) and sum.
struct Factoring {
    const int *divisors;
    int ndivisors;
    int k;
    int *trying, *best;
    long long best_spread, best_sum;
};

// Keeps f.trying when it beats f.best: a smaller spread, then a smaller
// sum, then the lexicographically larger list.
void consider(Factoring &f) {
    const long long spread = f.trying[0] - f.trying[f.k - 1];
    long long sum = 0;
    for (int i = 0; i < f.k; ++i)
        sum += f.trying[i];
    if (f.best_spread >= 0) {
        if (spread != f.best_spread) {
            if (spread > f.best_spread) return;
        } else if (sum != f.best_sum) {
            if (sum > f.best_sum) return;
        } else {
            int i = 0;
            while (i < f.k && f.trying[i] == f.best[i])
                ++i;
            if (i == f.k || f.trying[i] < f.best[i]) return;
        }
    }
    memcpy(f.best, f.trying, sizeof(int) * static_cast<size_t>(f.k));
    f.best_spread = spread;
    f.best_sum = sum;
}

// Tries every non-increasing choice of factors i..k-1 of m, each at most
// cap, skipping those whose spread cannot reach the best one's.
void factor_from(Factoring &f, int i, int m, int cap) {
    const int left = f.k - i;
    if (left == 1) {
        if (m > cap) return;
        f.trying[i] = m;
        consider(f);
        return;
    }
    const long long least = root_up(m, left);  // the largest of `left` factors of m is at least this
    for (int j = 0; j < f.ndivisors; ++j) {
        const int d = f.divisors[j];
        if (d < least || m % d) continue;
        if (d > cap || d > m) break;
        const long long first = i == 0 ? d : f.trying[0];
        // The smallest factor is at most the root of what d leaves.
        if (f.best_spread >= 0 && first - root_down(m / d, left - 1) > f.best_spread) continue;
        f.trying[i] = d;
        factor_from(f, i + 1, m / d, d);
    }
}

// Writes into out[0..k) the factors of n (k >= 1) in non-increasing order
// whose spread (largest minus smallest) is the smallest, then whose sum
// is, then the lexicographically largest such list (what MPICH chooses
// too). MPI_ERR_NO_MEM when the search has no room.
int balanced(int n, int k, int out[]) {
    int ndivisors = 0;
    for (long long d = 1; d * d <= n; ++d)
        if (n % d == 0) ndivisors += d * d == n ? 1 : 2;
    int *room = static_cast<int *>(malloc(sizeof(int) * (static_cast<size_t>(ndivisors) + 2 * k)));
    if (!room) return MPI_ERR_NO_MEM;
    int *divisors = room, low = 0, high = ndivisors;
    for (long long d = 1; d * d <= n; ++d)
        if (n % d == 0) {
            divisors[low++] = static_cast<int>(d);
            if (d * d != n) divisors[--high] = static_cast<int>(n / d);
        }
    Factoring f{divisors, ndivisors, k, room + ndivisors, room + ndivisors + k, -1, 0};
    factor_from(f, 0, n, n);  // n, 1, ..., 1 is always there
    memcpy(out, f.best, sizeof(int) * static_cast<size_t>(k));
    free(room);
    return MPI_SUCCESS;
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
    if (ndims < 0) return MPI_ERR_DIMS;
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
    int *f = static_cast<int *>(malloc(sizeof(int) * static_cast<size_t>(nfree)));
    const int e = f ? balanced(rest, nfree, f) : MPI_ERR_NO_MEM;
    for (int i = 0, k = 0; e == MPI_SUCCESS && i < ndims; ++i)
        if (dims[i] == 0) dims[i] = f[k++];
    free(f);
    return e;
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
    int coords[max_dims];
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
    int coords[max_dims];
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

int raise_ndims(const Call &call, int ndims) {
    char why[48];
    TextBuilder(why, sizeof why).put("ndims ").put_int(ndims).put(" is out of range");
    return call.fail(MPI_ERR_DIMS, why);
}

}  // namespace lwmpi
