// MPI calls made by other MPI calls: their errors come back to the caller,
// which raises them as its own (with its own function name), instead of
// being raised on the communicator by the inner call.
#pragma once

#include <mpi.h>

#include "comm.hpp"

namespace lwmpi {

/// While it lives, errors on `c` are returned (MPI_ERRORS_RETURN); then
/// c's own error handler is back.
class QuietErrors {
public:
    explicit QuietErrors(Comm &c) : c_(c), saved_(c.errhandler) { c.errhandler = MPI_ERRORS_RETURN; }
    QuietErrors(const QuietErrors &) = delete;
    QuietErrors &operator=(const QuietErrors &) = delete;
    ~QuietErrors() { c_.errhandler = saved_; }

private:
    Comm &c_;
    MPI_Errhandler saved_;
};

}  // namespace lwmpi
