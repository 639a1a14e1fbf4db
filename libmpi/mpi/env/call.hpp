// The prologue of every MPI entry point: one object at the top of the call
// names it, records it in the trace when it is one of the traced calls,
// and raises its errors through the error handler of the object the call
// is about (MPI 3.1 section 8.3: the communicator or window it names, else
// MPI_COMM_WORLD). An entry point then reads as its checks:
//
//     int MPI_Comm_rank(MPI_Comm comm, int *rank) {
//         Call call("MPI_Comm_rank");
//         Comm *c;
//         if (int e = enter(call, comm, &c)) return e;  // comm.hpp: errors now go to comm
//         if (!rank) return call.fail(MPI_ERR_ARG);
//         *rank = c->rank;
//         return MPI_SUCCESS;
//     }
#pragma once

#include <mpi.h>

#include "common/trace.hpp"
#include "errors.hpp"
#include <mpiutil/mpiutil.hpp>

namespace lwmpi {

/// Holds the calling rank's lock for the life of an MPI call once the rank
/// runs at MPI_THREAD_MULTIPLE (util::enter_call()); nothing otherwise.
class RankEntry {
public:
    RankEntry() : took_(util::enter_call()) {}
    ~RankEntry() { util::leave_call(took_); }
    RankEntry(const RankEntry &) = delete;
    RankEntry &operator=(const RankEntry &) = delete;

private:
    bool took_;
};

/// Whether a call is recorded by mpirun --trace: the point-to-point calls,
/// the collectives, MPI_Init and MPI_Finalize are; the many small queries
/// are not, so that they do not fill the trace's rings.
enum class Traced : bool { no, yes };

/// An MPI call in progress (see above).
class Call {
public:
    /// fn: the call's static name ("MPI_Send").
    explicit Call(const char *fn, Traced traced = Traced::no)
        : fn_(fn), trace_(traced == Traced::yes ? fn : nullptr) {}
    Call(const Call &) = delete;
    Call &operator=(const Call &) = delete;

    const char *name() const { return fn_; }

    /// From now on the call's errors go to `object`, a communicator or a
    /// window (the enter() of its room calls this once it is valid).
    void on(int object) { object_ = object; }

    /// MPI_SUCCESS between MPI_Init and MPI_Finalize; otherwise raises
    /// MPI_ERR_OTHER on MPI_COMM_WORLD and returns it (require_active).
    int active() const { return require_active(fn_); }

    /// Raises `code` (with an optional detail) on the call's object and
    /// returns what raise_error returns: the code, when the handler returns.
    int fail(int code, const char *detail = nullptr) const { return raise_error(object_, fn_, code, detail); }

private:
    RankEntry entry_;  // first: the rest of the call runs under the rank's lock
    const char *fn_;
    int object_ = MPI_COMM_WORLD;
    TraceCall trace_;
};

}  // namespace lwmpi
