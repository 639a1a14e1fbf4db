// The layout of the array datatypes (MPI 3.1 sections 4.1.3, 4.1.4):
// which elements of an n-dimensional array of the old type a subarray or
// a distributed array takes, as contiguous pieces in type-map order.
// Pure logic (no tables, no MPI state), so the host tests check it alone.
#pragma once

#include <stdint.h>

namespace lwmpi {

/// Most dimensions an array datatype may have (MPI_ERR_ARG beyond).
constexpr int max_array_dims = 32;

/// Indices [start, start + len) of one dimension, len > 0.
struct Span {
    int64_t start;
    int64_t len;
};

/// One dimension of an array: its size and the spans of it taken, in
/// increasing order.
struct ArrayDim {
    int64_t size;
    const Span *spans;
    int64_t nspans;
};

/// `len` consecutive elements at `disp` elements from the array's start.
struct ArrayPiece {
    int64_t disp;
    int64_t len;
};

/// The pieces the spans of `dims[0..ndims)` take (1 <= ndims <=
/// max_array_dims), in the order of an array of that storage order:
/// `fortran` (MPI_ORDER_FORTRAN) varies the first dimension fastest, else
/// the last. Writes them to out[] unless it is nullptr, and returns how
/// many there are.
int64_t array_pieces(const ArrayDim *dims, int ndims, bool fortran, ArrayPiece *out);

/// How a distributed array spreads one dimension (section 4.1.4): its
/// size, MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE, the distribution
/// argument (or MPI_DISTRIBUTE_DFLT_DARG), and the processes along it.
struct Distribution {
    int64_t gsize;
    int distrib;
    int darg;
    int psize;
};

/// Checks `d` (MPI 3.1 section 4.1.4): false when the argument cannot
/// distribute the dimension (a block too small to cover it, darg <= 0,
/// MPI_DISTRIBUTE_NONE over several processes, an unknown distribution).
bool distribution_valid(const Distribution &d);

/// The spans of a valid dimension `d` that the process at coordinate
/// `coord` along it owns: written to out[] unless it is nullptr; returns
/// how many there are.
int64_t distribution_spans(const Distribution &d, int coord, Span *out);

/// The coordinates of process `rank` in a grid of psizes[0..ndims)
/// processes, numbered in row-major order (section 4.1.4).
void grid_coords(int rank, int ndims, const int psizes[], int coords[]);

}  // namespace lwmpi
