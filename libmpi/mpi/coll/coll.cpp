// Collective operations (MPI 3.1 chapter 5) over point-to-point messages on
// a communicator's collective context.
//
// The algorithms follow the clusters. The ranks of a communicator are
// grouped by the compute cluster that hosts them; each group has a leader
// (the root itself in the root's group). Bcast goes down a binomial tree of
// the leaders over the NoC, then down a binomial tree inside each cluster
// (the local path); Reduce goes up the leaders' tree the other way,
// combining on the way, after each leader took its cluster's
// contributions at once (a binomial tree above flat_bytes), so one
// message per cluster crosses the NoC on each level. Barrier gathers each
// cluster at its leader at once, meets the leaders in a dissemination,
// and releases each cluster at once.
// Allreduce, Allgather and Reduce_scatter are built on Bcast and Reduce.
// A non-commutative user operation is combined in rank order instead
// (MPI 3.1 section 5.9.1). Gather, Scatter and Alltoall move each rank's
// own block, which must cross the NoC anyway, straight to its destination.
#include "env/call.hpp"
#include "coll.hpp"

#include <stdlib.h>
#include <string.h>

#include "pt2pt/batch.hpp"
#include "pt2pt/check.hpp"
#include "coll_common.hpp"
#include "coll_parts.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "env/errors.hpp"
#include "coll_sched.hpp"
#include "intercoll.hpp"
#include "datatype/op.hpp"
#include "pt2pt/request.hpp"
#include "env/state.hpp"
#include "common/trace.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// One tag per kind of collective: calls on a communicator come in the
// same order on every rank, so the tag only guards against mistakes.
enum Tag : int { barrier_tag = 1, bcast_tag, reduce_tag, gather_tag, scatter_tag, alltoall_tag, scan_tag };

// ---- the two-level trees ----

// Binomial broadcast over ranks list[0..m) from list[0]; I am list[me].
int tree_bcast(const Comm &c, const int *list, int m, int me, void *buf, int count, MPI_Datatype t) {
    int mask = 1;
    for (; mask < m; mask <<= 1)
        if (me & mask) {
            if (int e = recv(c, list[me - mask], bcast_tag, buf, count, t)) return e;
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < m)
            if (int e = send(c, list[me + mask], bcast_tag, buf, count, t)) return e;
    return MPI_SUCCESS;
}

// Binomial reduction over ranks list[0..m) into list[0]'s `acc`; I am
// list[me]. `tmp` holds one incoming contribution. With op ==
// MPI_OP_NULL, nothing is combined (a barrier's fan-in).
int tree_reduce(const Comm &c, const int *list, int m, int me, void *acc, void *tmp, int count,
                MPI_Datatype t, MPI_Op op) {
    for (int mask = 1; mask < m; mask <<= 1) {
        if (me & mask) return send(c, list[me - mask], reduce_tag, acc, count, t);
        if (me + mask < m) {
            if (int e = recv(c, list[me + mask], reduce_tag, tmp, count, t)) return e;
            if (op != MPI_OP_NULL)
                if (int e = reduce_local(tmp, acc, count, t, op)) return e;
        }
    }
    return MPI_SUCCESS;
}

// Inside a cluster a small collective goes in one step: the leader sends
// to, or receives from, every other rank of its cluster at once. A message
// there costs no NoC transfer, so what a tree saves (the leader's work)
// matters less than the steps it adds, each of which waits for a rank to
// run: with more ranks than the host's CPUs, that wait is most of the time.
constexpr uint64_t flat_bytes = 4096;

bool flat(int count, MPI_Datatype t) {
    return static_cast<uint64_t>(count) * static_cast<uint64_t>(datatype_get(t)->size) <= flat_bytes;
}

// Broadcast over ranks list[0..m) from list[0] in one step; I am list[me].
int flat_bcast(const Comm &c, const int *list, int m, int me, void *buf, int count, MPI_Datatype t) {
    if (me != 0) return recv(c, list[0], bcast_tag, buf, count, t);
    Batch b(c);
    for (int i = 1; i < m; ++i)
        b.send(list[i], bcast_tag, buf, count, t);
    return b.finish();
}

// Reduction over ranks list[0..m) into list[0]'s `acc`, the others sending
// at once, combined in list order; I am list[me]. As tree_reduce.
int flat_reduce(const Comm &c, const int *list, int m, int me, void *acc, void *tmp, int count,
                MPI_Datatype t, MPI_Op op) {
    if (me != 0) return send(c, list[0], reduce_tag, acc, count, t);
    for (int i = 1; i < m; ++i) {
        if (int e = recv(c, list[i], reduce_tag, tmp, count, t)) return e;
        if (op != MPI_OP_NULL)
            if (int e = reduce_local(tmp, acc, count, t, op)) return e;
    }
    return MPI_SUCCESS;
}

