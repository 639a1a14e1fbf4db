// LibMPI's choice of protocol for a message (DESIGN section 3, libmpi).
#pragma once

#include <stdint.h>

#include "../mpiutil/mpiutil.hpp"

namespace lwmpi {

/// The protocol for a message of `bytes` bytes. This version has only the
/// synchronous rendezvous; eager (small messages inside the mailbox) and
/// the intra-cluster shared-memory path come later.
constexpr util::Protocol choose_protocol(uint64_t bytes) {
    (void)bytes;
    return util::Protocol::rendezvous;
}

}  // namespace lwmpi
