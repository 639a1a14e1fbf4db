// Graph and distributed graph topologies (MPI 3.1 sections 7.5.3, 7.5.4
// and 7.5.5): the MPI_Graph_* and MPI_Dist_graph_* calls. The records and
// their arithmetic are topo.cpp's.
#include <mpi.h>
#include <stdlib.h>

#include "env/call.hpp"
#include "comm/comm.hpp"
#include "newcomm.hpp"
#include "env/errors.hpp"
#include "env/info.hpp"
#include "comm/quiet.hpp"
#include "env/state.hpp"
#include "comm/topo.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// enter_comm(), then comm must have a topology of kind `kind`
// (MPI_ERR_TOPOLOGY).
int enter_topo(Call &call, MPI_Comm comm, TopoKind kind, Comm **out) {
    if (int e = enter(call, comm, out)) return e;
    if ((*out)->topo.kind != kind)
        return call.fail(MPI_ERR_TOPOLOGY, kind == TopoKind::graph
                                               ? "the communicator has no graph topology"
                                               : "the communicator has no distributed graph topology");
    return MPI_SUCCESS;
}

// Raises MPI_ERR_RANK for `rank`, not a rank of a communicator of `size`.
int raise_rank(const Call &call, const char *what, int rank, int size) {
    char why[80];
    TextBuilder(why, sizeof why)
        .put(what)
        .put(' ')
        .put_int(rank)
        .put("; the communicator has ")
        .put_int(size)
        .put(size == 1 ? " rank" : " ranks");
    return call.fail(MPI_ERR_RANK, why);
}

// Copies min(n, max) ints (max < 0 is the caller's to refuse).
void copy_at_most(const int *from, int n, int *to, int max) {
    for (int i = 0; i < n && i < max; ++i)
        to[i] = from[i];
}

// The checks of one list of a distributed graph: `n` ranks of a
// communicator of `size` (MPI_ERR_RANK), their weights non-negative
// (MPI_ERR_ARG), the arrays there when n > 0 (MPI_ERR_ARG). `weights` may
// be MPI_UNWEIGHTED, or MPI_WEIGHTS_EMPTY when n is 0.
int check_list(const Call &call, const char *what, int n, const int *ranks, const int *weights, int size) {
    if (n < 0) {
        char why[48];
        TextBuilder(why, sizeof why).put(what).put(" count ").put_int(n);
        return call.fail(MPI_ERR_ARG, why);
    }
    if (n == 0) return MPI_SUCCESS;
    if (!ranks || !weights || weights == MPI_WEIGHTS_EMPTY)
        return call.fail(MPI_ERR_ARG, "a list or its weights are missing");
    for (int i = 0; i < n; ++i) {
        if (ranks[i] < 0 || ranks[i] >= size) return raise_rank(call, what, ranks[i], size);
        if (weights != MPI_UNWEIGHTED && weights[i] < 0) return call.fail(MPI_ERR_ARG, "a negative weight");
    }
    return MPI_SUCCESS;
}

// The info argument: any info object or MPI_INFO_NULL (LWMPI takes no
// hint from it).
int check_info(const Call &call, MPI_Info info) {
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    return MPI_SUCCESS;
}

// A new communicator over all of c's ranks, in order, with `g` as its
// distributed graph (which it then owns; freed on error).
int make_dist_graph(const Call &call, Comm &c, GraphTopology *g, MPI_Comm *out) {
    if (!g) return call.fail(MPI_ERR_NO_MEM, "no memory for the graph");
    if (int e = comm_make(c, &c.group, out)) {
        free(g);
        return call.fail(e, util::error_detail());
    }
    comm_get(*out)->topo = Topology{TopoKind::dist_graph, {}, g};
    return MPI_SUCCESS;
}

