#include "state.hpp"

#include <lwmpi/rank_local.hpp>

namespace lwmpi {

namespace {
thread_local util::RankLocal<MpiState> t_mpi;
}  // namespace

MpiState &state() { return t_mpi.get(); }

}  // namespace lwmpi
