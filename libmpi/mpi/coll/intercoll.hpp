// Collectives on intercommunicators (MPI 3.1 section 5.2.2) written as
// schedules (schedule.hpp), which the blocking collectives (coll.cpp) run
// to their end and the non-blocking ones (nbc.cpp, section 5.12) in the
// background. Each adds its rounds to `s` for the calling rank of the
// intercommunicator `c`; the arguments were checked by the caller.
// `root` is MPI_ROOT at the root, MPI_PROC_NULL at the other ranks of the
// root's group, and the root's rank in the remote group at the ranks of
// the other group.
#pragma once

#include <mpi.h>

#include "coll_common.hpp"
#include "comm/comm.hpp"
#include "pt2pt/schedule.hpp"

namespace lwmpi {

/// Adds, with build(const Comm &local), steps that run inside my group:
/// their messages travel on c's local intracommunicator (which lives as
/// long as `c`) and name its ranks, my rank there being my rank in `c`.
template <typename Build>
void in_group(Schedule &s, const Comm &c, Build build) {
    const Comm &local = *comm_get(c.local);
    s.round();  // after what came before: a round's messages start together
    s.messages_on(local);
    build(local);
    s.round();
    s.messages_on(c);
}

/// The two leaders (rank 0 of each group) swap `count` elements of `t`:
/// mine from `out`, theirs into `in`; nothing at the other ranks.
void build_leaders_swap(Schedule &s, const Comm &c, const void *out, void *in, int count, MPI_Datatype t);

/// Barrier: no rank of either group leaves before every rank of both
/// entered.
void build_inter_barrier(Schedule &s, const Comm &c);
/// Bcast: the root's buffer to every rank of the other group.
void build_inter_bcast(Schedule &s, const Comm &c, void *buf, int count, MPI_Datatype t, int root);
/// Reduce: the reduction of the other group's sendbufs, in rank order,
/// into the root's recvbuf.
void build_inter_reduce(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype t, MPI_Op op, int root);
/// Allreduce: each group receives the reduction of the other group's
/// sendbufs.
void build_inter_allreduce(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype t, MPI_Op op);
/// Gather(v): remote rank r's block lands in the root's block r (rb: over
/// the remote group).
void build_inter_gatherv(Schedule &s, const Comm &c, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const Blocks &rb, MPI_Datatype recvtype,
                         int root);
/// Scatter(v): the root's block r goes to remote rank r.
void build_inter_scatterv(Schedule &s, const Comm &c, const void *sendbuf, const Blocks &sb,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int root);
/// Allgather(v) (sb nullptr: the same sendbuf to every remote rank) and
/// Alltoall(v,w) (sb: block r to remote rank r): remote rank r's block
/// lands in block r of recvbuf. One round: every block moves directly.
void build_inter_exchange(Schedule &s, const Comm &c, const void *sendbuf, const Blocks *sb, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, const Blocks &rb, MPI_Datatype recvtype);
/// Reduce_scatter(_block): the reduction of the other group's `total`
/// elements, cut in `pieces` over my group (pieces.count(r) to rank r).
void build_inter_reduce_scatter(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf,
                                const Blocks &pieces, int total, MPI_Datatype t, MPI_Op op);

}  // namespace lwmpi
