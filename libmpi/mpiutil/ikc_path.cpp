// MPIUtil: the eager and rendezvous protocols over IKC (control.hpp shows
// the exchanges). Each rank has one input mailbox, whose arrivals the
// kernel puts in a ring in the rank's memory (polled without a kernel
// call), and one input portal on its MPI port. The portal takes one
// transfer at a time: matched rendezvous receives queue for it. A message
// leaves with one kernel call when its receiver has room (trywrite), else
// in the background. Nothing here blocks but the waits (ikc_wait_any(),
// ikc_wait_outside()).
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/syscall.h>

#include "control.hpp"
#include "engine.hpp"
#include "os.hpp"

namespace lwmpi::util {

namespace {

uint64_t payload() { return static_cast<uint64_t>(os::job()->mailbox_payload); }

bool is_to(const OutEndpoint &o, const Address &to) {
    return o.id >= 0 && o.to.cluster == to.cluster && o.to.port == to.port;
}

// The entry of outs[0..n) open to `to`, or -1.
int open_to(const OutEndpoint *outs, int n, const Address &to) {
    for (int i = 0; i < n; ++i)
        if (is_to(outs[i], to)) return i;
    return -1;
}

// The entry of outs[0..n) open to `to`, in *out: the one already open,
// else a free one or the least recently used, (re)opened with `open`. -1
// in *out when the one open to `to`, or every one, is busy (or pinned).
int out_endpoint(OutEndpoint *outs, int n, const Address &to, int (*open)(int, int, int), int (*close)(int),
                 int *out) {
    RankState &s = self();
    int pick = open_to(outs, n, to);
    if (pick >= 0 && outs[pick].busy) {
        *out = -1;
        return MPI_SUCCESS;
    }
    const bool already = pick >= 0;
    for (int i = 0; i < n && !already && (pick < 0 || outs[pick].id >= 0); ++i) {
        const OutEndpoint &o = outs[i];
        if (!o.busy && !o.pinned && (pick < 0 || o.id < 0 || o.used < outs[pick].used)) pick = i;
    }
    *out = pick;
    if (pick < 0) return MPI_SUCCESS;
    OutEndpoint &o = outs[pick];
    if (!is_to(o, to)) {
        if (o.id >= 0) close(o.id);
        o.id = open(s.port, to.cluster, to.port);
        if (o.id < 0) return fail(MPI_ERR_OTHER, "cannot open an output mailbox or portal to the peer", o.id);
        o.to = to;
    }
    o.used = ++s.endpoint_clock;
    return MPI_SUCCESS;
}

// A request's token: its pool index and its generation, so that a late
// reply (or hand-over) never reaches a reused request. A send's token is
// its id on the wire.
uint32_t request_token(const Request &r) { return static_cast<uint32_t>(r.gen) << 16 | request_index(r); }
static_assert(kMaxRequests <= 0x10000, "a request token keeps the pool index in 16 bits");

Request *request_of(uint32_t token) {
    const int i = static_cast<int>(token & 0xffff);
    if (i >= self().requests.size()) return nullptr;
    Request &r = request(i);
    return r.state == ReqState::active && r.gen == static_cast<uint16_t>(token >> 16) ? &r : nullptr;
}

Request *send_of(uint32_t id) {
    Request *r = request_of(id);
    return r && r->is_send ? r : nullptr;
}

ControlMsg control(ControlKind k, uint32_t seq) {
    const RankState &s = self();
    return make_control(k, s.rank, s.cluster, s.port, seq);
}

// A header for rank `to`, giving back the credits of its eager messages I
// consumed since I last wrote to it.
ControlMsg control_to(int to, ControlKind k, uint32_t seq) {
    RankState &s = self();
    ControlMsg m = control(k, seq);
    m.credit = s.peers[to].consumed;
    s.peers[to].consumed = 0;
    return m;
}

int post_reply(const Request &r, ControlKind k, uint64_t bytes) {
    ControlMsg m = control_to(r.status.source, k, r.peer_seq);
    m.bytes = bytes;
    return post_control(r.reply, &m, sizeof m);
}

// I consumed an eager message of `source`: the credit goes back with my
// next message to it, or in a CREDIT once half of them are consumed.
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

// Receive `r` gets the whole eager message `u` (then freed).
int finish_eager(Request &r, Unexpected *u) {
    memcpy(r.rbuf, u->data, r.status.bytes);
    const int source = u->env.source;
    free_unexpected(u);
    complete(r, MPI_SUCCESS);
    return consume_eager(source);
}

// ---- sending ----

int send_eager(Request &r, const Address &to) {
    RankState &s = self();
    alignas(8) char msg[kMailboxMax];
    ControlMsg head = control_to(r.peer, ControlKind::eager, 0);
    head.context = r.context;
    head.tag = r.tag;
    head.bytes = r.size;
    const auto *data = static_cast<const char *>(r.sbuf);
    uint64_t n = eager_first_bytes(payload());
    n = r.size < n ? r.size : n;
    memcpy(msg, &head, sizeof head);
    memcpy(msg + sizeof head, data, n);
    if (int e = post_control(to, msg, sizeof head + n, n == r.size ? &r : nullptr)) return e;
    const FragmentHeader more{static_cast<uint8_t>(ControlKind::eager_more), kControlVersion, 0, s.rank};
    for (uint64_t sent = n; sent < r.size; sent += n) {
        n = eager_more_bytes(payload());
        n = r.size - sent < n ? r.size - sent : n;
        memcpy(msg, &more, sizeof more);
        memcpy(msg + sizeof more, data + sent, n);
        if (int e = post_control(to, msg, sizeof more + n, sent + n == r.size ? &r : nullptr)) return e;
    }
    ++s.peers[r.peer].credits_used;
    return MPI_SUCCESS;
}

// ---- rendezvous sends ----
//
// A rank keeps a few output portals open (out_portals), each to one
// receiver. Its rendezvous sends to that receiver write through it one
// after the other, in the order they were sent: the receiver, which takes
// a sender's messages in that order as a rule, needs to send nothing back
// (RTS). The sends behind the write on a kept portal wait in line in
// RendezvousState::waiting, and the portal stays with its receiver
// (`pinned`). A receiver that allows a message before an older one of the
// same sender sends a CTS for it: the sender then takes the kept portal
// back from the older one's write, which no allow can move meanwhile (a
// receiver takes one transfer at a time), and restarts it after. A send
// that gets no kept portal asks for a CTS (RTS_CTS), and writes once it
// comes, on a kept portal or one of its own.

int kept_portals() {
    const RankState &s = self();
    return s.outbox.limit < kOutPortals ? s.outbox.limit : kOutPortals;
}

// The kept portal open to `to`, or -1.
int kept_to(const Address &to) { return open_to(self().rdv.out_portals, kept_portals(), to); }

// Starts rendezvous send r's portal write on output portal `id`, kept
// entry `slot` (-1: a portal of its own). The write waits in the kernel
// for the receiver's allow of its tag, r's token.
int write_on(Request &r, int id, int slot) {
    RankState &s = self();
    if (slot >= 0) {
        s.rdv.out_portals[slot].busy = true;
        s.rdv.out_portals[slot].used = ++s.endpoint_clock;
    }
    r.portal = id;
    r.out_portal = static_cast<int8_t>(slot);
    const long e = os::portal_awrite(id, r.sbuf, r.size, request_token(r));
    if (e < 0) return fail(MPI_ERR_OTHER, "portal write failed", e);
    r.phase = Phase::await_write;
    ++s.rdv.pending_writes;
    return MPI_SUCCESS;
}

// Rendezvous send r's portal write ended with `n`: the data is in the
// receiver's portal, the send buffer is free again, so r completes.
void finish_write(Request &r, long n) {
    RankState &s = self();
    if (r.out_portal >= 0)
        s.rdv.out_portals[r.out_portal].busy = false;
    else
        os::portal_close(r.portal);
    r.portal = -1;
    --s.rdv.pending_writes;
    s.rdv.portal_freed = true;
    complete(r, n < 0 ? fail(MPI_ERR_OTHER, "portal write failed", n) : MPI_SUCCESS);
}

// r waits in line for kept portal `slot` (-1: for any portal, its CTS in
// hand): first when `first` (its write was taken back), else last.
void wait_for_portal(Request &r, int slot, bool first) {
    RankState &s = self();
    r.phase = Phase::await_portal;
    r.out_portal = static_cast<int8_t>(slot);
    if (slot >= 0) ++s.rdv.out_portals[slot].pinned;
    const int i = request_index(r);
    if (!first || s.rdv.waiting.head < 0) return queue_push(s.rdv.waiting, i);
    r.next = s.rdv.waiting.head;
    s.rdv.waiting.head = i;
}

// Takes kept portal `slot` back from the write on it if that write ended,
// or if no allow let it move (cancelled: its send waits first in line for
// the portal): true when the portal is free now.
bool take_back(int slot) {
    RankState &s = self();
    for (int i = 0; i < s.requests.size(); ++i) {
        Request &w = s.requests[i];
        if (w.state != ReqState::active || w.phase != Phase::await_write || w.out_portal != slot) continue;
        // A confirmed write (its receiver allowed it) is never cancelled.
        const long n = w.confirmed ? os::portal_test(w.portal) : os::portal_cancel(w.portal);
        if (n == -TS_EAGAIN) return false;  // it moves
        if (n == -TS_ECANCELED) {
            s.rdv.out_portals[slot].busy = false;
            --s.rdv.pending_writes;
            w.portal = -1;
            wait_for_portal(w, slot, true);
        } else {
            finish_write(w, n);
        }
        return true;
    }
    return false;
}

// A portal for rendezvous send r, whose receiver allowed it (CTS), in
// *slot (kept entry) or *own (a portal of its own); both -1 when it must
// wait. The kept portal to its receiver first, taken back from the write
// on it if need be (that receiver takes r's transfer now, so that write
// has ended or cannot move), else a free kept one or the least recently
// used, else one of its own.
int portal_for(Request &r, int *slot, int *own) {
    RankState &s = self();
    *own = -1;
    *slot = kept_to(r.reply);
    if (*slot >= 0 && (!s.rdv.out_portals[*slot].busy || take_back(*slot))) return MPI_SUCCESS;
    if (int e =
            out_endpoint(s.rdv.out_portals, kept_portals(), r.reply, os::portal_open, os::portal_close, slot))
        return e;
    if (*slot >= 0) return MPI_SUCCESS;
    *own = os::portal_open(s.port, r.reply.cluster, r.reply.port);
    if (*own >= 0) return MPI_SUCCESS;
    if (*own != -TS_ENFILE) return fail(MPI_ERR_OTHER, "cannot open the peer's portal", *own);
    *own = -1;  // the cluster has none left to give: again on the next pass
    s.rdv.starved = true;
    return MPI_SUCCESS;
}

// Starts waiting send r's write if its turn came: in line for a kept
// portal (r.out_portal), once that portal is free (the first in line gets
// it); with its CTS, as soon as it has a portal. *started says.
int try_write(Request &r, bool *started) {
    RankState &s = self();
    if (r.out_portal >= 0) {
        OutEndpoint &o = s.rdv.out_portals[r.out_portal];
        *started = !o.busy;
        if (!*started) return MPI_SUCCESS;
        --o.pinned;
        return write_on(r, o.id, r.out_portal);
    }
    int slot, own;
    if (int e = portal_for(r, &slot, &own)) return e;
    *started = slot >= 0 || own >= 0;
    return *started ? write_on(r, slot >= 0 ? s.rdv.out_portals[slot].id : own, slot) : MPI_SUCCESS;
}

int send_rts(Request &r, const Address &to) {
    RankState &s = self();
    r.protocol = Protocol::rendezvous;
    r.reply = to;
    r.confirmed = false;
    // The kept portal to `to`, or one to open to it: then the write comes
    // without a CTS, at once or after the ones before it.
    int slot = -1;
    if (r.size > 0 && (slot = kept_to(to)) < 0)
        if (int e =
                out_endpoint(s.rdv.out_portals, kept_portals(), to, os::portal_open, os::portal_close, &slot))
            return e;
    ControlMsg rts =
        control_to(r.peer, slot >= 0 ? ControlKind::rts : ControlKind::rts_cts, request_token(r));
    rts.context = r.context;
    rts.tag = r.tag;
    rts.bytes = r.size;
    if (int e = post_control(to, &rts, sizeof rts)) return e;
    if (slot < 0) {
        r.phase = Phase::await_cts;
        return MPI_SUCCESS;
    }
    const OutEndpoint &o = s.rdv.out_portals[slot];
    if (!o.busy && !o.pinned) return write_on(r, o.id, slot);
    wait_for_portal(r, slot, false);
    return MPI_SUCCESS;
}

// Takes waiting send `i` out of the line.
void unwait(int i) {
    RequestQueue &q = self().rdv.waiting;
    for (int *link = &q.head, prev = -1; *link >= 0; prev = *link, link = &request(*link).next) {
        if (*link != i) continue;
        *link = request(i).next;
        if (q.tail == i) q.tail = prev;
        return;
    }
}

// CTS for rendezvous send r, which waits for it (RTS_CTS) or waits in
// line for its kept portal (its receiver took it before an older one).
int on_cts(Request &r) {
    r.confirmed = true;
    if (r.size == 0) {  // no bytes: that was all
        complete(r, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    if (r.phase == Phase::await_portal) {  // out of the line: it may take the portal now
        unwait(request_index(r));
        --self().rdv.out_portals[r.out_portal].pinned;
        r.out_portal = -1;
    }
    bool started;
    if (int e = try_write(r, &started)) return e;
    if (!started) wait_for_portal(r, -1, false);
    return MPI_SUCCESS;
}

// Rendezvous sends whose portal write ended complete; then the sends that
// wait for a portal try again, oldest first (a receiver takes a sender's
// messages of one tag in order).
int poll_writes(bool *did) {
    RankState &s = self();
    for (int i = 0; s.rdv.pending_writes > 0 && i < s.requests.size(); ++i) {
        Request &r = s.requests[i];
        if (r.state != ReqState::active || r.phase != Phase::await_write) continue;
        const long n = os::portal_test(r.portal);
        if (n == -TS_EAGAIN) continue;
        *did = true;
        finish_write(r, n);
    }
    // Only when a portal may have come free (a starved send tries every
    // time). The queue is rebuilt from the ones that still wait (a write
    // taken back meanwhile joins it too); after an error the rest keep
    // waiting.
    if (!s.rdv.portal_freed && !s.rdv.starved) return MPI_SUCCESS;
    s.rdv.portal_freed = false;
    s.rdv.starved = false;
    int err = MPI_SUCCESS;
    int i = s.rdv.waiting.head;
    s.rdv.waiting = RequestQueue{-1, -1};
    while (i >= 0) {
        Request &r = request(i);
        const int next = r.next;
        bool started = false;
        if (!err) err = try_write(r, &started);
        if (!started) queue_push(s.rdv.waiting, i);
        *did |= started;
        i = next;
    }
    return err;
}

// ---- receiving ----

// True when rendezvous receive r, about to be allowed, takes its message
// before an older one (RTS) of the same sender that is not allowed yet:
// an unexpected one, or one matched after it. The sender's kept portal
// then carries that one's write, and r's sender needs a CTS.
bool overtakes(const Request &r) {
    const RankState &s = self();
    auto older = [&r](int source, bool cts_wanted, uint32_t stamp) {
        return source == r.status.source && !cts_wanted && static_cast<int32_t>(stamp - r.stamp) < 0;
    };
    for (const Unexpected *u = s.match.unexpected; u; u = u->next)
        if (u->protocol == Protocol::rendezvous && older(u->env.source, u->cts_wanted, u->stamp)) return true;
    for (int i = r.next; i >= 0; i = request(i).next)  // matched after r, behind it in line
        if (older(request(i).status.source, request(i).cts_wanted, request(i).stamp)) return true;
    return false;
}

// Starts the portal transfer of the oldest matched rendezvous receive:
// the allow of its sender's write, which it tags with the send's id.
int start_incoming() {
    RankState &s = self();
    if (s.rdv.incoming_started || s.rdv.incoming.head < 0) return MPI_SUCCESS;
    Request &r = request(s.rdv.incoming.head);
    const int a = os::portal_allow(s.portal, r.reply.cluster, r.reply.port, r.peer_seq);
    if (a < 0) return fail(MPI_ERR_OTHER, "portal allow failed", a);
    const long e = os::portal_aread(s.portal, r.rbuf, r.status.bytes, r.offered);
    if (e < 0) return fail(MPI_ERR_OTHER, "portal read failed", e);
    s.rdv.incoming_started = true;
    return r.cts_wanted || overtakes(r) ? post_reply(r, ControlKind::cts, 0) : MPI_SUCCESS;
}

int poll_incoming(bool *did) {
    RankState &s = self();
    if (!s.rdv.incoming_started) return MPI_SUCCESS;
    const long n = os::portal_test(s.portal);
    if (n == -TS_EAGAIN) return MPI_SUCCESS;
    *did = true;
    s.rdv.incoming_started = false;
    Request &r = request(queue_pop(s.rdv.incoming));
    complete(r, n == static_cast<long>(r.status.bytes)
                    ? MPI_SUCCESS
                    : fail(MPI_ERR_OTHER, "portal read failed", n < 0 ? n : 0));
    return start_incoming();
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
    if (!control_valid(msg, n, s.shape.np)) return fail(MPI_ERR_INTERN, "malformed LWMPI message");
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
    s.inbox.ring = static_cast<ts_ring *>(malloc(TS_RING_BYTES(kRingSlots, payload())));
    if (!s.inbox.ring) return fail(MPI_ERR_NO_MEM, "no memory for the mailbox ring");
    const long mode = os::mailbox_ring(s.mailbox, s.inbox.ring, kRingSlots);
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
    const auto *slot = reinterpret_cast<const ts_ring_slot *>(slots + (r->tail % kRingSlots) *
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

int flush() {
    while (self().outbox.head) {
        if (int e = write_out()) return e;
        if (self().outbox.head)
            if (int e = ikc_wait_any()) return e;
    }
    return MPI_SUCCESS;
}

namespace {

// A message is in the kernel's hands: completes request `completes` (a
// token, or -1) if any.
void handed(int64_t completes) {
    if (completes < 0) return;
    if (Request *r = request_of(static_cast<uint32_t>(completes))) {
        complete(*r, MPI_SUCCESS);
        self().waiting.progressed = true;  // its waiter looks again before sleeping
    }
}

// Its message of `size` bytes was written (w: the write's result).
int written(long w, size_t size, int64_t completes) {
    if (w != static_cast<long>(size)) return fail(MPI_ERR_OTHER, "mailbox write failed", w < 0 ? w : 0);
    handed(completes);
    return MPI_SUCCESS;
}

// The output mailbox to `to`, in *id (opened if needed).
int out_mailbox(const Address &to, int *id) {
    RankState &s = self();
    if (int e = out_endpoint(s.outbox.ends, s.outbox.limit, to, os::mailbox_open, os::mailbox_close,
                             &s.outbox.current))
        return e;
    *id = s.outbox.ends[s.outbox.current].id;
    return MPI_SUCCESS;
}

// Queued message m, the head, found no room at its receiver: the kernel
// writes it in the background on output mailbox `id` (outbox.current),
// even while I compute, so its send is done.
int write_later(OutMessage &m, int id) {
    const long e = os::mailbox_awrite(id, m.data, m.size);
    if (e < 0) return fail(MPI_ERR_OTHER, "mailbox write failed", e);
    self().outbox.busy = true;
    handed(m.completes);
    m.completes = -1;
    return MPI_SUCCESS;
}

}  // namespace

int post_control(const Address &to, const void *msg, size_t n, Request *completes) {
    RankState &s = self();
    const int64_t token = completes ? static_cast<int64_t>(request_token(*completes)) : -1;
    int tried = -1;        // the output mailbox of a write that found no room just now
    if (!s.outbox.head) {  // nothing queued before it: one try at once, from msg itself
        int id;
        if (int e = out_mailbox(to, &id)) return e;
        const long w = os::mailbox_trywrite(id, msg, n);
        if (w != -TS_EAGAIN) return written(w, n, token);
        tried = id;
    }
    OutMessage *m = s.outbox.spare.take(sizeof(OutMessage), &s.allocations);
    if (!m) return fail(MPI_ERR_NO_MEM, "no memory for an outgoing message");
    m->next = nullptr;
    m->to = to;
    m->size = n;
    m->completes = token;
    memcpy(m->data, msg, n);
    *s.outbox.tail = m;
    s.outbox.tail = &m->next;
    return tried >= 0 ? write_later(*m, tried) : write_out();
}

// Writes queued messages until one has to wait for room at its receiver;
// its write goes on in the background. A rank never blocks on a write:
// it must keep reading its own mailbox meanwhile, or two ranks writing
// to each other's full slots would wait for ever.
int write_out() {
    RankState &s = self();
    for (;;) {
        OutMessage *m = s.outbox.head;
        if (!m) return MPI_SUCCESS;
        long w;
        if (s.outbox.busy) {
            w = os::mailbox_test(s.outbox.ends[s.outbox.current].id);
            if (w == -TS_EAGAIN) return MPI_SUCCESS;
            s.outbox.busy = false;
        } else {
            int id;
            if (int e = out_mailbox(m->to, &id)) return e;
            w = os::mailbox_trywrite(id, m->data, m->size);
            if (w == -TS_EAGAIN) return write_later(*m, id);  // no room yet
        }
        s.outbox.head = m->next;
        if (!s.outbox.head) s.outbox.tail = &s.outbox.head;
        const size_t size = m->size;
        const int64_t completes = m->completes;
        s.outbox.spare.give(m);
        if (int e = written(w, size, completes)) return e;
    }
}

int ikc_send(Request &r) {
    RankState &s = self();
    Address to;
    if (int e = resolve(r.peer, &to)) return e;
    const bool eager = r.protocol == Protocol::eager && r.size <= s.limits.eager_max &&
                       s.peers[r.peer].credits_used < s.limits.eager_credits;
    return eager ? send_eager(r, to) : send_rts(r, to);
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
// that the kernel makes an arrival an event (and only then).
int sleep_on_events(unsigned long timeout_ns) {
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
        // event I must not miss. A count never equals kNoCount, so then
        // the call only returns this core's count, and my caller looks
        // for work once more before it sleeps with it.
        constexpr unsigned long kNoCount = ~0UL;
        const int core = os::core();
        const unsigned long mine = core == s.waiting.seen_core ? s.waiting.ikc_seen : kNoCount;
        const long seen = os::ikc_wait_any(mine, timeout_ns);
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
    return sleep_on_events(timeout_ns);
}

void drop_stash() {
    RankState &s = self();
    free_all(s.inbox.stash);
    s.inbox.stash_tail = &s.inbox.stash;
}

int ikc_wait_any(unsigned long timeout_ns) {
    return self().inbox.stash ? MPI_SUCCESS : sleep_on_events(timeout_ns);
}

bool ikc_retrying() { return self().rdv.starved; }

}  // namespace lwmpi::util
