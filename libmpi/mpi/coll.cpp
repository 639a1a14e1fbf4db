// MPI_Barrier.
#include "coll.hpp"

#include "errors.hpp"
#include "request.hpp"
#include "state.hpp"
#include "../mpiutil/mpiutil.hpp"

namespace lwmpi {

namespace {
constexpr int kBarrierTag = 0;
}  // namespace

int barrier(const Comm &c) {
    const int size = c.group.size;
    const int rank = c.rank;
    if (size == 1)
        return MPI_SUCCESS;
    const auto send = [&](int peer) {
        return run(P2POp{Op2::send, nullptr, nullptr, 0, MPI_BYTE, peer, kBarrierTag, c.handle, true},
                   MPI_STATUS_IGNORE);
    };
    const auto recv = [&](int peer) {
        return run(P2POp{Op2::recv, nullptr, nullptr, 0, MPI_BYTE, peer, kBarrierTag, c.handle, true},
                   MPI_STATUS_IGNORE);
    };
    // My subtree is [rank, rank + span): span is rank's lowest set bit
    // (for rank 0, the smallest power of two >= size).
    int span = rank & -rank;
    if (rank == 0)
        for (span = 1; span < size; span <<= 1) {
        }
    for (int m = 1; m < span; m <<= 1)  // gather from children
        if (rank + m < size)
            if (int e = recv(rank + m))
                return e;
    if (rank != 0) {  // report to the parent, wait for its release
        if (int e = send(rank - span))
            return e;
        if (int e = recv(rank - span))
            return e;
    }
    for (int m = span >> 1; m >= 1; m >>= 1)  // release the children
        if (rank + m < size)
            if (int e = send(rank + m))
                return e;
    return MPI_SUCCESS;
}

}  // namespace lwmpi

int MPI_Barrier(MPI_Comm comm) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Barrier";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c))
        return e;
    if (int e = barrier(*c))
        return raise_error(comm, fn, e, util::error_detail());
    return MPI_SUCCESS;
}
