// LibMPI's per-rank state: plain data in a RankLocal (rank_local.hpp), as
// every per-rank table of LibMPI is.
#pragma once

#include <mpi.h>

#include "comm/comm.hpp"
#include "common/slot_table.hpp"

namespace lwmpi {

/// Handle index of the first communicator a program makes (0 is
/// MPI_COMM_NULL, 1 MPI_COMM_WORLD, 2 MPI_COMM_SELF).
inline constexpr int kFirstMadeComm = 3;

struct MpiState {
    bool initialized;       ///< MPI_Init completed
    bool finalized;         ///< MPI_Finalize completed
    const char *call;       ///< the MPI call in progress (the last one entered), for a hang's report
    uint32_t next_context;  ///< lowest context id this rank has not used (even)
    Comm world;             ///< handle index 1
    Comm self;              ///< handle index 2
    /// Communicators the program made, at their handle index (>=
    /// kFirstMadeComm; from their making until they are freed or
    /// MPI_Finalize). A rank pays only for those it has.
    SlotTable<Comm, kMaxComms> made;
};

/// The calling rank's state.
MpiState &state();

/// MPI_SUCCESS between MPI_Init and MPI_Finalize; otherwise raises
/// MPI_ERR_OTHER on MPI_COMM_WORLD for `function` and returns it.
int require_active(const char *function);

/// require_active(), then the communicator `comm` into *out; raises
/// MPI_ERR_COMM (on MPI_COMM_WORLD) when comm is not valid.
int enter_comm(const char *function, MPI_Comm comm, Comm **out);

/// enter_comm() for calls defined on intracommunicators only: an
/// intercommunicator raises MPI_ERR_COMM on itself.
int enter_intracomm(const char *function, MPI_Comm comm, Comm **out);

}  // namespace lwmpi
