// The communicator constructors (MPI 3.1 sections 6.4.2 and 7.5.1):
// MPI_Comm_dup, _idup, _dup_with_info, _create, _create_group, _split,
// _split_type and MPI_Cart_create. Each is collective over its parent;
// on an intercommunicator the work is intercomm.cpp's.
#include "env/call.hpp"
#include "newcomm.hpp"

#include "coll/coll.hpp"
#include "coll/coll_parts.hpp"
#include "coll/coll_sched.hpp"
#include "coll/intercoll.hpp"
#include "comm/group.hpp"
#include "comm/topo.hpp"
#include "env/attr.hpp"
#include "env/errors.hpp"
#include "env/info.hpp"
#include "env/state.hpp"
#include "intercomm.hpp"
#include "pt2pt/batch.hpp"
#include "pt2pt/schedule.hpp"
#include <lwmpi/text.hpp>
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi;

namespace lwmpi {

int comm_make(const Comm &parent, const GroupData *members, MPI_Comm *out) {
    *out = MPI_COMM_NULL;
    // A context free on every rank of parent: above all the ones in use.
    uint32_t context = comm_next_context();
    if (int e = allreduce_max(parent, &context)) return e;
    comm_reserve(context + 2);
    if (!members) return MPI_SUCCESS;
    return comm_add(&parent, context, *members, nullptr, out);
}

int comm_dup_on(Comm &c, uint32_t context, uint32_t theirs, MPI_Comm *newcomm) {
    int e;
    if (c.inter) {
        e = inter_dup_on(c, context, theirs, newcomm);
    } else {
        comm_reserve(context + 2);
        e = comm_add(&c, context, c.group, nullptr, newcomm);
    }
    if (e) return e;
    // The topology goes along (sections 6.4.2 and 7.4), and the attributes
    // as their copy callbacks say (6.7.2).
    e = topo_copy(c.topo, &comm_get(*newcomm)->topo);
    if (e == MPI_SUCCESS) e = attr_copy_all(HandleKind::comm, c.handle, *newcomm);
    if (e) {
        comm_drop(*comm_get(*newcomm));
        *newcomm = MPI_COMM_NULL;
    }
    return e;
}

namespace {

// What a dup's schedule carries to its end: the context its group agrees
// on (reduced in place), the other group's on an intercommunicator, and
// where the new handle goes.
struct Dup {
    uint32_t context;
    uint32_t theirs;
    Comm *parent;  // held by the request of MPI_Comm_idup until it completes
    MPI_Comm *newcomm;
};

int finish_dup(void *arg) {
    Dup &d = *static_cast<Dup *>(arg);
    return comm_dup_on(*d.parent, d.context, d.theirs, d.newcomm);
}

// A dup of `c` as a schedule: the ranks agree on a context free on all of
// them (each group inside itself, then the two leaders swap theirs and
// tell their groups), then finish_dup. The id the rank offers is marked
// used at once, so that a dup started before this one completes offers a
// higher one and the two cannot agree on the same context.
void build_dup(Schedule &s, Comm &c, MPI_Comm *newcomm) {
    auto *d = static_cast<Dup *>(s.temp(static_cast<int>(sizeof(Dup)), MPI_BYTE));
    if (!d) return;
    // The ids an intercommunicator takes: its own two and its local
    // intracommunicator's (intercomm.cpp).
    *d = Dup{comm_next_context(), 0, &c, newcomm};
    comm_reserve(d->context + (c.inter ? 4 : 2));
    if (c.inter) {
        in_group(s, c, [&](const Comm &local) {
            build_allreduce(s, local, MPI_IN_PLACE, &d->context, 1, MPI_UNSIGNED, MPI_MAX);
        });
        build_leaders_swap(s, c, &d->context, &d->theirs, 1, MPI_UNSIGNED);
        in_group(s, c, [&](const Comm &local) { build_bcast(s, local, &d->theirs, 1, MPI_UNSIGNED, 0); });
    } else {
        build_allreduce(s, c, MPI_IN_PLACE, &d->context, 1, MPI_UNSIGNED, MPI_MAX);
    }
    s.round();
    s.call(finish_dup, d);
}

}  // namespace

int comm_dup(const char *fn, MPI_Comm comm, Comm &c, MPI_Comm *newcomm) {
    int e;
    if (c.inter) {
        e = run_schedule(c, [&](Schedule &s) { build_dup(s, c, newcomm); });
    } else {
        uint32_t context = comm_next_context();  // free on every rank of c
        e = allreduce_max(c, &context);
        if (e == MPI_SUCCESS) e = comm_dup_on(c, context, 0, newcomm);
    }
    return e ? raise_error(comm, fn, e, util::error_detail()) : MPI_SUCCESS;
}

namespace {

// MPI_Comm_split's work, for it and MPI_Comm_split_type (errors are fn's).
int split(const char *fn, MPI_Comm comm, Comm *c, int color, int key, MPI_Comm *newcomm) {
    int mine[2] = {color, key}, all[2 * util::max_ranks];
    // Every rank's (color, key) in its own group: over the local
    // intracommunicator of an intercommunicator.
    const MPI_Comm within = c->inter ? c->local : comm;
    Comm *w = comm_get(within);
    MPI_Errhandler h = w->errhandler;
    w->errhandler = MPI_ERRORS_RETURN;  // errors are fn's
    const int e = MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, within);
    w->errhandler = h;
    if (e) return raise_error(comm, fn, e, util::error_detail());
    int e2;
    if (c->inter) {
        e2 = inter_split(*c, all, color, newcomm);
    } else {
        GroupData g;
        select_color(c->group, all, color, &g);
        e2 = comm_make(*c, color == MPI_UNDEFINED ? nullptr : &g, newcomm);
    }
    return e2 ? raise_error(comm, fn, e2, util::error_detail()) : MPI_SUCCESS;
}

}  // namespace

}  // namespace lwmpi

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    Call call("MPI_Comm_dup");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!newcomm) return call.fail(MPI_ERR_ARG);
    return comm_dup(call.name(), comm, *c, newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
    Call call("MPI_Comm_create");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    const GroupData *g = group_get(group);
    if (!g) return call.fail(MPI_ERR_GROUP);
    if (!newcomm) return call.fail(MPI_ERR_ARG);
    for (int r = 0; r < g->size; ++r)
        if (group_rank_of(c->group, g->world[r]) == MPI_UNDEFINED)
            return call.fail(MPI_ERR_GROUP, "the group is not a subset of the communicator's");
    const bool member = group_rank_of(*g, util::world_rank()) != MPI_UNDEFINED;
    const int e = c->inter ? inter_create(*c, *g, newcomm) : comm_make(*c, member ? g : nullptr, newcomm);
    return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS;
}

