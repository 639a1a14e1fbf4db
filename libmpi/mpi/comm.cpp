// Communicator queries, error handlers and datatype sizes (MPI 3.1
// sections 4.1.5, 6.4.1 and 8.3).
#include <mpi.h>

#include "errors.hpp"
#include "handles.hpp"
#include "state.hpp"
#include "../mpiutil/mpiutil.hpp"

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_rank";
    const CommInfo *c;
    if (int e = enter_comm(fn, comm, &c))
        return e;
    if (!rank)
        return raise_error(comm, fn, MPI_ERR_ARG);
    *rank = comm_rank(*c, util::world_rank());
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_size";
    const CommInfo *c;
    if (int e = enter_comm(fn, comm, &c))
        return e;
    if (!size)
        return raise_error(comm, fn, MPI_ERR_ARG);
    *size = comm_size(*c, util::world_size());
    return MPI_SUCCESS;
}

// Allowed before MPI_Init too, so that a program (or a test) can choose
// MPI_ERRORS_RETURN for MPI_Init's own errors.
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_set_errhandler";
    const CommInfo *c = comm_info(comm);
    if (!c)
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM);
    if (!errhandler_valid(errhandler))
        return raise_error(comm, fn, MPI_ERR_ARG);
    state().errhandler[c->slot] = errhandler;
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_get_errhandler";
    const CommInfo *c = comm_info(comm);
    if (!c)
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM);
    if (!errhandler)
        return raise_error(comm, fn, MPI_ERR_ARG);
    *errhandler = errhandler_of(*c);
    return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int *size) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Type_size";
    const DatatypeInfo *t = datatype_info(datatype);
    if (!t)
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_TYPE);
    if (!size)
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
    *size = t->size;
    return MPI_SUCCESS;
}
