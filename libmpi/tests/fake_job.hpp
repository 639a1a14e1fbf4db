// Host test harness: runs an MPI "job" whose ranks are std::threads, over a
// simulated IKC fabric and name service (fake_os.cpp implements lwmpi::os
// with the semantics of <tessera/syscall.h> and <tessera/names.h>: N:1
// mailboxes with one hardware slot per sending cluster and a per-cluster
// buffers table, receiver-driven 1:1 portals needing an allow, one
// asynchronous operation per object, names registered per cluster, and a
// block of memory shared by the ranks of each cluster).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace fake {

/// What cluster_shared() gives at most (as the target's LWMPI globals).
inline constexpr int kClusterSharedBytes = 8192;

struct JobConfig {
    int np = 2;
    int ncompute = 4;   ///< compute clusters
    int slots = 4;      ///< MPI processes per compute cluster
    int nio = 1;        ///< I/O clusters (cluster ids 0..nio-1)
    int policy = 0;     ///< TS_MAP_COMPACT or TS_MAP_SCATTER
    int payload = 120;  ///< mailbox payload bytes
    /// Mailbox messages a cluster parks for its readers (the profile's
    /// ikc_buffers); beyond, each sending cluster has one hardware slot
    /// and its writers wait.
    int ikc_buffers = 128;
    /// Output mailboxes, and output portals, a cluster may have open to
    /// one other cluster at once (the profile's virtual_per_hw): beyond,
    /// opening one fails with -TS_ENFILE.
    int virtual_per_hw = 32;
    /// The answer to a mailbox ring (os::mailbox_ring): true as on linux64
    /// (the reader takes its arrivals with os::mailbox_drain), false as on
    /// QEMU (the fabric puts them in the ring as they arrive).
    bool ring_pull = true;
    bool local_path = true;           ///< false: ts_job_info.mpi_flags = TS_JOB_MPI_LOCAL_IKC
    int eager_max = 0;                ///< ts_job_info.mpi_eager_max (0: LWMPI's default)
    bool eager_one_message = false;   ///< TS_JOB_MPI_EAGER_ONE_MESSAGE (mpirun's default on QEMU)
    int wait_policy = 0;              ///< ts_job_info.mpi_wait_policy (TS_MPI_WAIT_*)
    double timeout_s = 30;            ///< a job still running after this is hung (deadlock)
    double clock_rate = 1;            ///< how much faster the job's clock runs than real time
    std::vector<int> start_delay_ms;  ///< per rank, optional
};

struct JobResult {
    std::vector<int> status;  ///< per rank: the body's return value
    bool aborted = false;     ///< ts_job_abort was called
    int abort_code = 0;
    bool timed_out = false;  ///< the job ran past timeout_s
    int violations = 0;      ///< IKC misuse seen by the fabric
    int leaked_names = 0;    ///< names still registered at the end
    int leaked_objects = 0;  ///< mailboxes/portals not unlinked/closed
    std::string console;     ///< everything written to the console
};

/// Runs body(rank) on np threads, each with the identity of one MPI rank
/// placed by the mapping policy; returns once all threads ended. A body
/// that returns ends its rank as the runtime does: LWMPI's rank-exit hook,
/// then its buffered output goes to the console.
JobResult run_job(const JobConfig &config, const std::function<int(int rank)> &body);

/// True when every rank returned 0 and nothing went wrong in the fabric.
bool clean(const JobResult &r);

/// Buffers text as the calling rank's stdout (the runtime's line buffer):
/// it reaches the console when the rank ends or the job aborts, or when
/// LWMPI flushes it before a report.
void print(const std::string &text);

/// Waits until the mailboxes that world rank `rank` created have received
/// `n` messages in all, so a test can order events without sleeping. (On
/// the local path, ranks of one cluster exchange no mailbox messages but
/// wake-up KICKs.)
void wait_arrivals(int rank, int n);

/// Mailbox messages written to world rank `rank`'s mailboxes so far.
int arrivals(int rank);

/// Blocking IKC waits (mailbox, portal, any event) world rank `rank` has
/// made so far: each is a sleep in the kernel.
int sleeps(int rank);
/// Times world rank `rank` gave the host's CPU away (os::yield) so far.
int yields(int rank);
/// IKC calls (mailbox, portal, waits and wakes: each a kernel call on the
/// target) world rank `rank` has made so far.
int ikc_calls(int rank);

}  // namespace fake
