// MPI_Buffer_attach and MPI_Buffer_detach (MPI 3.1 section 3.6.1): the
// program's side of the buffer of buffered sends (bsend.hpp).
#include <mpi.h>
#include <stdint.h>

#include "env/call.hpp"
#include "bsend.hpp"
#include "env/errors.hpp"
#include "request.hpp"
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi;

int MPI_Buffer_attach(void *buffer, int size) {
    Call call("MPI_Buffer_attach");
    if (int e = call.active()) return e;
    uint64_t attached;
    if (bsend_buffer(&attached)) return call.fail(MPI_ERR_BUFFER, "a buffer is attached already");
    if (size < 0 || (!buffer && size > 0)) return call.fail(MPI_ERR_BUFFER, "invalid buffer or size");
    bsend_attach(buffer, static_cast<uint64_t>(size));
    return MPI_SUCCESS;
}

// Waits until every buffered message has left (section 3.6.1).
int MPI_Buffer_detach(void *buffer_addr, int *size) {
    Call call("MPI_Buffer_detach");
    if (int e = call.active()) return e;
    if (!buffer_addr || !size) return call.fail(MPI_ERR_ARG);
    uint64_t bytes;
    void *base = bsend_buffer(&bytes);
    if (!base) return call.fail(MPI_ERR_BUFFER, "no buffer is attached");
    while (bsend_pending() > 0) {
        if (int e = progress_requests()) return call.fail(e, util::error_detail());
        if (bsend_pending() > 0) util::idle();
    }
    *static_cast<void **>(buffer_addr) = base;
    *size = static_cast<int>(bytes);
    bsend_finalize();
    return MPI_SUCCESS;
}