// Collective over the members of `group` only (section 6.4.2): they agree
// on a context through the group's first member, with messages on comm's
// collective context whose tag carries the program's, so that calls for
// other groups at the same time do not mix with them. A caller outside
// the group gets MPI_COMM_NULL.
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
    Call call("MPI_Comm_create_group");
    Comm *c;
    if (int e = enter_intra(call, comm, &c)) return e;
    const GroupData *g = group_get(group);
    if (!g) return call.fail(MPI_ERR_GROUP);
    if (!newcomm) return call.fail(MPI_ERR_ARG);
    if (tag < 0 || tag > LWMPI_TAG_UB) return call.fail(MPI_ERR_TAG);
    int members[util::max_ranks];  // ranks in comm
    for (int r = 0; r < g->size; ++r) {
        members[r] = group_rank_of(c->group, g->world[r]);
        if (members[r] == MPI_UNDEFINED)
            return call.fail(MPI_ERR_GROUP, "the group is not a subset of the communicator's");
    }
    *newcomm = MPI_COMM_NULL;
    const int me = group_rank_of(*g, util::world_rank());
    if (me == MPI_UNDEFINED) return MPI_SUCCESS;
    const int internal_tag = LWMPI_TAG_UB + 1 + tag;  // above every collective's own tag
    uint32_t context = comm_next_context();
    int e = MPI_SUCCESS;
    if (me != 0) {
        e = send(*c, members[0], internal_tag, &context, 1, MPI_UNSIGNED);
        if (e == MPI_SUCCESS) e = recv(*c, members[0], internal_tag, &context, 1, MPI_UNSIGNED);
    } else {
        uint32_t theirs[util::max_ranks];
        Batch in(*c);
        for (int r = 1; r < g->size; ++r)
            in.recv(members[r], internal_tag, &theirs[r], 1, MPI_UNSIGNED);
        e = in.finish();
        for (int r = 1; r < g->size; ++r)
            context = theirs[r] > context ? theirs[r] : context;
        Batch out(*c);
        for (int r = 1; r < g->size && e == MPI_SUCCESS; ++r)
            out.send(members[r], internal_tag, &context, 1, MPI_UNSIGNED);
        const int e2 = out.finish();
        e = e ? e : e2;
    }
    if (e) return call.fail(e, util::error_detail());
    comm_reserve(context + 2);
    if (int e2 = comm_add(c, context, *g, nullptr, newcomm)) return call.fail(e2, "too many communicators");
    return MPI_SUCCESS;
}

