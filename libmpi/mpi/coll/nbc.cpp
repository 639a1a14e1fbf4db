// The non-blocking collectives of MPI 3.1 section 5.12, and MPI_Alltoallw
// (5.8). Each call checks its arguments as its blocking form does
// (coll_common.hpp), builds the algorithm's schedule (coll_sched.hpp, or
// intercoll.hpp on an intercommunicator) and hands it to a request, which
// completes when the schedule has run: every progress pass of LibMPI's
// requests (a Wait, Test, Iprobe... on any request) moves it on. Iscan and
// Iexscan are defined on intracommunicators only (section 5.12.11).
//
// Collectives on a communicator are started in the same order on every
// rank (5.12), blocking or not, so the n-th schedule on a communicator
// has the same tag on every rank (next_schedule_tag): several may be
// outstanding on one communicator without their messages crossing, and
// the blocking collectives' tags are apart from theirs.
#include <mpi.h>

#include "env/call.hpp"
#include "coll_common.hpp"
#include "coll_sched.hpp"
#include "comm/comm.hpp"
#include "env/errors.hpp"
#include "intercoll.hpp"
#include "pt2pt/request.hpp"
#include "pt2pt/schedule.hpp"
#include "env/state.hpp"

using namespace lwmpi;

namespace lwmpi {

namespace {

// The blocks of the w-form (Alltoallw): MPI_ERR_ARG when an array is NULL.
int w_blocks(const Call &call, const int *counts, const int *displs, const MPI_Datatype *types, Blocks *out) {
    if (!counts || !displs || !types)
        return call.fail(MPI_ERR_ARG, "counts, displacements or types are NULL");
    *out = Blocks{counts, displs, 0, types};
    return MPI_SUCCESS;
}

// Igather(v) and Iscatter(v) (`call`): as coll.cpp's rooted().
int rooted(Call &call, bool gather, const void *one, int count, MPI_Datatype type, const void *many,
           const Blocks &blocks, MPI_Datatype blocks_type, int root, MPI_Comm comm, MPI_Request *request) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_rooted(call, *c, one, count, type, many, blocks, blocks_type, root)) return e;
    if (int e = check_request(call, request)) return e;
    void *buf = const_cast<void *>(gather ? many : one);
    return start_schedule(call, *c, request, [&](Schedule &s) {
        if (gather && c->inter)
            build_inter_gatherv(s, *c, one, count, type, buf, blocks, blocks_type, root);
        else if (gather)
            build_gatherv(s, *c, one, count, type, buf, blocks, blocks_type, root);
        else if (c->inter)
            build_inter_scatterv(s, *c, many, blocks, blocks_type, buf, count, type, root);
        else
            build_scatterv(s, *c, many, blocks, blocks_type, buf, count, type, root);
    });
}

int allgatherv(Call &call, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               const Blocks &rb, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_all(call, *c, sendbuf, sendcount, nullptr, sendtype, recvbuf, rb, recvtype)) return e;
    if (int e = check_request(call, request)) return e;
    return start_schedule(call, *c, request, [&](Schedule &s) {
        if (c->inter)
            build_inter_exchange(s, *c, sendbuf, nullptr, sendcount, sendtype, recvbuf, rb, recvtype);
        else
            build_allgatherv(s, *c, sendbuf, sendcount, sendtype, recvbuf, rb, recvtype);
    });
}

// Alltoall(v,w)'s schedule on an intra- or intercommunicator.
void build_any_alltoallw(Schedule &s, const Comm &c, const void *sendbuf, const Blocks &sb,
                         MPI_Datatype sendtype, void *recvbuf, const Blocks &rb, MPI_Datatype recvtype) {
    if (c.inter)
        build_inter_exchange(s, c, sendbuf, &sb, 0, sendtype, recvbuf, rb, recvtype);
    else
        build_alltoallw(s, c, sendbuf, sb, sendtype, recvbuf, rb, recvtype);
}

int alltoallw(const Call &call, Comm &c, const void *sendbuf, const Blocks &sb, MPI_Datatype sendtype,
              void *recvbuf, const Blocks &rb, MPI_Datatype recvtype, MPI_Request *request) {
    if (int e = check_all(call, c, sendbuf, 0, &sb, sendtype, recvbuf, rb, recvtype)) return e;
    if (int e = check_request(call, request)) return e;
    return start_schedule(call, c, request, [&](Schedule &s) {
        build_any_alltoallw(s, c, sendbuf, sb, sendtype, recvbuf, rb, recvtype);
    });
}

int reduce_scatter(Call &call, MPI_Comm comm, const void *sendbuf, void *recvbuf, bool v_form,
                   const int *counts, int fixed, MPI_Datatype type, MPI_Op op, MPI_Request *request) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    int total, displs[util::max_ranks];
    if (int e =
            check_reduce_scatter(call, *c, sendbuf, recvbuf, v_form, counts, fixed, type, op, &total, displs))
        return e;
    if (int e = check_request(call, request)) return e;
    const Blocks pieces{counts, counts ? displs : nullptr, fixed};
    return start_schedule(call, *c, request, [&](Schedule &s) {
        if (c->inter)
            build_inter_reduce_scatter(s, *c, sendbuf, recvbuf, pieces, total, type, op);
        else
            build_reduce_scatter(s, *c, sendbuf, recvbuf, pieces, total, type, op);
    });
}

