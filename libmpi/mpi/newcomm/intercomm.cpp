// Intercommunicators (MPI 3.1 section 6.6) and the constructors that work
// on them: MPI_Intercomm_create and MPI_Intercomm_merge, and
// MPI_Comm_create and MPI_Comm_split given an intercommunicator (section
// 6.4.2); MPI_Comm_dup and _idup agree on their context in a schedule
// (newcomm.cpp) and end here.
//
// Every constructor is one exchange between the two groups: each group
// agrees inside itself (over its local intracommunicator) on what it
// brings (the lowest context id free on all its ranks, its members, the
// colors and keys of a split), the two leaders (local rank 0 of each
// side, or the leaders named by MPI_Intercomm_create) swap that, and each
// leader broadcasts what the other side brought to its own group. Then
// every rank knows both sides and builds the same communicator.
#include "env/call.hpp"
#include "intercomm.hpp"

#include "coll/coll.hpp"
#include "coll/coll_parts.hpp"
#include "comm/comm.hpp"
#include "env/errors.hpp"
#include "comm/group.hpp"
#include "pt2pt/request.hpp"
#include "env/state.hpp"
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// The collective-context tag of the leaders' exchange on an existing
// intercommunicator (above the collectives' own tags).
constexpr int swap_tag = 100;

// What one group brings to the exchange.
struct Side {
    uint32_t context;  // lowest context id free on every rank of the group
    int high;          // MPI_Intercomm_merge's `high`
    int count;         // entries of `ints` used
    int ints[2 * util::max_ranks];
};

// How the two leaders reach each other: rank `peer` of `comm`, on its
// point-to-point (MPI_Intercomm_create's peer communicator, with the
// program's tag) or collective context (the intercommunicator itself).
struct Link {
    MPI_Comm comm;
    int peer;
    int tag;
    bool collective;
};

// The leader's half: send `mine`, receive `theirs`, both at once.
int leaders_swap(const Link &link, const Side &mine, Side *theirs) {
    const int bytes = static_cast<int>(sizeof(Side));
    const P2POp send{Op2::send, &mine,    nullptr,   bytes,          MPI_BYTE,
                     link.peer, link.tag, link.comm, link.collective};
    const P2POp recv{Op2::recv, nullptr,  theirs,    bytes,          MPI_BYTE,
                     link.peer, link.tag, link.comm, link.collective};
    MPI_Request h;
    if (int e = request_new(send, false, &h)) return e;
    int e = request_start(*request_get(h));
    if (e == MPI_SUCCESS) {
        e = run(recv, MPI_STATUS_IGNORE);
        const int e2 = request_wait(*request_get(h));
        e = e ? e : e2;
    }
    const int e3 = request_finish(&h, MPI_STATUS_IGNORE);
    return e ? e : e3;
}

// The exchange, collective over `local` (the caller's group), whose rank
// `leader` talks over `link`. mine.context is filled in here.
int swap_sides(const Comm &local, int leader, const Link &link, Side *mine, Side *theirs) {
    mine->context = comm_next_context();
    if (int e = allreduce_max(local, &mine->context)) return e;
    if (local.rank == leader)
        if (int e = leaders_swap(link, *mine, theirs)) return e;
    return bcast(local, theirs, static_cast<int>(sizeof(Side)), MPI_BYTE, leader);
}

// swap_sides over an existing intercommunicator.
int swap_sides(const Comm &inter, Side *mine, Side *theirs) {
    const Comm *local = comm_get(inter.local);
    if (!local) return MPI_ERR_INTERN;
    return swap_sides(*local, 0, Link{inter.handle, 0, swap_tag, true}, mine, theirs);
}

// The context both groups can use: above every rank's ids in use. The
// intercommunicator takes it (and + 1), its local intracommunicator
// + 2 (and + 3).
uint32_t agreed_context(uint32_t a, uint32_t b) {
    const uint32_t c = a > b ? a : b;
    comm_reserve(c + 4);
    return c;
}

void put_group(const GroupData &g, Side *s) {
    s->count = g.size;
    for (int r = 0; r < g.size; ++r)
        s->ints[r] = g.world[r];
}

GroupData group_of(const Side &s) {
    GroupData g{};
    g.size = s.count;
    for (int r = 0; r < s.count; ++r)
        g.world[r] = static_cast<int16_t>(s.ints[r]);
    return g;
}

// The intercommunicator over `local` and `remote` on `context`, and its
// local intracommunicator; *out stays MPI_COMM_NULL on failure.
int make_inter(const Comm *parent, uint32_t context, const GroupData &local, const GroupData &remote,
               MPI_Comm *out) {
    MPI_Comm inner;
    if (int e = comm_add(nullptr, context + 2, local, nullptr, &inner)) return e;
    comm_get(inner)->errhandler = MPI_ERRORS_RETURN;  // its errors are the intercommunicator's
    if (int e = comm_add(parent, context, local, &remote, out)) {
        MPI_Comm_free(&inner);
        return e;
    }
    comm_get(*out)->local = inner;
    return MPI_SUCCESS;
}

