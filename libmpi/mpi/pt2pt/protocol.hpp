// LibMPI's choice of protocol for a message (docs/lwmpi.md, "Protocols").
#pragma once

#include <stdint.h>

#include <mpiutil/mpiutil.hpp>

namespace lwmpi {

/// The protocol for a message of `bytes` bytes to a rank of the caller's
/// cluster (`same_cluster`) or another: the local path inside a cluster
/// when the job has it on; otherwise eager up to the job's threshold and
/// rendezvous above it. MPIUtil may still send an eager message by
/// rendezvous when the receiver has no credit left, and always does for
/// synchronous sends.
constexpr util::Protocol choose_protocol(uint64_t bytes, bool same_cluster, const util::Limits &limits) {
    if (same_cluster && limits.local_path) return util::Protocol::local;
    return bytes <= limits.eager_max ? util::Protocol::eager : util::Protocol::rendezvous;
}

}  // namespace lwmpi
