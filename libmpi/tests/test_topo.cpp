// Host tests of libmpi/mpi/topo: the arithmetic of MPI_Dims_create and of
// Cartesian coordinates, ranks, shifts and subgrids (MPI 3.1 section 7.5),
// graphs and the neighbour lists of section 7.6, then the
// MPI_Dims_create, MPI_Cart_*, MPI_Graph_*, MPI_Dist_graph_*,
// MPI_Topo_test and MPI_Neighbor_* calls.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <tuple>
#include <vector>

#include "fake_job.hpp"
#include "on_ranks.hpp"
#include "comm/topo.hpp"

using namespace lwmpi;

namespace {

using Ints = std::vector<int>;

// dims_create on `dims`: the filled dims, or {-code} on error.
Ints dims_of(int nnodes, Ints dims) {
    const int e = dims_create(nnodes, static_cast<int>(dims.size()), dims.data());
    return e ? Ints{-e} : dims;
}

// Every non-increasing list of k factors of n, each at most cap.
void factorizations(int n, int k, int cap, Ints &prefix, std::vector<Ints> &out) {
    if (k == 0) {
        if (n == 1) out.push_back(prefix);
        return;
    }
    for (int d = 1; d <= std::min(n, cap); ++d)
        if (n % d == 0) {
            prefix.push_back(d);
            factorizations(n / d, k - 1, d, prefix, out);
            prefix.pop_back();
        }
}

CartTopology topology(std::initializer_list<int> dims, std::initializer_list<bool> periods) {
    CartTopology t{};
    for (int d : dims)
        t.dims[t.ndims++] = d;
    std::copy(periods.begin(), periods.end(), t.periods);
    return t;
}

Topology cart_topo(std::initializer_list<int> dims, std::initializer_list<bool> periods) {
    return Topology{TopoKind::cart, topology(dims, periods), nullptr};
}

// The neighbour lists of `rank`: sources, then destinations.
std::pair<Ints, Ints> neighbours(const Topology &t, int rank) {
    int in = -1, out = -1;
    neighbor_counts(t, rank, &in, &out);
    Ints sources(in), destinations(out);
    neighbor_lists(t, rank, sources.data(), destinations.data());
    return {sources, destinations};
}

// The (source, dest) of cart_shift.
Ints shifted(const CartTopology &t, int rank, int direction, int disp) {
    int source = -9, dest = -9;
    cart_shift(t, rank, direction, disp, &source, &dest);
    return {source, dest};
}

}  // namespace

TEST_CASE("dims_create: the examples of section 7.5.2", "[topo]") {
    CHECK(dims_of(6, {0, 0}) == Ints{3, 2});
    CHECK(dims_of(7, {0, 0}) == Ints{7, 1});
    CHECK(dims_of(6, {0, 3, 0}) == Ints{2, 3, 1});
    CHECK(dims_of(7, {0, 3, 0}) == Ints{-MPI_ERR_DIMS});
}

TEST_CASE("dims_create: balanced, non-increasing, fixed entries kept", "[topo]") {
    CHECK(dims_of(12, {0, 0}) == Ints{4, 3});
    CHECK(dims_of(16, {0, 0, 0}) == Ints{4, 2, 2});
    CHECK(dims_of(24, {0, 0, 0}) == Ints{4, 3, 2});
    CHECK(dims_of(210, {0, 0, 0}) == Ints{7, 6, 5});
    CHECK(dims_of(1, {0, 0, 0}) == Ints{1, 1, 1});
    CHECK(dims_of(1, {}) == Ints{});  // zero dimensions, one node (MPI 4.0 erratum of 3.1)
    CHECK(dims_of(97, {0, 0}) == Ints{97, 1});
    CHECK(dims_of(8, {0}) == Ints{8});
    CHECK(dims_of(8, {2, 0, 0}) == Ints{2, 2, 2});
    CHECK(dims_of(30, {0, 0, 5}) == Ints{3, 2, 5});
    CHECK(dims_of(8, {0, 4}) == Ints{2, 4});
    CHECK(dims_of(6, {3, 2}) == Ints{3, 2});
    CHECK(dims_of(1 << 30, {0, 0, 0}) == Ints{1024, 1024, 1024});
    CHECK(dims_of(INT_MAX, {0, 0, 0, 0}) == Ints{INT_MAX, 1, 1, 1});  // a prime
    CHECK(dims_of(735134400, {0, 0, 0, 0, 0, 0, 0, 0}) == Ints{17, 15, 14, 13, 12, 12, 11, 10});
}

