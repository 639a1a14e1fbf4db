// Blocking collectives on intercommunicators (MPI 3.1 section 5.2.2), for
// coll.cpp's calls once the arguments are checked. `c` is an
// intercommunicator; `root` is MPI_ROOT at the root, MPI_PROC_NULL at the
// other ranks of the root's group, and the root's rank in the remote
// group at the ranks of the other group. Each returns MPI_SUCCESS or an
// error class (util::error_detail() may say more).
#pragma once

#include <mpi.h>

#include "coll_common.hpp"
#include "comm/comm.hpp"

namespace lwmpi {

/// No rank of either group leaves before every rank of both entered.
int inter_barrier(const Comm &c);
/// The root's buffer to every rank of the other group.
int inter_bcast(const Comm &c, void *buf, int count, MPI_Datatype t, int root);
/// The reduction of the other group's sendbufs, in rank order, into the
/// root's recvbuf.
int inter_reduce(const Comm &c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
                 int root);
/// Each group receives the reduction of the other group's sendbufs.
int inter_allreduce(const Comm &c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op);
/// Remote rank r's block lands in the root's block r (rb: over the remote
/// group).
int inter_gatherv(const Comm &c, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const Blocks &rb, MPI_Datatype recvtype, int root);
/// The root's block r goes to remote rank r.
int inter_scatterv(const Comm &c, const void *sendbuf, const Blocks &sb, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root);
/// Allgather(v) (sb nullptr: the same sendbuf to every remote rank) and
/// Alltoall(v,w) (sb: block r to remote rank r): remote rank r's block
/// lands in block r of recvbuf.
int inter_exchange(const Comm &c, const void *sendbuf, const Blocks *sb, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const Blocks &rb, MPI_Datatype recvtype);
/// Reduce_scatter(_block): the reduction of the other group's `total`
/// elements, cut in `pieces` over my group (pieces.count(r) to rank r).
int inter_reduce_scatter(const Comm &c, const void *sendbuf, void *recvbuf, const Blocks &pieces, int total,
                         MPI_Datatype t, MPI_Op op);

}  // namespace lwmpi
