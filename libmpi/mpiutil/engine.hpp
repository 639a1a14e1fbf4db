// MPIUtil's engine, internal interface between engine.cpp (requests,
// matching, progress), the IKC path (ikc_path.hpp: eager and rendezvous over IKC) and
// local_path.cpp (the shared-memory path inside a cluster).
#pragma once

#include <stddef.h>

#include "rank_state.hpp"

namespace lwmpi::util {

// ---- engine.cpp ----

Request &request(int i);
int request_index(const Request &r);
/// A request's token: its pool index and its generation, so that a late
/// reply (or hand-over) never reaches a reused request. A send's token is
/// its id on the wire (ikc_send.cpp).
uint32_t request_token(const Request &r);
/// Marks `r` done with `error` (MPI_SUCCESS or a class).
void complete(Request &r, int error);
void queue_push(RequestQueue &q, int i);
/// Removes and returns the head, or -1.
int queue_pop(RequestQueue &q);

/// The oldest posted receive that accepts a message with envelope `env`
/// and `bytes` bytes (MPI 3.1 section 3.5), taken off the posted queue
/// with its status set (source, tag, bytes it gets); -1 if none. The
/// protocol that calls it delivers the message to it.
int take_posted(const Envelope &env, uint64_t bytes);
/// A message has arrived (its envelope, size and protocol in *u, a node
/// of new_unexpected()): the oldest posted receive that matches takes it,
/// else it joins the unexpected messages. Returns the receive's index or -1.
int arrive(Unexpected *u);

// ---- trace.cpp (only when tracing(): mpirun --trace) ----

/// Records that a send to `dst` with this envelope and size starts.
void trace_send(int dst, int tag, uint32_t context, uint64_t bytes);
/// Records that a receive of the caller matched a message.
void trace_match(const Envelope &env, uint64_t bytes);
/// Writes the caller's core's rings (and the master's, from the cluster's
/// first rank) into the job folder; says so when it cannot.
void trace_dump();
/// Takes the unexpected message of send `seq` of world rank `source` out
/// of the list; nullptr when none (a receive matched it).
Unexpected *take_unexpected(int source, uint32_t seq);
/// Appends *u to the unexpected messages (no posted receive takes it).
void add_unexpected(Unexpected *u);
/// A zeroed node for an arriving message with room for `data` bytes: a
/// node without data comes from the rank's spare ones when it has some,
/// so that steady traffic allocates nothing. nullptr when out of memory.
Unexpected *new_unexpected(uint64_t data);
/// Gives back a node of new_unexpected().
void free_unexpected(Unexpected *u);
/// Frees every unexpected message and spare node (finalize()).
void drop_unexpected();

// ---- the IKC path (ikc_send.cpp, ikc_rendezvous.cpp, ikc_recv.cpp) ----

/// Starts an eager or rendezvous send over IKC.
int ikc_send(Request &r);
/// Receive `r` takes IKC message `u` (eager or rendezvous); frees `u`
/// unless eager fragments are still due.
int ikc_accept(Request &r, Unexpected *u);
/// Reads what the mailbox has and moves portal transfers on; *did is set
/// when anything happened.
int ikc_progress(bool *did);
/// Blocks until an event of mine: a message arrives in my ring, one of my
/// asynchronous IKC operations (the head message's write, a portal
/// transfer) finishes, or a rank of my cluster wakes me (os::ikc_wake).
/// Returns at once when my ring or my stash has a message, or after an
/// event since the last call.
int ikc_wait_any(unsigned long timeout_ns = 0);
/// For a wait outside the engine (a name resolution): takes what my
/// mailbox has into the stash (the next ikc_progress() handles it), then
/// sleeps as ikc_wait_any() does, at most timeout_ns (0: no limit). My
/// messages must keep leaving the kernel while I wait: parked in its
/// buffers table, they would fill it, and a message the kernel cannot park
/// stays in its hardware slot, where it holds up every later message from
/// its cluster into that hardware mailbox, the answer I wait for too.
int ikc_wait_outside(unsigned long timeout_ns);
/// Frees the stash (finalize(): what is still there was never received).
void drop_stash();
/// True while a send waits for an output portal (its cluster had none
/// left): nothing will wake me when one frees up, so idle() polls.
bool ikc_retrying();
/// Queues `n` bytes of `msg` for the mailbox at `to`, from my port (they
/// leave in order, in the background). When `completes` is given, that
/// request completes once the message is handed to the kernel: a send is
/// not done while its data, or the kick that wakes its receiver, still
/// waits in the queue, so a blocking call never returns leaving its
/// message behind for a rank that goes on computing.
int post_control(const Address &to, const void *msg, size_t n, Request *completes = nullptr);
/// Writes what the queue holds as far as it can without waiting.
int write_out();
/// Writes everything the queue holds (waiting for each write).
int flush();
/// Gives my mailbox its ring of arrivals (init()).
int ring_attach();
/// The oldest message of my ring, in place: *size bytes at *msg, or *size
/// -1 when none has come (after one look in the kernel when I take my
/// arrivals myself, TS_RING_PULL).
int ring_next(const char **msg, long *size);
/// Gives the oldest slot of my ring back to the kernel, and takes what
/// waited in the kernel for room if the ring was stalled.
int ring_pop();
/// The seq of the KICK a rank sends itself last (finalize()).
inline constexpr uint32_t final_mark = 0xffffffff;

// ---- local_path.cpp ----

/// Starts a send to a rank of my cluster through shared memory.
int local_send(Request &r);
/// Receive `r` takes local message `u`; frees `u`.
void local_accept(Request &r, Unexpected *u);
/// Local message `u` of an unexpected node goes back to its sender
/// untaken (its send was cancelled); frees `u`.
void local_withdrawn(Unexpected *u);
/// Frees my spare local message blocks and those given back (finalize()).
void local_finalize();
/// Takes arrived local messages and completes copied sends; *did as above.
int local_progress(bool *did);
/// Before sleeping on my events (ikc_wait_any()): true when local work is
/// already there (then do not sleep); otherwise the others will wake me
/// from now on (os::ikc_wake()).
bool local_sleep_begin();
void local_sleep_end();
/// Finds the cluster's shared area (init()), after the limits are set:
/// turns the local path off when the ranks of the cluster share no memory.
int local_init();

// ---- threads.cpp (MPI_THREAD_MULTIPLE) ----

/// While it lives, the calling thread does not hold its rank's lock, if
/// it held it (the rank's other threads call MPI meanwhile); it holds it
/// again after. For the waits of a call, never around the use of state
/// another thread may change.
class Unlocked {
public:
    Unlocked();
    ~Unlocked();
    Unlocked(const Unlocked &) = delete;
    Unlocked &operator=(const Unlocked &) = delete;

private:
    int depth_;  ///< the calls the thread was in; 0: it held no lock
};
/// A progress pass of the calling thread did something: wakes the rank's
/// other blocked threads, whose requests it may have completed.
void wake_threads();
/// idle()'s sleep once threads are allowed: the first blocked thread
/// calls sleep(timeout) (it sleeps on the rank's events), the others sleep
/// until a pass does something; each at most threads_sleep_max_ns.
void sleep_among_threads(unsigned long timeout_ns, void (*sleep)(unsigned long));

// ---- withdraw.cpp ----
/// Asks the receiver of send `r` to take its message back (WITHDRAW);
/// r is not done before the answer (done()).
int withdraw(Request &r);
// ---- watch.cpp ----

/// Before idle() sleeps or spins on: tells the job monitor what I am
/// blocked in once the wait has made no progress for watch_after_ns, and
/// again every watch_after_ns while it stays so. Returns how long the
/// sleep may last (ns; 0: no limit) for the next of these to come.
unsigned long watch_wait(RankState &s);
/// At finalize(): tells the job monitor I send and receive no more, with
/// my final counts.
void watch_finalized(RankState &s);

}  // namespace lwmpi::util