TEST_CASE("dims_create: the smallest spread, then sum, then the largest list", "[topo]") {
    // (spread, sum, the list negated): the smallest is the choice.
    const auto key = [](const Ints &f) {
        Ints negated;
        for (int d : f)
            negated.push_back(-d);
        return std::make_tuple(f.front() - f.back(), std::accumulate(f.begin(), f.end(), 0), negated);
    };
    for (int n = 1; n <= 360; ++n)
        for (int k = 1; k <= 5; ++k) {
            std::vector<Ints> all;
            Ints prefix;
            factorizations(n, k, n, prefix, all);
            INFO("nnodes " << n << ", ndims " << k);
            CHECK(dims_of(n, Ints(k, 0)) ==
                  *std::min_element(all.begin(), all.end(),
                                    [&](const Ints &a, const Ints &b) { return key(a) < key(b); }));
        }
    // Where it differs from the lexicographically smallest list (20, 18, 14).
    CHECK(dims_of(5040, {0, 0, 0}) == Ints{21, 16, 15});
    // More dimensions than a Cartesian topology may have.
    CHECK(dims_of(1 << 12, Ints(12, 0)) == Ints(12, 2));
}

TEST_CASE("dims_create: errors leave dims alone", "[topo]") {
    CHECK(dims_of(6, {3, 3}) == Ints{-MPI_ERR_DIMS});
    CHECK(dims_of(6, {0, -2}) == Ints{-MPI_ERR_DIMS});
    CHECK(dims_of(4, {65536, 65536, 0}) == Ints{-MPI_ERR_DIMS});  // no overflow
    CHECK(dims_of(6, {}) == Ints{-MPI_ERR_DIMS});                 // a 0-d grid has one node
    CHECK(dims_of(0, {0, 0}) == Ints{-MPI_ERR_ARG});
    CHECK(dims_of(-4, {0, 0}) == Ints{-MPI_ERR_ARG});
}

TEST_CASE("coordinates and ranks in row-major order", "[topo]") {
    const CartTopology t = topology({2, 3, 4}, {false, false, false});
    CHECK(cart_size(t) == 24);
    for (int rank = 0; rank < 24; ++rank) {
        int c[3];
        cart_coords(t, rank, c);
        CHECK(c[0] * 12 + c[1] * 4 + c[2] == rank);
        CHECK((c[0] < 2 && c[1] < 3 && c[2] < 4));
        int back = -1;
        CHECK(cart_rank(t, c, &back) == MPI_SUCCESS);
        CHECK(back == rank);
    }
    int r = -7;
    const int outside[][3] = {{2, 0, 0}, {0, -1, 0}, {0, 0, 4}};
    for (const auto &c : outside)
        CHECK(cart_rank(t, c, &r) == MPI_ERR_ARG);
    CHECK(r == -7);
}

TEST_CASE("periodic dimensions wrap coordinates", "[topo]") {
    const CartTopology t = topology({2, 3, 4}, {true, false, true});
    int r = -1;
    const int a[3] = {-1, 0, 5};  // (1, 0, 1)
    CHECK(cart_rank(t, a, &r) == MPI_SUCCESS);
    CHECK(r == 13);
    const int b[3] = {-3, 2, -9};  // (1, 2, 3)
    CHECK(cart_rank(t, b, &r) == MPI_SUCCESS);
    CHECK(r == 23);
    const int c[3] = {0, 3, 0};  // dimension 1 is not periodic
    CHECK(cart_rank(t, c, &r) == MPI_ERR_ARG);
}

