// Communicators: the per-rank table, MPI_COMM_WORLD, MPI_COMM_SELF and
// MPIX_COMM_LOCAL (the world's ranks and the job's I/O rank), and
// the calls that query them (MPI 3.1 sections 6.4.1 and 6.4.3); the
// constructors, which talk to the other ranks, are newcomm/'s.
#include "comm.hpp"

#include <stdlib.h>

#include "common/handles.hpp"
#include "common/slot_table.hpp"
#include "env/attr.hpp"
#include "env/call.hpp"
#include "env/errors.hpp"
#include "env/state.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {
constexpr int world_index = 1;
constexpr int self_index = 2;
constexpr int local_index = 3;
static_assert(first_made_comm == local_index + 1);
static_assert(make_handle(HandleKind::comm, world_index) == MPI_COMM_WORLD);
static_assert(make_handle(HandleKind::comm, self_index) == MPI_COMM_SELF);
static_assert(make_handle(HandleKind::comm, local_index) == MPIX_COMM_LOCAL);
}  // namespace

namespace {

// The rank's communicators: plain data in a RankLocal, as every per-rank
// table of LibMPI is.
struct CommTable {
    bool registered;        ///< raise_error knows how to find their handlers
    uint32_t next_context;  ///< lowest context id this rank has not used (even)
    Comm world;             ///< handle index 1
    Comm self;              ///< handle index 2
    Comm local;             ///< handle index 3
    /// Communicators the program made, at their handle index (>=
    /// first_made_comm; from their making until they are freed or
    /// MPI_Finalize). A rank pays only for those it has.
    SlotTable<Comm, max_comms> made;
};
thread_local util::RankLocal<CommTable> t_comms;

bool handler_of(int handle, MPI_Errhandler *out) {
    const Comm *c = comm_get(handle);
    if (c) *out = c->errhandler;
    return c != nullptr;
}

bool uses_errhandler(MPI_Errhandler h) {
    for (int i = 1; i < max_comms; ++i)
        if (const Comm *c = comm_at(i); c && c->in_use && c->errhandler == h) return true;
    return false;
}

// The rank's table. On its first use raise_error learns how to find a
// communicator's handler: none can have one before (errors.hpp).
CommTable &table() {
    CommTable &t = t_comms.get();
    if (!t.registered) [[unlikely]] {
        t.registered = true;
        register_errhandler_holder(ErrhandlerHolder{HandleKind::comm, handler_of, uses_errhandler});
    }
    return t;
}

}  // namespace

void comm_drop(Comm &c) {
    const MPI_Errhandler h = c.errhandler;
    if (c.inter)
        if (Comm *local = comm_get(c.local)) comm_drop(*local);
    c.in_use = false;
    topo_free(c.topo);
    const int i = handle_index(c.handle);
    if (i >= first_made_comm) table().made.remove(i);
    release_errhandler(h);
}

Comm *comm_at(int index) {
    CommTable &t = table();
    return index == world_index       ? &t.world
           : index == self_index      ? &t.self
           : index == local_index     ? &t.local
           : index >= first_made_comm ? t.made.at(index)
                                      : nullptr;
}

Comm *comm_get(MPI_Comm h) {
    const int i = table_index(h, HandleKind::comm, 1, max_comms);
    if (i < 0) return nullptr;
    // The predefined ones exist from the start, so that their error
    // handlers can be chosen before MPI_Init.
    if (i < first_made_comm) return comm_at(i);
    Comm *c = comm_at(i);
    return c && c->in_use && !c->freed ? c : nullptr;
}

void comm_hold(Comm &c) { ++c.users; }

void comm_release(Comm &c) {
    if (--c.users == 0 && c.freed) comm_drop(c);
}

void comm_finalize() {
    SlotTable<Comm, max_comms> &made = table().made;
    for (int i = 0; i < made.cap; ++i)
        if (Comm *c = made.at(i)) topo_free(c->topo);
    made.clear();
}