// The reduction inside my cluster, into its leader's `acc`.
int local_reduce(const Comm &c, const Layout &l, void *acc, void *tmp, int count, MPI_Datatype t, MPI_Op op) {
    const auto reduce = flat(count, t) ? flat_reduce : tree_reduce;
    return reduce(c, l.locals, l.nlocals, l.my_local_index, acc, tmp, count, t, op);
}

}  // namespace

int bcast(const Comm &c, void *buf, int count, MPI_Datatype t, int root) {
    Layout l;
    make_layout(c, root, &l);
    if (l.my_leader_index >= 0)
        if (int e = tree_bcast(c, l.leaders, l.nleaders, l.my_leader_index, buf, count, t)) return e;
    // A tree here, not flat_bcast: back-to-back broadcasts were no faster
    // with the leader sending to every rank (linux64, 8 ranks, 9 runs
    // each: median 17.7 against 13.4 us, the two within each other's
    // spread), and they then leave all the copying to the leader.
    return tree_bcast(c, l.locals, l.nlocals, l.my_local_index, buf, count, t);
}

namespace {

// Reduces `count` elements of every rank's `acc` into root's `acc` (other
// ranks' acc is clobbered).
int reduce_into(const Comm &c, void *acc, int count, MPI_Datatype type, MPI_Op op, int root) {
    const Datatype &t = *datatype_get(type);
    TempBuf tmp(count, t);
    if (!tmp.ok()) return MPI_ERR_NO_MEM;
    if (op != MPI_OP_NULL && !op_commutative(op)) {
        // In rank order: acc(root) = x0 op (x1 op (... op x(n-1))).
        const int n = c.group.size;
        if (c.rank != root) return send(c, root, reduce_tag, acc, count, type);
        TempBuf mine(count, t);
        if (!mine.ok()) return MPI_ERR_NO_MEM;
        if (int e = copy(acc, mine.get(), count, t)) return e;
        for (int r = n - 1; r >= 0; --r) {
            void *x = r == root ? mine.get() : tmp.get();
            if (r != root)
                if (int e = recv(c, r, reduce_tag, x, count, type)) return e;
            if (r == n - 1) {
                if (int e = copy(x, acc, count, t)) return e;
            } else if (int e = reduce_local(x, acc, count, type, op)) {
                return e;
            }
        }
        return MPI_SUCCESS;
    }
    Layout l;
    make_layout(c, root, &l);
    if (int e = local_reduce(c, l, acc, tmp.get(), count, type, op)) return e;
    if (l.my_leader_index < 0) return MPI_SUCCESS;
    return tree_reduce(c, l.leaders, l.nleaders, l.my_leader_index, acc, tmp.get(), count, type, op);
}

// Allreduce into recvbuf (the input in sendbuf, or already in recvbuf).
int allreduce(const Comm &c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op) {
    const Datatype &t = *datatype_get(type);
    if (sendbuf != MPI_IN_PLACE)
        if (int e = copy(sendbuf, recvbuf, count, t)) return e;
    if (int e = reduce_into(c, recvbuf, count, type, op, 0)) return e;
    return bcast(c, recvbuf, count, type, 0);
}

}  // namespace

namespace {

// A dissemination barrier over ranks list[0..m) (Hensgen, Finkel and
// Manber, 1988): in round k each sends to the one 2^k after it and hears
// from the one 2^k before it, so after ceil(log2 m) rounds everyone has
// heard, through some chain, from everyone. Half the steps of a fan-in
// and a fan-out over a tree. I am list[me].
int dissemination(const Comm &c, const int *list, int m, int me) {
    char none = 0;
    for (int k = 1; k < m; k <<= 1) {
        Batch b(c);
        b.send(list[(me + k) % m], barrier_tag, &none, 0, MPI_BYTE);
        b.recv(list[(me - k + m) % m], barrier_tag, &none, 0, MPI_BYTE);
        if (int e = b.finish()) return e;
    }
    return MPI_SUCCESS;
}

}  // namespace

int barrier(const Comm &c) {
    // In to each cluster's leader, a dissemination among the leaders over
    // the NoC, then out again.
    Layout l;
    make_layout(c, 0, &l);
    char none = 0;
    if (int e = local_reduce(c, l, &none, &none, 0, MPI_BYTE, MPI_OP_NULL)) return e;
    if (l.my_leader_index >= 0)
        if (int e = dissemination(c, l.leaders, l.nleaders, l.my_leader_index)) return e;
    return flat_bcast(c, l.locals, l.nlocals, l.my_local_index, &none, 0, MPI_BYTE);
}