TEST_CASE("shifts: MPI_PROC_NULL off the edge, wrapped on a ring", "[topo]") {
    const CartTopology ring = topology({5}, {true});
    CHECK(shifted(ring, 0, 0, 1) == Ints{4, 1});
    CHECK(shifted(ring, 0, 0, -2) == Ints{2, 3});
    CHECK(shifted(ring, 0, 0, 7) == Ints{3, 2});
    CHECK(shifted(ring, 3, 0, INT_MIN) == Ints{(3 + 3) % 5, 0});  // 2^31 = 3 (mod 5)
    const CartTopology line = topology({5}, {false});
    CHECK(shifted(line, 0, 0, 1) == Ints{MPI_PROC_NULL, 1});
    CHECK(shifted(line, 4, 0, 1) == Ints{3, MPI_PROC_NULL});
    CHECK(shifted(line, 2, 0, -2) == Ints{4, 0});
    CHECK(shifted(line, 2, 0, 0) == Ints{2, 2});
    CHECK(shifted(line, 2, 0, INT_MAX) == Ints{MPI_PROC_NULL, MPI_PROC_NULL});
    const CartTopology grid = topology({3, 4}, {false, true});
    CHECK(shifted(grid, 5, 0, 1) == Ints{1, 9});  // (1, 1): (0, 1) and (2, 1)
    CHECK(shifted(grid, 5, 1, 3) == Ints{6, 4});  // (1, 2) and (1, 0)
    CHECK(shifted(grid, 0, 0, -1) == Ints{4, MPI_PROC_NULL});
}

TEST_CASE("MPI_Dims_create", "[topo]") {
    const Ints r = on_ranks(1, [](int) {
        int dims[3] = {0, 3, 0};
        int bad[2] = {0, 0};
        Ints out{MPI_Dims_create(6, 3, dims),
                 dims[0],
                 dims[1],
                 dims[2],
                 MPI_Dims_create(7, 3, dims),
                 MPI_Dims_create(6, 0, bad),
                 MPI_Dims_create(1, 0, nullptr),
                 MPI_Dims_create(6, max_dims + 1, bad),
                 MPI_Dims_create(0, 2, bad),
                 MPI_Dims_create(6, 2, nullptr)};
        return out;
    })[0];
    CHECK(r == Ints{MPI_SUCCESS, 2, 3, 1, MPI_ERR_DIMS, MPI_ERR_DIMS, MPI_SUCCESS, MPI_ERR_DIMS, MPI_ERR_ARG,
                    MPI_ERR_ARG});
}

TEST_CASE("MPI_Cart_* on a 2x3 grid of a 7-rank world", "[topo]") {
    const std::vector<Ints> seen = on_ranks(7, [](int rank) {
        const int dims[2] = {2, 3};
        const int periods[2] = {0, 1};
        MPI_Comm cart = -1;
        Ints out{MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart)};
        if (rank == 6) {  // no place in the grid
            out.push_back(cart == MPI_COMM_NULL);
            return out;
        }
        int me = -1, size = -1, status = -1, ndims = -1, up = -1, down = -1, left = -1, right = -1;
        int got_dims[2], got_periods[2], coords[2], at = -1;
        const int corner[2] = {1, 2};
        out.insert(out.end(), {MPI_Comm_rank(cart, &me),
                               me,
                               MPI_Comm_size(cart, &size),
                               size,
                               MPI_Topo_test(cart, &status),
                               status,
                               MPI_Cartdim_get(cart, &ndims),
                               ndims,
                               MPI_Cart_get(cart, 2, got_dims, got_periods, coords),
                               got_dims[0],
                               got_dims[1],
                               got_periods[0],
                               got_periods[1],
                               coords[0],
                               coords[1],
                               MPI_Cart_rank(cart, corner, &at),
                               at,
                               MPI_Cart_coords(cart, 4, 2, coords),
                               coords[0],
                               coords[1],
                               MPI_Cart_shift(cart, 0, 1, &up, &down),
                               up,
                               down,
                               MPI_Cart_shift(cart, 1, 1, &left, &right),
                               left,
                               right});
        return out;
    });
    CHECK(seen[6] == Ints{MPI_SUCCESS, 1});
    for (int rank = 0; rank < 6; ++rank) {
        const int row = rank / 3, col = rank % 3;
        INFO("rank " << rank);
        CHECK(seen[rank] == Ints{MPI_SUCCESS,
                                 MPI_SUCCESS,
                                 rank,
                                 MPI_SUCCESS,
                                 6,
                                 MPI_SUCCESS,
                                 MPI_CART,
                                 MPI_SUCCESS,
                                 2,
                                 MPI_SUCCESS,
                                 2,
                                 3,
                                 0,
                                 1,
                                 row,
                                 col,
                                 MPI_SUCCESS,
                                 5,
                                 MPI_SUCCESS,
                                 1,
                                 1,
                                 MPI_SUCCESS,
                                 row == 0 ? MPI_PROC_NULL : rank - 3,
                                 row == 1 ? MPI_PROC_NULL : rank + 3,
                                 MPI_SUCCESS,
                                 row * 3 + (col + 2) % 3,
                                 row * 3 + (col + 1) % 3});
    }
}

