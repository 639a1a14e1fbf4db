// MPIUtil: the local path. The MPI processes of a cluster are threads of
// one process, so a message between two of them need not cross IKC: the
// sender publishes it in the receiver's inbox in the cluster's shared
// memory, and the receiver copies it once into the receive buffer.
//
// A message up to the eager threshold (standard mode) is copied into the
// published block and the send completes at once; the sender's bytes
// waiting this way are bounded (kLocalEagerBudget). Blocks with room for
// kLocalBlockData bytes are reused: the receiver gives one back to its
// sender's stack of returned blocks, where the sender takes them all at
// once, so that steady traffic allocates nothing. A larger or
// synchronous one publishes the send buffer itself: the receiver copies
// straight from it and then marks the block copied, which completes the
// send. A rank that has nothing to do sleeps on its events (engine.cpp,
// idle()); a rank that publishes to it, or completes its send, wakes it
// with os::ikc_wake().
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/syscall.h>

#include "control.hpp"
#include "engine.hpp"
#include "os.hpp"

namespace lwmpi::util {

/// A message on the local path (heap block of the sender).
struct LocalMsg {
    LocalMsg *next;
    Envelope env;
    uint64_t bytes;
    int sender;        ///< local index of the sender
    bool inline_data;  ///< data follows in `payload`
    bool reused;       ///< a block of kLocalBlockData bytes: back to its sender when done
    uint32_t copied;   ///< published buffer: the receiver is done (atomic)
    const void *data;
    char payload[];
};

namespace {

// One per MPI process of the cluster, in the shared area. The fields
// other threads touch are accessed with the __atomic builtins only
// (sequentially consistent unless said otherwise): <atomic> does not
// exist in the freestanding target build.
struct LocalSlot {
    LocalMsg *inbox;      ///< newest first
    LocalMsg *returned;   ///< its blocks its receivers are done with (a stack)
    uint32_t sleeping;    ///< 1 while its owner may sleep on its events
    int64_t eager_bytes;  ///< its copied bytes not consumed yet
    int16_t core;         ///< its core (for os::ikc_wake)
};

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

LocalSlot *slots() {
    return static_cast<LocalSlot *>(os::cluster_shared(sizeof(LocalSlot) * kMaxLocalRanks));
}

LocalSlot &slot(int local) { return slots()[local]; }

// Wakes the rank with local index `local` if it sleeps.
void wake(int local) {
    LocalSlot &t = slot(local);
    // A plain load first: the peer's line stays shared while it is awake.
    if (load(t.sleeping) && exchange(t.sleeping, 0u))
        os::ikc_wake(t.core);  // fails only when its thread is gone
}

// Pushes m on a stack that other threads push on too and its owner takes
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

// A block for a local message with `data` bytes inline: a reused one when
// they fit in kLocalBlockData. nullptr when out of memory.
LocalMsg *new_block(uint64_t data) {
    RankState &s = self();
    const bool reused = data <= kLocalBlockData;
    LocalMsg *m;
    if (reused) {
        if (!s.shm.spare.head)
            s.shm.spare.head = exchange(slot(s.local).returned, static_cast<LocalMsg *>(nullptr));
        m = s.shm.spare.take(sizeof(LocalMsg) + kLocalBlockData, &s.allocations);
    } else {
        m = static_cast<LocalMsg *>(malloc(sizeof(LocalMsg) + data));
        if (m) ++s.allocations;
    }
    if (m) m->reused = reused;
    return m;
}

// Block `m` of mine is done with.
void drop_block(LocalMsg *m) { self().shm.spare.give_or_free(m, m->reused); }

// The receiver is done with block `m` of another rank: back to its sender.
void give_back(LocalMsg *m) {
    if (m->reused)
        push(&slot(m->sender).returned, m);
    else
        free(m);
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

int local_init() {
    RankState &s = self();
    if (s.local >= kMaxLocalRanks || !slots())
        return fail(MPI_ERR_OTHER, "more MPI processes on this cluster than LWMPI supports");
    LocalSlot &mine = slot(s.local);
    mine.core = static_cast<int16_t>(os::core());
    store(mine.sleeping, 0u);
    return MPI_SUCCESS;
}

int local_send(Request &r) {
    RankState &s = self();
    const int to = s.shape.place(r.peer).local;
    int64_t &budget = slot(s.local).eager_bytes;
    const bool copy = r.mode == SendMode::standard && r.size <= s.limits.local_eager_max &&
                      load(budget) + static_cast<int64_t>(r.size) <= static_cast<int64_t>(kLocalEagerBudget);
    LocalMsg *m = new_block(copy ? r.size : 0);
    if (!m) return fail(MPI_ERR_NO_MEM, "no memory for a local message");
    m->env = Envelope{s.rank, r.tag, r.context};
    m->bytes = r.size;
    m->sender = s.local;
    m->inline_data = copy;
    m->copied = 0;
    if (copy) {
        memcpy(m->payload, r.sbuf, r.size);
        m->data = m->payload;
        add(budget, static_cast<int64_t>(r.size));
    } else {
        m->data = r.sbuf;
        r.local = m;
        r.phase = Phase::await_copy;
        ++s.shm.pending;
    }
    publish(to, m, copy ? &r : nullptr);
    return MPI_SUCCESS;
}

namespace {

// Receive `r`, its status set, takes local message `m`.
void take(Request &r, LocalMsg *m) {
    memcpy(r.rbuf, m->data, r.status.bytes);
    if (m->inline_data) {
        add(slot(m->sender).eager_bytes, -static_cast<int64_t>(m->bytes));
        give_back(m);
    } else {
        const int sender = m->sender;
        store(m->copied, 1u);  // m is the sender's again
        wake(sender);
    }
    complete(r, MPI_SUCCESS);
}

}  // namespace

void local_accept(Request &r, Unexpected *u) {
    LocalMsg *m = u->local;
    free_unexpected(u);
    take(r, m);
}

void local_finalize() {
    RankState &s = self();
    s.shm.spare.drop();
    LocalMsg *returned = exchange(slot(s.local).returned, static_cast<LocalMsg *>(nullptr));
    free_all(returned);
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
    store(slot(s.local).sleeping, 1u);
    if (!work_waiting()) return false;
    store(slot(s.local).sleeping, 0u);
    return true;
}

void local_sleep_end() {
    if (self().limits.local_path) store(slot(self().local).sleeping, 0u);
}

}  // namespace lwmpi::util
