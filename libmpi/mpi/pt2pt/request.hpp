// LibMPI requests (MPI 3.1 sections 3.7-3.9): the per-rank table behind
// MPI_Request handles, over MPIUtil's requests. A LibMPI request remembers
// the call's arguments (so that a persistent one can start again), packs a
// non-contiguous datatype before a send and unpacks after a receive, and
// turns MPIUtil's status into an MPI_Status. A generalized request
// (section 12.2) has no MPIUtil request: the program completes it, and its
// callbacks give its status.
#pragma once

#include <mpi.h>
#include <stdint.h>

#include <mpiutil/mpiutil.hpp>

namespace lwmpi {

struct Comm;
struct Datatype;

/// Work LibMPI itself runs in the background, which a request of kind
/// `background` stands for (the schedules of schedule.hpp: the
/// non-blocking collectives). Requests and progress passes reach it only
/// through these functions, so they depend on no kind of work: the work
/// embeds this record (plain data) and fills it in.
struct Background {
    /// Moves the work on as far as its completed messages let it, without
    /// a progress pass; true once it has ended.
    bool (*move_on)(Background &self);
    /// MPI_SUCCESS, or the work's first failure (final once it has ended).
    int (*result)(const Background &self);
    /// Frees the work (not started, or ended).
    void (*release)(Background &self);
    Background *next;  ///< in the rank's list of running work
};

/// `b` has started: every progress pass (progress_requests) moves it on
/// until it leaves.
void background_join(Background &b);
/// `b` has ended, or is given up: progress passes leave it alone.
void background_leave(Background &b);

/// What a point-to-point call asks for.
enum class Op2 : uint8_t { send, ssend, bsend, rsend, recv };

/// The arguments of a point-to-point operation.
struct P2POp {
    Op2 op;
    const void *sbuf;  ///< send buffer
    void *rbuf;        ///< receive buffer
    int count;
    MPI_Datatype datatype;
    int peer;  ///< rank in comm, MPI_ANY_SOURCE or MPI_PROC_NULL
    int tag;
    MPI_Comm comm;
    bool collective;  ///< on the communicator's collective context
};

/// What a request carries out; the completion calls treat every kind
/// alike, through request_check and request_finish.
enum class RequestKind : uint8_t {
    p2p,          ///< a point-to-point operation (args) over an MPIUtil request
    background,   ///< LibMPI's own work (a schedule; args.comm names its communicator)
    generalized,  ///< MPI_Grequest_start's (section 12.2)
};

/// The callbacks of a generalized request and its state.
struct Generalized {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra_state;
};

struct Request {
    RequestKind kind;
    bool in_use;
    bool persistent;
    bool active;   ///< started and not completed by a wait or test
    bool freed;    ///< MPI_Request_free'd while active
    bool matched;  ///< a matched probe's message (util_req holds it), not received yet
    P2POp args;
    const Datatype *type;  ///< args.datatype, held until the request is dropped
    Comm *comm;            ///< args.comm, held until the request is dropped
    int util_req;          ///< the MPIUtil request, -1 when none
    MPI_Request carrier;   ///< buffered send: the request that takes the operation over (hand_over)
    void *packed;          ///< temporary contiguous copy, or nullptr
    bool complete;         ///< done: status below is final
    MPI_Status status;
    int error;         ///< MPI_SUCCESS or the class raised at completion
    Background *work;  ///< kind background: the work, owned by the request
    Generalized greq;  ///< kind generalized: its callbacks
};

/// The request named by `h`, or nullptr.
Request *request_get(MPI_Request h);

/// A new request for `op` (not started); MPI_ERR_NO_MEM when the table is
/// full. `persistent` requests survive their completion.
int request_new(const P2POp &op, bool persistent, MPI_Request *out);

/// A new active request for background work `work` on `c`, which it owns
/// from then on (also when this fails: MPI_ERR_NO_MEM when the table is
/// full). Completes when the work ends; start the work after this.
int request_new_background(Comm &c, Background &work, MPI_Request *out);

/// A new request, active and already complete with an empty status (an
/// RMA operation that was over when its call returned: MPI_Rput...),
/// held on communicator `comm` (valid); MPI_ERR_NO_MEM when the table is
/// full.
int request_new_done(MPI_Comm comm, MPI_Request *out);

/// Whether `r` has an operation under way that MPI_Request_free must let
/// finish (section 3.7.3) rather than drop.
bool request_running(const Request &r);
/// A new generalized request (active, not complete) with callbacks `g`,
/// on MPI_COMM_WORLD for its errors; MPI_ERR_NO_MEM when the table is full.
int request_new_generalized(const Generalized &g, MPI_Request *out);

/// Generalized request `h`, even when MPI_Request_free'd (its program
/// still completes it), or nullptr.
Request *generalized_get(MPI_Request h);

/// MPI_Grequest_complete: `r` is complete; freed already, it runs its
/// free function and goes. Returns that function's error.
int generalized_complete(Request &r);

/// The status query_fn gives complete generalized request `r` (section
/// 12.2), into *status; returns query_fn's error.
int generalized_query(Request &r, MPI_Status *status);

/// Frees the table entry of `r` (its operation over or never started).
void request_drop(Request &r);
/// MPI_Request_free of `r` while its operation runs: progress drops it
/// once the operation is over (MPI 3.1 section 3.7.3).
void request_free_later(Request &r);

/// Starts `r` (checks done by the caller): packs, chooses the protocol,
/// hands the message to MPIUtil. MPI_SUCCESS or an error class.
int request_start(Request &r);

/// Moves every request of the rank on once, and frees the ones given up
/// by MPI_Request_free and MPI_Bsend whose operation is over.
int progress_requests();

/// Progress until the requests given up by MPI_Request_free and
/// MPI_Bsend are over (MPI_Finalize); generalized ones never completed
/// are left (their free functions never run).
int drain_requests();

/// Frees the request table (MPI_Finalize, once MPIUtil is finalized: no
/// request handle is valid after it).
void request_table_release();

/// True when `r` is complete (its status and error set), without moving
/// anything on.
bool request_check(Request &r);

/// Moves every request on once; true when `r` is complete (its status and
/// error set). An MPIUtil failure is returned in *error.
bool request_test(Request &r, int *error);

/// Blocks until `r` is complete. MPI_SUCCESS or the class of an MPIUtil
/// failure.
int request_wait(Request &r);

/// Ends the use of a complete request: a persistent one becomes inactive,
/// another is freed and *h set to MPI_REQUEST_NULL (a generalized one
/// first asks query_fn for its status, then runs free_fn). Copies the
/// status to `status` unless it is MPI_STATUS_IGNORE. Returns the
/// request's error.
int request_finish(MPI_Request *h, MPI_Status *status);

/// MPI_Request_free (section 3.7.3): drops `r` now when its operation is
/// over, else once it is (a generalized one: at MPI_Grequest_complete).
/// Returns the error of a generalized request's free function.
int request_free(Request &r);

/// MPI_Cancel (section 3.8.4) of active request `r`: a receive that no
/// message matched yet completes as cancelled; a send whose message no
/// receive matched yet is taken back from its receiver, and completes as
/// cancelled once the receiver says so (else as usual); a generalized
/// request calls its cancel function. Returns that function's error, or
/// the class of a failure to reach the receiver.
int request_cancel(Request &r);

/// Blocking send or receive of one operation on a communicator, for
/// LibMPI's own use (collectives, Sendrecv): start, wait, finish.
int run(const P2POp &op, MPI_Status *status);

/// Fills `status` (unless MPI_STATUS_IGNORE) as an empty status: for null
/// and inactive requests (MPI 3.1 section 3.7.3).
void empty_status(MPI_Status *status);
/// As an operation with MPI_PROC_NULL leaves it (section 3.11), but for
/// its MPI_ERROR, which a single completion never sets (section 3.2.5).
void proc_null_status(MPI_Status *status);

}  // namespace lwmpi