TEST_CASE("MPI_Cart_* errors", "[topo]") {
    const std::vector<Ints> seen = on_ranks(4, [](int) {
        const int dims[2] = {2, 2}, zero[2] = {2, 0}, big[2] = {3, 2}, periods[2] = {0, 0};
        const int outside[2] = {2, 0};
        int nine[max_dims + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, nine_periods[max_dims + 1] = {};
        MPI_Comm cart = MPI_COMM_NULL, unused;
        int x, y, c[2];
        Ints out{MPI_Cart_create(MPI_COMM_WORLD, 2, zero, periods, 0, &unused),
                 MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &unused),
                 MPI_Cart_create(MPI_COMM_WORLD, max_dims + 1, nine, nine_periods, 0, &unused),
                 MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &unused),
                 MPI_Cart_create(MPI_COMM_WORLD, 2, dims, nullptr, 0, &unused),
                 MPI_Cart_create(MPI_COMM_NULL, 2, dims, periods, 0, &unused),
                 MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c),
                 MPI_Cart_shift(MPI_COMM_SELF, 0, 1, &x, &y),
                 MPI_Cartdim_get(MPI_COMM_WORLD, &x),
                 MPI_Topo_test(MPI_COMM_WORLD, &x),
                 x,
                 MPI_Topo_test(MPI_COMM_NULL, &x),
                 MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart)};
        out.insert(out.end(), {MPI_Cart_coords(cart, 4, 2, c), MPI_Cart_coords(cart, 0, 1, c),
                               MPI_Cart_rank(cart, outside, &x), MPI_Cart_shift(cart, 2, 1, &x, &y),
                               MPI_Cart_shift(cart, -1, 1, &x, &y), MPI_Cart_get(cart, 1, c, c, c),
                               MPI_Cartdim_get(cart, nullptr)});
        return out;
    });
    for (const Ints &r : seen)
        CHECK(r == Ints{MPI_ERR_DIMS,  MPI_ERR_ARG,      MPI_ERR_DIMS,     MPI_ERR_DIMS,     MPI_ERR_ARG,
                        MPI_ERR_COMM,  MPI_ERR_TOPOLOGY, MPI_ERR_TOPOLOGY, MPI_ERR_TOPOLOGY, MPI_SUCCESS,
                        MPI_UNDEFINED, MPI_ERR_COMM,     MPI_SUCCESS,      MPI_ERR_RANK,     MPI_ERR_ARG,
                        MPI_ERR_ARG,   MPI_ERR_ARG,      MPI_ERR_ARG,      MPI_ERR_ARG,      MPI_ERR_ARG});
}

