// Records an MPI call's entry and return when the job is traced (mpirun
// --trace): one object at the top of the call, `TraceCall trace("MPI_Send");`.
// Not traced: one test of the job's flags.
#pragma once

#include <mpiutil/mpiutil.hpp>

namespace lwmpi {

/// An MPI call in progress, for the trace (MPIUtil's trace_call()).
class TraceCall {
public:
    /// fn: the call's static name ("MPI_Send"); nullptr: a call the trace
    /// leaves out.
    explicit TraceCall(const char *fn) : fn_(fn && util::tracing() ? fn : nullptr) {
        if (fn_) util::trace_call(fn_, false);
    }
    ~TraceCall() {
        if (fn_) util::trace_call(fn_, true);
    }
    TraceCall(const TraceCall &) = delete;
    TraceCall &operator=(const TraceCall &) = delete;

private:
    const char *fn_;
};

}  // namespace lwmpi
