// MPIUtil: the tier of LWMPI that touches the OS (DESIGN section 3,
// libmpi). LibMPI (libmpi/mpi) calls only these functions.
//
// Ranks are MPI_COMM_WORLD ranks; messages are told apart by a context id
// chosen by LibMPI per communicator. Every function that can fail returns
// MPI_SUCCESS or an MPI error class, and then error_detail() explains the
// failure (for the error handler's message).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace lwmpi::util {

/// Most ranks a job may have (bounds the per-rank tables; QEMU virt with
/// OpenSBI 1.1 has at most 128 harts, masters included).
inline constexpr int kMaxRanks = 128;

/// Wildcards of recv(); equal to MPI_ANY_SOURCE and MPI_ANY_TAG.
inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;

/// How a message travels. LibMPI chooses; only rendezvous exists so far.
enum class Protocol : int {
    rendezvous = 0,  ///< RTS -> CTS -> portal data -> ACK (synchronous)
};

/// Starts the calling rank: IKC mailbox and portal on its MPI port, name
/// "mpi:<rank>" linked to its cluster. MPI_ERR_OTHER when the caller is not
/// an MPI rank or the job does not fit the tables.
int init();
/// Releases what init() took (name, mailbox, portal). Call after a barrier.
int finalize();

/// The caller's MPI_COMM_WORLD rank and the world's size (after init()).
int world_rank();
int world_size();
/// The caller's cluster id (after init()).
int cluster_id();

/// Sends `bytes` bytes of `buf` to world rank `dst` with envelope
/// (my rank, tag, context) and returns once the receiver got them (the
/// receiver may accept fewer bytes: truncation is reported there).
/// MPI 3.1 section 3.4 (synchronous mode). Since no send completes before
/// its receive starts, a send that can never complete is MPI_ERR_OTHER at
/// once: to myself, or to a rank whose request to send to me is pending
/// (both would wait for each other).
int send(Protocol protocol, int dst, int tag, uint32_t context, const void *buf, uint64_t bytes);

/// What a receive got.
struct RecvResult {
    int source;        ///< world rank of the sender
    int tag;
    uint64_t bytes;    ///< bytes stored in the buffer
    uint64_t offered;  ///< bytes the sender sent (more than bytes: truncated)
};

/// Receives the oldest message matching (source or kAnySource, tag or
/// kAnyTag, context) into `buf` of `capacity` bytes. A longer message fills
/// the buffer (offered > bytes); that is not an error here. A receive from
/// myself is MPI_ERR_OTHER at once (no send to myself ever starts).
/// MPI 3.1 sections 3.2.4 and 3.5.
int recv(int source, int tag, uint32_t context, void *buf, uint64_t capacity, RecvResult *out);

/// Seconds since an arbitrary origin, and the length of one tick.
double wtime();
double wtick();

/// Writes a report (a NUL-terminated line) to the console in one piece,
/// after the caller's buffered stdio output and on a line of its own.
void report(const char *line);
/// Ends the whole job with exit status `code`.
[[noreturn]] void abort_job(int code);

/// Why the last failing MPIUtil call failed ("" if nothing to add).
const char *error_detail();

}  // namespace lwmpi::util
