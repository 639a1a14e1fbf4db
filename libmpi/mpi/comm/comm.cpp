// Communicators: the per-rank table, MPI_COMM_WORLD and MPI_COMM_SELF, and
// the calls that query them (MPI 3.1 sections 6.4 and 8.3).
#include "comm.hpp"

#include <stdlib.h>

#include "env/attr.hpp"
#include "coll/coll.hpp"
#include "coll/coll_parts.hpp"
#include "env/errors.hpp"
#include "common/handles.hpp"
#include "newcomm/intercomm.hpp"
#include "env/info.hpp"
#include "env/state.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/text.hpp>

namespace lwmpi {

namespace {
constexpr int kWorld = 1;
constexpr int kSelf = 2;
static_assert(kFirstMadeComm == kSelf + 1);
static_assert(make_handle(HandleKind::comm, kWorld) == MPI_COMM_WORLD);
static_assert(make_handle(HandleKind::comm, kSelf) == MPI_COMM_SELF);
}  // namespace

namespace {

// The end of `c`: a communicator the program made goes back to the heap,
// then its error handler may go too.
void drop(Comm &c) {
    const MPI_Errhandler h = c.errhandler;
    if (c.inter)
        if (Comm *local = comm_get(c.local)) drop(*local);
    c.in_use = false;
    topo_free(c.topo);
    const int i = handle_index(c.handle);
    if (i >= kFirstMadeComm) state().made.remove(i);
    release_errhandler(h);
}

}  // namespace

Comm *comm_at(int index) {
    MpiState &st = state();
    return index == kWorld           ? &st.world
           : index == kSelf          ? &st.self
           : index >= kFirstMadeComm ? st.made.at(index)
                                     : nullptr;
}

Comm *comm_get(MPI_Comm h) {
    const int i = table_index(h, HandleKind::comm, 1, kMaxComms);
    if (i < 0) return nullptr;
    // WORLD and SELF exist from the start, so that their error handlers can
    // be chosen before MPI_Init.
    if (i == kWorld || i == kSelf) return comm_at(i);
    Comm *c = comm_at(i);
    return c && c->in_use && !c->freed ? c : nullptr;
}

void comm_hold(Comm &c) { ++c.users; }

void comm_release(Comm &c) {
    if (--c.users == 0 && c.freed) drop(c);
}

void comm_finalize() {
    SlotTable<Comm, kMaxComms> &made = state().made;
    for (int i = 0; i < made.cap; ++i)
        if (Comm *c = made.at(i)) topo_free(c->topo);
    made.clear();
}

void comm_init_predefined(int world_rank, int world_size) {
    MpiState &st = state();
    Comm &world = st.world;
    world.in_use = true;
    world.handle = MPI_COMM_WORLD;
    world.context = 0;  // contexts 0 (pt2pt) and 1 (collective)
    world.schedules = 0;
    world.rank = world_rank;
    world.group.size = world_size;
    for (int r = 0; r < world_size; ++r)
        world.group.world[r] = static_cast<int16_t>(r);
    Comm &self = st.self;
    self.in_use = true;
    self.handle = MPI_COMM_SELF;
    self.context = 2;  // contexts 2 and 3
    self.schedules = 0;
    self.rank = 0;
    self.group.size = 1;
    self.group.world[0] = static_cast<int16_t>(world_rank);
    st.next_context = 4;
}

int comm_make(const Comm &parent, const GroupData *members, MPI_Comm *out) {
    *out = MPI_COMM_NULL;
    // A context free on every rank of parent: above all the ones in use.
    uint32_t context = comm_next_context();
    if (int e = allreduce_max(parent, &context)) return e;
    comm_reserve(context + 2);
    if (!members) return MPI_SUCCESS;
    return comm_add(&parent, context, *members, nullptr, out);
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
    if (int e = state().made.add(kFirstMadeComm, c, &i)) return e;
    *out = state().made.at(i)->handle = make_handle(HandleKind::comm, i);
    return MPI_SUCCESS;
}

uint32_t comm_next_context() { return state().next_context; }

void comm_reserve(uint32_t n) {
    MpiState &st = state();
    if (n > st.next_context) st.next_context = n;
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

int comm_dup_on(Comm &c, uint32_t context, MPI_Comm *newcomm) {
    comm_reserve(context + 2);
    if (int e = comm_add(&c, context, c.group, nullptr, newcomm)) return e;
    // The topology goes along (sections 6.4.2 and 7.4), and the attributes
    // as their copy callbacks say (6.7.2).
    int e = topo_copy(c.topo, &comm_get(*newcomm)->topo);
    if (e == MPI_SUCCESS) e = attr_copy_all(HandleKind::comm, c.handle, *newcomm);
    if (e) {
        drop(*comm_get(*newcomm));
        *newcomm = MPI_COMM_NULL;
    }
    return e;
}

int comm_dup(const char *fn, MPI_Comm comm, Comm &c, MPI_Comm *newcomm) {
    int e;
    if (c.inter) {
        e = inter_dup(c, newcomm);
        if (e == MPI_SUCCESS) {
            e = attr_copy_all(HandleKind::comm, comm, *newcomm);
            if (e) {
                drop(*comm_get(*newcomm));
                *newcomm = MPI_COMM_NULL;
            }
        }
    } else {
        uint32_t context = comm_next_context();  // free on every rank of c
        e = allreduce_max(c, &context);
        if (e == MPI_SUCCESS) e = comm_dup_on(c, context, newcomm);
    }
    return e ? raise_error(comm, fn, e, util::error_detail()) : MPI_SUCCESS;
}

namespace {

// MPI_Comm_split's work, for it and MPI_Comm_split_type (errors are fn's).
int split(const char *fn, MPI_Comm comm, Comm *c, int color, int key, MPI_Comm *newcomm) {
    int mine[2] = {color, key}, all[2 * util::kMaxRanks];
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

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_rank";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!rank) return raise_error(comm, fn, MPI_ERR_ARG);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_size";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!size) return raise_error(comm, fn, MPI_ERR_ARG);
    *size = c->group.size;
    return MPI_SUCCESS;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_group";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!group) return raise_error(comm, fn, MPI_ERR_ARG);
    if (int e = group_new(c->group, group)) return raise_error(comm, fn, e, "too many groups");
    return MPI_SUCCESS;
}

// IDENT: the same handle; CONGRUENT: same members in the same order;
// SIMILAR: same members; else UNEQUAL (section 6.4.1).
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_compare";
    Comm *a, *b;
    if (int e = enter_comm(fn, comm1, &a)) return e;
    if (int e = enter_comm(fn, comm2, &b)) return e;
    if (!result) return raise_error(comm1, fn, MPI_ERR_ARG);
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

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_dup";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!newcomm) return raise_error(comm, fn, MPI_ERR_ARG);
    return comm_dup(fn, comm, *c, newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_create";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    const GroupData *g = group_get(group);
    if (!g) return raise_error(comm, fn, MPI_ERR_GROUP);
    if (!newcomm) return raise_error(comm, fn, MPI_ERR_ARG);
    for (int r = 0; r < g->size; ++r)
        if (group_rank_of(c->group, g->world[r]) == MPI_UNDEFINED)
            return raise_error(comm, fn, MPI_ERR_GROUP, "the group is not a subset of the communicator's");
    const bool member = group_rank_of(*g, util::world_rank()) != MPI_UNDEFINED;
    const int e = c->inter ? inter_create(*c, *g, newcomm) : comm_make(*c, member ? g : nullptr, newcomm);
    return e ? raise_error(comm, fn, e, util::error_detail()) : MPI_SUCCESS;
}

// Collective over the members of `group` only (section 6.4.2): they agree
// on a context through the group's first member, with messages on comm's
// collective context whose tag carries the program's, so that calls for
// other groups at the same time do not mix with them. A caller outside
// the group gets MPI_COMM_NULL.
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_create_group";
    Comm *c;
    if (int e = enter_intracomm(fn, comm, &c)) return e;
    const GroupData *g = group_get(group);
    if (!g) return raise_error(comm, fn, MPI_ERR_GROUP);
    if (!newcomm) return raise_error(comm, fn, MPI_ERR_ARG);
    if (tag < 0 || tag > LWMPI_TAG_UB) return raise_error(comm, fn, MPI_ERR_TAG);
    int members[util::kMaxRanks];  // ranks in comm
    for (int r = 0; r < g->size; ++r) {
        members[r] = group_rank_of(c->group, g->world[r]);
        if (members[r] == MPI_UNDEFINED)
            return raise_error(comm, fn, MPI_ERR_GROUP, "the group is not a subset of the communicator's");
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
        uint32_t theirs[util::kMaxRanks];
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
    if (e) return raise_error(comm, fn, e, util::error_detail());
    comm_reserve(context + 2);
    if (int e2 = comm_add(c, context, *g, nullptr, newcomm))
        return raise_error(comm, fn, e2, "too many communicators");
    return MPI_SUCCESS;
}

// Every rank learns every (color, key) through an allgather; the ranks of
// my color, ordered by key then by rank in comm, form my communicator.
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_split";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!newcomm) return raise_error(comm, fn, MPI_ERR_ARG);
    if (color < 0 && color != MPI_UNDEFINED) return raise_error(comm, fn, MPI_ERR_ARG, "negative color");
    return split(fn, comm, c, color, key, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_split_type";
    Comm *c;
    if (int e = enter_intracomm(fn, comm, &c)) return e;
    if (!newcomm) return raise_error(comm, fn, MPI_ERR_ARG);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return raise_error(comm, fn, MPI_ERR_ARG, "unknown split type");
    // LWMPI knows no hints for it: any valid info does.
    if (info != MPI_INFO_NULL && !info_valid(info)) return raise_error(comm, fn, MPI_ERR_INFO);
    // The cluster is the color: the ranks that share its memory.
    return split(fn, comm, c, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : util::cluster_id(), key, newcomm);
}

int MPI_Comm_free(MPI_Comm *comm) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_free";
    if (!comm) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
    Comm *c;
    if (int e = enter_comm(fn, *comm, &c)) return e;
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return raise_error(*comm, fn, MPI_ERR_COMM, "a predefined communicator cannot be freed");
    if (int e = attr_delete_all(HandleKind::comm, *comm))  // section 6.7.2
        return raise_error(*comm, fn, e, "an attribute delete callback failed");
    *comm = MPI_COMM_NULL;
    if (c->users > 0) {  // its pending operations complete first (6.4.3)
        c->freed = true;
        return MPI_SUCCESS;
    }
    drop(*c);
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_set_name";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!comm_name) return raise_error(comm, fn, MPI_ERR_ARG);
    TextBuilder(c->name, sizeof c->name).put(comm_name);
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_get_name";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (!comm_name || !resultlen) return raise_error(comm, fn, MPI_ERR_ARG);
    const char *name = c->name[0]               ? c->name
                       : comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
                       : comm == MPI_COMM_SELF  ? "MPI_COMM_SELF"
                                                : "";
    TextBuilder t(comm_name, MPI_MAX_OBJECT_NAME);
    t.put(name);
    *resultlen = static_cast<int>(t.length());
    return MPI_SUCCESS;
}