int allreduce_max(const Comm &c, uint32_t *value) {
    unsigned v = *value;
    if (int e = allreduce(c, MPI_IN_PLACE, &v, 1, MPI_UNSIGNED, MPI_MAX)) return e;
    *value = v;
    return MPI_SUCCESS;
}

}  // namespace lwmpi

int MPI_Barrier(MPI_Comm comm) {
    Call call("MPI_Barrier", Traced::yes);
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (c->inter) return fail(call, run_schedule(*c, [&](Schedule &s) { build_inter_barrier(s, *c); }));
    return fail(call, barrier(*c));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    Call call("MPI_Bcast", Traced::yes);
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_root(call, *c, root)) return e;
    if (root != MPI_PROC_NULL)
        if (int e = check_buf(call, buffer, count, datatype)) return e;
    if (c->inter)
        return fail(call, run_schedule(*c, [&](Schedule &s) {
                        build_inter_bcast(s, *c, buffer, count, datatype, root);
                    }));
    return fail(call, bcast(*c, buffer, count, datatype, root));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
    Call call("MPI_Reduce", Traced::yes);
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_reduction(call, *c, sendbuf, recvbuf, count, datatype, op, true, root)) return e;
    if (c->inter)
        return fail(call, run_schedule(*c, [&](Schedule &s) {
                        build_inter_reduce(s, *c, sendbuf, recvbuf, count, datatype, op, root);
                    }));
    const bool in_place = c->rank == root && sendbuf == MPI_IN_PLACE;
    const Datatype &t = *datatype_get(datatype);
    if (c->rank == root) {
        const int e = in_place ? MPI_SUCCESS : copy(sendbuf, recvbuf, count, t);
        return fail(call, e ? e : reduce_into(*c, recvbuf, count, datatype, op, root));
    }
    TempBuf acc(count, t);
    if (!acc.ok()) return call.fail(MPI_ERR_NO_MEM);
    int e = copy(sendbuf, acc.get(), count, t);
    if (e == MPI_SUCCESS) e = reduce_into(*c, acc.get(), count, datatype, op, root);
    return fail(call, e);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
    Call call("MPI_Allreduce", Traced::yes);
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_reduction(call, *c, sendbuf, recvbuf, count, datatype, op, false, 0)) return e;
    if (c->inter)
        return fail(call, run_schedule(*c, [&](Schedule &s) {
                        build_inter_allreduce(s, *c, sendbuf, recvbuf, count, datatype, op);
                    }));
    return fail(call, allreduce(*c, sendbuf, recvbuf, count, datatype, op));
}