// MPI_Dist_graph_create's exchange: every edge s -> d (weight w) a rank
// was given goes as (s, d, w) to s and to d; each rank keeps the edges
// that leave it (its destinations) and those that reach it (its sources),
// in the order of the ranks that gave them, then of their lists. So the
// k-th edge a -> b is the k-th both at a and at b (section 7.6).
class EdgeExchange {
public:
    EdgeExchange() = default;
    EdgeExchange(const EdgeExchange &) = delete;
    EdgeExchange &operator=(const EdgeExchange &) = delete;
    ~EdgeExchange() {
        free(send_);
        free(recv_);
    }

    // The lists of MPI_Dist_graph_create (checked), for comm (of `size`
    // ranks, I am `me`). MPI_SUCCESS or an error class.
    int run(MPI_Comm comm, int size, int n, const int sources[], const int degrees[],
            const int destinations[], const int weights[]) {
        int sendcounts[util::max_ranks] = {}, recvcounts[util::max_ranks], sdispls[util::max_ranks],
            rdispls[util::max_ranks];
        const auto each_edge = [&](auto f) {
            for (int i = 0, k = 0; i < n; ++i)
                for (int j = 0; j < degrees[i]; ++j, ++k) {
                    const int w = weights == MPI_UNWEIGHTED ? 1 : weights[k];
                    f(sources[i], destinations[k], w);
                }
        };
        each_edge([&](int s, int d, int) {
            sendcounts[s] += 3;
            if (d != s) sendcounts[d] += 3;
        });
        int total = 0;
        for (int r = 0; r < size; ++r) {
            sdispls[r] = total;
            total += sendcounts[r];
        }
        send_ = static_cast<int *>(malloc(sizeof(int) * static_cast<size_t>(total ? total : 1)));
        if (!send_) return MPI_ERR_NO_MEM;
        int at[util::max_ranks];
        for (int r = 0; r < size; ++r)
            at[r] = sdispls[r];
        const auto put = [&](int r, int s, int d, int w) {
            send_[at[r]++] = s;
            send_[at[r]++] = d;
            send_[at[r]++] = w;
        };
        each_edge([&](int s, int d, int w) {
            put(s, s, d, w);
            if (d != s) put(d, s, d, w);
        });
        if (int e = MPI_Alltoall(sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, comm)) return e;
        received_ = 0;
        for (int r = 0; r < size; ++r) {
            rdispls[r] = received_;
            received_ += recvcounts[r];
        }
        recv_ = static_cast<int *>(malloc(sizeof(int) * static_cast<size_t>(received_ ? received_ : 1)));
        if (!recv_) return MPI_ERR_NO_MEM;
        return MPI_Alltoallv(send_, sendcounts, sdispls, MPI_INT, recv_, recvcounts, rdispls, MPI_INT, comm);
    }

    // The caller's lists as a distributed graph (weighted or not), or
    // nullptr when the heap is full.
    GraphTopology *graph(int me, bool weighted) const {
        int in = 0, out = 0;
        for (int i = 0; i < received_; i += 3) {
            out += recv_[i] == me;
            in += recv_[i + 1] == me;
        }
        // sources, their weights, destinations, their weights
        int *lists = static_cast<int *>(malloc(sizeof(int) * static_cast<size_t>(2 * (in + out) + 1)));
        if (!lists) return nullptr;
        int *sources = lists, *sweights = lists + in, *dests = lists + 2 * in, *dweights = dests + out;
        for (int i = 0, a = 0, b = 0; i < received_; i += 3) {
            const int s = recv_[i], d = recv_[i + 1], w = recv_[i + 2];
            if (s == me) {
                dests[a] = d;
                dweights[a++] = w;
            }
            if (d == me) {
                sources[b] = s;
                sweights[b++] = w;
            }
        }
        GraphTopology *g = dist_graph_make(weighted, in, sources, sweights, out, dests, dweights);
        free(lists);
        return g;
    }

private:
    int *send_ = nullptr;
    int *recv_ = nullptr;
    int received_ = 0;  ///< ints in recv_
};

}  // namespace

}  // namespace lwmpi