namespace {

// A predefined communicator of processes `first`..`first + size - 1`
// (MPI process numbers) and contexts `context` and `context + 1`.
void predefine(Comm &c, MPI_Comm handle, uint32_t context, int first, int size) {
    c.in_use = true;
    c.handle = handle;
    c.context = context;
    c.schedules = 0;
    c.group.size = size;
    for (int r = 0; r < size; ++r)
        c.group.world[r] = static_cast<int16_t>(first + r);
    c.rank = group_rank_of(c.group, util::world_rank());
}

}  // namespace

// The I/O rank is in no world rank's MPI_COMM_WORLD: its own holds itself
// alone (docs/lwmpi.md, "The I/O rank"), with the same contexts, which no
// message between it and a world rank carries.
void comm_init_predefined() {
    CommTable &t = table();
    const int me = util::world_rank(), world_size = util::world_size();
    const int io = util::io_rank();
    if (me == io)
        predefine(t.world, MPI_COMM_WORLD, 0, me, 1);  // contexts 0 (pt2pt) and 1 (collective)
    else
        predefine(t.world, MPI_COMM_WORLD, 0, 0, world_size);
    predefine(t.self, MPI_COMM_SELF, 2, me, 1);                                 // contexts 2 and 3
    predefine(t.local, MPIX_COMM_LOCAL, 4, 0, world_size + (io >= 0 ? 1 : 0));  // 4 and 5
    t.next_context = 6;
}

int comm_add(const Comm *parent, uint32_t context, const GroupData &members, const GroupData *remote,
             MPI_Comm *out) {
    *out = MPI_COMM_NULL;
    Comm c{};
    c.in_use = true;
    c.context = context;
    c.group = members;
    c.rank = group_rank_of(c.group, util::world_rank());
    c.errhandler = parent ? parent->errhandler : 0;  // inherited (section 8.3)
    if (remote) {
        c.inter = true;
        c.remote = *remote;
    }
    int i;
    if (int e = table().made.add(first_made_comm, c, &i)) return e;
    *out = table().made.at(i)->handle = make_handle(HandleKind::comm, i);
    return MPI_SUCCESS;
}

uint32_t comm_next_context() { return table().next_context; }

void comm_reserve(uint32_t n) {
    CommTable &t = table();
    if (n > t.next_context) t.next_context = n;
}

namespace {

// MPI_CONGRUENT: same members in the same order; MPI_SIMILAR: same
// members; else MPI_UNEQUAL.
int group_similarity(const GroupData &g1, const GroupData &g2) {
    bool same_order = g1.size == g2.size, same_members = g1.size == g2.size;
    for (int r = 0; r < g1.size && same_members; ++r) {
        same_order = same_order && g1.world[r] == g2.world[r];
        same_members = group_rank_of(g2, g1.world[r]) != MPI_UNDEFINED;
    }
    return same_order ? MPI_CONGRUENT : same_members ? MPI_SIMILAR : MPI_UNEQUAL;
}

}  // namespace

void select_color(const GroupData &g, const int *colors_keys, int color, GroupData *out) {
    *out = GroupData{};
    for (int r = 0; r < g.size; ++r) {
        if (colors_keys[2 * r] != color) continue;
        int at = out->size++;  // insertion by (key, rank): stable
        for (; at > 0 && colors_keys[2 * group_rank_of(g, out->world[at - 1]) + 1] > colors_keys[2 * r + 1];
             --at)
            out->world[at] = out->world[at - 1];
        out->world[at] = g.world[r];
    }
}

int enter_comm(const char *function, MPI_Comm comm, Comm **out) {
    if (int e = require_active(function)) return e;
    *out = comm_get(comm);
    if (!*out) return raise_error(MPI_COMM_WORLD, function, MPI_ERR_COMM);
    return MPI_SUCCESS;
}

int enter_intracomm(const char *function, MPI_Comm comm, Comm **out) {
    if (int e = enter_comm(function, comm, out)) return e;
    if ((*out)->inter)
        return raise_error(comm, function, MPI_ERR_COMM,
                           "an intercommunicator, and the call is defined on intracommunicators only");
    return MPI_SUCCESS;
}

