// Cartesian topologies (MPI 3.1 section 7.5): the arithmetic and the
// MPI_Dims_create, MPI_Cart_* and MPI_Topo_test calls.
#include "topo.hpp"

#include "errors.hpp"
#include "state.hpp"
#include "../mpiutil/mpiutil.hpp"
#include "../mpiutil/text.hpp"

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

int dims_create(int nnodes, int ndims, int dims[]) {
    if (nnodes < 1) return MPI_ERR_ARG;
    if (ndims < 1 || ndims > kMaxDims) return MPI_ERR_DIMS;
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

namespace {

// enter_comm(), then comm must have a Cartesian topology (MPI_ERR_TOPOLOGY).
int enter_cart(const char *fn, MPI_Comm comm, Comm **out) {
    if (int e = enter_comm(fn, comm, out)) return e;
    if ((*out)->cart.ndims == 0)
        return raise_error(comm, fn, MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology");
    return MPI_SUCCESS;
}

// Raises MPI_ERR_DIMS for an ndims out of 1..kMaxDims.
int raise_ndims(MPI_Comm comm, const char *fn, int ndims) {
    char why[48];
    TextBuilder(why, sizeof why).put("ndims ").put_int(ndims).put("; 1..").put_int(kMaxDims).put(" allowed");
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
    if (ndims < 1 || ndims > kMaxDims) return raise_ndims(MPI_COMM_WORLD, fn, ndims);
    if (!dims) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
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
// communicator in the same order (reorder is a hint; section 7.5.1).
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_create";
    (void)reorder;
    Comm *c;
    if (int e = enter_comm(fn, comm_old, &c)) return e;
    if (ndims < 1 || ndims > kMaxDims) return raise_ndims(comm_old, fn, ndims);
    if (!dims || !periods || !comm_cart) return raise_error(comm_old, fn, MPI_ERR_ARG);
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
    if (member) comm_get(*comm_cart)->cart = topo;
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
    if (maxdims < c->cart.ndims) return raise_maxdims(comm, fn, maxdims, c->cart.ndims);
    if (!coords) return raise_error(comm, fn, MPI_ERR_ARG);
    cart_coords(c->cart, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_rank";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    if (!coords || !rank) return raise_error(comm, fn, MPI_ERR_ARG);
    if (int e = cart_rank(c->cart, coords, rank))
        return raise_error(comm, fn, e, "a coordinate is out of its non-periodic dimension");
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_shift";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    if (direction < 0 || direction >= c->cart.ndims) {
        char why[64];
        TextBuilder(why, sizeof why)
            .put("direction ")
            .put_int(direction)
            .put("; the topology has ")
            .put_int(c->cart.ndims)
            .put(" dimensions");
        return raise_error(comm, fn, MPI_ERR_ARG, why);
    }
    if (!rank_source || !rank_dest) return raise_error(comm, fn, MPI_ERR_ARG);
    cart_shift(c->cart, c->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Cart_get";
    Comm *c;
    if (int e = enter_cart(fn, comm, &c)) return e;
    const CartTopology &t = c->cart;
    if (maxdims < t.ndims) return raise_maxdims(comm, fn, maxdims, t.ndims);
    if (!dims || !periods || !coords) return raise_error(comm, fn, MPI_ERR_ARG);
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
    *ndims = c->cart.ndims;
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Topo_test";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!status) return raise_error(comm, fn, MPI_ERR_ARG);
    *status = c->cart.ndims ? MPI_CART : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
