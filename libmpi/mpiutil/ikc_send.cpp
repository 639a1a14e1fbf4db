// MPIUtil's IKC path, sending: the eager protocol's messages and every
// control message leave through here, with one kernel call when the
// receiver has room (trywrite), else queued and written in the
// background; and the helpers the three parts share (ikc_path.hpp).
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/syscall.h>

#include "control.hpp"
#include "engine.hpp"
#include "ikc_path.hpp"
#include "os.hpp"

namespace lwmpi::util {

namespace {

bool is_to(const OutEndpoint &o, const Address &to) {
    return o.id >= 0 && o.to.cluster == to.cluster && o.to.port == to.port;
}

ControlMsg control(ControlKind k, uint32_t seq) {
    const RankState &s = self();
    return make_control(k, s.rank, s.cluster, s.port, seq);
}

}  // namespace

uint64_t payload() { return static_cast<uint64_t>(os::job()->mailbox_payload); }

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
static_assert(max_requests <= 0x10000, "a request token keeps the pool index in 16 bits");

Request *request_of(uint32_t token) {
    Request *r = request_in_use(token);
    return r && r->state == ReqState::active ? r : nullptr;
}

// The request of `token`, active or done (not released), or nullptr.
Request *request_in_use(uint32_t token) {
    const int i = static_cast<int>(token & 0xffff);
    if (i >= self().requests.size()) return nullptr;
    Request &r = request(i);
    return r.state != ReqState::free && r.gen == static_cast<uint16_t>(token >> 16) ? &r : nullptr;
}

Request *send_of(uint32_t id) {
    Request *r = request_of(id);
    return r && r->is_send ? r : nullptr;
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

namespace {

int send_eager(Request &r, const Address &to) {
    RankState &s = self();
    alignas(8) char msg[mailbox_max];
    ControlMsg head = control_to(r.peer, ControlKind::eager, request_token(r));
    head.context = r.context;
    head.tag = r.tag;
    head.bytes = r.size;
    const auto *data = static_cast<const char *>(r.sbuf);
    uint64_t n = eager_first_bytes(payload());
    n = r.size < n ? r.size : n;
    memcpy(msg, &head, sizeof head);
    memcpy(msg + sizeof head, data, n);
    if (int e = post_control(to, msg, sizeof head + n, n == r.size ? &r : nullptr)) return e;
    const FragmentHeader more{static_cast<uint8_t>(ControlKind::eager_more), control_version, 0, s.rank};
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

}  // namespace

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

}  // namespace lwmpi::util
