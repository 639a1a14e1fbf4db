// LibMPI's per-rank state: plain data in a RankLocal (rank_local.hpp), as
// every per-rank table of LibMPI is.
#pragma once

#include <mpi.h>

namespace lwmpi {

/// Where the rank is in MPI's life (its communicators are comm.hpp's).
struct MpiState {
    bool initialized;  ///< MPI_Init completed
    bool finalized;    ///< MPI_Finalize completed
    const char *call;  ///< the MPI call in progress (the last one entered), for a hang's report
};

/// The calling rank's state.
MpiState &state();

}  // namespace lwmpi
