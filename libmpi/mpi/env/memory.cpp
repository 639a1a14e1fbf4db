// Memory allocation for MPI (MPI 3.1 section 8.2). Any memory serves
// LWMPI's messages and windows alike (a window's memory is reached
// through the kernel or the ranks' aliases, wherever it lies), so
// MPI_Alloc_mem is the rank's heap and no info key changes that.
#include <mpi.h>
#include <stdlib.h>

#include "call.hpp"
#include "errors.hpp"
#include "info.hpp"
#include "state.hpp"

using namespace lwmpi;

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
    Call call("MPI_Alloc_mem");
    if (int e = call.active()) return e;
    if (size < 0 || !baseptr) return call.fail(MPI_ERR_ARG);
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    void *p = malloc(size > 0 ? static_cast<size_t>(size) : 1);
    if (!p) return call.fail(MPI_ERR_NO_MEM);
    *static_cast<void **>(baseptr) = p;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base) {
    Call call("MPI_Free_mem");
    if (int e = call.active()) return e;
    free(base);
    return MPI_SUCCESS;
}
