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
#include <thread>
#include <vector>

#include <tessera/syscall.h>

namespace fake {

/// Bytes of each rank's private area in processes mode (private_memory()).
inline constexpr size_t private_bytes = 1 << 20;

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
    /// Per rank, optional: ts_job_info.appnum, its application in an MPMD
    /// launch (MPI_APPNUM); 0 for the ranks it does not name.
    std::vector<int> appnum;
    /// ts_job_info.ranks_mode TS_RANKS_PROCESSES: each rank is a process
    /// of its own, as far as threads in one host process can be. Its
    /// threads (rank_thread()) share its os::rank_word(), and it has a
    /// private area (private_memory()) which the ranks of its cluster see
    /// at its aliases (the same pages, mapped twice), so os::global() is
    /// not the identity there. Otherwise the ranks of a cluster are
    /// threads of one process.
    bool processes = false;
    /// Processes mode: false as a platform that maps no aliases
    /// (alias_base 0): the ranks of a cluster share no memory
    /// (os::cluster_shared() is nullptr).
    bool aliases = true;
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
    /// Per rank, what it told the job monitor (TS_SYS_MPI_STATE_SEND), in order.
    std::vector<std::vector<ts_mpi_state>> mpi_states;
};

/// Runs body(rank) on np threads, each with the identity of one MPI rank
/// placed by the mapping policy; returns once all threads ended. A body
/// that returns ends its rank as the runtime does: LWMPI's rank-exit hook,
/// then its buffered output goes to the console.
JobResult run_job(const JobConfig &config, const std::function<int(int rank)> &body);

/// True when every rank returned 0 and nothing went wrong in the fabric.
bool clean(const JobResult &r);

/// A thread of the calling rank's process, as one its program would
/// start (ts_thread_create), running body() on a core of its own (one
/// such thread per rank at a time). It shares the rank's identity and
/// os::rank_word(), in both modes (the runtime gives a thread its
/// creator's rank and local index). A job that ends early ends it too.
/// Join it before the rank's body returns.
std::thread rank_thread(std::function<void()> body);

/// The calling rank's private area in processes mode (private_bytes, the
/// same pages as its aliases, which the other ranks reach through
/// os::global() forms); nullptr in threads mode.
unsigned char *private_memory();

/// Makes the calling rank's private area unreachable at its own addresses
/// (hidden true) or reachable again, its aliases staying as they are: in
/// processes mode on the target those addresses are another process's
/// memory for every other rank, so a rank that reads another's through
/// them fails (here, the whole test program crashes).
void hide_private(bool hidden);

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
