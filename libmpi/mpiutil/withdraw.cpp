// MPIUtil: cancelling a send (MPI 3.1 section 3.8.4; control.hpp draws
// the exchange). An eager or local message leaves at once, a rendezvous
// one sends its RTS first: either way only its receiver knows whether a
// receive has matched it. So the sender asks (WITHDRAW), on the mailbox,
// behind everything it sent that receiver before; the receiver takes the
// message out of its unexpected ones if no receive took it, gives back
// what it held (the eager credit, the local block, the sender's buffer),
// and answers (WITHDRAWN). A rendezvous send taken out gives up its
// portal write, which no allow will ever move.
#include <mpi.h>

#include "control.hpp"
#include "engine.hpp"
#include "ikc_path.hpp"

namespace lwmpi::util {

int withdraw(Request &r) {
    Address to;
    if (int e = resolve(r.peer, &to)) return e;
    const ControlMsg m = control_to(r.peer, ControlKind::withdraw, request_token(r));
    if (int e = post_control(to, &m, sizeof m)) return e;
    r.withdrawal = Withdrawal::asked;
    return MPI_SUCCESS;
}

int on_withdraw(const ControlMsg &m) {
    // Every message of the send is here by now: the sender wrote them
    // before, on this mailbox (in order) or in my local inbox, which this
    // pass empties into the unexpected ones.
    if (self().peers[m.source].assembly) return fail(MPI_ERR_INTERN, "a cancel inside an eager message");
    bool did = false;
    if (int e = local_progress(&did)) return e;
    Unexpected *u = take_unexpected(m.source, m.seq);
    int e = MPI_SUCCESS;
    if (u && u->protocol == Protocol::local) {
        local_withdrawn(u);
    } else if (u) {
        const Protocol p = u->protocol;
        free_unexpected(u);
        if (p == Protocol::eager) e = consume_eager(m.source);
    }
    if (e) return e;
    ControlMsg answer = control_to(m.source, ControlKind::withdrawn, m.seq);
    answer.bytes = u ? 1 : 0;
    return post_control(Address{m.cluster, m.port}, &answer, sizeof answer);
}

int on_withdrawn(const ControlMsg &m) {
    Request *r = request_in_use(m.seq);
    if (!r || !r->is_send || r->peer != m.source || r->withdrawal != Withdrawal::asked || m.bytes > 1)
        return fail(MPI_ERR_INTERN, "an answer to no cancel");
    r->withdrawal = Withdrawal::answered;
    self().waiting.progressed = true;      // its waiter looks again before sleeping
    if (m.bytes == 0) return MPI_SUCCESS;  // a receive matched it: the send goes on
    r->status.cancelled = true;
    // An eager or local send is done already (a local one whose receiver
    // copies from its buffer is told so through its block).
    return r->state == ReqState::active && r->protocol == Protocol::rendezvous ? abandon(*r) : MPI_SUCCESS;
}

}  // namespace lwmpi::util
