// MPIUtil's IKC path, receiving: the ring in which the kernel puts the
// arrivals of the rank's input mailbox (polled without a kernel call),
// the handling of each message (eager data, fragments, RTS, CTS, credits),
// the hand-over of an unexpected message to its receive, and the waits.
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/syscall.h>

#include "control.hpp"
#include "engine.hpp"
#include "ikc_path.hpp"
#include "os.hpp"

namespace lwmpi::util {

int consume_eager(int source) {
    RankState &s = self();
    Peer &p = s.peers[source];
    if (s.quiet || ++p.consumed < s.limits.eager_credits / 2) return MPI_SUCCESS;
    if (source == s.rank) {
        p.credits_used -= p.consumed;
        p.consumed = 0;
        return MPI_SUCCESS;
    }
    const ControlMsg m = control_to(source, ControlKind::credit, 0);
    return post_control(p.address, &m, sizeof m);
}

namespace {

// Receive `r` gets the whole eager message `u` (then freed).
int finish_eager(Request &r, Unexpected *u) {
    memcpy(r.rbuf, u->data, r.status.bytes);
    const int source = u->env.source;
    free_unexpected(u);
    complete(r, MPI_SUCCESS);
    return consume_eager(source);
}

// The eager message of `source` whose fragments arrive, or nullptr.
Assembly *assembly_of(int source) {
    RankState &s = self();
    const int k = s.peers[source].assembly;
    return k ? &s.eager.assemblies[k - 1] : nullptr;
}

// A free entry of the assembly table for the message of `source` (the
// table grows when every entry is taken: at most one per sender); nullptr
// when out of memory.
Assembly *start_assembly(int source) {
    RankState &s = self();
    EagerState &e = s.eager;
    int k = 0;
    while (k < e.capacity && e.assemblies[k].total)
        ++k;
    if (k == e.capacity) {
        const int cap = e.capacity ? 2 * e.capacity : 1;
        auto *grown =
            static_cast<Assembly *>(realloc(e.assemblies, sizeof(Assembly) * static_cast<size_t>(cap)));
        if (!grown) return nullptr;
        ++s.allocations;
        for (int i = e.capacity; i < cap; ++i)
            grown[i] = Assembly{-1, nullptr, 0, 0};
        e.assemblies = grown;
        e.capacity = cap;
    }
    s.peers[source].assembly = static_cast<uint16_t>(k + 1);
    return &e.assemblies[k];
}

// The message of `source` has all its fragments: its entry is free again.
void end_assembly(int source) {
    RankState &s = self();
    *assembly_of(source) = Assembly{-1, nullptr, 0, 0};
    s.peers[source].assembly = 0;
}

// EAGER_MORE: the next bytes of the eager message `source` is sending.
int on_fragment(int source, const char *data, uint64_t n) {
    Assembly *at = assembly_of(source);
    if (!at || at->filled + n > at->total) return fail(MPI_ERR_INTERN, "eager fragment without its message");
    Assembly &a = *at;
    if (a.req >= 0) {  // straight into the receive's buffer
        Request &r = request(a.req);
        if (a.filled < r.status.bytes) {
            const uint64_t room = r.status.bytes - a.filled;
            memcpy(static_cast<char *>(r.rbuf) + a.filled, data, n < room ? n : room);
        }
    } else {
        memcpy(a.node->data + a.filled, data, n);
        a.node->filled += n;
    }
    a.filled += n;
    if (a.filled < a.total) return MPI_SUCCESS;
    const Assembly whole = a;
    end_assembly(source);
    if (whole.req < 0)  // complete in the unexpected list
        return MPI_SUCCESS;
    complete(request(whole.req), MPI_SUCCESS);
    return consume_eager(source);
}

int on_eager(const ControlMsg &m, const char *data, uint64_t n) {
    RankState &s = self();
    if (s.peers[m.source].assembly) return fail(MPI_ERR_INTERN, "eager message inside another");
    const Envelope env{m.source, m.tag, m.context};
    // Fragments are due: their entry is taken first, so that no memory
    // fails the message once a receive has taken it.
    Assembly *a = nullptr;
    if (n < m.bytes && !(a = start_assembly(m.source)))
        return fail(MPI_ERR_NO_MEM, "no memory for an eager message");
    // A posted receive takes it: one copy, from the mailbox message
    // straight into its buffer (and so do the fragments still due).
    if (const int i = take_posted(env, m.bytes); i >= 0) {
        Request &r = request(i);
        r.protocol = Protocol::eager;
        memcpy(r.rbuf, data, n < r.status.bytes ? n : r.status.bytes);
        if (a) {
            *a = Assembly{i, nullptr, n, m.bytes};
            return MPI_SUCCESS;
        }
        complete(r, MPI_SUCCESS);
        return consume_eager(m.source);
    }
    Unexpected *u = new_unexpected(m.bytes);
    if (!u) {
        if (a) end_assembly(m.source);
        return fail(MPI_ERR_NO_MEM, "no memory for an eager message");
    }
    u->env = env;
    u->protocol = Protocol::eager;
    u->bytes = m.bytes;
    u->seq = m.seq;
    memcpy(u->data, data, n);
    u->filled = n;
    // Fragments still due go where the message is now (see ikc_accept).
    if (a) *a = Assembly{-1, u, n, m.bytes};
    add_unexpected(u);
    return MPI_SUCCESS;
}

int on_rts(const ControlMsg &m, bool cts_wanted) {
    Unexpected *u = new_unexpected(0);
    if (!u) return fail(MPI_ERR_NO_MEM, "no memory for a request to send");
    u->env = Envelope{m.source, m.tag, m.context};
    u->protocol = Protocol::rendezvous;
    u->bytes = m.bytes;
    u->reply = Address{m.cluster, m.port};
    u->seq = m.seq;
    u->cts_wanted = cts_wanted;
    u->stamp = ++self().rdv.rts_arrivals;
    arrive(u);
    return MPI_SUCCESS;
}

int handle(const char *msg, long n) {
    RankState &s = self();
    if (!control_valid(msg, n, s.nprocs)) return fail(MPI_ERR_INTERN, "malformed LWMPI message");
    const auto kind = static_cast<ControlKind>(msg[0]);
    if (kind == ControlKind::eager_more) {
        const auto *f = reinterpret_cast<const FragmentHeader *>(msg);
        return on_fragment(f->source, msg + sizeof *f, static_cast<uint64_t>(n) - sizeof *f);
    }
    const auto &m = *reinterpret_cast<const ControlMsg *>(msg);
    // The writer's reply address saves a name resolution (credits go back
    // to ranks I never sent to).
    Peer &p = s.peers[m.source];
    if (p.address.cluster < 0) p.address = Address{m.cluster, m.port};
    if (m.credit > p.credits_used) return fail(MPI_ERR_INTERN, "a peer gave back credits it never had");
    p.credits_used -= static_cast<uint8_t>(m.credit);
    switch (kind) {
    case ControlKind::eager: return on_eager(m, msg + sizeof m, static_cast<uint64_t>(n) - sizeof m);
    case ControlKind::rts: return on_rts(m, false);
    case ControlKind::rts_cts: return on_rts(m, true);
    case ControlKind::credit: return MPI_SUCCESS;
    case ControlKind::kick: return MPI_SUCCESS;
    case ControlKind::withdraw: return on_withdraw(m);
    case ControlKind::withdrawn: return on_withdrawn(m);
    default: break;
    }
    Request *r = send_of(m.seq);
    if (!r || r->peer != m.source) return fail(MPI_ERR_INTERN, "reply without a pending send");
    if (kind == ControlKind::cts && !r->confirmed &&
        (r->phase == Phase::await_cts || (r->phase == Phase::await_portal && r->out_portal >= 0)))
        return on_cts(*r);
    return fail(MPI_ERR_INTERN, "reply out of order in the rendezvous protocol");
}

}  // namespace

int ring_attach() {
    RankState &s = self();
    s.inbox.ring = static_cast<ts_ring *>(malloc(TS_RING_BYTES(ring_slots, payload())));
    if (!s.inbox.ring) return fail(MPI_ERR_NO_MEM, "no memory for the mailbox ring");
    const long mode = os::mailbox_ring(s.mailbox, s.inbox.ring, ring_slots);
    if (mode < 0) {
        free(s.inbox.ring);
        s.inbox.ring = nullptr;
        return fail(MPI_ERR_OTHER, "cannot attach the mailbox ring", mode);
    }
    s.inbox.pull = mode == TS_RING_PULL;
    s.inbox.reader = os::core();
    return MPI_SUCCESS;
}

int ring_next(const char **msg, long *size) {
    RankState &s = self();
    ts_ring *r = s.inbox.ring;
    *size = -1;
    if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == r->tail) {
        if (!s.inbox.pull) return MPI_SUCCESS;
        const long n = os::mailbox_drain(s.mailbox);
        if (n < 0) return fail(MPI_ERR_OTHER, "mailbox read failed", n);
        if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == r->tail) return MPI_SUCCESS;
    }
    const char *slots = reinterpret_cast<const char *>(r + 1);
    const auto *slot = reinterpret_cast<const ts_ring_slot *>(slots + (r->tail % ring_slots) *
                                                                          TS_RING_SLOT_BYTES(payload()));
    *msg = reinterpret_cast<const char *>(slot + 1);
    *size = slot->length;
    return MPI_SUCCESS;
}

