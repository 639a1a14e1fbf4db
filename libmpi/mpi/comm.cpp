// Communicators: the per-rank table, MPI_COMM_WORLD and MPI_COMM_SELF, and
// the calls that query them (MPI 3.1 sections 6.4 and 8.3).
#include "comm.hpp"

#include "errors.hpp"
#include "handles.hpp"
#include "state.hpp"
#include "../mpiutil/mpiutil.hpp"

namespace lwmpi {

namespace {
constexpr int kWorld = 1;
constexpr int kSelf = 2;
static_assert(make_handle(HandleKind::comm, kWorld) == MPI_COMM_WORLD);
static_assert(make_handle(HandleKind::comm, kSelf) == MPI_COMM_SELF);
}  // namespace

Comm *comm_get(MPI_Comm h) {
    const int i = table_index(h, HandleKind::comm, 1, kMaxComms);
    if (i < 0)
        return nullptr;
    Comm &c = state().comms[i];
    // WORLD and SELF exist from the start, so that their error handlers can
    // be chosen before MPI_Init.
    return c.in_use || i == kWorld || i == kSelf ? &c : nullptr;
}

void comm_init_predefined(int world_rank, int world_size) {
    MpiState &st = state();
    Comm &world = st.comms[kWorld];
    world.in_use = true;
    world.handle = MPI_COMM_WORLD;
    world.context = 0;  // contexts 0 (pt2pt) and 1 (collective)
    world.rank = world_rank;
    world.group.size = world_size;
    for (int r = 0; r < world_size; ++r)
        world.group.world[r] = static_cast<int16_t>(r);
    Comm &self = st.comms[kSelf];
    self.in_use = true;
    self.handle = MPI_COMM_SELF;
    self.context = 2;  // contexts 2 and 3
    self.rank = 0;
    self.group.size = 1;
    self.group.world[0] = static_cast<int16_t>(world_rank);
    st.next_context = 4;
}

int comm_make(const Comm &parent, const GroupData *members, MPI_Comm *out) {
    (void)parent;
    (void)members;
    *out = MPI_COMM_NULL;
    return MPI_ERR_INTERN;
}

}  // namespace lwmpi

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_rank";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c))
        return e;
    if (!rank)
        return raise_error(comm, fn, MPI_ERR_ARG);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Comm_size";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c))
        return e;
    if (!size)
        return raise_error(comm, fn, MPI_ERR_ARG);
    *size = c->group.size;
    return MPI_SUCCESS;
}
