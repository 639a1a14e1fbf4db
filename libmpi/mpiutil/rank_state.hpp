// Per-rank state of MPIUtil (internal). MPI ranks are threads of one
// process per cluster, so this lives in thread_local storage: plain data,
// zero-initialised, no constructors (about 4.5 KiB per thread).
#pragma once

#include <stdint.h>

#include "mapping.hpp"
#include "match.hpp"
#include "mpiutil.hpp"

namespace lwmpi::util {

inline constexpr int kDetailMax = 96;
/// Pauses between lookups of a name not linked yet (its rank has not
/// called MPI_Init): the first, doubled each time up to the longest.
inline constexpr unsigned long kLookupFirstPauseNs = 1'000'000;
inline constexpr unsigned long kLookupMaxPauseNs = 10'000'000;

struct RankState {
    bool ready;                ///< init() succeeded and finalize() not yet called
    bool entered;              ///< init() succeeded once (finalize() leaves it set)
    int rank;                  ///< MPI_COMM_WORLD rank
    int cluster;               ///< my cluster id
    int port;                  ///< my mailbox and portal port
    int mailbox;               ///< my input mailbox id
    int portal;                ///< my input portal id
    uint32_t next_seq;         ///< sequence number of my next send
    tessera::pm::JobShape shape;
    int16_t cluster_of[kMaxRanks];  ///< name cache: cluster id + 1, 0 = unknown
    UnexpectedQueue<kMaxRanks> unexpected;
    char detail[kDetailMax];
};

/// The calling rank's state.
RankState &self();

/// Records why an operation failed and returns `mpi_class`; `os_error`
/// (a -TS_E* value, or 0 for none) is appended to the detail.
int fail(int mpi_class, const char *what, long os_error = 0);

}  // namespace lwmpi::util
