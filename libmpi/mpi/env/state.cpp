#include "state.hpp"

#include "errors.hpp"
#include <lwmpi/rank_local.hpp>

namespace lwmpi {

namespace {
thread_local util::RankLocal<MpiState> t_mpi;
}  // namespace

MpiState &state() { return t_mpi.get(); }

int require_active(const char *function) {
    MpiState &st = state();
    st.call = function;
    if (!st.initialized)
        return raise_error(MPI_COMM_WORLD, function, MPI_ERR_OTHER, "MPI is not initialized");
    if (st.finalized) return raise_error(MPI_COMM_WORLD, function, MPI_ERR_OTHER, "MPI is finalized");
    return MPI_SUCCESS;
}

int enter_comm(const char *function, MPI_Comm comm, Comm **out) {
    if (int e = require_active(function)) return e;
    *out = comm_get(comm);
    if (!*out) return raise_error(MPI_COMM_WORLD, function, MPI_ERR_COMM);
    return MPI_SUCCESS;
}

int enter_intracomm(const char *function, MPI_Comm comm, Comm **out) {
    if (int e = enter_comm(function, comm, out)) return e;
    if ((*out)->inter) return raise_error(comm, function, MPI_ERR_COMM, "an intercommunicator");
    return MPI_SUCCESS;
}

}  // namespace lwmpi