bool disjoint(const GroupData &a, const GroupData &b) {
    for (int r = 0; r < a.size; ++r)
        if (group_rank_of(b, a.world[r]) != MPI_UNDEFINED) return false;
    return true;
}

}  // namespace

int inter_dup_on(const Comm &c, uint32_t mine, uint32_t theirs, MPI_Comm *out) {
    return make_inter(&c, agreed_context(mine, theirs), c.group, c.remote, out);
}

int inter_create(const Comm &c, const GroupData &g, MPI_Comm *out) {
    Side mine{}, theirs{};
    put_group(g, &mine);
    if (int e = swap_sides(c, &mine, &theirs)) return e;
    const uint32_t context = agreed_context(mine.context, theirs.context);
    *out = MPI_COMM_NULL;
    const GroupData remote = group_of(theirs);
    if (group_rank_of(g, util::world_rank()) == MPI_UNDEFINED || remote.size == 0) return MPI_SUCCESS;
    return make_inter(&c, context, g, remote, out);
}

int inter_split(const Comm &c, const int *colors_keys, int color, MPI_Comm *out) {
    Side mine{}, theirs{};
    mine.count = 2 * c.group.size;
    for (int i = 0; i < mine.count; ++i)
        mine.ints[i] = colors_keys[i];
    if (int e = swap_sides(c, &mine, &theirs)) return e;
    const uint32_t context = agreed_context(mine.context, theirs.context);
    *out = MPI_COMM_NULL;
    if (color == MPI_UNDEFINED) return MPI_SUCCESS;
    GroupData local, remote;
    select_color(c.group, colors_keys, color, &local);
    select_color(c.remote, theirs.ints, color, &remote);
    if (remote.size == 0) return MPI_SUCCESS;  // no partner of my color (section 6.4.2)
    return make_inter(&c, context, local, remote, out);
}

}  // namespace lwmpi

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                         int tag, MPI_Comm *newintercomm) {
    Call call("MPI_Intercomm_create");
    Comm *lc;
    if (int e = enter_intra(call, local_comm, &lc)) return e;
    if (!newintercomm) return call.fail(MPI_ERR_ARG);
    *newintercomm = MPI_COMM_NULL;
    if (local_leader < 0 || local_leader >= lc->group.size)
        return call.fail(MPI_ERR_RANK, "local_leader is not a rank of local_comm");
    // The peer communicator and the remote leader matter at the leader only.
    if (lc->rank == local_leader) {
        const Comm *pc = comm_get(peer_comm);
        if (!pc) return call.fail(MPI_ERR_COMM, "peer_comm is not a communicator");
        if (remote_leader < 0 || remote_leader >= peers(*pc).size)
            return call.fail(MPI_ERR_RANK, "remote_leader is not a rank of peer_comm");
        if (tag < 0 || tag > LWMPI_TAG_UB) return call.fail(MPI_ERR_TAG);
    }
    Side mine{}, theirs{};
    put_group(lc->group, &mine);
    const Link link{peer_comm, remote_leader, tag, false};
    if (int e = swap_sides(*lc, local_leader, link, &mine, &theirs))
        return call.fail(e, util::error_detail());
    const GroupData remote = group_of(theirs);
    if (!disjoint(lc->group, remote)) return call.fail(MPI_ERR_COMM, "the local and remote groups overlap");
    const uint32_t context = agreed_context(mine.context, theirs.context);
    if (int e = make_inter(lc, context, lc->group, remote, newintercomm))
        return call.fail(e, "too many communicators");
    return MPI_SUCCESS;
}

// The group with high == false comes first; when both gave the same, the
// group whose first member has the lower MPI_COMM_WORLD rank (section 6.6.2
// leaves that order to the implementation).
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
    Call call("MPI_Intercomm_merge");
    Comm *c;
    if (int e = enter(call, intercomm, &c)) return e;
    if (!c->inter) return call.fail(MPI_ERR_COMM, "not an intercommunicator");
    if (!newintracomm) return call.fail(MPI_ERR_ARG);
    Side mine{}, theirs{};
    mine.high = high ? 1 : 0;
    if (int e = swap_sides(*c, &mine, &theirs)) return call.fail(e, util::error_detail());
    const uint32_t context = agreed_context(mine.context, theirs.context);
    const bool mine_first =
        mine.high != theirs.high ? mine.high == 0 : c->group.world[0] < c->remote.world[0];
    const GroupData &first = mine_first ? c->group : c->remote;
    const GroupData &second = mine_first ? c->remote : c->group;
    GroupData all = first;
    for (int r = 0; r < second.size; ++r)
        all.world[all.size++] = second.world[r];
    if (int e = comm_add(c, context, all, nullptr, newintracomm))
        return call.fail(e, "too many communicators");
    return MPI_SUCCESS;
}
