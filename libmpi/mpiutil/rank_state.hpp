// Per-rank state of MPIUtil's engine (internal), in a RankLocal
// (rank_local.hpp): plain data, zero-initialised, no constructors (600
// bytes per rank on riscv64).
// Everything that grows with the job or the traffic is on the heap: init()
// takes 8 bytes per rank of the job (Peer) and the mailbox ring (4 KiB with
// 128-byte mailbox messages); the request pool grows by slabs of 16 (about
// 2 KiB) from the first request; the assembly table of fragmented eager
// messages (32 bytes an entry) from the first one. finalize() frees them.
// Messages that arrive before their receive are kept on the heap too
// (bounded by the senders' requests and eager credits).
#pragma once

#include <stdint.h>

#include <tessera/mapping.hpp>
#include "match.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/pool.hpp>

struct ts_ring;

namespace lwmpi::util {

inline constexpr int detail_max = 96;
/// Room for "mpi:<rank>" and its NUL.
inline constexpr int name_max = 16;
/// Largest mailbox message LWMPI reads (the profile's payload is smaller).
inline constexpr int mailbox_max = 256;
/// Slots of a rank's ring of mailbox arrivals (a power of two): arrivals
/// beyond them wait in the kernel, so this bounds memory, not traffic.
inline constexpr unsigned ring_slots = 32;
/// Pauses between resolutions of a name not registered yet (its rank has
/// not called MPI_Init): the first, doubled each time up to the longest.
inline constexpr unsigned long lookup_first_pause_ns = 1'000'000;
inline constexpr unsigned long lookup_max_pause_ns = 10'000'000;

/// The IKC address of a rank: its cluster id and its mailbox/portal port.
struct Address {
    int16_t cluster;  ///< -1 while unknown
    int16_t port;
};

enum class ReqState : uint8_t { free = 0, active, done };

/// Where a request stands in its protocol.
enum class Phase : uint8_t {
    none,          ///< nothing left but completion
    await_cts,     ///< rendezvous send: RTS_CTS written, waits for the CTS
    await_portal,  ///< rendezvous send: waits for an output portal (RendezvousState::waiting)
    await_write,   ///< rendezvous send: its portal write runs (or waits for the allow)
    await_copy,    ///< local send: published, the receiver has not copied yet
};

/// Where the cancellation of a send stands (MPI 3.1 section 3.8.4).
enum class Withdrawal : uint8_t {
    none,      ///< not cancelled
    asked,     ///< WITHDRAW sent, its answer not come: the request is not done
    answered,  ///< the receiver answered (Status::cancelled says how)
};
struct LocalMsg;
struct Unexpected;
struct LocalSlot;
struct GlobalHeap;

/// A mailbox message waiting to be written (heap node).
struct OutMessage {
    OutMessage *next;
    Address to;
    size_t size;
    int64_t completes;  ///< request_token() of the request this message completes once
                        ///< handed to the kernel, or -1
    alignas(8) char data[mailbox_max];
};

/// A mailbox message taken while the rank waited outside the engine (a
/// name resolution), to be handled by the next progress().
struct Stashed {
    Stashed *next;
    long size;
    alignas(8) char data[mailbox_max];
};

/// Most output mailboxes, and output portals, a rank keeps open at once
/// (least recently used closed first), so that a message to a peer it
/// wrote to lately costs no open and no close (control calls, served by
/// the master). Each holds a reference on its destination's hardware
/// mailbox or portal, which carries job()->virtual_per_hw of them for all
/// the ranks of a cluster (and their name clients): init() sets the rank's
/// share.
inline constexpr int max_out_mailboxes = 8;
inline constexpr int max_out_portals = 4;

/// An open output mailbox or portal of the rank.
struct OutEndpoint {
    int id;  ///< -1 if none
    Address to;
    uint32_t used;    ///< out_clock at its last write
    bool busy;        ///< a write runs on it that the rank has not seen end
    uint16_t pinned;  ///< portals: sends in line for it (it keeps its receiver until they wrote)
};

/// A send or receive of the calling rank.
struct Request {
    ReqState state;
    bool is_send;
    SendMode mode;
    Protocol protocol;
    Phase phase;
    uint16_t gen;  ///< bumped on every reuse: stale replies do not match
    int index;     ///< its own index in the pool
    int next;      ///< link in a request queue, -1 at the end
    int peer;      ///< send: destination; receive: source or any_source
    int tag;       ///< send: tag; receive: tag or any_tag
    uint32_t context;
    const void *sbuf;
    void *rbuf;
    uint64_t size;      ///< send: bytes; receive: capacity
    Address reply;      ///< rendezvous: the peer's address
    uint32_t peer_seq;  ///< rendezvous receive: the sender's id of the send (its portal write's tag)
    uint64_t offered;   ///< rendezvous receive: bytes the sender writes
    uint32_t stamp;     ///< rendezvous receive: when its RTS came (RendezvousState::rts_arrivals)
    bool confirmed;     ///< rendezvous send: its receiver allowed it (CTS)
    bool cts_wanted;    ///< rendezvous receive: its sender waits for a CTS before it writes
    int portal;         ///< rendezvous send: output portal id, -1 if none
    int8_t out_portal;  ///< rendezvous send: the rdv.out_portals[] entry it writes on or waits in line for;
                        ///< -1: none
    LocalMsg *local;    ///< local send: the published message (global form)
    Unexpected *held;   ///< receive of a matched probe not started yet: its message (mprobe())
    Withdrawal withdrawal;  ///< send: its cancellation
    Status status;
};

/// A FIFO of requests linked through Request::next.
struct RequestQueue {
    int head;  ///< -1 when empty (set by init())
    int tail;
};

/// A message that arrived before a receive matched it (heap node).
struct Unexpected {
    Unexpected *next;
    Envelope env;
    Protocol protocol;
    bool spare;       ///< a node without data: back to RankState::spare_nodes when done
    uint64_t bytes;   ///< offered by the sender
    Address reply;    ///< rendezvous: the sender's address
    uint32_t seq;     ///< the sender's id of the send (request_token(), for a cancel)
    bool cts_wanted;  ///< rendezvous: the sender waits for a CTS
    uint32_t stamp;   ///< rendezvous: RendezvousState::rts_arrivals when it came
    LocalMsg *local;  ///< local: the sender's published message (global form)
    uint64_t filled;  ///< eager: bytes of data arrived so far
    char data[];      ///< eager: `bytes` bytes
};

/// The eager message of one sender whose fragments are still arriving:
/// into a receive's buffer or into an unexpected node.
struct Assembly {
    int req;           ///< the receive, or -1
    Unexpected *node;  ///< or the node, or nullptr
    uint64_t filled;
    uint64_t total;
};

/// Reading my mailbox (ikc_recv.cpp): the kernel puts my arrivals in my
/// ring.
struct Inbox {
    ts_ring *ring;   ///< ring_slots slots (heap)
    bool pull;       ///< I take my arrivals into it myself (TS_RING_PULL)
    int reader;      ///< the core that attached the ring or last slept on it (the kernel wakes
                     ///< the last to attach or drain it: ring_next()'s drains move it too)
    Stashed *stash;  ///< messages taken, not yet handled, oldest first
    Stashed **stash_tail;
};

/// Writing mailbox messages (ikc_send.cpp): oldest first; the head's write
/// runs in the background on an output mailbox. The mailboxes to the last
/// few destinations stay open: opening and closing cost a kernel call each.
struct Outbox {
    OutMessage *head;
    OutMessage **tail;
    bool busy;    ///< the head's asynchronous write runs
    int current;  ///< the ends[] entry the head's write runs on
    int limit;    ///< ends[] entries the rank may use (1..max_out_mailboxes)
    OutEndpoint ends[max_out_mailboxes];
    SpareList<OutMessage> spare;  ///< messages to reuse
};

/// Matching (engine.cpp): receives posted and messages that came first.
struct Matching {
    RequestQueue posted;     ///< receives not matched yet, oldest first
    Unexpected *unexpected;  ///< oldest first
    Unexpected **unexpected_tail;
    Unexpected *held;                   ///< taken by a matched probe, not received yet (mprobe()), any order
    SpareList<Unexpected> spare_nodes;  ///< nodes without data
};

/// What a rank keeps for each rank of the job (RankState::peers, sized by
/// the job's np): 8 bytes.
struct Peer {
    Address address;       ///< resolved; cluster -1 = unknown
    uint8_t credits_used;  ///< my eager messages unconsumed at it
    uint8_t consumed;      ///< its eager messages I consumed, not yet credited
    /// Its eager message whose fragments arrive: 1 + its index in
    /// EagerState::assemblies; 0: none.
    uint16_t assembly;
};

/// The eager protocol over IKC (ikc_send.cpp, ikc_recv.cpp): the messages whose
/// fragments still arrive, one at most per sender (the credits are in
/// Peer). Few are under way at once, so their table is on the heap, made
/// on the first such message and grown (doubled) when every entry is in
/// use; entries are reused, so steady traffic takes nothing more.
struct EagerState {
    Assembly *assemblies;  ///< `capacity` entries; total == 0: free
    int capacity;
};

/// The rendezvous protocol (ikc_rendezvous.cpp): my input portal takes one
/// transfer at a time; my sends write through output portals, each write
/// started as soon as the send has a portal, to wait there for its
/// receiver's allow.
struct RendezvousState {
    RequestQueue incoming;  ///< matched receives: the head uses the portal
    bool incoming_started;  ///< the head's allow and aread are done
    OutEndpoint out_portals[max_out_portals];
    RequestQueue waiting;   ///< my sends waiting for an output portal (await_portal), oldest first
    bool portal_freed;      ///< a write of mine ended: the waiting sends try again
    uint32_t rts_arrivals;  ///< RTS and RTS_CTS messages that came, in order (stamps)
    bool starved;           ///< one of them, allowed by its receiver, found no portal left in the cluster
    int pending_writes;     ///< my sends whose portal write runs
};

/// The local path (local_path.cpp).
struct LocalState {
    LocalSlot *slots;                       ///< the cluster's, max_local_ranks (global form)
    SpareList<LocalMsg, GlobalHeap> spare;  ///< my message blocks to reuse (global forms)
    int pending;                            ///< my sends waiting for their copy
};

/// How I wait (engine.cpp, idle()).
struct Waiting {
    bool progressed;         ///< progress() did something idle() has not seen
    bool last_pass_did;      ///< the last progress() did something
    double polling_since;    ///< wtime() an adaptive wait began polling; 0: not polling
    uint32_t polls;          ///< idle() polls since the wait began
    unsigned long ikc_seen;  ///< what the last os::ikc_wait_any() returned
    int seen_core;           ///< the core whose count ikc_seen is (0, the master's: none yet)
    uint32_t failed_tests;   ///< tests that found nothing since the last progress (test_failed())
    double testing_since;    ///< wtime() when those tests began being timed; 0: not yet
};

/// The rank's threads (threads.cpp), once MPI_THREAD_MULTIPLE is granted.
/// Threads are named by their core + 1 (a thread keeps its core).
struct Threads {
    bool multiple;  ///< MPI_THREAD_MULTIPLE granted: every call takes `lock`
    uint32_t lock;  ///< futex word: 0 free, 1 held, 2 held and waited for
    int owner;      ///< the thread that holds `lock`; 0: none
    int depth;      ///< how many calls of its own the owner is in
    int sleeper;    ///< the thread asleep on the rank's events; 0: none
    uint32_t seq;   ///< futex word the other blocked threads sleep on: bumped to wake them
    int waiters;    ///< threads asleep on `seq`
};

/// What the job monitor hears of my waits (watch.cpp): counts of
/// messages, and the wait that makes no progress.
struct Watch {
    uint32_t sent;              ///< messages I have sent (started), every protocol
    uint32_t arrived;           ///< messages that have arrived for me (matched or not)
    unsigned long stuck_since;  ///< os::time() the wait last made progress; 0: not waiting
    uint32_t sent_then;         ///< `sent` and `arrived` at stuck_since: a change means progress
    uint32_t arrived_then;
    unsigned long said;       ///< os::time() I last sent my state during this wait; 0: not yet
    uint32_t spins;           ///< idle() polls of the spin policy, to read the clock now and then
    const char *const *call;  ///< where LibMPI keeps the name of its MPI call in progress
};

/// Everything of one rank, each part of the protocols with the state it
/// owns.
struct RankState {
    bool ready;    ///< init() succeeded and finalize() not yet called
    bool entered;  ///< init() succeeded once (finalize() leaves it set)
    int rank;      ///< MPI process number: MPI_COMM_WORLD rank, or np for the I/O rank
    int nprocs;    ///< MPI processes of the job: the world's np, and the I/O rank if any
    int cluster;   ///< my cluster id
    int port;      ///< my mailbox and portal port
    int local;     ///< my index among the ranks of my cluster
    int mailbox;   ///< my input mailbox id
    int portal;    ///< my input portal id
    Limits limits;
    tessera::pm::JobShape shape;
    Peer *peers;              ///< nprocs entries (heap, from init() to finalize())
    uint32_t endpoint_clock;  ///< last use stamp given to an output mailbox or portal
    bool quiet;               ///< quiesce() was called: no credits go back
    uint64_t allocations;     ///< heap blocks the message path took (heap_allocations())

    SlabPool<Request, request_slab, max_requests> requests;
    Inbox inbox;
    Outbox outbox;
    Matching match;
    EagerState eager;
    RendezvousState rdv;
    LocalState shm;
    Waiting waiting;
    Watch watch;
    Threads threads;

    char detail[detail_max];
};

/// The calling rank's state.
RankState &self();

/// Records why an operation failed and returns `mpi_class`; `os_error`
/// (a -TS_E* value, or 0 for none) is appended to the detail.
int fail(int mpi_class, const char *what, long os_error = 0);

/// Address of world rank `rank`, from the local name daemon (then
/// cached). While the rank has not registered its name yet, waits without
/// a time limit, as a send to a rank that has not called MPI_Init must
/// (mpirun's --timeout ends a job that really hangs). MPI_ERR_RANK for a
/// bad rank, MPI_ERR_OTHER when the name service fails.
int resolve(int rank, Address *out);

}  // namespace lwmpi::util
