// Groups: the per-rank table and the MPI_Group_* calls.
#include "group.hpp"

namespace lwmpi {

int group_rank_of(const GroupData &g, int world) {
    for (int r = 0; r < g.size; ++r)
        if (g.world[r] == world)
            return r;
    return MPI_UNDEFINED;
}

}  // namespace lwmpi