TEST_CASE("cart_sub: the subgrid, its color and the rank's key", "[topo]") {
    const CartTopology t = topology({2, 3, 4}, {true, false, true});
    const bool remain[3] = {true, false, true};
    for (int rank = 0; rank < 24; ++rank) {
        const int a = rank / 12, b = rank / 4 % 3, c = rank % 4;
        CartTopology sub;
        int color = -1, key = -1;
        cart_sub(t, remain, rank, &sub, &color, &key);
        CHECK(sub.ndims == 2);
        CHECK((sub.dims[0] == 2 && sub.dims[1] == 4 && sub.periods[0] && sub.periods[1]));
        CHECK(color == b);
        CHECK(key == a * 4 + c);
    }
    const bool none[3] = {false, false, false};
    CartTopology sub;
    int color = -1, key = -1;
    cart_sub(t, none, 23, &sub, &color, &key);
    CHECK((sub.ndims == 0 && color == 23 && key == 0 && cart_size(sub) == 1));
}

TEST_CASE("graph_check and the neighbours of a node", "[topo]") {
    // A star: node 0 in the middle of 1, 2, 3; node 3 with a self-loop.
    const int index[4] = {3, 4, 5, 7}, edges[7] = {1, 2, 3, 0, 0, 0, 3};
    CHECK(graph_check(4, 4, index, edges) == MPI_SUCCESS);
    CHECK(graph_check(3, 4, index, edges) == MPI_ERR_ARG);  // more nodes than ranks
    CHECK(graph_check(4, -1, index, edges) == MPI_ERR_ARG);
    CHECK(graph_check(4, 0, nullptr, nullptr) == MPI_SUCCESS);
    const int decreasing[4] = {3, 2, 5, 7};
    CHECK(graph_check(4, 4, decreasing, edges) == MPI_ERR_ARG);
    const int negative[1] = {-1};
    CHECK(graph_check(4, 1, negative, edges) == MPI_ERR_ARG);
    const int outside[7] = {1, 2, 3, 0, 0, 4, 3};
    CHECK(graph_check(4, 4, index, outside) == MPI_ERR_TOPOLOGY);
    GraphTopology *g = graph_make(4, index, edges);
    REQUIRE(g);
    CHECK((g->nnodes == 4 && g->nedges == 7));
    const Topology t{TopoKind::graph, {}, g};
    CHECK(neighbours(t, 0) == std::pair<Ints, Ints>{{1, 2, 3}, {1, 2, 3}});
    CHECK(neighbours(t, 2) == std::pair<Ints, Ints>{{0}, {0}});
    CHECK(neighbours(t, 3) == std::pair<Ints, Ints>{{0, 3}, {0, 3}});
    Topology copy{};
    CHECK(topo_copy(t, &copy) == MPI_SUCCESS);
    CHECK(copy.graph != g);
    Topology owner = t;
    topo_free(owner);  // the copy stands alone
    CHECK((owner.kind == TopoKind::none && owner.graph == nullptr));
    CHECK(neighbours(copy, 0) == std::pair<Ints, Ints>{{1, 2, 3}, {1, 2, 3}});
    topo_free(copy);
}

TEST_CASE("neighbour lists of section 7.6: Cartesian, -1 then +1 per dimension", "[topo]") {
    using Lists = std::pair<Ints, Ints>;
    const Topology line = cart_topo({3}, {false});
    CHECK(neighbours(line, 0) == Lists{{MPI_PROC_NULL, 1}, {MPI_PROC_NULL, 1}});
    CHECK(neighbours(line, 2) == Lists{{1, MPI_PROC_NULL}, {1, MPI_PROC_NULL}});
    const Topology pair = cart_topo({2}, {true});
    CHECK(neighbours(pair, 0) == Lists{{1, 1}, {1, 1}});
    const Topology grid = cart_topo({2, 3}, {false, true});
    CHECK(neighbours(grid, 4) == Lists{{1, MPI_PROC_NULL, 3, 5}, {1, MPI_PROC_NULL, 3, 5}});
    CHECK(neighbours(grid, 0) == Lists{{MPI_PROC_NULL, 3, 2, 1}, {MPI_PROC_NULL, 3, 2, 1}});
    const Topology point = Topology{TopoKind::cart, CartTopology{}, nullptr};
    CHECK(neighbours(point, 0) == Lists{{}, {}});
}

