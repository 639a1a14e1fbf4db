// MPIUtil: the tier of LWMPI that touches the OS (docs/lwmpi.md, "LibMPI
// and MPIUtil"). LibMPI (libmpi/mpi) calls only these functions.
//
// Ranks are MPI_COMM_WORLD ranks; messages are told apart by a context id
// chosen by LibMPI per communicator. Communication is non-blocking: isend()
// and irecv() start a request, progress() moves every request of the
// calling rank on, idle() sleeps until something may have happened. Every
// function that can fail returns MPI_SUCCESS or an MPI error class, and then
// error_detail() explains the failure (for the error handler's message).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace lwmpi::util {

/// Most ranks a job may have (bounds the per-rank tables): MPPA-256's 16
/// compute clusters of 16 PEs, which the linux64 target runs at full size.
inline constexpr int max_ranks = 256;
/// Most MPI processes on one cluster: one per PE of a compute cluster
/// (TS_MAX_CORES - 1), whose slots of the local path share a small area.
inline constexpr int max_local_ranks = 16;
/// Requests one rank may have in flight (MPI_ERR_NO_MEM beyond); LibMPI's
/// persistent and buffered requests included. MPIUtil's and LibMPI's
/// request tables are empty until the first request and grow by slabs of
/// request_slab entries (<lwmpi/pool.hpp>) as a program keeps more in flight;
/// each entry costs about 120 bytes (MPIUtil) and 170 (LibMPI).
inline constexpr int max_requests = 0x10000;
inline constexpr int request_slab = 16;
/// Default eager threshold (bytes), when mpirun gives none.
inline constexpr uint64_t default_eager_max = 512;
/// Eager messages a sender may have unconsumed at one receiver, at least
/// and at most (eager_credits()); beyond, standard sends use the
/// rendezvous (flow control, nothing dropped).
inline constexpr int min_eager_credits = 8;
inline constexpr int max_eager_credits = 64;
/// Bytes of unconsumed eager data a receiver may get from all its senders
/// together, as far as min_eager_credits allows.
inline constexpr uint64_t eager_budget = 64 * 1024;

/// The eager credits of a job of `np` ranks whose eager threshold is
/// `eager_max` bytes: as many as keep a receiver's unconsumed eager data
/// within eager_budget, from min_eager_credits to max_eager_credits. Few ranks
/// get many, so that a window of small sends (osu_bw's 64) stays eager.
constexpr int eager_credits(int np, uint64_t eager_max) {
    const uint64_t senders = np > 1 ? static_cast<uint64_t>(np - 1) : 1;
    const uint64_t fit = eager_budget / (senders * (eager_max > 0 ? eager_max : 1));
    return fit < min_eager_credits   ? min_eager_credits
           : fit > max_eager_credits ? max_eager_credits
                                     : static_cast<int>(fit);
}
/// Bytes of eager data a rank may have waiting, unconsumed, at the other
/// ranks of its cluster on the local path.
inline constexpr uint64_t local_eager_budget = 16384;
/// Inline bytes of a reused local message block (larger eager messages on
/// the local path get a block of their own).
inline constexpr uint64_t local_block_data = default_eager_max;

/// Wildcards of irecv(); equal to MPI_ANY_SOURCE and MPI_ANY_TAG.
inline constexpr int any_source = -1;
inline constexpr int any_tag = -1;

/// How a message travels (docs/lwmpi.md, "Protocols"). LibMPI chooses.
enum class Protocol : uint8_t {
    eager,       ///< inside mailbox messages; the send completes at once
    rendezvous,  ///< RTS -> CTS + portal allow -> portal data
    local,       ///< same cluster: through shared memory, one copy
};

/// Send modes that change the protocol's completion (MPI 3.1 section 3.4).
enum class SendMode : uint8_t {
    standard,     ///< may complete before the receive starts
    synchronous,  ///< completes once the receive has started
};

/// What a rank waiting for a message does between two progress passes
/// (mpirun --wait-policy; docs/lwmpi.md, "Progress and waiting").
enum class WaitPolicy : uint8_t {
    spin,      ///< polls again at once, giving the host's CPU away in between
    block,     ///< sleeps in the kernel until something may have happened
    adaptive,  ///< polls for adaptive_poll_ns, then sleeps
};

/// How long an `adaptive` wait polls before it sleeps, ns: a few message
/// round trips on linux64, where a wake-up costs tens of microseconds.
inline constexpr unsigned long adaptive_poll_ns = 50'000;
/// An adaptive wait reads the clock once every this many polls.
inline constexpr uint32_t polls_per_clock = 16;

/// Job parameters of LWMPI (from mpirun).
struct Limits {
    uint64_t eager_max;        ///< largest eager message over IKC, bytes
    uint64_t local_eager_max;  ///< largest message the local path copies, bytes
    int eager_credits;         ///< eager_credits() of the job
    bool local_path;           ///< the shared-memory path between ranks of a cluster
    WaitPolicy wait;           ///< TS_MPI_WAIT_DEFAULT gives `block`
};

