// Cartesian topologies (MPI 3.1 section 7.5): the arithmetic behind
// MPI_Dims_create and MPI_Cart_*, as pure functions.
#pragma once

#include "comm.hpp"

namespace lwmpi {

/// MPI_Dims_create (section 7.5.2): fills the zero entries of
/// dims[0..ndims) so that all entries multiply to nnodes, the filled ones
/// in non-increasing order and as close to each other as possible (the
/// largest as small as possible, then the next largest, and so on). The
/// non-zero entries are kept. MPI_ERR_ARG when nnodes < 1; MPI_ERR_DIMS
/// when ndims is not 1..kMaxDims, an entry is negative or no such filling
/// exists. dims is left alone on error.
int dims_create(int nnodes, int ndims, int dims[]);

/// Ranks in topology `t` (the product of its dimensions).
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

}  // namespace lwmpi
