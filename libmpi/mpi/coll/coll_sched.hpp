// The collective algorithms written as schedules (schedule.hpp): one
// builder per algorithm, which the non-blocking collectives (nbc.cpp) run
// in the background and a blocking collective can run to its end
// (MPI_Alltoallw does, and so do the collectives on intercommunicators,
// intercoll.hpp). Each adds its rounds to `s` for the calling rank of
// `c`; the arguments were checked by the caller. Buffers are buffer
// arguments (MPI_BOTTOM-relative where the datatype says so).
#pragma once

#include <mpi.h>

#include "coll_common.hpp"
#include "env/errors.hpp"
#include "pt2pt/request.hpp"
#include "pt2pt/schedule.hpp"

namespace lwmpi {

/// Barrier (section 5.3): each cluster in to its leader, a dissemination
/// among the leaders, each cluster out again. No rank's schedule ends
/// before every rank's has started.
void build_barrier(Schedule &s, const Comm &c);

/// Broadcast of `buf` from root (5.4): a binomial tree of the cluster
/// leaders, then one inside each cluster.
void build_bcast(Schedule &s, const Comm &c, void *buf, int count, MPI_Datatype type, int root);

/// Reduces every rank's `acc` into root's `acc` (5.9.1); the other ranks'
/// acc is clobbered. Commutative operations up the two-level trees, a
/// non-commutative one in rank order at the root.
void build_reduce_into(Schedule &s, const Comm &c, void *acc, int count, MPI_Datatype type, MPI_Op op,
                       int root);

/// Reduce (5.9.1) from sendbuf (MPI_IN_PLACE at the root) into root's
/// recvbuf; sendbuf is left as it is.
void build_reduce(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype type, MPI_Op op, int root);

/// Allreduce (5.9.6): reduce to rank 0, then broadcast.
void build_allreduce(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype type, MPI_Op op);

/// Gather(v) (5.5): every rank's block straight to the root, in one round.
void build_gatherv(Schedule &s, const Comm &c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const Blocks &rb, MPI_Datatype recvtype, int root);

/// Scatter(v) (5.6): the other way.
void build_scatterv(Schedule &s, const Comm &c, const void *sendbuf, const Blocks &sb, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root);

/// Allgather(v) (5.7): gather to rank 0, then the blocks down the
/// broadcast trees.
void build_allgatherv(Schedule &s, const Comm &c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const Blocks &rb, MPI_Datatype recvtype);

/// Alltoall(v,w) (5.8): every pair exchanges its blocks directly, in one
/// round. In place: each block is copied aside first.
void build_alltoallw(Schedule &s, const Comm &c, const void *sendbuf, const Blocks &sb, MPI_Datatype sendtype,
                     void *recvbuf, const Blocks &rb, MPI_Datatype recvtype);

/// Reduce_scatter(_block) (5.10): the whole vector (`total` elements)
/// reduced to rank 0, then its pieces scattered (`pieces`).
void build_reduce_scatter(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf,
                          const Blocks &pieces, int total, MPI_Datatype type, MPI_Op op);

/// Scan (inclusive) and Exscan (5.11): the prefix travels along the ranks
/// in order, each combining its own contribution on the right.
void build_scan(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                MPI_Op op, bool inclusive);

/// Builds a schedule on `c` with `build(Schedule &)` and starts it as
/// *request, the request of non-blocking `call` (its arguments
/// checked); raises call's errors (MPI_ERR_NO_MEM, too many requests).
template <typename Build>
int start_schedule(const Call &call, Comm &c, MPI_Request *request, Build build) {
    Schedule *s = Schedule::create(c, next_schedule_tag(c));
    if (!s) return call.fail(MPI_ERR_NO_MEM, "no memory for the schedule");
    build(*s);
    if (int e = request_new_background(c, *s, request)) return call.fail(e, "too many requests");
    if (int e = s->start()) {
        request_drop(*request_get(*request));
        *request = MPI_REQUEST_NULL;
        return call.fail(e, "no memory for the schedule");
    }
    return MPI_SUCCESS;
}

/// Builds a schedule on `c` with `build(Schedule &)` and runs it to its
/// end: a blocking collective (its arguments checked) in a schedule's
/// form. MPI_SUCCESS or an error class (MPI_ERR_NO_MEM, a message's).
template <typename Build>
int run_schedule(Comm &c, Build build) {
    Schedule *s = Schedule::create(c, next_schedule_tag(c));
    if (!s) return MPI_ERR_NO_MEM;
    build(*s);
    const int e = s->run();
    Schedule::destroy(s);
    return e;
}

/// The request argument of non-blocking `call`: MPI_ERR_ARG
/// (raised) when it is NULL.
inline int check_request(const Call &call, MPI_Request *request) {
    return request ? MPI_SUCCESS : call.fail(MPI_ERR_ARG, "request is NULL");
}

}  // namespace lwmpi