/// Starts the calling rank: IKC mailbox and portal on its MPI port, name
/// "mpi:<rank>" registered with the local name daemon. MPI_ERR_OTHER when
/// the caller is not an MPI rank or the job does not fit the tables.
int init();
/// MPI_Finalize's last barrier follows: consumed eager messages are no
/// longer credited back (their senders send nothing after the barrier),
/// and every message queued so far is written now: after the barrier,
/// everything sent to the caller is in its cluster.
int quiesce();
/// Releases what init() took, after reading every message still on its
/// way to the caller. Call after quiesce() and a barrier.
int finalize();

/// The caller's MPI process number (after init()): its MPI_COMM_WORLD
/// rank, or for the job's I/O rank (mpirun --io-rank), which is in no
/// world rank's MPI_COMM_WORLD, world_size(). Groups name processes by it.
int world_rank();
/// The size of the compute ranks' MPI_COMM_WORLD (after init()).
int world_size();
/// The job's I/O rank's process number (world_size()), or -1 when the job
/// has none (after init()).
int io_rank();
/// The caller's application in an MPMD launch (MPI_APPNUM, MPI 3.1
/// section 10.5.3): 0 for the first, and for a launch of one program.
int appnum();
/// The caller's cluster id (after init()).
int cluster_id();
/// Which compute cluster hosts world rank `rank` (0..clusters-1, as placed
/// by the process manager), for the collectives' choice of partners; -1
/// for the I/O rank, alone on its I/O cluster.
int cluster_of(int rank);
/// The job's LWMPI parameters (after init()).
const Limits &limits();
/// Whether world rank `rank` runs on the caller's cluster, from the job's
/// placement (no name resolution). MPI_SUCCESS or MPI_ERR_RANK.
int same_cluster(int rank, bool *out);

/// What a completed request reports.
struct Status {
    int source;  ///< world rank of the sender
    int tag;
    uint64_t bytes;          ///< bytes stored in the receive buffer
    uint64_t offered;        ///< bytes the sender sent (more than bytes: truncated)
    int error;               ///< MPI_SUCCESS or the class of the failure
    bool cancelled = false;  ///< cancel() took the operation back: nothing else is set
};

/// Starts sending `bytes` bytes of `buf` to world rank `dst` (may be the
/// caller) with envelope (my rank, tag, context) by `protocol`; *req gets
/// the request. An eager request falls back to the rendezvous when the
/// receiver has no credit left for the caller. MPI_ERR_NO_MEM when the
/// request pool is full.
int isend(Protocol protocol, SendMode mode, int dst, int tag, uint32_t context, const void *buf,
          uint64_t bytes, int *req);

/// Starts receiving the oldest message matching (source or any_source, tag
/// or any_tag, context) into `buf` of `capacity` bytes (MPI 3.1 sections
/// 3.2.4, 3.5). A longer message fills the buffer (Status::offered >
/// bytes).
int irecv(int source, int tag, uint32_t context, void *buf, uint64_t capacity, int *req);

/// Matched probe (MPI 3.1 section 3.8.2): when a message matching (source
/// or any_source, tag or any_tag, context) has arrived, takes the oldest
/// such off the matching, so that no other receive gets it, into a new
/// receive request *req (not started: mrecv() starts it), its envelope
/// and size in *st; else *req is -1. MPI_ERR_NO_MEM when the request pool
/// is full.
int mprobe(int source, int tag, uint32_t context, Status *st, int *req);
/// Starts receive `req` of mprobe() into `buf` of `capacity` bytes; it
/// completes as irecv()'s do.
int mrecv(int req, void *buf, uint64_t capacity);

/// Moves every request of the caller on, without blocking. An error here
/// (an IKC failure) is fatal for the rank's communication.
int progress();
/// Between two passes of a wait (MPI_Wait, MPI_Recv, ...): returns at once
/// when the last progress() did something, so a caller that checks its
/// requests, then idles, never sleeps past a completion; otherwise polls
/// or blocks until progress() may have something new to do, as the wait
/// policy says.
void idle();
/// Where LibMPI keeps the name of the MPI call in progress (a static
/// string, e.g. "MPI_Recv"), which the job monitor hears when the rank is
/// blocked in it (watch.cpp).
void watch_calls(const char *const *where);
/// A test (MPI_Test, MPI_Iprobe, ...) found nothing and the last progress()
/// did nothing: lets the other cores of the host run a moment, since a
/// program that tests in a loop would otherwise keep the CPU from the rank
/// it waits for (QEMU runs every hart in one host thread). Once such tests
/// have followed one another for test_poll_ns with no progress, each one
/// also sleeps until an event of the rank, at most test_sleep_ns, so that
/// ranks that only test give their host cores to those with work (an
/// oversubscribed host).
void test_failed();
/// How long tests that find nothing poll before they sleep (test_failed),
/// and how long such a sleep lasts at most, ns.
inline constexpr unsigned long test_poll_ns = 50'000;
inline constexpr unsigned long test_sleep_ns = 1'000'000;

