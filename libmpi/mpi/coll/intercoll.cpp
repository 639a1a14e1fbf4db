// Blocking collectives on intercommunicators (MPI 3.1 sections 5.2.2 and
// 5.3-5.10). The data of one group goes to the other. What stays inside
// a group (reducing its contributions, spreading what its leader
// received) runs as a collective on the group's local intracommunicator,
// with that collective's own algorithm; what crosses between the groups
// is point-to-point on the intercommunicator's collective context.
// Gather, Scatter, Allgather and Alltoall move each block straight from
// its sender to its receiver, as on an intracommunicator.
#include "intercoll.hpp"

#include "coll_common.hpp"
#include "coll_parts.hpp"
#include "datatype/datatype.hpp"

namespace lwmpi {

namespace {

// Tags of the messages between the groups (the collective context is the
// intercommunicator's own; calls on it come in the same order everywhere).
enum Tag : int { bcast_tag = 1, reduce_tag, gather_tag, scatter_tag, all_tag };

// The two leaders (rank 0 of each group) swap `count` elements: mine from
// `out`, theirs into `in`.
int leaders_swap(const Comm &c, const void *out, void *in, int count, MPI_Datatype t) {
    if (c.rank != 0) return MPI_SUCCESS;
    Batch b(c);
    b.recv(0, all_tag, in, count, t);
    b.send(0, all_tag, out, count, t);
    return b.finish();
}

// The reduction of my group's `sendbuf` into `acc` at my group's rank 0.
int reduce_in_group(const Comm &c, const void *sendbuf, void *acc, int count, MPI_Datatype t, MPI_Op op) {
    return MPI_Reduce(sendbuf, acc, count, t, op, 0, c.local);
}

}  // namespace

int inter_barrier(const Comm &c) {
    char none = 0;
    if (int e = MPI_Barrier(c.local)) return e;
    if (int e = leaders_swap(c, &none, &none, 0, MPI_BYTE)) return e;
    return MPI_Barrier(c.local);
}

int inter_bcast(const Comm &c, void *buf, int count, MPI_Datatype t, int root) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    if (root == MPI_ROOT) return send(c, 0, bcast_tag, buf, count, t);
    if (c.rank == 0)
        if (int e = recv(c, root, bcast_tag, buf, count, t)) return e;
    return MPI_Bcast(buf, count, t, 0, c.local);
}

int inter_reduce(const Comm &c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
                 int root) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    if (root == MPI_ROOT) return recv(c, 0, reduce_tag, recvbuf, count, t);
    TempBuf acc(count, *datatype_get(t));
    if (!acc.ok()) return MPI_ERR_NO_MEM;
    if (int e = reduce_in_group(c, sendbuf, acc.get(), count, t, op)) return e;
    return c.rank == 0 ? send(c, root, reduce_tag, acc.get(), count, t) : MPI_SUCCESS;
}

int inter_allreduce(const Comm &c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op) {
    TempBuf acc(count, *datatype_get(t));
    if (!acc.ok()) return MPI_ERR_NO_MEM;
    if (int e = reduce_in_group(c, sendbuf, acc.get(), count, t, op)) return e;
    if (int e = leaders_swap(c, acc.get(), recvbuf, count, t)) return e;
    return MPI_Bcast(recvbuf, count, t, 0, c.local);
}

int inter_gatherv(const Comm &c, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const Blocks &rb, MPI_Datatype recvtype, int root) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    if (root != MPI_ROOT) return send(c, root, gather_tag, sendbuf, sendcount, sendtype);
    Batch b(c);
    for (int r = 0; r < c.remote.size; ++r)
        b.recv(r, gather_tag, rb.at(recvbuf, r, recvtype), rb.count(r), recvtype);
    return b.finish();
}

int inter_scatterv(const Comm &c, const void *sendbuf, const Blocks &sb, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    if (root != MPI_ROOT) return recv(c, root, scatter_tag, recvbuf, recvcount, recvtype);
    Batch b(c);
    for (int r = 0; r < c.remote.size; ++r)
        b.send(r, scatter_tag, sb.at(sendbuf, r, sendtype), sb.count(r), sendtype);
    return b.finish();
}

int inter_exchange(const Comm &c, const void *sendbuf, const Blocks *sb, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const Blocks &rb, MPI_Datatype recvtype) {
    Batch b(c);
    for (int r = 0; r < c.remote.size; ++r) {
        b.recv(r, all_tag, rb.at(recvbuf, r, recvtype), rb.count(r), rb.type(r, recvtype));
        if (sb)
            b.send(r, all_tag, sb->at(sendbuf, r, sendtype), sb->count(r), sb->type(r, sendtype));
        else
            b.send(r, all_tag, sendbuf, sendcount, sendtype);
    }
    return b.finish();
}

int inter_reduce_scatter(const Comm &c, const void *sendbuf, void *recvbuf, const Blocks &pieces, int total,
                         MPI_Datatype t, MPI_Op op) {
    const Datatype &type = *datatype_get(t);
    TempBuf mine(total, type), theirs(total, type);
    if (!mine.ok() || !theirs.ok()) return MPI_ERR_NO_MEM;
    if (int e = reduce_in_group(c, sendbuf, mine.get(), total, t, op)) return e;
    if (int e = leaders_swap(c, mine.get(), theirs.get(), total, t)) return e;
    int counts[util::max_ranks], displs[util::max_ranks];
    for (int r = 0; r < c.group.size; ++r) {
        counts[r] = pieces.count(r);
        displs[r] = static_cast<int>(pieces.displ(r));
    }
    return MPI_Scatterv(theirs.get(), counts, displs, t, recvbuf, pieces.count(c.rank), t, 0, c.local);
}

}  // namespace lwmpi
