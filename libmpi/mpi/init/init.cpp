// The MPI environment: startup, shutdown, abort, version, time (MPI 3.1
// chapter 8).
#include <mpi.h>

#include "env/call.hpp"
#include "env/attr.hpp"
#include "pt2pt/bsend.hpp"
#include "coll/coll.hpp"
#include "env/errors.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "comm/group.hpp"
#include "common/handles.hpp"
#include "env/info.hpp"
#include "pt2pt/request.hpp"
#include "env/state.hpp"
#include "io/file.hpp"
#include "common/trace.hpp"
#include "rma/win.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {
namespace {

// MPI_Init and MPI_Init_thread (named `fn` in error reports); argc and
// argv (may be NULL) go into MPI_INFO_ENV.
int init(const char *fn, int *argc, char ***argv) {
    MpiState &st = state();
    if (st.finalized) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_OTHER, "MPI is finalized");
    if (st.initialized) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_OTHER, "MPI is already initialized");
    if (int e = util::init()) return raise_error(MPI_COMM_WORLD, fn, e, util::error_detail());
    st.call = fn;
    util::watch_calls(&st.call);
    comm_init_predefined();
    info_init_env(comm_get(MPI_COMM_WORLD)->group.size, argc && argv ? *argc : 0,
                  argc && argv ? *argv : nullptr);
    error_codes_init();
    st.initialized = true;
    return MPI_SUCCESS;
}

// The level a rank runs at (MPI 3.1 section 12.4.3): its threads (those
// of its process, or with ranks as threads those it starts) call MPI one
// at a time, or at any time once MPI_THREAD_MULTIPLE is granted.
int thread_level() { return util::threads_allowed() ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED; }

}  // namespace
}  // namespace lwmpi

int MPI_Init(int *argc, char ***argv) {
    Call call("MPI_Init", Traced::yes);
    return init(call.name(), argc, argv);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    Call call("MPI_Init_thread", Traced::yes);
    if (!provided) return call.fail(MPI_ERR_ARG, "provided is NULL");
    if (int e = init(call.name(), argc, argv)) return e;
    // MPI_THREAD_MULTIPLE is served by the rank's lock, which the others
    // need not take.
    if (required > MPI_THREAD_SERIALIZED) util::allow_threads();
    *provided = thread_level();
    return MPI_SUCCESS;
}

int MPI_Query_thread(int *provided) {
    Call call("MPI_Query_thread");
    if (int e = call.active()) return e;
    if (!provided) return call.fail(MPI_ERR_ARG);
    *provided = thread_level();
    return MPI_SUCCESS;
}

// The thread that called MPI_Init holds its rank's state; in threads mode
// it is also the only one that sees MPI initialized.
int MPI_Is_thread_main(int *flag) {
    Call call("MPI_Is_thread_main");
    if (!flag) return call.fail(MPI_ERR_ARG);
    *flag = state().initialized && util::holds_rank_state();
    return MPI_SUCCESS;
}

int MPI_Finalize(void) {
    Call call("MPI_Finalize", Traced::yes);
    if (int e = call.active()) return e;
    // MPI_COMM_SELF's attributes are deleted first, while all of MPI still
    // works, then the other predefined ones' (section 8.7.1).
    static constexpr MPI_Comm order[] = {MPI_COMM_SELF, MPIX_COMM_LOCAL, MPI_COMM_WORLD};
    for (MPI_Comm comm : order)
        if (int e = attr_delete_all(HandleKind::comm, comm))
            return raise_error(comm, call.name(), e, "an attribute delete callback failed");
    file_finalize();
    // Buffered and freed sends leave first; every rank has stopped sending
    // once all are past the barrier (section 8.7).
    if (int e = drain_requests()) return call.fail(e, util::error_detail());
    if (int e = util::quiesce()) return call.fail(e, util::error_detail());
    if (int e = barrier(*comm_get(MPI_COMM_WORLD))) return call.fail(e, util::error_detail());
    state().finalized = true;
    win_finalize();  // (the barrier: no rank reaches the caller's windows any more)
    if (int e = util::finalize()) return call.fail(e, util::error_detail());
    // No handle but WORLD's and SELF's is valid any more: their tables go.
    request_table_release();
    bsend_finalize();
    comm_finalize();
    group_finalize();
    datatype_finalize();
    attr_finalize();
    info_finalize();
    error_codes_finalize();
    return MPI_SUCCESS;
}

int MPI_Initialized(int *flag) {
    Call call("MPI_Initialized");
    if (!flag) return call.fail(MPI_ERR_ARG);
    *flag = state().initialized;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag) {
    Call call("MPI_Finalized");
    if (!flag) return call.fail(MPI_ERR_ARG);
    *flag = state().finalized;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
    (void)comm;  // the whole job ends, whatever the communicator
    char line[96];
    TextBuilder t(line, sizeof line);
    t.put("MPI_Abort: ");
    if (state().initialized && !state().finalized) t.put("rank ").put_int(util::world_rank()).put(' ');
    t.put("ends the job with error code ").put_int(errorcode).put('\n');
    util::report(line);
    util::abort_job(errorcode);
}

int MPI_Get_version(int *version, int *subversion) {
    Call call("MPI_Get_version");
    if (!version || !subversion) return call.fail(MPI_ERR_ARG);
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Get_processor_name(char *name, int *resultlen) {
    Call call("MPI_Get_processor_name");
    if (int e = call.active()) return e;
    if (!name || !resultlen) return call.fail(MPI_ERR_ARG);
    TextBuilder t(name, MPI_MAX_PROCESSOR_NAME);
    t.put("cluster").put_int(util::cluster_id()).put(".core").put_int(util::core_id());
    *resultlen = static_cast<int>(t.length());
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen) {
    Call call("MPI_Get_library_version");
    if (!version || !resultlen) return call.fail(MPI_ERR_ARG);
    TextBuilder t(version, MPI_MAX_LIBRARY_VERSION_STRING);
    t.put("LWMPI 1.0 (Tessera), MPI 3.1");
    *resultlen = static_cast<int>(t.length());
    return MPI_SUCCESS;
}

double MPI_Wtime(void) { return util::wtime(); }

double MPI_Wtick(void) { return util::wtick(); }

// For the profiling library a program may link (section 14.2.4): LWMPI
// itself has nothing to switch.
int MPI_Pcontrol(const int, ...) { return MPI_SUCCESS; }

int MPI_Error_string(int errorcode, char *string, int *resultlen) {
    Call call("MPI_Error_string");
    const char *text = error_text(errorcode);
    if (!text || !string || !resultlen) return call.fail(MPI_ERR_ARG);
    TextBuilder t(string, MPI_MAX_ERROR_STRING);
    t.put(text);
    *resultlen = static_cast<int>(t.length());
    return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int *errorclass) {
    Call call("MPI_Error_class");
    if (error_class_of(errorcode) < 0 || !errorclass) return call.fail(MPI_ERR_ARG);
    *errorclass = error_class_of(errorcode);
    return MPI_SUCCESS;
}