// ---- threads (threads.cpp): MPI_THREAD_MULTIPLE, MPI 3.1 section 12.4 ----

/// Lets every thread of the calling rank call MPI at any time
/// (MPI_THREAD_MULTIPLE), after init(): from now on each MPI call holds
/// the rank's lock, which a call that waits lets go while it waits.
void allow_threads();
/// True once allow_threads() was called.
bool threads_allowed();
/// An MPI call begins: once threads are allowed, waits for the rank's
/// lock (a thread that holds it already nests). Returns whether it took
/// it, for leave_call().
bool enter_call();
/// The MPI call that enter_call() answered `took` for ends.
void leave_call(bool took);
/// How long a thread blocked in MPI sleeps at most once threads are
/// allowed, ns: the kernel tells a thread of the end of the asynchronous
/// IKC operations it started only, and another thread of its rank may
/// have started those it waits for.
inline constexpr unsigned long threads_sleep_max_ns = 1'000'000;
/// True when request `req` completed; *st (may be null) gets its status.
bool done(int req, Status *st);
/// Frees a completed request.
void release(int req);
/// Cancels request `req` (MPI 3.1 section 3.8.4), not released yet (a
/// send may be done). A receive no message has matched yet is done at
/// once, its status `cancelled`; a matched one goes on. A send asks its
/// receiver to take its message out of those no receive matched yet, and
/// is not done before the answer: `cancelled` then says whether it was
/// taken out (and nothing of it is left to move), else the send goes on
/// and completes as usual. The answer comes from the receiver's progress
/// (any MPI call of it that waits or tests). MPI_SUCCESS, or the class of
/// a failure to reach the receiver.
int cancel(int req);
/// Whether a message matching (source, tag, context) has arrived, without
/// receiving it (MPI 3.1 section 3.8.1): its envelope and size in *st.
bool probe(int source, int tag, uint32_t context, Status *st);

/// Heap blocks the calling rank's message path has taken from malloc since
/// init() (nodes of arrived messages, local message blocks, mailbox
/// messages to write, the table of fragmented eager messages): spare ones
/// are reused, so steady traffic into posted receives takes none.
uint64_t heap_allocations();

/// True when the job is traced (mpirun --trace): LibMPI then records the
/// calls it serves with trace_call().
bool tracing();
/// Records that MPI call `fn` (a static name, "MPI_Send") is entered, or
/// left when `leave`, on the caller's core (<tessera/trace.h>). Only when
/// tracing().
void trace_call(const char *fn, bool leave);

/// Seconds since an arbitrary origin, and the length of one tick.
double wtime();
double wtick();
/// The core of its cluster the caller runs on.
int core_id();

/// Writes a report (a NUL-terminated line) to the console in one piece,
/// after the caller's buffered stdio output and on a line of its own.
void report(const char *line);
/// Ends the whole job with exit status `code`.
[[noreturn]] void abort_job(int code);

// ---- Files (MPI-IO's storage: the job folder's files through the file
// server). Each returns MPI_SUCCESS or an MPI-IO error class (MPI 3.1
// section 13.7, table 8.1): MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS,
// MPI_ERR_ACCESS, MPI_ERR_BAD_FILE (a name the job may not use),
// MPI_ERR_NO_SPACE, MPI_ERR_READ_ONLY, MPI_ERR_IO (anything else), with
// error_detail() saying what the OS answered.

/// How file_open() opens a file, or'ed: for reading, for writing (both:
/// for both), made when missing, and with file_create_flag failing
/// (MPI_ERR_FILE_EXISTS) when it exists.
inline constexpr unsigned file_read_flag = 1, file_write_flag = 2, file_create_flag = 4,
                          file_exclusive_flag = 8;
/// The most bytes one read or write of the file server moves in one
/// request, which it serves whole, atomically with respect to every other
/// request (<tessera/file_protocol.h>'s TS_FILE_CHUNK): a larger transfer
/// is several requests.
inline constexpr uint64_t file_atomic_bytes = 1 << 20;
/// Opens `path` with `flags` into *fd.
int file_open(const char *path, unsigned flags, int *fd);
int file_close(int fd);
/// Reads up to n bytes at byte `offset` into buf; *got: how many (fewer
/// only at the end of the file).
int file_read_at(int fd, void *buf, uint64_t n, int64_t offset, uint64_t *got);
/// Writes n bytes at byte `offset`, all of them.
int file_write_at(int fd, const void *buf, uint64_t n, int64_t offset);
int file_size(int fd, int64_t *size);
/// Cuts or extends the file to `size` bytes.
int file_resize(int fd, int64_t size);
int file_sync(int fd);
int file_delete(const char *path);

/// Why the last failing MPIUtil call failed ("" if nothing to add).
const char *error_detail();

}  // namespace lwmpi::util
