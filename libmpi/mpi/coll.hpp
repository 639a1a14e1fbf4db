// Collective algorithms of LibMPI, over MPIUtil's point-to-point messages
// on a communicator's collective context.
#pragma once

#include "comm.hpp"
#include "datatype.hpp"
#include "handles.hpp"

namespace lwmpi {

/// Barrier over `c` (MPI 3.1 section 5.3): zero-byte messages up a binomial
/// tree to rank 0 (gather), then down again (release); 2*ceil(log2 p)
/// steps. Returns MPI_SUCCESS or an error class (util::error_detail()).
int barrier(const Comm &c);

}  // namespace lwmpi
