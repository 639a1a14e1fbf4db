// Info hints of communicators (MPI 3.1 section 6.4.4). LWMPI acts on no
// hint of a communicator, so it keeps none: MPI_Comm_get_info gives an
// empty object, as the standard allows.
#include <mpi.h>

#include "comm.hpp"
#include "env/errors.hpp"
#include "env/info.hpp"
#include "env/state.hpp"

/// Gives comm the hints in info (none is used; MPI_INFO_NULL: no hints)
/// (section 6.4.4).
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_set_info";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (info != MPI_INFO_NULL && !info_valid(info)) return raise_error(comm, fn, MPI_ERR_INFO);
    return MPI_SUCCESS;
}

/// A new info object with the hints comm uses: none (section 6.4.4). The
/// program frees it.
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_get_info";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!info_used) return raise_error(comm, fn, MPI_ERR_ARG, "info_used is NULL");
    if (int e = info_new(info_used)) return raise_error(comm, fn, e, "too many info objects");
    return MPI_SUCCESS;
}
