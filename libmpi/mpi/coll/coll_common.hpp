// What the blocking collectives (coll.cpp) and the non-blocking ones
// (nbc.cpp, over schedules) share: the argument checks of each call of
// MPI 3.1 chapter 5, the blocks of the per-rank collectives, the copies
// between buffers, and the ranks of a communicator arranged by cluster
// for the two-level trees.
#pragma once

#include <mpi.h>

#include "comm/comm.hpp"
#include "env/call.hpp"
#include "datatype/datatype.hpp"
#include <mpiutil/mpiutil.hpp>

namespace lwmpi {

// ---- blocks of the per-rank collectives ----

/// The blocks of a buffer in the per-rank collectives: rank r's block is
/// count(r) elements at displ(r) from the start. The v-forms give the
/// arrays, the others one count for all, blocks back to back; the w-form
/// (Alltoallw, section 5.8) also a type per block, its displacements in
/// bytes.
struct Blocks {
    const int *counts;  ///< nullptr: `fixed` elements each
    const int *displs;
    int fixed;
    const MPI_Datatype *types = nullptr;  ///< w-form: block r is of types[r]

    int count(int r) const { return counts ? counts[r] : fixed; }
    /// Block r's displacement in elements of the call's type (not w-form).
    MPI_Aint displ(int r) const { return displs ? displs[r] : static_cast<MPI_Aint>(r) * fixed; }
    /// Block r's type: types[r] in the w-form, else the call's `type`.
    MPI_Datatype type(int r, MPI_Datatype type) const { return types ? types[r] : type; }
    /// Where block r of `buf` starts (a buffer argument of type(r, type)).
    char *at(const void *buf, int r, MPI_Datatype type) const;
    /// Elements from the start to the end of the last block (not w-form).
    MPI_Aint span(int n) const;
};

inline constexpr Blocks regular(int count) { return Blocks{nullptr, nullptr, count}; }

// ---- the two-level trees ----

/// The ranks of a communicator arranged for a collective rooted at `root`:
/// `leaders` (one per cluster, root's first) and `locals` (the ranks of my
/// cluster, my leader first), and my index in each (-1 if absent).
struct Layout {
    int leaders[util::max_ranks];
    int nleaders;
    int my_leader_index;
    int locals[util::max_ranks];
    int nlocals;
    int my_local_index;
};

/// Fills *l for the calling rank of `c` and `root`.
void make_layout(const Comm &c, int root, Layout *l);

// ---- argument checks (each raises through the call's communicator's error handler) ----

/// Raises `e` with "what value" when it is not MPI_SUCCESS.
int check(const Call &call, int e, const char *what, long long value);
/// MPI_ERR_ROOT unless 0 <= root < size of c; of an intercommunicator,
/// MPI_ROOT, MPI_PROC_NULL or a rank of the remote group (section 5.2.2).
/// The other checks below follow an intercommunicator's rules too: only
/// the buffers that send or receive matter, block counts run over the
/// remote group, and MPI_IN_PLACE is refused.
int check_root(const Call &call, const Comm &c, int root);
/// MPI_ERR_BUFFER for MPI_IN_PLACE on an intercommunicator.
int check_not_in_place(const Call &call, const Comm &c, const void *buf);
/// A buffer of `count` elements of `type`: MPI_ERR_COUNT, MPI_ERR_TYPE,
/// MPI_ERR_BUFFER.
int check_buf(const Call &call, const void *buf, int count, MPI_Datatype type);
/// check_buf, then MPI_ERR_OP when `op` is invalid or not defined on type.
int check_reduce(const Call &call, const void *buf, int count, MPI_Datatype type, MPI_Op op);
/// A buffer of blocks: the arrays (v- and w-forms; MPI_ERR_ARG when
/// NULL) and each block.
int check_blocks(const Call &call, const Comm &c, const void *buf, const Blocks &b, MPI_Datatype type);
/// Raises `e` (an algorithm's failure) unless it is MPI_SUCCESS.
int fail(const Call &call, int e);

/// The checks of Reduce (rooted) and of Allreduce, Scan, Exscan (not
/// rooted: every rank receives, `root` is ignored): root, both buffers,
/// the operation.
int check_reduction(const Call &call, const Comm &c, const void *sendbuf, const void *recvbuf, int count,
                    MPI_Datatype type, MPI_Op op, bool rooted, int root);
/// The checks of Gather(v) and Scatter(v): `one` is a rank's own buffer
/// (MPI_IN_PLACE allowed at the root), `many` the root's blocks.
int check_rooted(const Call &call, const Comm &c, const void *one, int count, MPI_Datatype type,
                 const void *many, const Blocks &blocks, MPI_Datatype blocks_type, int root);
/// The checks of Allgather(v) (sb == nullptr: one send buffer of
/// sendcount) and Alltoall(v,w) (sb: the send blocks); MPI_IN_PLACE
/// allowed for sendbuf.
int check_all(const Call &call, const Comm &c, const void *sendbuf, int sendcount, const Blocks *sb,
              MPI_Datatype sendtype, const void *recvbuf, const Blocks &rb, MPI_Datatype recvtype);
/// The checks of Reduce_scatter (v_form: counts, MPI_ERR_ARG when NULL)
/// and Reduce_scatter_block (fixed): the counts, the buffers (the whole vector
/// of *total elements in sendbuf, or in recvbuf when in place), the
/// operation. Sets *total and displs[0..size) (v-form only).
int check_reduce_scatter(const Call &call, const Comm &c, const void *sendbuf, const void *recvbuf,
                         bool v_form, const int *counts, int fixed, MPI_Datatype type, MPI_Op op, int *total,
                         int *displs);

}  // namespace lwmpi
