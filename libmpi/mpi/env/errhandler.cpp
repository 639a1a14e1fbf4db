// The calls that make and free error handlers (MPI 3.1 sections 8.3.1,
// 8.3.2 and 8.3.4); the table and raise_error are errors.cpp's, the
// calls that attach a handler to an object are its room's.
#include <mpi.h>

#include "call.hpp"
#include "errors.hpp"

using namespace lwmpi;

namespace lwmpi {
namespace {

// MPI_Comm_create_errhandler and MPI_Win_create_errhandler (`call`).
int create_errhandler(Call &call, MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler) {
    if (int e = call.active()) return e;
    if (!function || !errhandler) return call.fail(MPI_ERR_ARG);
    if (errhandler_create(function, errhandler)) return call.fail(MPI_ERR_NO_MEM, "too many error handlers");
    return MPI_SUCCESS;
}

}  // namespace
}  // namespace lwmpi

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler) {
    Call call("MPI_Comm_create_errhandler");
    return create_errhandler(call, function, errhandler);
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *function, MPI_Errhandler *errhandler) {
    Call call("MPI_Win_create_errhandler");
    // (The same calling sequence: a pointer to an int handle, a pointer to the code.)
    return create_errhandler(call, reinterpret_cast<MPI_Comm_errhandler_function *>(function), errhandler);
}

int MPI_File_create_errhandler(MPI_File_errhandler_function *function, MPI_Errhandler *errhandler) {
    Call call("MPI_File_create_errhandler");
    return create_errhandler(call, reinterpret_cast<MPI_Comm_errhandler_function *>(function), errhandler);
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler) {
    Call call("MPI_Errhandler_free");
    if (!errhandler || !errhandler_valid(*errhandler)) return call.fail(MPI_ERR_ARG, "invalid error handler");
    errhandler_free(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;  // also of a predefined one: section 8.3.4 allows freeing these
    return MPI_SUCCESS;
}