int ring_pop() {
    RankState &s = self();
    ts_ring *r = s.inbox.ring;
    __atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);  // the slot is the kernel's again
    if (!__atomic_load_n(&r->stalled, __ATOMIC_ACQUIRE)) return MPI_SUCCESS;
    // Messages waited in the kernel for room: it tells nobody when there
    // is some, so take them now.
    __atomic_store_n(&r->stalled, 0u, __ATOMIC_SEQ_CST);
    const long n = os::mailbox_drain(s.mailbox);
    return n < 0 ? fail(MPI_ERR_OTHER, "mailbox read failed", n) : MPI_SUCCESS;
}

int ikc_accept(Request &r, Unexpected *u) {
    RankState &s = self();
    r.protocol = u->protocol;
    if (u->protocol == Protocol::eager) {
        if (u->filled == u->bytes) return finish_eager(r, u);
        // Fragments are still due: the ones to come go straight into the
        // buffer, after what has arrived.
        Assembly &a = *assembly_of(u->env.source);
        memcpy(r.rbuf, u->data, u->filled < r.status.bytes ? u->filled : r.status.bytes);
        a.req = request_index(r);
        a.node = nullptr;
        free_unexpected(u);
        return MPI_SUCCESS;
    }
    r.reply = u->reply;
    r.peer_seq = u->seq;
    r.offered = u->bytes;
    r.cts_wanted = u->cts_wanted;
    r.stamp = u->stamp;
    free_unexpected(u);
    if (r.offered == 0) {  // nothing to move: the CTS tells the sender its receive matched
        complete(r, MPI_SUCCESS);
        return post_reply(r, ControlKind::cts, 0);
    }
    queue_push(s.rdv.incoming, request_index(r));
    return start_incoming();
}

