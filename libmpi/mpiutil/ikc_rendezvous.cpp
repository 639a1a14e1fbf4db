// MPIUtil's IKC path, the rendezvous protocol (control.hpp draws the
// exchanges): on the sender's side the portal writes, through the few
// portals it keeps open and in the order of its sends; on the receiver's
// side the one transfer its input portal takes at a time.
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/syscall.h>

#include <initializer_list>

#include "control.hpp"
#include "engine.hpp"
#include "ikc_path.hpp"
#include "os.hpp"

namespace lwmpi::util {

// ---- sending ----
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

namespace {

int kept_portals() {
    const RankState &s = self();
    return s.outbox.limit < max_out_portals ? s.outbox.limit : max_out_portals;
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

// Rendezvous send r's portal write is over: its portal is free again.
void release_portal(Request &r) {
    RankState &s = self();
    if (r.out_portal >= 0)
        s.rdv.out_portals[r.out_portal].busy = false;
    else
        os::portal_close(r.portal);
    r.portal = -1;
    --s.rdv.pending_writes;
    s.rdv.portal_freed = true;
}

// Rendezvous send r's portal write ended with `n`: the data is in the
// receiver's portal, the send buffer is free again, so r completes.
void finish_write(Request &r, long n) {
    release_portal(r);
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

}  // namespace

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

namespace {

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

}  // namespace

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

int abandon(Request &r) {
    RankState &s = self();
    if (r.phase == Phase::await_portal) {
        unwait(request_index(r));
        if (r.out_portal >= 0) --s.rdv.out_portals[r.out_portal].pinned;
        r.out_portal = -1;
    } else if (r.phase == Phase::await_write) {
        // No allow of its tag will come: the write has moved nothing.
        const long n = os::portal_cancel(r.portal);
        if (n != -TS_ECANCELED)
            return fail(MPI_ERR_INTERN, "a cancelled send's portal write moved", n < 0 ? n : 0);
        release_portal(r);
    }
    complete(r, MPI_SUCCESS);  // (await_cts: nothing started)
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

namespace {

// True when rendezvous receive r, about to be allowed, takes its message
// before an older one (RTS) of the same sender that is not allowed yet:
// an unexpected one, one a matched probe holds, or one matched after it.
// The sender's kept portal then carries that one's write, and r's sender
// needs a CTS.
bool overtakes(const Request &r) {
    const RankState &s = self();
    auto older = [&r](int source, bool cts_wanted, uint32_t stamp) {
        return source == r.status.source && !cts_wanted && static_cast<int32_t>(stamp - r.stamp) < 0;
    };
    for (const Unexpected *list : {s.match.unexpected, s.match.held})
        for (const Unexpected *u = list; u; u = u->next)
            if (u->protocol == Protocol::rendezvous && older(u->env.source, u->cts_wanted, u->stamp))
                return true;
    for (int i = r.next; i >= 0; i = request(i).next)  // matched after r, behind it in line
        if (older(request(i).status.source, request(i).cts_wanted, request(i).stamp)) return true;
    return false;
}

}  // namespace

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

}  // namespace lwmpi::util