namespace {

// Gather(v): rank r's block lands in recvbuf's block r.
int gatherv(const Call &call, const Comm &c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, const Blocks &rb, MPI_Datatype recvtype, int root) {
    if (c.rank != root) return fail(call, send(c, root, gather_tag, sendbuf, sendcount, sendtype));
    const Datatype &rt = *datatype_get(recvtype);
    Batch b(c);
    for (int r = 0; r < c.group.size; ++r) {
        char *block = at(recvbuf, rb.displ(r), rt);
        if (r != root)
            b.recv(r, gather_tag, block, rb.count(r), recvtype);
        else if (sendbuf != MPI_IN_PLACE)
            if (int e = copy_as(sendbuf, sendcount, *datatype_get(sendtype), block, rb.count(r), rt))
                return fail(call, e);
    }
    return fail(call, b.finish());
}

// Scatter(v), the other way.
int scatterv(const Call &call, const Comm &c, const void *sendbuf, const Blocks &sb, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
    if (c.rank != root) return fail(call, recv(c, root, scatter_tag, recvbuf, recvcount, recvtype));
    const Datatype &st = *datatype_get(sendtype);
    Batch b(c);
    for (int r = 0; r < c.group.size; ++r) {
        const char *block = at(sendbuf, sb.displ(r), st);
        if (r != root)
            b.send(r, scatter_tag, block, sb.count(r), sendtype);
        else if (recvbuf != MPI_IN_PLACE)
            if (int e = copy_as(block, sb.count(r), st, recvbuf, recvcount, *datatype_get(recvtype)))
                return fail(call, e);
    }
    return fail(call, b.finish());
}

// MPI_Gather(v) and MPI_Scatter(v) (`call`): the checks, then the
// algorithm. `one` is a rank's own buffer (the send buffer of a gather,
// the receive buffer of a scatter; MPI_IN_PLACE at the root), `many` the
// root's buffer of blocks.
int rooted(Call &call, bool gather, const void *one, int count, MPI_Datatype type, const void *many,
           const Blocks &blocks, MPI_Datatype blocks_type, int root, MPI_Comm comm) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_rooted(call, *c, one, count, type, many, blocks, blocks_type, root)) return e;
    if (c->inter)
        return fail(call, run_schedule(*c, [&](Schedule &s) {
                        if (gather)
                            build_inter_gatherv(s, *c, one, count, type, const_cast<void *>(many), blocks,
                                                blocks_type, root);
                        else
                            build_inter_scatterv(s, *c, many, blocks, blocks_type, const_cast<void *>(one),
                                                 count, type, root);
                    }));
    if (gather)
        return gatherv(call, *c, one, count, type, const_cast<void *>(many), blocks, blocks_type, root);
    return scatterv(call, *c, many, blocks, blocks_type, const_cast<void *>(one), count, type, root);
}

}  // namespace

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Gather", Traced::yes);
    return rooted(call, true, sendbuf, sendcount, sendtype, recvbuf, regular(recvcount), recvtype, root,
                  comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Gatherv", Traced::yes);
    return rooted(call, true, sendbuf, sendcount, sendtype, recvbuf, Blocks{recvcounts, displs, 0}, recvtype,
                  root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Scatter", Traced::yes);
    return rooted(call, false, recvbuf, recvcount, recvtype, sendbuf, regular(sendcount), sendtype, root,
                  comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    Call call("MPI_Scatterv", Traced::yes);
    return rooted(call, false, recvbuf, recvcount, recvtype, sendbuf, Blocks{sendcounts, displs, 0}, sendtype,
                  root, comm);
}

namespace {

// Allgather(v): gather to rank 0, then the blocks down the bcast trees.
int allgatherv(Call &call, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               const Blocks &rb, MPI_Datatype recvtype, MPI_Comm comm) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_all(call, *c, sendbuf, sendcount, nullptr, sendtype, recvbuf, rb, recvtype)) return e;
    if (c->inter)
        return fail(call, run_schedule(*c, [&](Schedule &s) {
                        build_inter_exchange(s, *c, sendbuf, nullptr, sendcount, sendtype, recvbuf, rb,
                                             recvtype);
                    }));
    const Datatype &rt = *datatype_get(recvtype);
    if (sendbuf == MPI_IN_PLACE && c->rank != 0) {  // my block is in recvbuf already
        sendbuf = at(recvbuf, rb.displ(c->rank), rt);
        sendcount = rb.count(c->rank);
        sendtype = recvtype;
    }
    if (int e = gatherv(call, *c, sendbuf, sendcount, sendtype, recvbuf, rb, recvtype, 0)) return e;
    if (!rb.counts)  // the blocks are one array
        return fail(call, bcast(*c, recvbuf, rb.fixed * c->group.size, recvtype, 0));
    for (int r = 0; r < c->group.size; ++r)
        if (int e = bcast(*c, at(recvbuf, rb.displ(r), rt), rb.count(r), recvtype, 0)) return fail(call, e);
    return MPI_SUCCESS;
}

// Alltoall(v): every pair exchanges its blocks directly.
int alltoallv(Call &call, const void *sendbuf, Blocks sb, MPI_Datatype sendtype, void *recvbuf,
              const Blocks &rb, MPI_Datatype recvtype, MPI_Comm comm) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (int e = check_all(call, *c, sendbuf, 0, &sb, sendtype, recvbuf, rb, recvtype)) return e;
    if (c->inter)
        return fail(call, run_schedule(*c, [&](Schedule &s) {
                        build_inter_exchange(s, *c, sendbuf, &sb, 0, sendtype, recvbuf, rb, recvtype);
                    }));
    const int n = c->group.size, me = c->rank;
    const Datatype &rt = *datatype_get(recvtype);
    // In place: what is sent is a copy of recvbuf as it was.
    const int span = sendbuf == MPI_IN_PLACE ? static_cast<int>(rb.span(n)) : 0;
    TempBuf copy_of_recv(span, rt);
    if (sendbuf == MPI_IN_PLACE) {
        if (!copy_of_recv.ok()) return fail(call, MPI_ERR_NO_MEM);
        if (int e = copy(recvbuf, copy_of_recv.get(), span, rt)) return fail(call, e);
        sendbuf = copy_of_recv.get();
        sb = rb;
        sendtype = recvtype;
    }
    const Datatype &st = *datatype_get(sendtype);
    Batch b(*c);
    for (int i = 1; i < n; ++i) {  // partners in a rotating order spread the load
        const int to = (me + i) % n, from = (me - i + n) % n;
        b.recv(from, alltoall_tag, at(recvbuf, rb.displ(from), rt), rb.count(from), recvtype);
        b.send(to, alltoall_tag, at(sendbuf, sb.displ(to), st), sb.count(to), sendtype);
    }
    if (int e = copy_as(at(sendbuf, sb.displ(me), st), sb.count(me), st, at(recvbuf, rb.displ(me), rt),
                        rb.count(me), rt))
        return fail(call, e);
    return fail(call, b.finish());
}

}  // namespace

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Allgather", Traced::yes);
    return allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, regular(recvcount), recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Allgatherv", Traced::yes);
    return allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, Blocks{recvcounts, displs, 0}, recvtype,
                      comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Alltoall", Traced::yes);
    return alltoallv(call, sendbuf, regular(sendcount), sendtype, recvbuf, regular(recvcount), recvtype,
                     comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm) {
    Call call("MPI_Alltoallv", Traced::yes);
    return alltoallv(call, sendbuf, Blocks{sendcounts, sdispls, 0}, sendtype, recvbuf,
                     Blocks{recvcounts, rdispls, 0}, recvtype, comm);
}

