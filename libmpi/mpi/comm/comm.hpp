// Communicators (MPI 3.1 sections 6.4, 6.6 and 7.5): per-rank tables of
// intra- and intercommunicators, each with its members, its contexts, its
// error handler, its name and an optional topology (topo.hpp).
#pragma once

#include <mpi.h>
#include <stdint.h>

#include "group.hpp"
#include "topo.hpp"

namespace lwmpi {

class Call;

inline constexpr int max_comms = 4096;  ///< per rank, WORLD and SELF included
/// Handle index of the first communicator a program makes (0 is
/// MPI_COMM_NULL, 1 MPI_COMM_WORLD, 2 MPI_COMM_SELF, 3 MPIX_COMM_LOCAL).
inline constexpr int first_made_comm = 4;

/// A communicator as the calling rank sees it. Messages on it carry
/// `context` (point-to-point) or `context + 1` (collectives), so they
/// never match another communicator's (section 6.1.2).
///
/// An intercommunicator (section 6.6) joins two disjoint groups: `group` is
/// the caller's (local) group, `remote` the other one, and the ranks that
/// point-to-point calls and collectives name are ranks of `remote`. Its
/// `local` intracommunicator, over the local group with a context of its
/// own, carries the collectives' work inside each group; it has no handle
/// the program sees and goes with its intercommunicator.
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
    Topology topo;       ///< owns its lists: topo_free() when the record goes
    uint32_t schedules;  ///< collectives run as schedules on it (their tags: schedule.hpp)
    bool inter;          ///< an intercommunicator
    GroupData remote;    ///< intercommunicator: the remote group
    MPI_Comm local;      ///< intercommunicator: the local intracommunicator
};

/// The group whose ranks point-to-point calls on `c` name: the remote
/// group of an intercommunicator, else the communicator's group.
inline const GroupData &peers(const Comm &c) { return c.inter ? c.remote : c.group; }

/// The communicator named by `h` (WORLD and SELF once MPI_Init has run),
/// or nullptr (MPI_COMM_NULL, invalid, freed).
Comm *comm_get(MPI_Comm h);

/// A request starts or stops using `c`: a communicator freed while
/// operations on it are pending lives until they end (MPI 3.1 section
/// 6.4.3).
void comm_hold(Comm &c);
void comm_release(Comm &c);

/// The communicator at handle index `index` (1..max_comms-1), valid or
/// not, or nullptr when there is none.
Comm *comm_at(int index);

/// Frees the communicators the program made (MPI_Finalize).
void comm_finalize();

/// Fills MPI_COMM_WORLD, MPI_COMM_SELF and MPIX_COMM_LOCAL for the calling
/// rank, from MPIUtil's view of the job (MPI_Init, after util::init()).
void comm_init_predefined();

/// A new communicator on context `context` (and context + 1), which the
/// caller has agreed with every member: `members` is its group (the
/// caller one of them), `remote` the remote group of an intercommunicator
/// (nullptr: an intracommunicator). It inherits `parent`'s error handler
/// (parent nullptr: the default, MPI_ERRORS_ARE_FATAL). MPI_ERR_NO_MEM when the
/// caller's table is full.
int comm_add(const Comm *parent, uint32_t context, const GroupData &members, const GroupData *remote,
             MPI_Comm *out);

/// The ranks of `g` whose color (colors_keys[2 r]) is `color`, ordered by
/// key (colors_keys[2 r + 1]) then rank: MPI_Comm_split's order (MPI 3.1
/// section 6.4.2).
void select_color(const GroupData &g, const int *colors_keys, int color, GroupData *out);

/// The lowest context id the calling rank has not used; comm_reserve(n)
/// marks the ids below n used.
uint32_t comm_next_context();
void comm_reserve(uint32_t n);

/// The end of `c`, a communicator no request uses any more: one the
/// program made goes back to the heap, then its error handler may go too.
void comm_drop(Comm &c);

/// The prologue of a call on communicator `comm` (env/call.hpp): MPI is
/// active and comm valid (else the error is raised on MPI_COMM_WORLD),
/// into *out; from then on the call's errors go to comm. enter_intra: for
/// calls defined on intracommunicators only (an intercommunicator raises
/// MPI_ERR_COMM on itself).
int enter(Call &call, MPI_Comm comm, Comm **out);
int enter_intra(Call &call, MPI_Comm comm, Comm **out);

/// require_active(), then the communicator `comm` into *out; raises
/// MPI_ERR_COMM (on MPI_COMM_WORLD) when comm is not valid.
int enter_comm(const char *function, MPI_Comm comm, Comm **out);

/// enter_comm() for calls defined on intracommunicators only: an
/// intercommunicator raises MPI_ERR_COMM on itself.
int enter_intracomm(const char *function, MPI_Comm comm, Comm **out);

}  // namespace lwmpi
