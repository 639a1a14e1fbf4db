// LibMPI's per-rank state: thread_local plain data (MPI ranks are threads).
#pragma once

#include <mpi.h>

#include "comm.hpp"

namespace lwmpi {

struct MpiState {
    bool initialized;       ///< MPI_Init completed
    bool finalized;         ///< MPI_Finalize completed
    uint32_t next_context;  ///< lowest context id this rank has not used (even)
    Comm comms[kMaxComms];  ///< index = handle index; 1 WORLD, 2 SELF
};

/// The calling rank's state.
MpiState &state();

/// MPI_SUCCESS between MPI_Init and MPI_Finalize; otherwise raises
/// MPI_ERR_OTHER on MPI_COMM_WORLD for `function` and returns it.
int require_active(const char *function);

/// require_active(), then the communicator `comm` into *out; raises
/// MPI_ERR_COMM (on MPI_COMM_WORLD) when comm is not valid.
int enter_comm(const char *function, MPI_Comm comm, Comm **out);

}  // namespace lwmpi
