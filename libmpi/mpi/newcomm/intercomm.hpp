// The communicator constructors of MPI 3.1 section 6.4.2 given an
// intercommunicator (section 6.6), for comm.cpp's calls.
#pragma once

#include <mpi.h>
#include <stdint.h>

#include "comm/comm.hpp"
#include "comm/group.hpp"

namespace lwmpi {

/// The end of MPI_Comm_dup (and _idup) of the intercommunicator `c` once
/// each group agreed on the lowest context id free on all its ranks
/// (`mine` for my group, `theirs` for the other): same groups, new
/// contexts above both. MPI_SUCCESS or an error class.
int inter_dup_on(const Comm &c, uint32_t mine, uint32_t theirs, MPI_Comm *out);

/// MPI_Comm_create of the intercommunicator `c`: `g`, a subset of the
/// caller's group, becomes the local group and what the other side gave
/// the remote one; MPI_COMM_NULL for ranks outside `g` and when the other
/// side gave an empty group.
int inter_create(const Comm &c, const GroupData &g, MPI_Comm *out);

/// MPI_Comm_split of the intercommunicator `c`: colors_keys holds the
/// (color, key) of every rank of the caller's group, by rank; the ranks
/// of `color` on each side form the new groups, MPI_COMM_NULL when the
/// other side has none of that color.
int inter_split(const Comm &c, const int *colors_keys, int color, MPI_Comm *out);

}  // namespace lwmpi