int scan(Call &call, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
         MPI_Comm comm, bool inclusive, MPI_Request *request) {
    Comm *c;
    if (int e = enter_intra(call, comm, &c)) return e;
    if (int e = check_reduction(call, *c, sendbuf, recvbuf, count, type, op, false, 0)) return e;
    if (int e = check_request(call, request)) return e;
    return start_schedule(call, *c, request, [&](Schedule &s) {
        build_scan(s, *c, sendbuf, recvbuf, count, type, op, inclusive);
    });
}

}  // namespace

}  // namespace lwmpi

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Ibarrier");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_request(call, request)) return e;
    return start_schedule(call, *c, request, [&](Schedule &s) {
        if (c->inter)
            build_inter_barrier(s, *c);
        else
            build_barrier(s, *c);
    });
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request) {
    Call call("MPI_Ibcast");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_root(call, *c, root)) return e;
    if (root != MPI_PROC_NULL)
        if (int e = check_buf(call, buffer, count, datatype)) return e;
    if (int e = check_request(call, request)) return e;
    return start_schedule(call, *c, request, [&](Schedule &s) {
        if (c->inter)
            build_inter_bcast(s, *c, buffer, count, datatype, root);
        else
            build_bcast(s, *c, buffer, count, datatype, root);
    });
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Igather");
    return rooted(call, true, sendbuf, sendcount, sendtype, recvbuf, regular(recvcount), recvtype, root, comm,
                  request);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request) {
    Call call("MPI_Igatherv");
    return rooted(call, true, sendbuf, sendcount, sendtype, recvbuf, Blocks{recvcounts, displs, 0}, recvtype,
                  root, comm, request);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Iscatter");
    return rooted(call, false, recvbuf, recvcount, recvtype, sendbuf, regular(sendcount), sendtype, root,
                  comm, request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request) {
    Call call("MPI_Iscatterv");
    return rooted(call, false, recvbuf, recvcount, recvtype, sendbuf, Blocks{sendcounts, displs, 0}, sendtype,
                  root, comm, request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Iallgather");
    return allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, regular(recvcount), recvtype, comm,
                      request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request) {
    Call call("MPI_Iallgatherv");
    return allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, Blocks{recvcounts, displs, 0}, recvtype,
                      comm, request);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Ialltoall");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    return alltoallw(call, *c, sendbuf, regular(sendcount), sendtype, recvbuf, regular(recvcount), recvtype,
                     request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Ialltoallv");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    return alltoallw(call, *c, sendbuf, Blocks{sendcounts, sdispls, 0}, sendtype, recvbuf,
                     Blocks{recvcounts, rdispls, 0}, recvtype, request);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Ialltoallw");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    Blocks sb{}, rb{};
    if (sendbuf != MPI_IN_PLACE)
        if (int e = w_blocks(call, sendcounts, sdispls, sendtypes, &sb)) return e;
    if (int e = w_blocks(call, recvcounts, rdispls, recvtypes, &rb)) return e;
    return alltoallw(call, *c, sendbuf, sb, MPI_DATATYPE_NULL, recvbuf, rb, MPI_DATATYPE_NULL, request);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm) {
    // The schedule of MPI_Ialltoallw, run to its end: one message per pair
    // at once, as MPI_Alltoallv does.
    Call call("MPI_Alltoallw");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    Blocks sb{}, rb{};
    if (sendbuf != MPI_IN_PLACE)
        if (int e = w_blocks(call, sendcounts, sdispls, sendtypes, &sb)) return e;
    if (int e = w_blocks(call, recvcounts, rdispls, recvtypes, &rb)) return e;
    if (int e = check_all(call, *c, sendbuf, 0, &sb, MPI_DATATYPE_NULL, recvbuf, rb, MPI_DATATYPE_NULL))
        return e;
    return fail(call, run_schedule(*c, [&](Schedule &s) {
                    build_any_alltoallw(s, *c, sendbuf, sb, MPI_DATATYPE_NULL, recvbuf, rb,
                                        MPI_DATATYPE_NULL);
                }));
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Ireduce");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_reduction(call, *c, sendbuf, recvbuf, count, datatype, op, true, root)) return e;
    if (int e = check_request(call, request)) return e;
    return start_schedule(call, *c, request, [&](Schedule &s) {
        if (c->inter)
            build_inter_reduce(s, *c, sendbuf, recvbuf, count, datatype, op, root);
        else
            build_reduce(s, *c, sendbuf, recvbuf, count, datatype, op, root);
    });
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Iallreduce");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_reduction(call, *c, sendbuf, recvbuf, count, datatype, op, false, 0)) return e;
    if (int e = check_request(call, request)) return e;
    return start_schedule(call, *c, request, [&](Schedule &s) {
        if (c->inter)
            build_inter_allreduce(s, *c, sendbuf, recvbuf, count, datatype, op);
        else
            build_allreduce(s, *c, sendbuf, recvbuf, count, datatype, op);
    });
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Ireduce_scatter");
    return reduce_scatter(call, comm, sendbuf, recvbuf, true, recvcounts, 0, datatype, op, request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Ireduce_scatter_block");
    return reduce_scatter(call, comm, sendbuf, recvbuf, false, nullptr, recvcount, datatype, op, request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request *request) {
    Call call("MPI_Iscan");
    return scan(call, sendbuf, recvbuf, count, datatype, op, comm, true, request);
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request) {
    Call call("MPI_Iexscan");
    return scan(call, sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