// Nodes 0..nnodes-1 are ranks 0..nnodes-1 of comm_old, in order (reorder
// is a hint); the other ranks get MPI_COMM_NULL (section 7.5.3).
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *comm_graph) {
    Call call("MPI_Graph_create");
    (void)reorder;
    Comm *c;
    if (int e = enter_intra(call, comm_old, &c)) return e;
    if ((nnodes > 0 && (!index || !edges)) || !comm_graph) return call.fail(MPI_ERR_ARG);
    if (int e = graph_check(c->group.size, nnodes, index, edges)) {
        char why[64];
        TextBuilder t(why, sizeof why);
        if (e == MPI_ERR_TOPOLOGY)
            t.put("an edge is not a node of the graph");
        else if (nnodes < 0 || nnodes > c->group.size)
            t.put("nnodes ")
                .put_int(nnodes)
                .put("; the communicator has ")
                .put_int(c->group.size)
                .put(" ranks");
        else
            t.put("index is not a non-decreasing list");
        return call.fail(e, why);
    }
    *comm_graph = MPI_COMM_NULL;
    if (nnodes == 0) return MPI_SUCCESS;  // the empty graph: no communicator anywhere
    const bool member = c->rank < nnodes;
    GraphTopology *g = member ? graph_make(nnodes, index, edges) : nullptr;
    GroupData members{};
    members.size = nnodes;
    for (int r = 0; r < nnodes; ++r)
        members.world[r] = c->group.world[r];
    // Every rank takes part in comm_make, even one short of memory.
    const int e = comm_make(*c, member && g ? &members : nullptr, comm_graph);
    if (member && !g) return call.fail(MPI_ERR_NO_MEM, "no memory for the graph");
    if (e) {
        free(g);
        return call.fail(e, util::error_detail());
    }
    if (member) comm_get(*comm_graph)->topo = Topology{TopoKind::graph, {}, g};
    return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) {
    Call call("MPI_Graphdims_get");
    Comm *c;
    if (int e = enter_topo(call, comm, TopoKind::graph, &c)) return e;
    if (!nnodes || !nedges) return call.fail(MPI_ERR_ARG);
    *nnodes = c->topo.graph->nnodes;
    *nedges = c->topo.graph->nedges;
    return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
    Call call("MPI_Graph_get");
    Comm *c;
    if (int e = enter_topo(call, comm, TopoKind::graph, &c)) return e;
    if (maxindex < 0 || maxedges < 0 || (maxindex > 0 && !index) || (maxedges > 0 && !edges))
        return call.fail(MPI_ERR_ARG);
    const GraphTopology &g = *c->topo.graph;
    copy_at_most(g.index(), g.nnodes, index, maxindex);
    copy_at_most(g.edges(), g.nedges, edges, maxedges);
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) {
    Call call("MPI_Graph_neighbors_count");
    Comm *c;
    if (int e = enter_topo(call, comm, TopoKind::graph, &c)) return e;
    if (rank < 0 || rank >= c->group.size) return raise_rank(call, "rank", rank, c->group.size);
    if (!nneighbors) return call.fail(MPI_ERR_ARG);
    graph_neighbors(*c->topo.graph, rank, nneighbors);
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
    Call call("MPI_Graph_neighbors");
    Comm *c;
    if (int e = enter_topo(call, comm, TopoKind::graph, &c)) return e;
    if (rank < 0 || rank >= c->group.size) return raise_rank(call, "rank", rank, c->group.size);
    if (maxneighbors < 0 || (maxneighbors > 0 && !neighbors)) return call.fail(MPI_ERR_ARG);
    int n;
    const int *list = graph_neighbors(*c->topo.graph, rank, &n);
    copy_at_most(list, n, neighbors, maxneighbors);
    return MPI_SUCCESS;
}

