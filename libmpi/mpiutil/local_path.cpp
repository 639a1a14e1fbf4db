// MPIUtil: the local path. The MPI processes of a cluster reach each
// other's memory, so a message between two of them need not cross IKC: the
// sender publishes it in the receiver's inbox in the cluster's shared
// memory, and the receiver copies it once into the receive buffer.
//
// Pointer forms. When the ranks of a cluster are threads of one process, a
// pointer means the same memory in all of them. When each is a process,
// its .data, .bss, heap and stack are private, at the same addresses in
// every rank: a rank's pointer into them means other memory in another
// rank. Each rank's private memory is also mapped, at an alias of its own,
// in every rank of the cluster, itself included, so each such pointer has
// a *global form* (os::global()) that means the same memory in all of
// them. Every pointer that another rank follows is kept in global form:
// the slots (os::cluster_shared() gives them so), the links of the inboxes
// and of the stacks of returned blocks, a message block itself, and its
// `data`, which the receiver copies from. A rank's blocks are in global
// form from their malloc() on (GlobalHeap), and private_of() gives back
// the pointer free() knows; the receive buffer is the receiver's own. In
// threads mode both translations are the identity. Memory is only freed
// by the rank that allocated it (another rank's heap is not its own):
// every block goes back to its sender, who reuses it or frees it.
//
// A message up to the eager threshold (standard mode) is copied into the
// published block and the send completes at once; the sender's bytes
// waiting this way are bounded (local_eager_budget). Blocks with room for
// local_block_data bytes are reused: the receiver gives one back to its
// sender's stack of returned blocks, where the sender takes them all at
// once, so that steady traffic allocates nothing; the block of a longer
// eager message goes back the same way, and its sender frees it. A
// message above the threshold, or a synchronous one, publishes the send
// buffer itself: the receiver copies straight from it and then marks the
// block copied, which completes the send. A rank that has nothing to do
// sleeps on its events (engine.cpp, idle()); a rank that publishes to it,
// or completes its send, wakes it with os::ikc_wake().
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/syscall.h>

#include "control.hpp"
#include "engine.hpp"
#include "os.hpp"