TEST_CASE("neighbour tags: a Cartesian block lands in block j ^ 1", "[topo]") {
    const Topology grid = cart_topo({1, 2}, {true, true});
    // Rank 0 is its own neighbour in dimension 0, rank 1's twice in 1.
    for (int j = 0; j < 4; ++j) {
        CHECK(neighbor_send_tag(grid, j) == j);
        CHECK(neighbor_recv_tag(grid, j ^ 1) == j);  // the message of block j
        CHECK(neighbor_send_tag(grid, j) < 2 * max_dims);
    }
    const int sources[2] = {1, 1}, destinations[1] = {1};
    GraphTopology *g = dist_graph_make(false, 2, sources, nullptr, 1, destinations, nullptr);
    REQUIRE(g);
    Topology t{TopoKind::dist_graph, {}, g};
    CHECK((neighbor_send_tag(t, 0) == 0 && neighbor_recv_tag(t, 0) == 0 && neighbor_recv_tag(t, 1) == 0));
    topo_free(t);
}

TEST_CASE("distributed graph lists, weighted or not", "[topo]") {
    const int sources[3] = {2, 0, 2}, sw[3] = {5, 6, 7}, destinations[2] = {1, 1}, dw[2] = {8, 9};
    GraphTopology *g = dist_graph_make(true, 3, sources, sw, 2, destinations, dw);
    REQUIRE(g);
    CHECK((g->indegree == 3 && g->outdegree == 2 && g->weighted));
    CHECK(Ints(g->sourceweights(), g->sourceweights() + 3) == Ints{5, 6, 7});
    CHECK(Ints(g->destweights(), g->destweights() + 2) == Ints{8, 9});
    Topology t{TopoKind::dist_graph, {}, g};
    CHECK(neighbours(t, 0) == std::pair<Ints, Ints>{{2, 0, 2}, {1, 1}});
    topo_free(t);
    GraphTopology *u = dist_graph_make(false, 0, nullptr, nullptr, 2, destinations, nullptr);
    REQUIRE(u);
    CHECK((!u->weighted && u->indegree == 0 && u->destweights()[1] == 1));
    free(u);
    // No edges and no weight lists, but not MPI_UNWEIGHTED: still weighted.
    GraphTopology *none = dist_graph_make(true, 0, nullptr, nullptr, 0, nullptr, MPI_WEIGHTS_EMPTY);
    REQUIRE(none);
    CHECK((none->weighted && none->indegree == 0 && none->outdegree == 0));
    free(none);
}

TEST_CASE("MPI_Graph_* and a neighbour alltoall on a ring of 4", "[topo]") {
    const std::vector<Ints> seen = on_ranks(5, [](int rank) {
        const int index[4] = {2, 4, 6, 8}, edges[8] = {3, 1, 0, 2, 1, 3, 2, 0};
        MPI_Comm ring = -1;
        Ints out{MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &ring)};
        if (rank == 4) {
            out.push_back(ring == MPI_COMM_NULL);
            return out;
        }
        int status = -1, nnodes = -1, nedges = -1, count = -1, got_index[4] = {}, got_edges[3] = {},
            nb[2] = {};
        out.insert(out.end(),
                   {MPI_Topo_test(ring, &status), status, MPI_Graphdims_get(ring, &nnodes, &nedges), nnodes,
                    nedges, MPI_Graph_get(ring, 4, 3, got_index, got_edges), got_index[3], got_edges[2],
                    MPI_Graph_neighbors_count(ring, 2, &count), count, MPI_Graph_neighbors(ring, 2, 2, nb),
                    nb[0], nb[1]});
        // Block j goes to neighbour j: (me, j) arrives as block i from the
        // i-th neighbour, which has me at the other place in its list.
        int send[2] = {rank * 10, rank * 10 + 1}, recv[2] = {-1, -1};
        out.insert(out.end(),
                   {MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, ring), recv[0], recv[1]});
        int gathered[2] = {-1, -1};
        out.insert(out.end(), {MPI_Neighbor_allgather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, ring),
                               gathered[0], gathered[1]});
        MPI_Comm dup = MPI_COMM_NULL;
        out.insert(out.end(),
                   {MPI_Comm_dup(ring, &dup), MPI_Comm_free(&ring), MPI_Topo_test(dup, &status), status,
                    MPI_Graph_neighbors(dup, rank, 2, nb), nb[0], nb[1], MPI_Comm_free(&dup)});
        return out;
    });
    CHECK(seen[4] == Ints{MPI_SUCCESS, 1});
    for (int r = 0; r < 4; ++r) {
        const int left = (r + 3) % 4, right = (r + 1) % 4;
        INFO("rank " << r);
        // left has r as its second neighbour (block 1), right as its first.
        CHECK(seen[r] == Ints{MPI_SUCCESS, MPI_SUCCESS, MPI_GRAPH,     MPI_SUCCESS,
                              4,           8,           MPI_SUCCESS,   8,
                              0,  // edges[2]
                              MPI_SUCCESS, 2,           MPI_SUCCESS,   1,
                              3,           MPI_SUCCESS, left * 10 + 1, right * 10,
                              MPI_SUCCESS, left,        right,         MPI_SUCCESS,
                              MPI_SUCCESS, MPI_SUCCESS, MPI_GRAPH,     MPI_SUCCESS,
                              left,        right,       MPI_SUCCESS});
    }
}