namespace {

// Reduce_scatter(_block): reduce the whole vector to rank 0, then scatter
// its pieces (counts[r] elements to rank r).
int reduce_scatter(Call &call, MPI_Comm comm, const void *sendbuf, void *recvbuf, bool v_form,
                   const int *counts, int fixed_count, MPI_Datatype type, MPI_Op op) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    int total, displs[util::max_ranks];
    if (int e = check_reduce_scatter(call, *c, sendbuf, recvbuf, v_form, counts, fixed_count, type, op,
                                     &total, displs))
        return e;
    const Datatype &t = *datatype_get(type);
    const Blocks pieces{counts, counts ? displs : nullptr, fixed_count};
    if (c->inter)
        return fail(call, run_schedule(*c, [&](Schedule &s) {
                        build_inter_reduce_scatter(s, *c, sendbuf, recvbuf, pieces, total, type, op);
                    }));
    TempBuf all(total, t);
    if (!all.ok()) return fail(call, MPI_ERR_NO_MEM);
    int e = copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, all.get(), total, t);
    if (e == MPI_SUCCESS) e = reduce_into(*c, all.get(), total, type, op, 0);
    if (e) return fail(call, e);
    return scatterv(call, *c, all.get(), pieces, type, recvbuf, pieces.count(c->rank), type, 0);
}

}  // namespace

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm) {
    Call call("MPI_Reduce_scatter", Traced::yes);
    return reduce_scatter(call, comm, sendbuf, recvbuf, true, recvcounts, 0, datatype, op);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm) {
    Call call("MPI_Reduce_scatter_block", Traced::yes);
    return reduce_scatter(call, comm, sendbuf, recvbuf, false, nullptr, recvcount, datatype, op);
}

namespace {

// Scan and Exscan (section 5.11): the prefix travels along the ranks in
// order, each combining its own contribution on the right.
int scan(Call &call, const Comm &c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
         MPI_Op op, bool inclusive) {
    if (int e = check_reduction(call, c, sendbuf, recvbuf, count, type, op, false, 0)) return e;
    const Datatype &t = *datatype_get(type);
    TempBuf mine(count, t), prefix(count, t);
    if (!mine.ok() || !prefix.ok()) return fail(call, MPI_ERR_NO_MEM);
    int e = copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, mine.get(), count, t);
    if (e == MPI_SUCCESS && c.rank > 0) {
        e = recv(c, c.rank - 1, scan_tag, prefix.get(), count, type);
        if (e == MPI_SUCCESS && !inclusive)  // the prefix of the ranks before me
            e = copy(prefix.get(), recvbuf, count, t);
        if (e == MPI_SUCCESS)  // mine = prefix op mine
            e = reduce_local(prefix.get(), mine.get(), count, type, op);
    }
    if (e == MPI_SUCCESS && inclusive) e = copy(mine.get(), recvbuf, count, t);
    if (e == MPI_SUCCESS && c.rank + 1 < c.group.size)
        e = send(c, c.rank + 1, scan_tag, mine.get(), count, type);
    return fail(call, e);
}

}  // namespace

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    Call call("MPI_Scan", Traced::yes);
    Comm *c;
    if (int e = enter_intra(call, comm, &c)) return e;
    return scan(call, *c, sendbuf, recvbuf, count, datatype, op, true);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
    Call call("MPI_Exscan", Traced::yes);
    Comm *c;
    if (int e = enter_intra(call, comm, &c)) return e;
    return scan(call, *c, sendbuf, recvbuf, count, datatype, op, false);
}
