// Host tests of libmpi/mpi/topo: the arithmetic of MPI_Dims_create and of
// Cartesian coordinates, ranks and shifts (MPI 3.1 section 7.5), then the
// MPI_Dims_create, MPI_Cart_* and MPI_Topo_test calls.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <initializer_list>
#include <vector>

#include "fake_job.hpp"
#include "on_ranks.hpp"
#include "../mpi/topo.hpp"

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

TEST_CASE("dims_create: the lexicographically smallest sorted factorization", "[topo]") {
    for (int n = 1; n <= 360; ++n)
        for (int k = 1; k <= 4; ++k) {
            std::vector<Ints> all;
            Ints prefix;
            factorizations(n, k, n, prefix, all);
            INFO("nnodes " << n << ", ndims " << k);
            CHECK(dims_of(n, Ints(k, 0)) == *std::min_element(all.begin(), all.end()));
        }
}

TEST_CASE("dims_create: errors leave dims alone", "[topo]") {
    CHECK(dims_of(6, {3, 3}) == Ints{-MPI_ERR_DIMS});
    CHECK(dims_of(6, {0, -2}) == Ints{-MPI_ERR_DIMS});
    CHECK(dims_of(4, {65536, 65536, 0}) == Ints{-MPI_ERR_DIMS});  // no overflow
    CHECK(dims_of(6, {}) == Ints{-MPI_ERR_DIMS});
    CHECK(dims_of(6, Ints(kMaxDims + 1, 0)) == Ints{-MPI_ERR_DIMS});
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
                 MPI_Dims_create(6, kMaxDims + 1, bad),
                 MPI_Dims_create(0, 2, bad),
                 MPI_Dims_create(6, 2, nullptr)};
        return out;
    })[0];
    CHECK(r ==
          Ints{MPI_SUCCESS, 2, 3, 1, MPI_ERR_DIMS, MPI_ERR_DIMS, MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_ARG});
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
        int nine[kMaxDims + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, nine_periods[kMaxDims + 1] = {};
        MPI_Comm cart = MPI_COMM_NULL, unused;
        int x, y, c[2];
        Ints out{MPI_Cart_create(MPI_COMM_WORLD, 2, zero, periods, 0, &unused),
                 MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &unused),
                 MPI_Cart_create(MPI_COMM_WORLD, kMaxDims + 1, nine, nine_periods, 0, &unused),
                 MPI_Cart_create(MPI_COMM_WORLD, 0, dims, periods, 0, &unused),
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
