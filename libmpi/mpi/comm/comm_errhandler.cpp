// Error handlers of communicators (MPI 3.1 section 8.3.1): the handler
// table and raise_error are env/errors.cpp's.
#include <mpi.h>

#include "env/call.hpp"
#include "comm.hpp"
#include "env/errors.hpp"

using namespace lwmpi;

// Allowed before MPI_Init too, so that a program (or a test) can choose
// MPI_ERRORS_RETURN for MPI_Init's own errors.
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
    Call call("MPI_Comm_set_errhandler");
    Comm *c = comm_get(comm);
    if (!c) return call.fail(MPI_ERR_COMM);
    if (set_errhandler(&c->errhandler, errhandler))
        return raise_error(comm, call.name(), MPI_ERR_ARG, "invalid error handler");
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
    Call call("MPI_Comm_get_errhandler");
    const Comm *c = comm_get(comm);
    if (!c) return call.fail(MPI_ERR_COMM);
    if (!errhandler) return raise_error(comm, call.name(), MPI_ERR_ARG);
    *errhandler = c->errhandler ? c->errhandler : MPI_ERRORS_ARE_FATAL;
    return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
    Call call("MPI_Comm_call_errhandler");
    if (!comm_get(comm)) return call.fail(MPI_ERR_COMM);
    raise_error(comm, call.name(), errorcode, "raised by the program");
    return MPI_SUCCESS;
}
