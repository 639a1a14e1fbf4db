// The communicator constructors of MPI 3.1 section 6.4.2 that other
// calls build on: each is collective, the ranks agreeing on a context
// through a collective (coll/), which is why they live above it.
#pragma once

#include <mpi.h>
#include <stdint.h>

#include "comm/comm.hpp"
#include "comm/group.hpp"

namespace lwmpi {

/// Collective over `parent`: every rank of it calls this, and together
/// they choose a context free on all of them. Ranks in `members` (the
/// caller must be one) get a new communicator in *out; a caller passing
/// members == nullptr takes part in the choice only and gets
/// MPI_COMM_NULL. MPI_ERR_NO_MEM when the caller's table is full; other
/// classes from the exchange.
int comm_make(const Comm &parent, const GroupData *members, MPI_Comm *out);

/// MPI_Comm_dup's work for `fn` (MPI_Comm_dup, MPI_Comm_dup_with_info),
/// collective over comm (valid, its Comm is c): a new communicator with
/// comm's members, topology and error handler, and its attributes as their
/// copy callbacks say (section 6.7.2). Raises and returns fn's errors.
int comm_dup(const char *fn, MPI_Comm comm, Comm &c, MPI_Comm *newcomm);

/// The end of a dup of `c` once its ranks agreed on `context` (free on
/// all of them; of an intercommunicator, on all of my group, `theirs` on
/// all of the other): the new record, c's topology, the attributes as
/// their copy callbacks say. An error class (then *newcomm is
/// MPI_COMM_NULL), not raised.
int comm_dup_on(Comm &c, uint32_t context, uint32_t theirs, MPI_Comm *newcomm);

}  // namespace lwmpi
