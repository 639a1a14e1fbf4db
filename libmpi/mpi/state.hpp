// LibMPI's per-rank state: thread_local plain data (MPI ranks are threads).
#pragma once

#include <mpi.h>

#include "handles.hpp"

namespace lwmpi {

struct MpiState {
    bool initialized;  ///< MPI_Init completed
    bool finalized;    ///< MPI_Finalize completed
    MPI_Errhandler errhandler[kCommSlots];  ///< 0 = MPI_ERRORS_ARE_FATAL
};

/// The calling rank's state.
MpiState &state();

/// The error handler of `c` for the calling rank.
MPI_Errhandler errhandler_of(const CommInfo &c);

/// MPI_SUCCESS between MPI_Init and MPI_Finalize; otherwise raises
/// MPI_ERR_OTHER on MPI_COMM_WORLD for `function` and returns it.
int require_active(const char *function);

/// require_active(), then the communicator `comm` into *out; raises
/// MPI_ERR_COMM (on MPI_COMM_WORLD) when comm is not valid.
int enter_comm(const char *function, MPI_Comm comm, const CommInfo **out);

}  // namespace lwmpi
