// Point-to-point operations of a collective, started together and
// completed together, on a communicator's collective context.
#pragma once

#include <mpi.h>

#include "comm/comm.hpp"
#include "request.hpp"

namespace lwmpi {

/// Operations a Batch keeps in flight by default.
inline constexpr int batch_window = 32;

/// Sends and receives on c's collective context: each starts at once, and
/// at most `window` are in flight (the oldest complete first when a new
/// one needs room). finish() (or the destructor) waits for the rest. A
/// collective whose pattern needs every operation in flight at once (the
/// neighbourhood collectives) gives a window as large as its count.
class Batch {
public:
    explicit Batch(const Comm &c, int window = batch_window);
    Batch(const Batch &) = delete;
    Batch &operator=(const Batch &) = delete;
    ~Batch();

    void send(int dst, int tag, const void *buf, int count, MPI_Datatype t);
    void recv(int src, int tag, void *buf, int count, MPI_Datatype t);
    /// Waits for every operation; the first error class, or MPI_SUCCESS.
    int finish();

private:
    void add(const P2POp &op);

    const Comm &c_;
    MPI_Request inline_[batch_window];
    MPI_Request *h_;  ///< inline_, or the heap for a larger window
    int window_;
    int n_ = 0;
    int error_ = MPI_SUCCESS;
};

}  // namespace lwmpi
