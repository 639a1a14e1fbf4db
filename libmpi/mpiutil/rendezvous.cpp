// MPIUtil: the synchronous rendezvous protocol over IKC (control.hpp shows
// the exchange). Each rank has one input mailbox and one input portal on
// its MPI port. Every wait reads the mailbox in arrival order; a
// request-to-send that the current operation does not want goes to the
// unexpected queue, which keeps arrival order for later receives.
#include <mpi.h>

#include "control.hpp"
#include "os.hpp"
#include "process.hpp"
#include "rank_state.hpp"
#include "text.hpp"

namespace lwmpi::util {

namespace {

PendingSend pending_from(const ControlMsg &m) {
    return PendingSend{{m.source, m.tag, m.context}, m.bytes, m.seq, m.cluster, m.port};
}

// Reads the next control message of my mailbox into *m.
int read_control(ControlMsg *m) {
    RankState &s = self();
    const long n = os::mailbox_read(s.mailbox, m, sizeof *m);
    if (n < 0)
        return fail(MPI_ERR_OTHER, "mailbox read failed", n);
    if (!control_valid(*m, n, s.shape.np))
        return fail(MPI_ERR_INTERN, "malformed control message");
    return MPI_SUCCESS;
}

int queue_unexpected(const ControlMsg &m) {
    if (!self().unexpected.push(pending_from(m)))
        return fail(MPI_ERR_INTERN, "unexpected-message queue full");
    return MPI_SUCCESS;
}

// Writes `m` to the mailbox at `to` from my port.
int post_control(const Address &to, const ControlMsg &m) {
    RankState &s = self();
    const int id = os::mailbox_open(s.port, to.cluster, to.port);
    if (id < 0)
        return fail(MPI_ERR_OTHER, "cannot open the peer's mailbox", id);
    const long n = os::mailbox_write(id, &m, sizeof m);
    os::mailbox_close(id);
    if (n != static_cast<long>(sizeof m))
        return fail(MPI_ERR_OTHER, "mailbox write failed", n < 0 ? n : 0);
    return MPI_SUCCESS;
}

// `peer` is blocked sending to me while I send to it: each waits for the
// other's clear-to-send, for ever.
int head_to_head(int peer) {
    RankState &s = self();
    TextBuilder(s.detail, sizeof s.detail)
        .put("rank ").put_int(peer)
        .put(" is sending to this rank at the same time; LWMPI sends are synchronous");
    return MPI_ERR_OTHER;
}

// Waits for the `kind` reply of `peer` to my send number `seq`, queueing
// the requests-to-send that arrive meanwhile; one from `peer` itself while
// I wait for its clear-to-send is a head-to-head deadlock.
int await_reply(ControlKind kind, int peer, uint32_t seq, ControlMsg *out) {
    for (;;) {
        if (int e = read_control(out))
            return e;
        if (out->kind == static_cast<uint8_t>(ControlKind::rts)) {
            if (int e = queue_unexpected(*out))
                return e;
            if (kind == ControlKind::cts && out->source == peer)
                return head_to_head(peer);
            continue;
        }
        if (out->kind == static_cast<uint8_t>(kind) && out->source == peer && out->seq == seq)
            return MPI_SUCCESS;
        return fail(MPI_ERR_INTERN, "unexpected reply in the rendezvous protocol");
    }
}

// Takes the oldest matching request-to-send: from the unexpected queue,
// else from the mailbox (queueing the ones that do not match).
int next_match(const Pattern &p, PendingSend *out) {
    RankState &s = self();
    if (s.unexpected.take(p, out))
        return MPI_SUCCESS;
    for (;;) {
        ControlMsg m;
        if (int e = read_control(&m))
            return e;
        if (m.kind != static_cast<uint8_t>(ControlKind::rts))
            return fail(MPI_ERR_INTERN, "reply without a pending send");
        const PendingSend ps = pending_from(m);
        if (matches(p, ps.env)) {
            *out = ps;
            return MPI_SUCCESS;
        }
        if (int e = queue_unexpected(m))
            return e;
    }
}

}  // namespace

int send(Protocol protocol, int dst, int tag, uint32_t context, const void *buf, uint64_t bytes) {
    RankState &s = self();
    if (!s.ready)
        return fail(MPI_ERR_OTHER, "MPI is not initialized");
    if (protocol != Protocol::rendezvous)
        return fail(MPI_ERR_INTERN, "protocol not implemented");
    if (dst == s.rank)
        return fail(MPI_ERR_OTHER, "a send to self never completes: LWMPI sends are synchronous");
    if (s.unexpected.has_source(dst))
        return head_to_head(dst);
    Address to;
    if (int e = resolve(dst, &to))
        return e;

    const uint32_t seq = s.next_seq++;
    ControlMsg rts = make_control(ControlKind::rts, s.rank, s.cluster, s.port, seq);
    rts.context = context;
    rts.tag = tag;
    rts.bytes = bytes;
    if (int e = post_control(to, rts))
        return e;

    ControlMsg cts;
    if (int e = await_reply(ControlKind::cts, dst, seq, &cts))
        return e;
    if (cts.bytes > bytes)
        return fail(MPI_ERR_INTERN, "receiver accepted more bytes than offered");
    if (cts.bytes == 0)
        return MPI_SUCCESS;

    const int out = os::portal_open(s.port, to.cluster, to.port);
    if (out < 0)
        return fail(MPI_ERR_OTHER, "cannot open the peer's portal", out);
    const long n = os::portal_write(out, buf, cts.bytes);
    os::portal_close(out);
    if (n != static_cast<long>(cts.bytes))
        return fail(MPI_ERR_OTHER, "portal write failed", n < 0 ? n : 0);

    ControlMsg ack;
    return await_reply(ControlKind::ack, dst, seq, &ack);
}

int recv(int source, int tag, uint32_t context, void *buf, uint64_t capacity, RecvResult *out) {
    RankState &s = self();
    if (!s.ready)
        return fail(MPI_ERR_OTHER, "MPI is not initialized");
    if (source == s.rank)
        return fail(MPI_ERR_OTHER, "a receive from self never completes: sends to self fail");
    PendingSend m{};
    if (int e = next_match(Pattern{source, tag, context}, &m))
        return e;

    const Address from{m.cluster, m.port};
    const uint64_t accepted = m.bytes < capacity ? m.bytes : capacity;
    if (accepted > 0) {
        const int r = os::portal_allow(s.portal, from.cluster, from.port);
        if (r < 0)
            return fail(MPI_ERR_OTHER, "portal allow failed", r);
    }
    ControlMsg cts = make_control(ControlKind::cts, s.rank, s.cluster, s.port, m.seq);
    cts.bytes = accepted;
    if (int e = post_control(from, cts))
        return e;
    if (accepted > 0) {
        const long n = os::portal_read(s.portal, buf, accepted);
        if (n != static_cast<long>(accepted))
            return fail(MPI_ERR_OTHER, "portal read failed", n < 0 ? n : 0);
        ControlMsg ack = make_control(ControlKind::ack, s.rank, s.cluster, s.port, m.seq);
        ack.bytes = accepted;
        if (int e = post_control(from, ack))
            return e;
    }
    *out = RecvResult{m.env.source, m.env.tag, accepted, m.bytes};
    return MPI_SUCCESS;
}

}  // namespace lwmpi::util