int enter(Call &call, MPI_Comm comm, Comm **out) {
    if (int e = enter_comm(call.name(), comm, out)) return e;
    call.on(comm);
    return MPI_SUCCESS;
}

int enter_intra(Call &call, MPI_Comm comm, Comm **out) {
    if (int e = enter_intracomm(call.name(), comm, out)) return e;
    call.on(comm);
    return MPI_SUCCESS;
}

}  // namespace lwmpi

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
    Call call("MPI_Comm_rank");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!rank) return call.fail(MPI_ERR_ARG);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
    Call call("MPI_Comm_size");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!size) return call.fail(MPI_ERR_ARG);
    *size = c->group.size;
    return MPI_SUCCESS;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
    Call call("MPI_Comm_group");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!group) return call.fail(MPI_ERR_ARG);
    if (int e = group_new(c->group, group)) return call.fail(e, "too many groups");
    return MPI_SUCCESS;
}

// IDENT: the same handle; CONGRUENT: same members in the same order;
// SIMILAR: same members; else UNEQUAL (section 6.4.1).
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) {
    Call call("MPI_Comm_compare");
    Comm *a, *b;
    if (int e = enter(call, comm1, &a)) return e;
    if (int e = enter(call, comm2, &b)) return e;
    if (!result) return raise_error(comm1, call.name(), MPI_ERR_ARG);
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->inter != b->inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    // Of intercommunicators, both groups (section 6.6.1).
    const int local = group_similarity(a->group, b->group);
    const int remote = a->inter ? group_similarity(a->remote, b->remote) : MPI_CONGRUENT;
    *result = local > remote ? local : remote;  // the weaker of the two
    return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm) {
    Call call("MPI_Comm_free");
    if (!comm) return call.fail(MPI_ERR_ARG);
    Comm *c;
    if (int e = enter(call, *comm, &c)) return e;
    if (handle_index(*comm) < first_made_comm)
        return call.fail(MPI_ERR_COMM, "a predefined communicator cannot be freed");
    if (int e = attr_delete_all(HandleKind::comm, *comm))  // section 6.7.2
        return call.fail(e, "an attribute delete callback failed");
    *comm = MPI_COMM_NULL;
    if (c->users > 0) {  // its pending operations complete first (6.4.3)
        c->freed = true;
        return MPI_SUCCESS;
    }
    comm_drop(*c);
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name) {
    Call call("MPI_Comm_set_name");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!comm_name) return call.fail(MPI_ERR_ARG);
    TextBuilder(c->name, sizeof c->name).put(comm_name);
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) {
    Call call("MPI_Comm_get_name");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!comm_name || !resultlen) return call.fail(MPI_ERR_ARG);
    const char *name = c->name[0]                ? c->name
                       : comm == MPI_COMM_WORLD  ? "MPI_COMM_WORLD"
                       : comm == MPI_COMM_SELF   ? "MPI_COMM_SELF"
                       : comm == MPIX_COMM_LOCAL ? "MPIX_COMM_LOCAL"
                                                 : "";
    TextBuilder t(comm_name, MPI_MAX_OBJECT_NAME);
    t.put(name);
    *resultlen = static_cast<int>(t.length());
    return MPI_SUCCESS;
}

// Intercommunicators' accessors (section 6.6.1).
int MPI_Comm_test_inter(MPI_Comm comm, int *flag) {
    Call call("MPI_Comm_test_inter");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!flag) return call.fail(MPI_ERR_ARG);
    *flag = c->inter;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size) {
    Call call("MPI_Comm_remote_size");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!c->inter) return call.fail(MPI_ERR_COMM, "not an intercommunicator");
    if (!size) return call.fail(MPI_ERR_ARG);
    *size = c->remote.size;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) {
    Call call("MPI_Comm_remote_group");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (!c->inter) return call.fail(MPI_ERR_COMM, "not an intercommunicator");
    if (!group) return call.fail(MPI_ERR_ARG);
    if (int e = group_new(c->remote, group)) return call.fail(e, "too many groups");
    return MPI_SUCCESS;
}
