// Communicators: the per-rank table, MPI_COMM_WORLD and MPI_COMM_SELF, and
// the calls that query them (MPI 3.1 sections 6.4 and 8.3).
#include "comm.hpp"

#include <stdlib.h>

#include "attr.hpp"
#include "coll.hpp"
#include "errors.hpp"
#include "handles.hpp"
#include "info.hpp"
#include "state.hpp"
#include "../mpiutil/mpiutil.hpp"
#include "../mpiutil/text.hpp"

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
    c.in_use = false;
    const int i = handle_index(c.handle);
    if (i >= kFirstMadeComm) {
        Comm *&made = state().made[i - kFirstMadeComm];
        free(made);
        made = nullptr;
    }
    release_errhandler(h);
}

}  // namespace

Comm *comm_at(int index) {
    MpiState &st = state();
    return index == kWorld                                ? &st.world
           : index == kSelf                               ? &st.self
           : index >= kFirstMadeComm && index < kMaxComms ? st.made[index - kFirstMadeComm]
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
    for (Comm *&c : state().made) {
        free(c);
        c = nullptr;
    }
}

void comm_init_predefined(int world_rank, int world_size) {
    MpiState &st = state();
    Comm &world = st.world;
    world.in_use = true;
    world.handle = MPI_COMM_WORLD;
    world.context = 0;  // contexts 0 (pt2pt) and 1 (collective)
    world.rank = world_rank;
    world.group.size = world_size;
    for (int r = 0; r < world_size; ++r)
        world.group.world[r] = static_cast<int16_t>(r);
    Comm &self = st.self;
    self.in_use = true;
    self.handle = MPI_COMM_SELF;
    self.context = 2;  // contexts 2 and 3
    self.rank = 0;
    self.group.size = 1;
    self.group.world[0] = static_cast<int16_t>(world_rank);
    st.next_context = 4;
}

int comm_make(const Comm &parent, const GroupData *members, MPI_Comm *out) {
    MpiState &st = state();
    *out = MPI_COMM_NULL;
    // A context free on every rank of parent: above all the ones in use.
    uint32_t context = st.next_context;
    if (int e = allreduce_max(parent, &context)) return e;
    st.next_context = context + 2;
    if (!members) return MPI_SUCCESS;
    for (int i = kFirstMadeComm; i < kMaxComms; ++i) {
        Comm *&made = st.made[i - kFirstMadeComm];
        if (made) continue;
        made = static_cast<Comm *>(malloc(sizeof(Comm)));
        if (!made) return MPI_ERR_NO_MEM;
        Comm &c = *made;
        c = Comm{};
        c.in_use = true;
        c.handle = make_handle(HandleKind::comm, i);
        c.context = context;
        c.group = *members;
        c.rank = group_rank_of(c.group, util::world_rank());
        c.errhandler = parent.errhandler;  // inherited (section 8.3)
        *out = c.handle;
        return MPI_SUCCESS;
    }
    return MPI_ERR_NO_MEM;
}

int comm_dup(const char *fn, MPI_Comm comm, Comm &c, MPI_Comm *newcomm) {
    if (int e = comm_make(c, &c.group, newcomm)) return raise_error(comm, fn, e, util::error_detail());
    Comm &made = *comm_get(*newcomm);
    made.cart = c.cart;  // the topology goes along (section 6.4.2)
    if (int e = attr_copy_all(HandleKind::comm, comm, *newcomm)) {
        drop(made);
        *newcomm = MPI_COMM_NULL;
        return raise_error(comm, fn, e, "an attribute copy callback failed");
    }
    return MPI_SUCCESS;
}

namespace {

// MPI_Comm_split's work, for it and MPI_Comm_split_type (errors are fn's).
int split(const char *fn, MPI_Comm comm, Comm *c, int color, int key, MPI_Comm *newcomm) {
    int mine[2] = {color, key}, all[2 * util::kMaxRanks];
    MPI_Errhandler h = c->errhandler;
    c->errhandler = MPI_ERRORS_RETURN;  // errors are fn's
    const int e = MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    c->errhandler = h;
    if (e) return raise_error(comm, fn, e, util::error_detail());
    GroupData g{};
    for (int r = 0; r < c->group.size && color != MPI_UNDEFINED; ++r) {
        if (all[2 * r] != color) continue;
        int at = g.size++;  // insertion by (key, rank): stable
        for (; at > 0 && all[2 * group_rank_of(c->group, g.world[at - 1]) + 1] > all[2 * r + 1]; --at)
            g.world[at] = g.world[at - 1];
        g.world[at] = c->group.world[r];
    }
    if (int e2 = comm_make(*c, color == MPI_UNDEFINED ? nullptr : &g, newcomm))
        return raise_error(comm, fn, e2, util::error_detail());
    return MPI_SUCCESS;
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
    const GroupData &g1 = a->group, &g2 = b->group;
    bool same_order = g1.size == g2.size, same_members = g1.size == g2.size;
    for (int r = 0; r < g1.size && same_members; ++r) {
        same_order = same_order && g1.world[r] == g2.world[r];
        same_members = group_rank_of(g2, g1.world[r]) != MPI_UNDEFINED;
    }
    *result = same_order ? MPI_CONGRUENT : same_members ? MPI_SIMILAR : MPI_UNEQUAL;
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
    if (int e = comm_make(*c, member ? g : nullptr, newcomm))
        return raise_error(comm, fn, e, util::error_detail());
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
    if (int e = enter_comm(fn, comm, &c)) return e;
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
