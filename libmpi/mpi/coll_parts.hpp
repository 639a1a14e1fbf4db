// What LibMPI's blocking collectives are made of: point-to-point messages
// on a communicator's collective context, one at a time or in batches,
// and temporary buffers (coll_common.hpp has the rest they share with the
// non-blocking ones).
#pragma once

#include <mpi.h>

#include <stdlib.h>

#include "comm.hpp"
#include "datatype.hpp"
#include "request.hpp"

namespace lwmpi {

/// Requests a Batch keeps in flight at most.
inline constexpr int kBatch = 32;

/// A blocking send (recv: receive) on `c`'s collective context; MPI_SUCCESS
/// or an error class.
inline int send(const Comm &c, int dst, int tag, const void *buf, int count, MPI_Datatype t) {
    return run(P2POp{Op2::send, buf, nullptr, count, t, dst, tag, c.handle, true}, MPI_STATUS_IGNORE);
}

inline int recv(const Comm &c, int src, int tag, void *buf, int count, MPI_Datatype t) {
    return run(P2POp{Op2::recv, nullptr, buf, count, t, src, tag, c.handle, true}, MPI_STATUS_IGNORE);
}

/// Point-to-point operations on `c`'s collective context, started together
/// and completed together, kBatch at a time. The first error class is
/// kept; after it nothing more is started.
class Batch {
public:
    explicit Batch(const Comm &c) : c_(c) {}
    Batch(const Batch &) = delete;
    Batch &operator=(const Batch &) = delete;
    ~Batch() { finish(); }

    void send(int dst, int tag, const void *buf, int count, MPI_Datatype t) {
        add(P2POp{Op2::send, buf, nullptr, count, t, dst, tag, c_.handle, true});
    }
    void recv(int src, int tag, void *buf, int count, MPI_Datatype t) {
        add(P2POp{Op2::recv, nullptr, buf, count, t, src, tag, c_.handle, true});
    }
    /// Waits for every operation; the first error class, or MPI_SUCCESS.
    int finish() {
        for (int i = 0; i < n_; ++i) {
            // Finished already, if a wait of an earlier call was cut short
            // (the host tests end a rank's thread by unwinding it).
            if (h_[i] == MPI_REQUEST_NULL) continue;
            Request &r = *request_get(h_[i]);
            int e = request_wait(r);
            const int e2 = request_finish(&h_[i], MPI_STATUS_IGNORE);
            e = e ? e : e2;
            error_ = error_ ? error_ : e;
        }
        n_ = 0;
        return error_;
    }

private:
    void add(const P2POp &op) {
        if (n_ == kBatch) finish();
        if (error_) return;
        int e = request_new(op, false, &h_[n_]);
        if (e == MPI_SUCCESS) {
            e = request_start(*request_get(h_[n_]));
            if (e)
                request_finish(&h_[n_], MPI_STATUS_IGNORE);
            else
                ++n_;
        }
        error_ = e;
    }

    const Comm &c_;
    MPI_Request h_[kBatch];
    int n_ = 0;
    int error_ = MPI_SUCCESS;
};

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
