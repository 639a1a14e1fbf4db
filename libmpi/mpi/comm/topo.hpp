// Process topologies (MPI 3.1 chapter 7): what a communicator records of
// its topology, and the pure arithmetic over it behind MPI_Dims_create,
// MPI_Cart_*, MPI_Graph_*, MPI_Dist_graph_* and the neighbourhood
// collectives' neighbour lists.
#pragma once

#include <mpi.h>
#include <stdint.h>

namespace lwmpi {

class Call;

inline constexpr int max_dims = 8;  ///< of a Cartesian topology

/// A Cartesian topology (section 7.5.1): rank r of the communicator sits
/// at coordinates given by r in row-major order over dims. ndims may be 0
/// (a zero-dimensional topology of one rank, as MPI_Cart_sub makes).
struct CartTopology {
    int ndims;
    int dims[max_dims];
    bool periods[max_dims];
};

/// The lists of a graph (section 7.5.3) or distributed graph (section
/// 7.5.4) topology, in one heap block: this header, then `count` ints.
///   MPI_GRAPH: index[0..nnodes) then edges[0..nedges), the whole graph as
///     MPI_Graph_create was given it (every rank keeps all of it).
///   MPI_DIST_GRAPH: the calling rank's own lists: sources[0..indegree),
///     their weights, destinations[0..outdegree), their weights (1 each
///     when the graph is unweighted).
struct GraphTopology {
    int nnodes, nedges;       ///< MPI_GRAPH
    int indegree, outdegree;  ///< MPI_DIST_GRAPH
    bool weighted;            ///< MPI_DIST_GRAPH: not made with MPI_UNWEIGHTED
    int count;                ///< ints after the header

