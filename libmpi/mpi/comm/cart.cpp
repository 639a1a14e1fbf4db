// The MPI_Dims_create, MPI_Cart_* and MPI_Topo_test calls (MPI 3.1
// sections 7.5.2 and 7.5.5 to 7.5.8) on the records of topo.hpp;
// MPI_Cart_create is newcomm/'s.
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "env/call.hpp"
#include "comm.hpp"
#include "env/errors.hpp"
#include "quiet.hpp"
#include "topo.hpp"
#include <lwmpi/text.hpp>
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// enter_comm(), then comm must have a Cartesian topology (MPI_ERR_TOPOLOGY).
int enter_cart(Call &call, MPI_Comm comm, Comm **out) {
    if (int e = enter(call, comm, out)) return e;
    if ((*out)->topo.kind != TopoKind::cart)
        return call.fail(MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology");
    return MPI_SUCCESS;
}

// Raises MPI_ERR_ARG for maxdims below the topology's dimensions.
int raise_maxdims(const Call &call, int maxdims, int ndims) {
    char why[64];
    TextBuilder(why, sizeof why)
        .put("maxdims ")
        .put_int(maxdims)
        .put("; the topology has ")
        .put_int(ndims)
        .put(" dimensions");
    return call.fail(MPI_ERR_ARG, why);
}

}  // namespace

}  // namespace lwmpi

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
    Call call("MPI_Dims_create");
    if (int e = call.active()) return e;
    if (ndims < 0) return raise_ndims(call, ndims);
    if (!dims && ndims > 0) return call.fail(MPI_ERR_ARG);
    if (int e = dims_create(nnodes, ndims, dims)) {
        char why[64];
        TextBuilder t(why, sizeof why);
        if (e == MPI_ERR_ARG)
            t.put("nnodes ").put_int(nnodes);
        else if (e == MPI_ERR_NO_MEM)
            t.put("no memory for the search");
        else
            t.put("no grid of ").put_int(nnodes).put(" nodes has these dims");
        return call.fail(e, why);
    }
    return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
    Call call("MPI_Cart_coords");
    Comm *c;
    if (int e = enter_cart(call, comm, &c)) return e;
    if (rank < 0 || rank >= c->group.size) {
        char why[64];
        TextBuilder(why, sizeof why)
            .put("rank ")
            .put_int(rank)
            .put("; the communicator has ")
            .put_int(c->group.size)
            .put(c->group.size == 1 ? " rank" : " ranks");
        return call.fail(MPI_ERR_RANK, why);
    }
    if (maxdims < c->topo.cart.ndims) return raise_maxdims(call, maxdims, c->topo.cart.ndims);
    if (!coords && c->topo.cart.ndims > 0) return call.fail(MPI_ERR_ARG);
    cart_coords(c->topo.cart, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) {
    Call call("MPI_Cart_rank");
    Comm *c;
    if (int e = enter_cart(call, comm, &c)) return e;
    if ((!coords && c->topo.cart.ndims > 0) || !rank) return call.fail(MPI_ERR_ARG);
    if (int e = cart_rank(c->topo.cart, coords, rank))
        return call.fail(e, "a coordinate is out of its non-periodic dimension");
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest) {
    Call call("MPI_Cart_shift");
    Comm *c;
    if (int e = enter_cart(call, comm, &c)) return e;
    if (direction < 0 || direction >= c->topo.cart.ndims) {
        char why[64];
        TextBuilder(why, sizeof why)
            .put("direction ")
            .put_int(direction)
            .put("; the topology has ")
            .put_int(c->topo.cart.ndims)
            .put(" dimensions");
        return call.fail(MPI_ERR_ARG, why);
    }
    if (!rank_source || !rank_dest) return call.fail(MPI_ERR_ARG);
    cart_shift(c->topo.cart, c->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
    Call call("MPI_Cart_get");
    Comm *c;
    if (int e = enter_cart(call, comm, &c)) return e;
    const CartTopology &t = c->topo.cart;
    if (maxdims < t.ndims) return raise_maxdims(call, maxdims, t.ndims);
    if ((!dims || !periods || !coords) && t.ndims > 0) return call.fail(MPI_ERR_ARG);
    for (int i = 0; i < t.ndims; ++i) {
        dims[i] = t.dims[i];
        periods[i] = t.periods[i];
    }
    cart_coords(t, c->rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims) {
    Call call("MPI_Cartdim_get");
    Comm *c;
    if (int e = enter_cart(call, comm, &c)) return e;
    if (!ndims) return call.fail(MPI_ERR_ARG);
    *ndims = c->topo.cart.ndims;
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status) {
    Call call("MPI_Topo_test");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!status) return call.fail(MPI_ERR_ARG);
    static constexpr int answer[] = {MPI_UNDEFINED, MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH};
    *status = answer[static_cast<int>(c->topo.kind)];
    return MPI_SUCCESS;
}

// MPI_Comm_split of the grid by the coordinates of the dropped dimensions,
// each subgrid ordered by its own coordinates (section 7.5.7).
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
    Call call("MPI_Cart_sub");
    Comm *c;
    if (int e = enter_cart(call, comm, &c)) return e;
    if ((!remain_dims && c->topo.cart.ndims > 0) || !newcomm) return call.fail(MPI_ERR_ARG);
    bool remain[max_dims];
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
    if (e) return call.fail(e, util::error_detail());
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
    Call call("MPI_Cart_map");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (ndims < 0 || ndims > max_dims) return raise_ndims(call, ndims);
    if ((ndims > 0 && (!dims || !periods)) || !newrank) return call.fail(MPI_ERR_ARG);
    long long nodes = 1;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] <= 0) return call.fail(MPI_ERR_DIMS, "a dimension is not positive");
        nodes = nodes * dims[i] > c->group.size ? c->group.size + 1 : nodes * dims[i];
    }
    if (nodes > c->group.size) return call.fail(MPI_ERR_ARG, "more nodes than the ranks of the communicator");
    return map_rank(*c, static_cast<int>(nodes), newrank);
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank) {
    Call call("MPI_Graph_map");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if ((nnodes > 0 && (!index || !edges)) || !newrank) return call.fail(MPI_ERR_ARG);
    if (int e = graph_check(c->group.size, nnodes, index, edges))
        return call.fail(e, e == MPI_ERR_ARG ? "bad nnodes or index" : "an edge is no node");
    return map_rank(*c, nnodes, newrank);
}
