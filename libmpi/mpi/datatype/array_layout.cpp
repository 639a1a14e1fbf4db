// Subarray and distributed-array layouts: spans per dimension, then their
// Cartesian product in the array's storage order.
#include "array_layout.hpp"

#include <mpi.h>

namespace lwmpi {

namespace {

// Indices taken in dimension `d`.
int64_t taken(const ArrayDim &d) {
    int64_t n = 0;
    for (int64_t i = 0; i < d.nspans; ++i)
        n += d.spans[i].len;
    return n;
}

// The index of the `k`th taken element of dimension `d`.
int64_t index_of(const ArrayDim &d, int64_t k) {
    for (int64_t i = 0;; ++i) {
        if (k < d.spans[i].len) return d.spans[i].start + k;
        k -= d.spans[i].len;
    }
}

}  // namespace

int64_t array_pieces(const ArrayDim *dims, int ndims, bool fortran, ArrayPiece *out) {
    // Element strides of the dimensions, and the one that varies fastest.
    int64_t stride[max_array_dims];
    const int fast = fortran ? 0 : ndims - 1;
    const int step = fortran ? 1 : -1;  // from the fastest dimension outwards
    for (int i = fast, prev = -1; i >= 0 && i < ndims; prev = i, i += step)
        stride[i] = prev < 0 ? 1 : stride[prev] * dims[prev].size;
    // The slower dimensions' taken elements, as an odometer of positions
    // (pos[i] counts the taken elements of dimension i).
    int64_t pos[max_array_dims] = {};
    int64_t n = 0;
    for (int i = 0; i < ndims; ++i)
        if (taken(dims[i]) == 0) return 0;
    for (;;) {
        int64_t base = 0;
        for (int i = 0; i < ndims; ++i)
            if (i != fast) base += index_of(dims[i], pos[i]) * stride[i];
        for (int64_t s = 0; s < dims[fast].nspans; ++s, ++n)
            if (out) out[n] = ArrayPiece{base + dims[fast].spans[s].start, dims[fast].spans[s].len};
        // Next position: the dimension next to the fastest moves first.
        int i = fast + step;
        for (; i >= 0 && i < ndims; i += step) {
            if (++pos[i] < taken(dims[i])) break;
            pos[i] = 0;
        }
        if (i < 0 || i >= ndims) return n;
    }
}

bool distribution_valid(const Distribution &d) {
    if (d.psize <= 0 || d.gsize <= 0) return false;
    switch (d.distrib) {
    case MPI_DISTRIBUTE_NONE: return d.psize == 1;
    case MPI_DISTRIBUTE_BLOCK:
        // The blocks of all the processes must cover the dimension.
        return d.darg == MPI_DISTRIBUTE_DFLT_DARG || (d.darg > 0 && int64_t{d.darg} * d.psize >= d.gsize);
    case MPI_DISTRIBUTE_CYCLIC: return d.darg == MPI_DISTRIBUTE_DFLT_DARG || d.darg > 0;
    default: return false;
    }
}

int64_t distribution_spans(const Distribution &d, int coord, Span *out) {
    if (d.distrib == MPI_DISTRIBUTE_NONE) {
        if (out) out[0] = Span{0, d.gsize};
        return 1;
    }
    if (d.distrib == MPI_DISTRIBUTE_BLOCK) {
        // Default: the dimension in psize blocks, the last one shorter.
        const int64_t b = d.darg == MPI_DISTRIBUTE_DFLT_DARG ? (d.gsize + d.psize - 1) / d.psize : d.darg;
        const int64_t start = coord * b;
        const int64_t len = start >= d.gsize ? 0 : d.gsize - start < b ? d.gsize - start : b;
        if (len == 0) return 0;
        if (out) out[0] = Span{start, len};
        return 1;
    }
    // Cyclic: blocks of darg (default 1) dealt to the processes in turn.
    const int64_t b = d.darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : d.darg;
    int64_t n = 0;
    for (int64_t start = coord * b; start < d.gsize; start += b * d.psize, ++n)
        if (out) out[n] = Span{start, d.gsize - start < b ? d.gsize - start : b};
    return n;
}

void grid_coords(int rank, int ndims, const int psizes[], int coords[]) {
    for (int i = ndims - 1; i >= 0; --i) {
        coords[i] = rank % psizes[i];
        rank /= psizes[i];
    }
}

}  // namespace lwmpi
