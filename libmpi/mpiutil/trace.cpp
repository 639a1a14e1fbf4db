// The MPI events of a traced job (mpirun --trace; <tessera/trace.h>): what
// LibMPI's calls and this tier's sends and matches record, and the dump of
// the cluster's rings at MPI_Finalize. When the job is not traced each
// hook costs one test of the job's flags.
#include <string.h>

#include <tessera/trace.h>

#include "engine.hpp"
#include "os.hpp"
#include <lwmpi/text.hpp>

namespace lwmpi::util {

bool tracing() { return os::tracing(); }

void trace_call(const char *fn, bool leave) {
    // The name without "MPI_", its first 16 bytes in two words.
    if (strncmp(fn, "MPI_", 4) == 0) fn += 4;
    uint64_t name[2] = {0, 0};
    const size_t n = strnlen(fn, sizeof name);
    memcpy(name, fn, n);
    os::trace_record(leave ? TS_TRACE_MPI_LEAVE : TS_TRACE_MPI_ENTER, os::rank(), 0,
                     static_cast<long>(name[0]), name[1], 0);
}

void trace_send(int dst, int tag, uint32_t context, uint64_t bytes) {
    os::trace_record(TS_TRACE_MPI_SEND, os::rank(), dst, tag, context, bytes);
}

void trace_match(const Envelope &env, uint64_t bytes) {
    os::trace_record(TS_TRACE_MPI_RECV, os::rank(), env.source, env.tag, env.context, bytes);
}

// My core's rings, and the master's when I am the cluster's first rank
// (its kernel records there what it does for all of us).
void trace_dump() {
    const int cores[2] = {os::core(), os::local_index() == 0 ? 0 : -1};
    for (int core : cores) {
        if (core < 0) continue;
        if (const int e = os::trace_dump(core); e < 0) {
            char line[96];
            TextBuilder(line, sizeof line)
                .put("LWMPI: rank ")
                .put_int(os::rank())
                .put(": cannot write the trace of core ")
                .put_int(core)
                .put(" (error ")
                .put_int(-e)
                .put(")");
            report(line);
        }
    }
}

}  // namespace lwmpi::util