namespace {

// Calls f(msg, size) for each message of my ring, in place, until none is
// left or f fails.
template <class F>
int each_arrived(F f) {
    for (;;) {
        const char *msg;
        long n;
        if (int e = ring_next(&msg, &n)) return e;
        if (n < 0) return MPI_SUCCESS;
        const int e = f(msg, n);
        if (int e2 = ring_pop()) return e ? e : e2;
        if (e) return e;
    }
}

// Sleeps until an event of mine, at most timeout_ns (0: no limit), unless
// my ring has a message: the ring's `wake` is up while I may sleep, so
// that the kernel makes an arrival an event (and only then). With
// let_threads_in, my rank's other threads may call MPI while I sleep.
int sleep_on_events(unsigned long timeout_ns, bool let_threads_in) {
    RankState &s = self();
    // In processes mode another thread of the rank may have slept last:
    // a drain makes my core the one the kernel wakes for my arrivals.
    if (const int core = os::core(); core != s.inbox.reader) {
        const long n = os::mailbox_drain(s.mailbox);
        if (n < 0) return fail(MPI_ERR_OTHER, "mailbox read failed", n);
        s.inbox.reader = core;
    }
    __atomic_store_n(&s.inbox.ring->wake, 1u, __ATOMIC_SEQ_CST);
    const char *msg;
    long n;
    int e = ring_next(&msg, &n);  // once more after the flag: an earlier arrival is in the ring by now
    if (!e && n < 0) {
        // Counts are per thread: one seen on another core (the rank's
        // other thread slept last) may equal this core's count after an
        // event I must not miss. A count never equals no_count, so then
        // the call only returns this core's count, and my caller looks
        // for work once more before it sleeps with it.
        constexpr unsigned long no_count = ~0UL;
        const int core = os::core();
        const unsigned long mine = core == s.waiting.seen_core ? s.waiting.ikc_seen : no_count;
        long seen;
        if (let_threads_in) {
            Unlocked unlocked;
            seen = os::ikc_wait_any(mine, timeout_ns);
        } else {
            seen = os::ikc_wait_any(mine, timeout_ns);
        }
        if (seen < 0)
            e = fail(MPI_ERR_OTHER, "waiting for IKC failed", seen);
        else
            s.waiting.ikc_seen = static_cast<unsigned long>(seen);
        s.waiting.seen_core = core;
    }
    __atomic_store_n(&s.inbox.ring->wake, 0u, __ATOMIC_RELAXED);
    return e;
}

// Moves every message that has arrived into the stash, in order.
int stash_arrived() {
    return each_arrived([](const char *msg, long n) {
        RankState &s = self();
        auto *m = static_cast<Stashed *>(malloc(sizeof(Stashed)));
        if (!m) return fail(MPI_ERR_NO_MEM, "no memory for an arrived message");
        m->next = nullptr;
        m->size = n;
        memcpy(m->data, msg, static_cast<size_t>(n));
        *s.inbox.stash_tail = m;
        s.inbox.stash_tail = &m->next;
        return MPI_SUCCESS;
    });
}

// Handles the stashed messages, oldest first (they came before any the
// mailbox has now).
int handle_stash(bool *did) {
    RankState &s = self();
    while (Stashed *m = s.inbox.stash) {
        s.inbox.stash = m->next;
        if (!s.inbox.stash) s.inbox.stash_tail = &s.inbox.stash;
        *did = true;
        const int e = handle(m->data, m->size);
        free(m);
        if (e) return e;
    }
    return MPI_SUCCESS;
}

}  // namespace

int ikc_progress(bool *did) {
    if (int e = write_out()) return e;
    if (int e = poll_incoming(did)) return e;
    if (int e = handle_stash(did)) return e;
    if (int e = each_arrived([did](const char *msg, long n) {
            *did = true;
            return handle(msg, n);
        }))
        return e;
    // My portal writes, after the arrivals: a message that a receiver sent
    // once it had my data must not be seen before my send is complete (a
    // Bsend's block must have left the buffer by then, MPI 3.1 section 3.6).
    return poll_writes(did);
}

int ikc_wait_outside(unsigned long timeout_ns) {
    if (int e = stash_arrived()) return e;
    // My rank's other threads stay out: a name resolution is one at a time.
    return sleep_on_events(timeout_ns, false);
}

void drop_stash() {
    RankState &s = self();
    free_all(s.inbox.stash);
    s.inbox.stash_tail = &s.inbox.stash;
}

int ikc_wait_any(unsigned long timeout_ns) {
    return self().inbox.stash ? MPI_SUCCESS : sleep_on_events(timeout_ns, true);
}

bool ikc_retrying() { return self().rdv.starved; }

}  // namespace lwmpi::util
