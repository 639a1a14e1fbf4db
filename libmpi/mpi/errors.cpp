// Error strings and error handler dispatch.
#include "errors.hpp"

#include "handles.hpp"
#include "state.hpp"
#include "../mpiutil/mpiutil.hpp"
#include "../mpiutil/text.hpp"

namespace lwmpi {

namespace {

// Indexed by error class (mpi.h); MPI 3.1 table 8.1.
constexpr const char *kErrorText[] = {
    "no error",                                   // MPI_SUCCESS
    "invalid buffer pointer",                     // MPI_ERR_BUFFER
    "invalid count argument",                     // MPI_ERR_COUNT
    "invalid datatype argument",                  // MPI_ERR_TYPE
    "invalid tag argument",                       // MPI_ERR_TAG
    "invalid communicator",                       // MPI_ERR_COMM
    "invalid rank",                               // MPI_ERR_RANK
    "invalid request",                            // MPI_ERR_REQUEST
    "invalid root",                               // MPI_ERR_ROOT
    "invalid group",                              // MPI_ERR_GROUP
    "invalid operation",                          // MPI_ERR_OP
    "invalid topology",                           // MPI_ERR_TOPOLOGY
    "invalid dimension argument",                 // MPI_ERR_DIMS
    "invalid argument",                           // MPI_ERR_ARG
    "unknown error",                              // MPI_ERR_UNKNOWN
    "message truncated on receive",               // MPI_ERR_TRUNCATE
    "other error",                                // MPI_ERR_OTHER
    "internal MPI error",                         // MPI_ERR_INTERN
    "error code is in status",                    // MPI_ERR_IN_STATUS
    "pending request",                            // MPI_ERR_PENDING
    "invalid keyval",                             // MPI_ERR_KEYVAL
    "out of memory",                              // MPI_ERR_NO_MEM
    "invalid base",                               // MPI_ERR_BASE
    "info key too long",                          // MPI_ERR_INFO_KEY
    "info value too long",                        // MPI_ERR_INFO_VALUE
    "no such info key",                           // MPI_ERR_INFO_NOKEY
    "error in spawning processes",                // MPI_ERR_SPAWN
    "invalid port name",                          // MPI_ERR_PORT
    "invalid service name",                       // MPI_ERR_SERVICE
    "service name not published",                 // MPI_ERR_NAME
    "invalid window",                             // MPI_ERR_WIN
    "invalid size argument",                      // MPI_ERR_SIZE
    "invalid displacement argument",              // MPI_ERR_DISP
    "invalid info argument",                      // MPI_ERR_INFO
    "invalid lock type",                          // MPI_ERR_LOCKTYPE
    "invalid assert argument",                    // MPI_ERR_ASSERT
    "conflicting accesses to window",             // MPI_ERR_RMA_CONFLICT
    "wrong synchronization of RMA calls",         // MPI_ERR_RMA_SYNC
    "target memory is not part of the window",    // MPI_ERR_RMA_RANGE
    "memory cannot be attached",                  // MPI_ERR_RMA_ATTACH
    "memory cannot be shared",                    // MPI_ERR_RMA_SHARED
    "window has the wrong flavor",                // MPI_ERR_RMA_FLAVOR
    "invalid file handle",                        // MPI_ERR_FILE
    "collective argument not identical",          // MPI_ERR_NOT_SAME
    "invalid file access mode",                   // MPI_ERR_AMODE
    "unsupported data representation",            // MPI_ERR_UNSUPPORTED_DATAREP
    "unsupported operation",                      // MPI_ERR_UNSUPPORTED_OPERATION
    "no such file",                               // MPI_ERR_NO_SUCH_FILE
    "file exists",                                // MPI_ERR_FILE_EXISTS
    "invalid file name",                          // MPI_ERR_BAD_FILE
    "permission denied",                          // MPI_ERR_ACCESS
    "not enough space",                           // MPI_ERR_NO_SPACE
    "quota exceeded",                             // MPI_ERR_QUOTA
    "read-only file or file system",              // MPI_ERR_READ_ONLY
    "file in use",                                // MPI_ERR_FILE_IN_USE
    "data representation already defined",        // MPI_ERR_DUP_DATAREP
    "data conversion failed",                     // MPI_ERR_CONVERSION
    "I/O error",                                  // MPI_ERR_IO
};
static_assert(sizeof kErrorText / sizeof kErrorText[0] == MPI_ERR_LASTCODE + 1);

}  // namespace

const char *error_text(int code) {
    return code >= 0 && code <= MPI_ERR_LASTCODE ? kErrorText[code] : nullptr;
}

size_t format_fatal(char *buf, size_t cap, int rank, const char *function, int code,
                    const char *detail) {
    TextBuilder t(buf, cap);
    t.put("MPI error: ");
    if (rank >= 0)
        t.put("rank ").put_int(rank).put(": ");
    t.put(function).put(": ");
    if (const char *text = error_text(code))
        t.put(text);
    else
        t.put("error code ").put_int(code);
    if (detail && *detail)
        t.put(" (").put(detail).put(')');
    t.put('\n');
    return t.length();
}

int raise_error(MPI_Comm comm, const char *function, int code, const char *detail) {
    const CommInfo *c = comm_info(comm);
    if (!c)
        c = comm_info(MPI_COMM_WORLD);
    if (errhandler_of(*c) == MPI_ERRORS_RETURN)
        return code;
    char report[MPI_MAX_ERROR_STRING + 128];
    const int rank = state().initialized ? util::world_rank() : -1;
    format_fatal(report, sizeof report, rank, function, code, detail);
    util::report(report);
    util::abort_job(code);
}

}  // namespace lwmpi
