// Error strings and error handler dispatch.
#include "errors.hpp"

#include "common/handles.hpp"
#include "state.hpp"
#include "rma/win.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

namespace lwmpi {

namespace {

// Indexed by error class (mpi.h); MPI 3.1 table 8.1.
constexpr const char *kErrorText[] = {
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
static_assert(sizeof kErrorText / sizeof kErrorText[0] == MPI_ERR_LASTCODE + 1);

}  // namespace

const char *error_text(int code) {
    return code >= 0 && code <= MPI_ERR_LASTCODE ? kErrorText[code] : user_error_text(code);
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
constexpr int kFirstUser = 4;
constexpr int kMaxErrhandlers = kFirstUser + 8;
struct Errhandlers {
    MPI_Comm_errhandler_function *user[kMaxErrhandlers];
    bool freed[kMaxErrhandlers];  // freed by the program, still in use
};
thread_local util::RankLocal<Errhandlers> t_errhandlers;

bool is_predefined(MPI_Errhandler h) {
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

MPI_Comm_errhandler_function *user_function(MPI_Errhandler h) {
    const int i = table_index(h, HandleKind::errhandler, kFirstUser, kMaxErrhandlers);
    return i < 0 ? nullptr : t_errhandlers.get().user[i];
}

}  // namespace

// A freed handler stays valid while a communicator uses it: the program
// may hold other references to it (MPI_Comm_get_errhandler gives one).
bool errhandler_valid(MPI_Errhandler h) { return is_predefined(h) || user_function(h); }

namespace {
bool in_use(MPI_Errhandler h) {
    for (int i = 1; i < kMaxComms; ++i)
        if (const Comm *c = comm_at(i); c && c->in_use && c->errhandler == h) return true;
    return win_uses_errhandler(h);
}
}  // namespace

void release_errhandler(MPI_Errhandler h) {
    const int i = table_index(h, HandleKind::errhandler, kFirstUser, kMaxErrhandlers);
    Errhandlers &e = t_errhandlers.get();
    if (i >= 0 && e.freed[i] && !in_use(h)) {
        e.user[i] = nullptr;
        e.freed[i] = false;
    }
}

// A window handle (kind 'W') in place of `comm` names the window, whose
// handler is called with it (section 8.3.2): both are ints.
int raise_error(MPI_Comm comm, const char *function, int code, const char *detail) {
    MPI_Errhandler h = 0;
    if (!handle_is(comm, HandleKind::win) || !win_errhandler(comm, &h)) {
        const Comm *c = comm_get(comm);
        if (!c) {
            comm = MPI_COMM_WORLD;
            c = comm_get(comm);
        }
        h = c->errhandler;
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

// Allowed before MPI_Init too, so that a program (or a test) can choose
// MPI_ERRORS_RETURN for MPI_Init's own errors.
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_set_errhandler";
    Comm *c = comm_get(comm);
    if (!c) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM);
    if (!errhandler_valid(errhandler)) return raise_error(comm, fn, MPI_ERR_ARG, "invalid error handler");
    const MPI_Errhandler old = c->errhandler;
    c->errhandler = errhandler;
    if (old != errhandler) release_errhandler(old);
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_get_errhandler";
    const Comm *c = comm_get(comm);
    if (!c) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM);
    if (!errhandler) return raise_error(comm, fn, MPI_ERR_ARG);
    *errhandler = c->errhandler ? c->errhandler : MPI_ERRORS_ARE_FATAL;
    return MPI_SUCCESS;
}

namespace lwmpi {
namespace {
// MPI_Comm_create_errhandler and MPI_Win_create_errhandler: a window's
// handler is called as a communicator's, with the window's handle.
int create_errhandler(const char *fn, MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler) {
    if (int e = require_active(fn)) return e;
    if (!function || !errhandler) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
    Errhandlers &e = t_errhandlers.get();
    for (int i = kFirstUser; i < kMaxErrhandlers; ++i)
        if (!e.user[i]) {
            e.user[i] = function;
            *errhandler = make_handle(HandleKind::errhandler, i);
            return MPI_SUCCESS;
        }
    return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_NO_MEM, "too many error handlers");
}
}  // namespace
}  // namespace lwmpi

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler) {
    return lwmpi::create_errhandler("MPI_Comm_create_errhandler", function, errhandler);
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *function, MPI_Errhandler *errhandler) {
    // (The same calling sequence: a pointer to an int handle, a pointer to the code.)
    return lwmpi::create_errhandler("MPI_Win_create_errhandler",
                                    reinterpret_cast<MPI_Comm_errhandler_function *>(function), errhandler);
}

// A freed handler stays usable by the communicators that have it until
// they change it (section 8.3.4): its slot is only marked for reuse when
// no communicator of the rank refers to it.
int MPI_Errhandler_free(MPI_Errhandler *errhandler) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Errhandler_free";
    if (!errhandler || !errhandler_valid(*errhandler))
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "invalid error handler");
    if (is_predefined(*errhandler)) {
        *errhandler = MPI_ERRHANDLER_NULL;  // section 8.3.4 allows freeing these
        return MPI_SUCCESS;
    }
    const int i = handle_index(*errhandler);
    Errhandlers &e = t_errhandlers.get();
    e.freed[i] = true;
    if (!in_use(*errhandler)) {
        e.user[i] = nullptr;
        e.freed[i] = false;
    }
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_call_errhandler";
    if (!comm_get(comm)) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM);
    raise_error(comm, fn, errorcode, "raised by the program");
    return MPI_SUCCESS;
}