// Each rank gives its own lists, which together must describe one graph
// (section 7.5.4); reorder is a hint and the ranks stay in order.
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree, const int destinations[],
                                   const int destweights[], MPI_Info info, int reorder,
                                   MPI_Comm *comm_dist_graph) {
    Call call("MPI_Dist_graph_create_adjacent");
    (void)reorder;
    Comm *c;
    if (int e = enter_intra(call, comm_old, &c)) return e;
    const int size = c->group.size;
    if (int e = check_list(call, "source", indegree, sources, sourceweights, size)) return e;
    if (int e = check_list(call, "destination", outdegree, destinations, destweights, size)) return e;
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
        return call.fail(MPI_ERR_ARG, "one list weighted, the other MPI_UNWEIGHTED");
    if (int e = check_info(call, info)) return e;
    if (!comm_dist_graph) return call.fail(MPI_ERR_ARG);
    const bool weighted = sourceweights != MPI_UNWEIGHTED;
    return make_dist_graph(
        call, *c,
        dist_graph_make(weighted, indegree, sources, sourceweights, outdegree, destinations, destweights),
        comm_dist_graph);
}

// Edge k of the caller's lists goes from sources[i] to destinations[k],
// for degrees[i] consecutive k per i (section 7.5.4). The ranks exchange
// the edges so that each learns those that leave it and reach it.
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph) {
    Call call("MPI_Dist_graph_create");
    (void)reorder;
    Comm *c;
    if (int e = enter_intra(call, comm_old, &c)) return e;
    const int size = c->group.size;
    if (n < 0 || (n > 0 && (!sources || !degrees)))
        return call.fail(MPI_ERR_ARG, n < 0 ? "n is negative" : "sources or degrees is NULL");
    long long edges = 0;
    for (int i = 0; i < n; ++i) {
        if (sources[i] < 0 || sources[i] >= size) return raise_rank(call, "source", sources[i], size);
        if (degrees[i] < 0) return call.fail(MPI_ERR_ARG, "a negative degree");
        edges += degrees[i];
    }
    if (edges > util::max_ranks * static_cast<long long>(util::max_ranks))
        return call.fail(MPI_ERR_ARG, "more edges than LWMPI takes from one rank");
    if (int e = check_list(call, "destination", static_cast<int>(edges), destinations, weights, size))
        return e;
    if (int e = check_info(call, info)) return e;
    if (!comm_dist_graph) return call.fail(MPI_ERR_ARG);
    EdgeExchange x;
    int e;
    {
        QuietErrors quiet(*c);
        e = x.run(comm_old, size, n, sources, degrees, destinations, weights);
    }
    if (e) return call.fail(e, util::error_detail());
    return make_dist_graph(call, *c, x.graph(c->rank, weights != MPI_UNWEIGHTED), comm_dist_graph);
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted) {
    Call call("MPI_Dist_graph_neighbors_count");
    Comm *c;
    if (int e = enter_topo(call, comm, TopoKind::dist_graph, &c)) return e;
    if (!indegree || !outdegree || !weighted) return call.fail(MPI_ERR_ARG);
    *indegree = c->topo.graph->indegree;
    *outdegree = c->topo.graph->outdegree;
    *weighted = c->topo.graph->weighted;
    return MPI_SUCCESS;
}

// Weights are written only for a weighted graph, and only when the
// caller gave arrays for them.
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]) {
    Call call("MPI_Dist_graph_neighbors");
    Comm *c;
    if (int e = enter_topo(call, comm, TopoKind::dist_graph, &c)) return e;
    const GraphTopology &g = *c->topo.graph;
    if (maxindegree < 0 || maxoutdegree < 0 || (maxindegree > 0 && !sources) ||
        (maxoutdegree > 0 && !destinations))
        return call.fail(MPI_ERR_ARG);
    copy_at_most(g.sources(), g.indegree, sources, maxindegree);
    copy_at_most(g.destinations(), g.outdegree, destinations, maxoutdegree);
    const auto usable = [](const int *w) { return w && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY; };
    if (g.weighted && usable(sourceweights))
        copy_at_most(g.sourceweights(), g.indegree, sourceweights, maxindegree);
    if (g.weighted && usable(destweights))
        copy_at_most(g.destweights(), g.outdegree, destweights, maxoutdegree);
    return MPI_SUCCESS;
}