    int *ints() { return reinterpret_cast<int *>(this + 1); }
    const int *ints() const { return reinterpret_cast<const int *>(this + 1); }
    const int *index() const { return ints(); }
    const int *edges() const { return ints() + nnodes; }
    const int *sources() const { return ints(); }
    const int *sourceweights() const { return ints() + indegree; }
    const int *destinations() const { return ints() + 2 * indegree; }
    const int *destweights() const { return ints() + 2 * indegree + outdegree; }
};

/// What MPI_Topo_test answers (section 7.5.5).
enum class TopoKind : uint8_t { none, cart, graph, dist_graph };

/// A communicator's topology. It owns `graph`: topo_free() frees it,
/// topo_copy() copies it (a duplicated communicator keeps its topology,
/// section 7.4).
struct Topology {
    TopoKind kind;
    CartTopology cart;     ///< kind == cart
    GraphTopology *graph;  ///< kind == graph or dist_graph, else nullptr
};

/// *to = a copy of `from` with its own lists. MPI_ERR_NO_MEM (and *to
/// without a topology) when the heap is full.
int topo_copy(const Topology &from, Topology *to);

/// Frees t's lists; t has no topology after it.
void topo_free(Topology &t);

/// A GraphTopology block with room for `count` ints, header zeroed, or
/// nullptr when the heap is full. Freed with free().
GraphTopology *graph_alloc(int count);

// ---- Cartesian ----

/// MPI_Dims_create (section 7.5.2): fills the zero entries of
/// dims[0..ndims) so that all entries multiply to nnodes, the filled ones
/// in non-increasing order and as close to each other as possible: the
/// smallest spread between the largest and the smallest, then the smallest
/// sum, then the lexicographically largest list (so MPICH's choice too).
/// The non-zero entries are kept; ndims has no limit. MPI_ERR_ARG when
/// nnodes < 1; MPI_ERR_DIMS when ndims < 0, an entry is negative or no
/// such filling exists (with ndims 0, when nnodes is not 1);
/// MPI_ERR_NO_MEM. dims is left alone on error.
int dims_create(int nnodes, int ndims, int dims[]);

/// Ranks in topology `t` (the product of its dimensions; 1 when ndims 0).
int cart_size(const CartTopology &t);

/// The coordinates of `rank` (0 <= rank < cart_size(t)): ranks are laid
/// out in row-major order (section 7.5.1).
void cart_coords(const CartTopology &t, int rank, int coords[]);

/// The rank at `coords` (section 7.5.5): a coordinate out of its range is
/// brought back into it in a periodic dimension and is MPI_ERR_ARG in the
/// others (*rank untouched).
int cart_rank(const CartTopology &t, const int coords[], int *rank);

/// MPI_Cart_shift for `rank` (section 7.5.6): the ranks `disp` steps
/// before (*source) and after (*dest) it along dimension `direction`
/// (0 <= direction < t.ndims); MPI_PROC_NULL past the edge of a
/// non-periodic dimension.
void cart_shift(const CartTopology &t, int rank, int direction, int disp, int *source, int *dest);

/// MPI_Cart_sub for `rank` of `t` (section 7.5.7): the subgrid that keeps
/// the dimensions i with remain[i] true (*sub, in their order; ndims 0
/// when none is kept), *color naming the subgrid (the coordinates of the
/// dropped dimensions, in row-major order) and *key the rank's rank in it
/// (the kept coordinates, in row-major order).
void cart_sub(const CartTopology &t, const bool remain[], int rank, CartTopology *sub, int *color, int *key);

// ---- graphs ----

/// Checks MPI_Graph_create's graph (section 7.5.3): nnodes nodes (0 <=
/// nnodes <= size), index non-decreasing from index[0] >= 0, each edge a
/// node. MPI_SUCCESS, MPI_ERR_ARG (bad nnodes or index) or
/// MPI_ERR_TOPOLOGY (an edge that is no node). Self-loops and repeated
/// edges are allowed.
int graph_check(int size, int nnodes, const int index[], const int edges[]);

/// The graph (checked by graph_check) as a heap block, or nullptr when the
/// heap is full.
GraphTopology *graph_make(int nnodes, const int index[], const int edges[]);

/// Node `rank`'s neighbours in g (0 <= rank < g.nnodes): *count of them
/// at the returned address, in the order of edges (section 7.5.5).
const int *graph_neighbors(const GraphTopology &g, int rank, int *count);

/// A distributed graph's lists for the calling rank (section 7.5.4).
/// weighted is false only when the caller gave MPI_UNWEIGHTED: then the
/// weight lists are not read and every weight is 1. A weighted graph's
/// empty list is not read either, so that it may be NULL or
/// MPI_WEIGHTS_EMPTY and the graph still counts as weighted (7.5.5).
/// nullptr when the heap is full. Sizes and ranks are checked by the caller.
GraphTopology *dist_graph_make(bool weighted, int indegree, const int sources[], const int sourceweights[],
                               int outdegree, const int destinations[], const int destweights[]);

// ---- neighbourhoods (section 7.6) ----

/// How many neighbours `rank` (the caller, for a distributed graph)
/// receives from (*indegree) and sends to (*outdegree) in a neighbourhood
/// collective on topology t (kind != none).
void neighbor_counts(const Topology &t, int rank, int *indegree, int *outdegree);

/// The neighbours themselves, in the order of section 7.6: block i of the
/// receive buffer comes from sources[i], block j of the send buffer goes
/// to destinations[j]. Cartesian: for each dimension, the neighbour at -1
/// then at +1 (MPI_PROC_NULL past a non-periodic edge) on both lists;
/// graph: MPI_Graph_neighbors on both; distributed graph: its sources and
/// destinations. The arrays hold neighbor_counts() entries.
void neighbor_lists(const Topology &t, int rank, int sources[], int destinations[]);

/// Tags that pair a send block with the receive block it lands in; they
/// matter only when a rank is a neighbour twice. On a Cartesian topology
/// the neighbour at -1 sent towards +1 and the other way round, so block
/// j of a sender lands in block j ^ 1 of the receiver (MPI 3.1 section
/// 7.6, with its errata for periodic dimensions of size 1 or 2): send
/// block j carries tag j and receive block i takes tag i ^ 1. On graphs
/// the k-th edge from a rank matches its k-th edge to us (the order of
/// the lists is enough): tag 0 for all. Tags are below 2 * max_dims.
int neighbor_send_tag(const Topology &t, int j);
int neighbor_recv_tag(const Topology &t, int i);

/// Raises MPI_ERR_DIMS for `call`, for an ndims out of 0..max_dims.
int raise_ndims(const Call &call, int ndims);

}  // namespace lwmpi