TEST_CASE("MPI_Dist_graph_create: each rank learns the edges that touch it", "[topo]") {
    // Rank 0 gives every edge r -> r+1 (mod 3) with weight 10 r; rank 2
    // adds 2 -> 2 with weight 7.
    const std::vector<Ints> seen = on_ranks(3, [](int rank) {
        const int sources0[3] = {0, 1, 2}, degrees0[3] = {1, 1, 1}, dest0[3] = {1, 2, 0}, w0[3] = {0, 10, 20};
        const int sources2[1] = {2}, degrees2[1] = {1}, dest2[1] = {2}, w2[1] = {7};
        MPI_Comm g = MPI_COMM_NULL;
        Ints out{rank == 0   ? MPI_Dist_graph_create(MPI_COMM_WORLD, 3, sources0, degrees0, dest0, w0,
                                                     MPI_INFO_NULL, 0, &g)
                 : rank == 2 ? MPI_Dist_graph_create(MPI_COMM_WORLD, 1, sources2, degrees2, dest2, w2,
                                                     MPI_INFO_NULL, 0, &g)
                             : MPI_Dist_graph_create(MPI_COMM_WORLD, 0, nullptr, nullptr, nullptr,
                                                     MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g)};
        int status = -1, in = -1, outd = -1, weighted = -1;
        out.insert(out.end(), {MPI_Topo_test(g, &status), status,
                               MPI_Dist_graph_neighbors_count(g, &in, &outd, &weighted), in, outd, weighted});
        Ints s(in), sw(in), d(outd), dw(outd);
        out.push_back(MPI_Dist_graph_neighbors(g, in, s.data(), sw.data(), outd, d.data(), dw.data()));
        for (const Ints *v : {&s, &sw, &d, &dw})
            out.insert(out.end(), v->begin(), v->end());
        Ints recv(in, -1);
        int mine = 100 + rank;
        out.push_back(MPI_Neighbor_allgather(&mine, 1, MPI_INT, recv.data(), 1, MPI_INT, g));
        out.insert(out.end(), recv.begin(), recv.end());
        out.push_back(MPI_Comm_free(&g));
        return out;
    });
    CHECK(seen[0] == Ints{0, 0, MPI_DIST_GRAPH, 0, 1, 1, 1, 0, 2, 20, 1, 0, 0, 102, 0});
    CHECK(seen[1] == Ints{0, 0, MPI_DIST_GRAPH, 0, 1, 1, 1, 0, 0, 0, 2, 10, 0, 100, 0});
    // Rank 2: from 1 and to 0 (rank 0's list), then itself (its own list).
    CHECK(seen[2] == Ints{0, 0, MPI_DIST_GRAPH, 0, 2, 2, 1, 0, 1, 2, 10, 7, 0, 2, 20, 7, 0, 101, 102, 0});
}