// Every rank learns every (color, key) through an allgather; the ranks of
// my color, ordered by key then by rank in comm, form my communicator.
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    Call call("MPI_Comm_split");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!newcomm) return call.fail(MPI_ERR_ARG);
    if (color < 0 && color != MPI_UNDEFINED) return call.fail(MPI_ERR_ARG, "negative color");
    return split(call.name(), comm, c, color, key, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
    Call call("MPI_Comm_split_type");
    Comm *c;
    if (int e = enter_intra(call, comm, &c)) return e;
    if (!newcomm) return call.fail(MPI_ERR_ARG);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return call.fail(MPI_ERR_ARG, "unknown split type");
    // LWMPI knows no hints for it: any valid info does.
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    // The cluster is the color: the ranks that share its memory.
    return split(call.name(), comm, c, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : util::cluster_id(), key,
                 newcomm);
}

/// MPI_Comm_dup with the hints of info (MPI_INFO_NULL: none) instead of
/// comm's (section 6.4.2).
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
    Call call("MPI_Comm_dup_with_info");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    if (!newcomm) return call.fail(MPI_ERR_ARG, "newcomm is NULL");
    return comm_dup(call.name(), comm, *c, newcomm);
}

// The dup's schedule (build_dup), in the background: the new
// communicator is valid once the request completes (section 6.4.2).
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
    Call call("MPI_Comm_idup");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!newcomm) return call.fail(MPI_ERR_ARG, "newcomm is NULL");
    if (int e = check_request(call, request)) return e;
    *newcomm = MPI_COMM_NULL;
    return start_schedule(call, *c, request, [&](Schedule &s) { build_dup(s, *c, newcomm); });
}

// Ranks 0..n-1 of comm_old, n the product of dims, make up the new
// communicator in the same order (reorder is a hint; section 7.5.1). With
// ndims 0, n is 1: rank 0 alone, in a zero-dimensional topology.
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart) {
    Call call("MPI_Cart_create");
    (void)reorder;
    Comm *c;
    if (int e = enter_intra(call, comm_old, &c)) return e;
    if (ndims < 0 || ndims > max_dims) return raise_ndims(call, ndims);
    if ((ndims > 0 && (!dims || !periods)) || !comm_cart) return call.fail(MPI_ERR_ARG);
    const int size = c->group.size;
    CartTopology topo{ndims, {}, {}};
    long long nodes = 1;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] <= 0) {
            char why[48];
            TextBuilder(why, sizeof why).put("dims[").put_int(i).put("] is ").put_int(dims[i]);
            return call.fail(MPI_ERR_DIMS, why);
        }
        topo.dims[i] = dims[i];
        topo.periods[i] = periods[i] != 0;
        // Capped just above size, so that it cannot overflow.
        nodes = nodes * dims[i] > size ? size + 1 : nodes * dims[i];
    }
    if (nodes > size) {
        char why[64];
        TextBuilder(why, sizeof why)
            .put("more nodes than the ")
            .put_int(size)
            .put(" ranks of the communicator");
        return call.fail(MPI_ERR_ARG, why);
    }
    GroupData members{};
    members.size = static_cast<int>(nodes);
    for (int r = 0; r < members.size; ++r)
        members.world[r] = c->group.world[r];
    const bool member = c->rank < members.size;
    if (int e = comm_make(*c, member ? &members : nullptr, comm_cart))
        return call.fail(e, e == MPI_ERR_NO_MEM ? "too many communicators" : util::error_detail());
    if (member) comm_get(*comm_cart)->topo = Topology{TopoKind::cart, topo, nullptr};
    return MPI_SUCCESS;
}
