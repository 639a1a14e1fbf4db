// Collective algorithms of LibMPI that other parts of LibMPI use, over
// point-to-point messages on a communicator's collective context.
#pragma once

#include <stdint.h>

#include "comm/comm.hpp"

namespace lwmpi {

/// Barrier over `c` (MPI 3.1 section 5.3): empty messages up the two-level
/// trees (ranks of a cluster, then one leader per cluster) and down
/// again. Returns MPI_SUCCESS or an error class (util::error_detail()).
int barrier(const Comm &c);

/// Broadcast of `count` elements of `t` at `buf` from rank `root` of the
/// intracommunicator `c` (MPI 3.1 section 5.4), down the two-level trees.
int bcast(const Comm &c, void *buf, int count, MPI_Datatype t, int root);

/// *value = the largest *value of the ranks of `c` (collective over c).
int allreduce_max(const Comm &c, uint32_t *value);

}  // namespace lwmpi
