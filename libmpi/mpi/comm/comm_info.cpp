// Info hints of communicators (MPI 3.1 section 6.4.4). LWMPI acts on no
// hint of a communicator, so it keeps none: MPI_Comm_get_info gives an
// empty object, as the standard allows.
#include <mpi.h>

#include "env/call.hpp"
#include "comm.hpp"
#include "env/errors.hpp"
#include "env/info.hpp"
#include "env/state.hpp"

using namespace lwmpi;

/// Gives comm the hints in info (none is used; MPI_INFO_NULL: no hints)
/// (section 6.4.4).
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
    Call call("MPI_Comm_set_info");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    return MPI_SUCCESS;
}

/// A new info object with the hints comm uses: none (section 6.4.4). The
/// program frees it.
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) {
    Call call("MPI_Comm_get_info");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!info_used) return call.fail(MPI_ERR_ARG, "info_used is NULL");
    if (int e = info_new(info_used)) return call.fail(e, "too many info objects");
    return MPI_SUCCESS;
}