TEST_CASE("topology errors", "[topo]") {
    const std::vector<Ints> seen = on_ranks(2, [](int) {
        const int index[2] = {1, 2}, edges[2] = {1, 0}, bad_edges[2] = {1, 2}, bad_index[2] = {2, 1};
        const int two[1] = {2}, minus[1] = {-1}, one[1] = {1}, zero[1] = {0};
        MPI_Comm c = MPI_COMM_NULL;
        int x, y, z, buf[4];
        Ints out{
            MPI_Graph_create(MPI_COMM_WORLD, 3, index, edges, 0, &c),
            MPI_Graph_create(MPI_COMM_WORLD, 2, index, bad_edges, 0, &c),
            MPI_Graph_create(MPI_COMM_WORLD, 2, bad_index, edges, 0, &c),
            MPI_Graphdims_get(MPI_COMM_WORLD, &x, &y),
            MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &x, &y, &z),
            MPI_Neighbor_allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD),
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, two, MPI_UNWEIGHTED, 0, nullptr, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &c),
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, nullptr, MPI_UNWEIGHTED, 0, nullptr,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, one, minus, 0, nullptr, MPI_WEIGHTS_EMPTY,
                                           MPI_INFO_NULL, 0, &c),
            MPI_Dist_graph_create(MPI_COMM_WORLD, 1, two, one, zero, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
            MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, minus, zero, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
            MPI_Cart_map(MPI_COMM_WORLD, 1, two, zero, &x),
            x,
            MPI_Cart_map(MPI_COMM_WORLD, 1, minus, zero, &x),
            MPI_Graph_map(MPI_COMM_WORLD, 1, one, zero, &x),
            x,
            MPI_Cart_sub(MPI_COMM_WORLD, one, &c)};
        // A graph communicator refuses the Cartesian and dist-graph calls.
        out.insert(
            out.end(),
            {MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &c), MPI_Cart_get(c, 1, buf, buf, buf),
             MPI_Dist_graph_neighbors_count(c, &x, &y, &z), MPI_Graph_neighbors(c, 2, 1, buf),
             MPI_Graph_neighbors(c, 0, -1, buf), MPI_Neighbor_alltoall(buf, -1, MPI_INT, buf, 1, MPI_INT, c),
             MPI_Neighbor_alltoall(buf, 1, MPI_DATATYPE_NULL, buf, 1, MPI_INT, c),
             MPI_Neighbor_alltoallv(buf, nullptr, nullptr, MPI_INT, buf, nullptr, nullptr, MPI_INT, c),
             MPI_Comm_free(&c)});
        return out;
    });
    for (const Ints &r : seen) {
        const int map = &r == &seen[0] ? 0 : MPI_UNDEFINED;
        CHECK(r == Ints{MPI_ERR_ARG,
                        MPI_ERR_TOPOLOGY,
                        MPI_ERR_ARG,
                        MPI_ERR_TOPOLOGY,
                        MPI_ERR_TOPOLOGY,
                        MPI_ERR_TOPOLOGY,
                        MPI_ERR_RANK,
                        MPI_ERR_ARG,
                        MPI_ERR_ARG,
                        MPI_ERR_RANK,
                        MPI_ERR_ARG,
                        MPI_SUCCESS,
                        &r == &seen[0] ? 0 : 1,
                        MPI_ERR_DIMS,
                        MPI_SUCCESS,
                        map,
                        MPI_ERR_TOPOLOGY,
                        MPI_SUCCESS,
                        MPI_ERR_TOPOLOGY,
                        MPI_ERR_TOPOLOGY,
                        MPI_ERR_RANK,
                        MPI_ERR_ARG,
                        MPI_ERR_COUNT,
                        MPI_ERR_TYPE,
                        MPI_ERR_ARG,
                        MPI_SUCCESS});
    }
}
