// Error strings and error handler dispatch.
#include "errors.hpp"

#include "common/handles.hpp"
#include "state.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

namespace lwmpi {

namespace {

// Indexed by error class (mpi.h); MPI 3.1 table 8.1.
constexpr const char *error_texts[] = {
    "no error",                                 // MPI_SUCCESS
    "invalid buffer pointer",                   // MPI_ERR_BUFFER
    "invalid count argument",                   // MPI_ERR_COUNT
    "invalid datatype argument",                // MPI_ERR_TYPE
    "invalid tag argument",                     // MPI_ERR_TAG
    "invalid communicator",                     // MPI_ERR_COMM
    "invalid rank",                             // MPI_ERR_RANK
    "invalid request",                          // MPI_ERR_REQUEST
    "invalid root",                             // MPI_ERR_ROOT
    "invalid group",                            // MPI_ERR_GROUP
    "invalid operation",                        // MPI_ERR_OP
    "invalid topology",                         // MPI_ERR_TOPOLOGY
    "invalid dimension argument",               // MPI_ERR_DIMS
    "invalid argument",                         // MPI_ERR_ARG
    "unknown error",                            // MPI_ERR_UNKNOWN
    "message truncated on receive",             // MPI_ERR_TRUNCATE
    "other error",                              // MPI_ERR_OTHER
    "internal MPI error",                       // MPI_ERR_INTERN
    "error code is in status",                  // MPI_ERR_IN_STATUS
    "pending request",                          // MPI_ERR_PENDING
    "invalid keyval",                           // MPI_ERR_KEYVAL
    "out of memory",                            // MPI_ERR_NO_MEM
    "invalid base",                             // MPI_ERR_BASE
    "info key too long",                        // MPI_ERR_INFO_KEY
    "info value too long",                      // MPI_ERR_INFO_VALUE
    "no such info key",                         // MPI_ERR_INFO_NOKEY
    "error in spawning processes",              // MPI_ERR_SPAWN
    "invalid port name",                        // MPI_ERR_PORT
    "invalid service name",                     // MPI_ERR_SERVICE
    "service name not published",               // MPI_ERR_NAME
    "invalid window",                           // MPI_ERR_WIN
    "invalid size argument",                    // MPI_ERR_SIZE
    "invalid displacement argument",            // MPI_ERR_DISP
    "invalid info argument",                    // MPI_ERR_INFO
    "invalid lock type",                        // MPI_ERR_LOCKTYPE
    "invalid assert argument",                  // MPI_ERR_ASSERT
    "conflicting accesses to window",           // MPI_ERR_RMA_CONFLICT
    "wrong synchronization of RMA calls",       // MPI_ERR_RMA_SYNC
    "target memory is not part of the window",  // MPI_ERR_RMA_RANGE
    "memory cannot be attached",                // MPI_ERR_RMA_ATTACH
    "memory cannot be shared",                  // MPI_ERR_RMA_SHARED
    "window has the wrong flavor",              // MPI_ERR_RMA_FLAVOR
    "invalid file handle",                      // MPI_ERR_FILE
    "collective argument not identical",        // MPI_ERR_NOT_SAME
    "invalid file access mode",                 // MPI_ERR_AMODE
    "unsupported data representation",          // MPI_ERR_UNSUPPORTED_DATAREP
    "unsupported operation",                    // MPI_ERR_UNSUPPORTED_OPERATION
    "no such file",                             // MPI_ERR_NO_SUCH_FILE
    "file exists",                              // MPI_ERR_FILE_EXISTS
    "invalid file name",                        // MPI_ERR_BAD_FILE
    "permission denied",                        // MPI_ERR_ACCESS
    "not enough space",                         // MPI_ERR_NO_SPACE
    "quota exceeded",                           // MPI_ERR_QUOTA
    "read-only file or file system",            // MPI_ERR_READ_ONLY
    "file in use",                              // MPI_ERR_FILE_IN_USE
    "data representation already defined",      // MPI_ERR_DUP_DATAREP
    "data conversion failed",                   // MPI_ERR_CONVERSION
    "I/O error",                                // MPI_ERR_IO
};
static_assert(sizeof error_texts / sizeof error_texts[0] == MPI_ERR_LASTCODE + 1);

}  // namespace

const char *error_text(int code) {
    return code >= 0 && code <= MPI_ERR_LASTCODE ? error_texts[code] : user_error_text(code);
}

size_t format_fatal(char *buf, size_t cap, int rank, const char *function, int code, const char *detail) {
    TextBuilder t(buf, cap);
    t.put("MPI error: ");
    if (rank >= 0) t.put("rank ").put_int(rank).put(": ");
    t.put(function).put(": ");
    if (const char *text = error_text(code); text && *text)
        t.put(text);
    else
        t.put("error code ").put_int(code);
    if (detail && *detail) t.put(" (").put(detail).put(')');
    t.put('\n');
    return t.length();
}

namespace {

// Error handlers made by MPI_Comm_create_errhandler, per rank; index 0..3
// of the handle space are the null and the predefined handlers.
constexpr int first_user = 4;
constexpr int max_errhandlers = first_user + 8;
constexpr int max_holders = 2;  // communicators, windows
struct Errhandlers {
    MPI_Comm_errhandler_function *user[max_errhandlers];
    bool freed[max_errhandlers];  // freed by the program, still in use
    ErrhandlerHolder holders[max_holders];
    int nholders;
};
thread_local util::RankLocal<Errhandlers> t_errhandlers;

bool is_predefined(MPI_Errhandler h) {
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

MPI_Comm_errhandler_function *user_function(MPI_Errhandler h) {
    const int i = table_index(h, HandleKind::errhandler, first_user, max_errhandlers);
    return i < 0 ? nullptr : t_errhandlers.get().user[i];
}

}  // namespace

// A freed handler stays valid while a communicator uses it: the program
// may hold other references to it (MPI_Comm_get_errhandler gives one).
bool errhandler_valid(MPI_Errhandler h) { return is_predefined(h) || user_function(h); }

void register_errhandler_holder(const ErrhandlerHolder &holder) {
    Errhandlers &e = t_errhandlers.get();
    if (e.nholders < max_holders) e.holders[e.nholders++] = holder;
}

namespace {

bool in_use(MPI_Errhandler h) {
    const Errhandlers &e = t_errhandlers.get();
    for (int i = 0; i < e.nholders; ++i)
        if (e.holders[i].uses(h)) return true;
    return false;
}

// The handler of the object `handle` (a communicator or a window) into
// *out; false when it names no live object of a registered kind.
bool handler_of(int handle, MPI_Errhandler *out) {
    const Errhandlers &e = t_errhandlers.get();
    for (int i = 0; i < e.nholders; ++i)
        if (handle_is(handle, e.holders[i].kind)) return e.holders[i].handler_of(handle, out);
    return false;
}

}  // namespace

void release_errhandler(MPI_Errhandler h) {
    const int i = table_index(h, HandleKind::errhandler, first_user, max_errhandlers);
    Errhandlers &e = t_errhandlers.get();
    if (i >= 0 && e.freed[i] && !in_use(h)) {
        e.user[i] = nullptr;
        e.freed[i] = false;
    }
}

int errhandler_create(MPI_Comm_errhandler_function *function, MPI_Errhandler *out) {
    Errhandlers &e = t_errhandlers.get();
    for (int i = first_user; i < max_errhandlers; ++i)
        if (!e.user[i]) {
            e.user[i] = function;
            *out = make_handle(HandleKind::errhandler, i);
            return MPI_SUCCESS;
        }
    return MPI_ERR_NO_MEM;
}

// A freed handler stays usable by the communicators that have it until
// they change it (section 8.3.4): its slot is only marked for reuse when
// no communicator of the rank refers to it.
void errhandler_free(MPI_Errhandler h) {
    if (is_predefined(h)) return;
    const int i = handle_index(h);
    Errhandlers &e = t_errhandlers.get();
    e.freed[i] = true;
    if (!in_use(h)) {
        e.user[i] = nullptr;
        e.freed[i] = false;
    }
}

int set_errhandler(MPI_Errhandler *slot, MPI_Errhandler errhandler) {
    if (!errhandler_valid(errhandler)) return MPI_ERR_ARG;
    const MPI_Errhandler old = *slot;
    *slot = errhandler;
    if (old != errhandler) release_errhandler(old);
    return MPI_SUCCESS;
}

// A window handle (kind 'W') in place of `comm` names the window, whose
// handler is called with it (section 8.3.2): both are ints. A handle of
// no live object raises on MPI_COMM_WORLD, whose handler is the default
// until the rank's communicators exist.
int raise_error(MPI_Comm comm, const char *function, int code, const char *detail) {
    MPI_Errhandler h = 0;
    if (!handler_of(comm, &h)) {
        comm = MPI_COMM_WORLD;
        if (!handler_of(comm, &h)) h = 0;
    }
    if (!h) h = MPI_ERRORS_ARE_FATAL;
    if (h == MPI_ERRORS_RETURN) return code;
    if (MPI_Comm_errhandler_function *f = user_function(h)) {
        int error = code;
        f(&comm, &error);
        return code;
    }
    char report[MPI_MAX_ERROR_STRING + 128];
    const int rank = state().initialized ? util::world_rank() : -1;
    format_fatal(report, sizeof report, rank, function, code, detail);
    util::report(report);
    util::abort_job(code);
}

}  // namespace lwmpi

namespace lwmpi {

int require_active(const char *function) {
    MpiState &st = state();
    st.call = function;
    if (!st.initialized)
        return raise_error(MPI_COMM_WORLD, function, MPI_ERR_OTHER, "MPI is not initialized");
    if (st.finalized) return raise_error(MPI_COMM_WORLD, function, MPI_ERR_OTHER, "MPI is finalized");
    return MPI_SUCCESS;
}

}  // namespace lwmpi
