// Groups of processes (MPI 3.1 section 6.3): ordered sets of
// MPI_COMM_WORLD ranks, in per-rank tables.
#pragma once

#include <mpi.h>
#include <stdint.h>

#include <mpiutil/mpiutil.hpp>

namespace lwmpi {

/// The members of a group: world[r] is the MPI_COMM_WORLD rank of group
/// rank r.
struct GroupData {
    int size;
    int16_t world[util::max_ranks];
};

/// The group named by `h` (MPI_GROUP_EMPTY included), or nullptr.
const GroupData *group_get(MPI_Group h);

/// A new group handle holding a copy of `g`; MPI_ERR_NO_MEM when the
/// rank's table is full.
int group_new(const GroupData &g, MPI_Group *out);

/// Frees every group handle of the rank (MPI_Finalize).
void group_finalize();

/// Rank of world rank `world` in `g`, or MPI_UNDEFINED.
int group_rank_of(const GroupData &g, int world);

}  // namespace lwmpi