namespace lwmpi::util {

/// A message on the local path (heap block of the sender, global form).
struct LocalMsg {
    LocalMsg *next;
    Envelope env;
    uint64_t bytes;
    int sender;        ///< local index of the sender
    uint32_t seq;      ///< the sender's request_token() of the send (for a cancel)
    bool inline_data;  ///< data follows in `payload`
    bool reused;       ///< a block of local_block_data bytes: back to its sender when done
    uint32_t copied;   ///< published buffer: the receiver is done (atomic)
    const void *data;  ///< global form: `payload`, or the sender's buffer
    char payload[];
};

// One per MPI process of the cluster, in the shared area. The fields
// other ranks touch are accessed with the __atomic builtins only
// (sequentially consistent unless said otherwise): <atomic> does not
// exist in the freestanding target build.
struct LocalSlot {
    LocalMsg *inbox;      ///< newest first
    LocalMsg *returned;   ///< its blocks its receivers are done with (a stack)
    uint32_t sleeping;    ///< 1 while its owner may sleep on its events
    int64_t eager_bytes;  ///< its copied bytes not consumed yet
    int16_t core;         ///< the core of its thread that may sleep (for os::ikc_wake)
};

/// The heap of local message blocks: malloc() and free(), each block in
/// its global form in between.
struct GlobalHeap {
    static void *allocate(size_t bytes) { return os::global(malloc(bytes)); }
    static void release(void *block) { free(os::private_of(block)); }
};

namespace {

template <typename T>
T load(const T &x) {
    return __atomic_load_n(&x, __ATOMIC_SEQ_CST);
}
template <typename T>
void store(T &x, T v) {
    __atomic_store_n(&x, v, __ATOMIC_SEQ_CST);
}
template <typename T>
T exchange(T &x, T v) {
    return __atomic_exchange_n(&x, v, __ATOMIC_SEQ_CST);
}
template <typename T>
void add(T &x, T v) {
    __atomic_add_fetch(&x, v, __ATOMIC_SEQ_CST);
}

LocalSlot &slot(int local) { return self().shm.slots[local]; }

// Wakes the rank with local index `local` if it sleeps.
void wake(int local) {
    LocalSlot &t = slot(local);
    // A plain load first: the peer's line stays shared while it is awake.
    if (load(t.sleeping) && exchange(t.sleeping, 0u))
        os::ikc_wake(load(t.core));  // fails only when its thread is gone
}

// Pushes m on a stack that other ranks push on too and its owner takes
// whole (exchange): an inbox, or a stack of returned blocks.
void push(LocalMsg **stack, LocalMsg *m) {
    LocalMsg *head = load(*stack);
    do
        m->next = head;
    while (!__atomic_compare_exchange_n(stack, &head, m, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}

void publish(int local, LocalMsg *m, Request *r) {
    push(&slot(local).inbox, m);
    wake(local);
    if (r) complete(*r, MPI_SUCCESS);
}

// Block `m` of mine is done with.
void drop_block(LocalMsg *m) { self().shm.spare.give_or_free(m, m->reused); }

// Takes back the blocks my receivers are done with.
void reclaim() {
    LocalMsg *&returned = slot(self().local).returned;
    if (!load(returned)) return;  // no write to a line the receivers write
    for (LocalMsg *m = exchange(returned, static_cast<LocalMsg *>(nullptr)), *next; m; m = next) {
        next = m->next;
        drop_block(m);
    }
}

// A block for a local message with `data` bytes inline: a reused one when
// they fit in local_block_data. nullptr when out of memory. Blocks come
// back when a spare one is wanted and none is left, and before a block
// of another size is made, which frees those of other sizes that came
// back: these are never more than local_eager_budget bytes.
LocalMsg *new_block(uint64_t data) {
    RankState &s = self();
    const bool reused = data <= local_block_data;
    if (!reused || !s.shm.spare.head) reclaim();
    LocalMsg *m;
    if (reused) {
        m = s.shm.spare.take(sizeof(LocalMsg) + local_block_data, &s.allocations);
    } else {
        m = static_cast<LocalMsg *>(GlobalHeap::allocate(sizeof(LocalMsg) + data));
        if (m) ++s.allocations;
    }
    if (m) m->reused = reused;
    return m;
}

bool copies_done() {
    const RankState &s = self();
    if (s.shm.pending == 0) return false;
    for (int i = 0; i < s.requests.size(); ++i) {
        const Request &r = s.requests[i];
        if (r.state == ReqState::active && r.phase == Phase::await_copy && load(r.local->copied)) return true;
    }
    return false;
}

bool work_waiting() { return load(slot(self().local).inbox) || copies_done(); }

}  // namespace

static_assert(sizeof(LocalSlot) * max_local_ranks <= os::cluster_shared_bytes,
              "the slots fit the shared area");

int local_init() {
    RankState &s = self();
    if (!s.limits.local_path) return MPI_SUCCESS;
    if (s.local >= max_local_ranks)
        return fail(MPI_ERR_OTHER, "more MPI processes on this cluster than LWMPI supports");
    s.shm.slots = static_cast<LocalSlot *>(os::cluster_shared(sizeof(LocalSlot) * max_local_ranks));
    // Ranks that share no memory (processes without aliases) talk over
    // IKC: all those of the cluster alike, since they run the same job.
    if (!s.shm.slots) s.limits.local_path = false;
    return MPI_SUCCESS;
}

int local_send(Request &r) {
    RankState &s = self();
    const int to = s.shape.place(r.peer).local;
    int64_t &budget = slot(s.local).eager_bytes;
    const bool copy = r.mode == SendMode::standard && r.size <= s.limits.local_eager_max &&
                      load(budget) + static_cast<int64_t>(r.size) <= static_cast<int64_t>(local_eager_budget);
    LocalMsg *m = new_block(copy ? r.size : 0);
    if (!m) return fail(MPI_ERR_NO_MEM, "no memory for a local message");
    m->env = Envelope{s.rank, r.tag, r.context};
    m->bytes = r.size;
    m->sender = s.local;
    m->seq = request_token(r);
    m->inline_data = copy;
    m->copied = 0;
    if (copy) {
        memcpy(m->payload, r.sbuf, r.size);
        m->data = m->payload;
        add(budget, static_cast<int64_t>(r.size));
    } else {
        m->data = os::global(r.sbuf);
        r.local = m;
        r.phase = Phase::await_copy;
        ++s.shm.pending;
    }
    publish(to, m, copy ? &r : nullptr);
    return MPI_SUCCESS;
}

namespace {

// I am done with local message `m`: its block goes back to its sender,
// or its sender's buffer is free again.
void give_back(LocalMsg *m) {
    if (m->inline_data) {
        add(slot(m->sender).eager_bytes, -static_cast<int64_t>(m->bytes));
        push(&slot(m->sender).returned, m);
    } else {
        const int sender = m->sender;
        store(m->copied, 1u);  // m is the sender's again
        wake(sender);
    }
}

// Receive `r`, its status set, takes local message `m`.
void take(Request &r, LocalMsg *m) {
    memcpy(r.rbuf, m->data, r.status.bytes);
    give_back(m);
    complete(r, MPI_SUCCESS);
}

}  // namespace

void local_accept(Request &r, Unexpected *u) {
    LocalMsg *m = u->local;
    free_unexpected(u);
    take(r, m);
}

void local_withdrawn(Unexpected *u) {
    LocalMsg *m = u->local;
    free_unexpected(u);
    give_back(m);
}

void local_finalize() {
    RankState &s = self();
    if (!s.limits.local_path) return;
    reclaim();
    s.shm.spare.drop();
}

int local_progress(bool *did) {
    RankState &s = self();
    if (!s.limits.local_path) return MPI_SUCCESS;
    // New messages: the inbox holds them newest first.
    LocalMsg *m = exchange(slot(s.local).inbox, static_cast<LocalMsg *>(nullptr));
    LocalMsg *oldest = nullptr;
    while (m) {
        LocalMsg *next = m->next;
        m->next = oldest;
        oldest = m;
        m = next;
    }
    for (m = oldest; m; m = oldest) {
        oldest = m->next;
        *did = true;
        if (const int i = take_posted(m->env, m->bytes); i >= 0) {
            request(i).protocol = Protocol::local;
            take(request(i), m);
            continue;
        }
        Unexpected *u = new_unexpected(0);
        if (!u) return fail(MPI_ERR_NO_MEM, "no memory for a local message");
        u->env = m->env;
        u->protocol = Protocol::local;
        u->bytes = m->bytes;
        u->seq = m->seq;
        u->local = m;
        add_unexpected(u);
    }
    // Completed copies of my published sends, after the new messages: one
    // that a receiver sent once it had copied mine must not be seen before
    // my send is complete (a Bsend's block must have left the buffer by
    // then, MPI 3.1 section 3.6).
    for (int i = 0; s.shm.pending > 0 && i < s.requests.size(); ++i) {
        Request &r = s.requests[i];
        if (r.state != ReqState::active || r.phase != Phase::await_copy || !load(r.local->copied)) continue;
        drop_block(r.local);
        r.local = nullptr;
        --s.shm.pending;
        complete(r, MPI_SUCCESS);
        *did = true;
    }
    return MPI_SUCCESS;
}

bool local_sleep_begin() {
    const RankState &s = self();
    if (!s.limits.local_path) return false;
    // The thread that sleeps may not be the one that slept last time: in
    // processes mode any thread of the rank may call MPI (rank_local.hpp).
    store(slot(s.local).core, static_cast<int16_t>(os::core()));
    store(slot(s.local).sleeping, 1u);
    if (!work_waiting()) return false;
    store(slot(s.local).sleeping, 0u);
    return true;
}

void local_sleep_end() {
    if (self().limits.local_path) store(slot(self().local).sleeping, 0u);
}

}  // namespace lwmpi::util
