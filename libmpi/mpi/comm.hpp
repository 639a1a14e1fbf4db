// Communicators (MPI 3.1 sections 6.4 and 7.5): per-rank tables of
// intracommunicators, each with its members, its contexts, its error
// handler, its name and an optional Cartesian topology.
#pragma once

#include <mpi.h>
#include <stdint.h>

#include "group.hpp"

namespace lwmpi {

inline constexpr int kMaxComms = 16;  ///< per rank, WORLD and SELF included
inline constexpr int kMaxDims = 8;    ///< of a Cartesian topology

/// A Cartesian topology (section 7.5.1): rank r of the communicator sits
/// at coordinates given by r in row-major order over dims.
struct CartTopology {
    int ndims;  ///< 0: the communicator has no topology
    int dims[kMaxDims];
    bool periods[kMaxDims];
};

/// A communicator as the calling rank sees it. Messages on it carry
/// `context` (point-to-point) or `context + 1` (collectives), so they
/// never match another communicator's (section 6.1.2).
struct Comm {
    bool in_use;
    bool freed;  ///< MPI_Comm_free'd while requests still use it
    int users;   ///< requests that use it (they keep it alive)
    MPI_Comm handle;
    uint32_t context;
    int rank;                   ///< the caller's rank in it
    GroupData group;            ///< its members, by rank
    MPI_Errhandler errhandler;  ///< 0: MPI_ERRORS_ARE_FATAL
    char name[MPI_MAX_OBJECT_NAME];
    CartTopology cart;
};

/// The communicator named by `h` (WORLD and SELF once MPI_Init has run),
/// or nullptr (MPI_COMM_NULL, invalid, freed).
Comm *comm_get(MPI_Comm h);

/// A request starts or stops using `c`: a communicator freed while
/// operations on it are pending lives until they end (MPI 3.1 section
/// 6.4.3).
void comm_hold(Comm &c);
void comm_release(Comm &c);

/// The communicator at handle index `index` (1..kMaxComms-1), valid or
/// not, or nullptr when there is none.
Comm *comm_at(int index);

/// Frees the communicators the program made (MPI_Finalize).
void comm_finalize();

/// Fills MPI_COMM_WORLD and MPI_COMM_SELF for the calling rank (MPI_Init).
void comm_init_predefined(int world_rank, int world_size);

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

}  // namespace lwmpi
