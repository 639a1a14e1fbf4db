// What LibMPI's blocking collectives are made of: point-to-point messages
// on a communicator's collective context, one at a time or in batches
// (batch.hpp), and temporary buffers (coll_common.hpp has the rest they share with the
// non-blocking ones).
#pragma once

#include <mpi.h>

#include <stdlib.h>

#include "pt2pt/batch.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "pt2pt/request.hpp"

namespace lwmpi {

/// A blocking send (recv: receive) on `c`'s collective context; MPI_SUCCESS
/// or an error class.
inline int send(const Comm &c, int dst, int tag, const void *buf, int count, MPI_Datatype t) {
    return run(P2POp{Op2::send, buf, nullptr, count, t, dst, tag, c.handle, true}, MPI_STATUS_IGNORE);
}

inline int recv(const Comm &c, int src, int tag, void *buf, int count, MPI_Datatype t) {
    return run(P2POp{Op2::recv, nullptr, buf, count, t, src, tag, c.handle, true}, MPI_STATUS_IGNORE);
}

/// A temporary buffer for `count` elements of `t`, in t's layout (ok()
/// false when there was no memory).
class TempBuf {
public:
    TempBuf(int count, const Datatype &t) : lb_(t.true_lb) {
        const MPI_Aint span = count > 0 ? (count - 1) * t.extent + t.true_extent : 0;
        mem_ = static_cast<char *>(malloc(span > 0 ? static_cast<size_t>(span) : 1));
    }
    TempBuf(const TempBuf &) = delete;
    TempBuf &operator=(const TempBuf &) = delete;
    ~TempBuf() { free(mem_); }

    bool ok() const { return mem_ != nullptr; }
    /// The buffer as an MPI buffer argument (its first byte of data is at
    /// get() + true_lb).
    void *get() const { return mem_ - lb_; }

private:
    MPI_Aint lb_;
    char *mem_;
};

}  // namespace lwmpi
