// Collectives on intercommunicators (MPI 3.1 sections 5.2.2 and
// 5.3-5.10) as schedules. The data of one group goes to the other. What
// stays inside a group (reducing its contributions, spreading what its
// leader received) is the intracommunicator schedule of that collective
// (coll_sched.hpp) on the group's local intracommunicator; what crosses
// between the groups is point-to-point on the intercommunicator's
// collective context. Gather, Scatter, Allgather and Alltoall move each
// block straight from its sender to its receiver, as on an
// intracommunicator. Both kinds of messages carry the schedule's tag, so
// several collectives may be outstanding on one intercommunicator.
#include "intercoll.hpp"

#include "coll_sched.hpp"

namespace lwmpi {

void build_leaders_swap(Schedule &s, const Comm &c, const void *out, void *in, int count, MPI_Datatype t) {
    if (c.rank == 0) {
        s.recv(0, in, count, t);
        s.send(0, out, count, t);
    }
    s.round();
}

void build_inter_barrier(Schedule &s, const Comm &c) {
    // My group in at my leader, the leaders meet, my leader lets my group
    // out: the other leader came only once its own group was in.
    char *none = static_cast<char *>(s.temp(1, MPI_BYTE));
    in_group(s, c, [&](const Comm &local) { build_barrier(s, local); });
    build_leaders_swap(s, c, none, none, 0, MPI_BYTE);
    in_group(s, c, [&](const Comm &local) { build_bcast(s, local, none, 0, MPI_BYTE, 0); });
}

void build_inter_bcast(Schedule &s, const Comm &c, void *buf, int count, MPI_Datatype t, int root) {
    if (root == MPI_PROC_NULL) return;
    if (root == MPI_ROOT) {
        s.send(0, buf, count, t);
        return;
    }
    if (c.rank == 0) s.recv(root, buf, count, t);
    in_group(s, c, [&](const Comm &local) { build_bcast(s, local, buf, count, t, 0); });
}

void build_inter_reduce(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype t, MPI_Op op, int root) {
    if (root == MPI_PROC_NULL) return;
    if (root == MPI_ROOT) {
        s.recv(0, recvbuf, count, t);
        return;
    }
    void *acc = c.rank == 0 ? s.temp(count, t) : nullptr;
    in_group(s, c, [&](const Comm &local) { build_reduce(s, local, sendbuf, acc, count, t, op, 0); });
    if (c.rank == 0) s.send(root, acc, count, t);
}

void build_inter_allreduce(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype t, MPI_Op op) {
    void *acc = c.rank == 0 ? s.temp(count, t) : nullptr;
    in_group(s, c, [&](const Comm &local) { build_reduce(s, local, sendbuf, acc, count, t, op, 0); });
    build_leaders_swap(s, c, acc, recvbuf, count, t);
    in_group(s, c, [&](const Comm &local) { build_bcast(s, local, recvbuf, count, t, 0); });
}

void build_inter_gatherv(Schedule &s, const Comm &c, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const Blocks &rb, MPI_Datatype recvtype,
                         int root) {
    if (root == MPI_PROC_NULL) return;
    if (root != MPI_ROOT) {
        s.send(root, sendbuf, sendcount, sendtype);
        return;
    }
    for (int r = 0; r < c.remote.size; ++r)
        s.recv(r, rb.at(recvbuf, r, recvtype), rb.count(r), recvtype);
}

void build_inter_scatterv(Schedule &s, const Comm &c, const void *sendbuf, const Blocks &sb,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int root) {
    if (root == MPI_PROC_NULL) return;
    if (root != MPI_ROOT) {
        s.recv(root, recvbuf, recvcount, recvtype);
        return;
    }
    for (int r = 0; r < c.remote.size; ++r)
        s.send(r, sb.at(sendbuf, r, sendtype), sb.count(r), sendtype);
}

void build_inter_exchange(Schedule &s, const Comm &c, const void *sendbuf, const Blocks *sb, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, const Blocks &rb, MPI_Datatype recvtype) {
    for (int r = 0; r < c.remote.size; ++r) {
        s.recv(r, rb.at(recvbuf, r, recvtype), rb.count(r), rb.type(r, recvtype));
        if (sb)
            s.send(r, sb->at(sendbuf, r, sendtype), sb->count(r), sb->type(r, sendtype));
        else
            s.send(r, sendbuf, sendcount, sendtype);
    }
}

void build_inter_reduce_scatter(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf,
                                const Blocks &pieces, int total, MPI_Datatype t, MPI_Op op) {
    void *mine = c.rank == 0 ? s.temp(total, t) : nullptr;
    void *theirs = c.rank == 0 ? s.temp(total, t) : nullptr;
    in_group(s, c, [&](const Comm &local) { build_reduce(s, local, sendbuf, mine, total, t, op, 0); });
    build_leaders_swap(s, c, mine, theirs, total, t);
    in_group(s, c, [&](const Comm &local) {
        build_scatterv(s, local, theirs, pieces, t, recvbuf, pieces.count(c.rank), t, 0);
    });
}

}  // namespace lwmpi
