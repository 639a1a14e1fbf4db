// The MPI_Type_* calls, MPI_Get_address and packing (MPI 3.1 chapter 4).
#include <mpi.h>

#include "datatype.hpp"
#include "errors.hpp"

int MPI_Type_size(MPI_Datatype datatype, int *size) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Type_size";
    const Datatype *t = datatype_get(datatype);
    if (!t)
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_TYPE);
    if (!size)
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
    *size = static_cast<int>(t->size);
    return MPI_SUCCESS;
}
