// Batches of point-to-point operations for the collectives (batch.hpp).
#include "batch.hpp"

#include <stdlib.h>

#include "request.hpp"

namespace lwmpi {

Batch::Batch(const Comm &c, int window) : c_(c), h_(inline_), window_(window < 1 ? 1 : window) {
    if (window_ <= batch_window) return;
    h_ = static_cast<MPI_Request *>(malloc(sizeof(MPI_Request) * static_cast<size_t>(window_)));
    if (!h_) {
        h_ = inline_;
        window_ = batch_window;
        error_ = MPI_ERR_NO_MEM;  // nothing will start
    }
}

Batch::~Batch() {
    finish();
    if (h_ != inline_) free(h_);
}

void Batch::send(int dst, int tag, const void *buf, int count, MPI_Datatype t) {
    add(P2POp{Op2::send, buf, nullptr, count, t, dst, tag, c_.handle, true});
}

void Batch::recv(int src, int tag, void *buf, int count, MPI_Datatype t) {
    add(P2POp{Op2::recv, nullptr, buf, count, t, src, tag, c_.handle, true});
}

int Batch::finish() {
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

void Batch::add(const P2POp &op) {
    if (n_ == window_) finish();
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

}  // namespace lwmpi
