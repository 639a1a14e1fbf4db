// The collective algorithms as schedules. The shapes are those of the
// blocking collectives (coll.cpp): two-level trees over the clusters
// (Layout), rank order for non-commutative operations, direct exchanges
// for the per-rank blocks. Where the blocking code waits for one message
// after another, a schedule puts independent messages in one round.
#include "coll_sched.hpp"

#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"

namespace lwmpi {

namespace {

// Binomial broadcast over ranks list[0..m) from list[0]; I am list[me].
void tree_bcast(Schedule &s, const int *list, int m, int me, void *buf, int count, MPI_Datatype type) {
    int mask = 1;
    for (; mask < m; mask <<= 1)
        if (me & mask) {
            s.recv(list[me - mask], buf, count, type);
            s.round();
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)  // to every child at once
        if (me + mask < m) s.send(list[me + mask], buf, count, type);
    s.round();
}

// Binomial reduction over ranks list[0..m) into list[0]'s `acc`; I am
// list[me]. `tmp` holds one incoming contribution. With op == MPI_OP_NULL
// nothing is combined (a fan-in).
void tree_reduce(Schedule &s, const int *list, int m, int me, void *acc, void *tmp, int count,
                 MPI_Datatype type, MPI_Op op) {
    for (int mask = 1; mask < m; mask <<= 1) {
        if (me & mask) {
            s.send(list[me - mask], acc, count, type);
            s.round();
            return;
        }
        if (me + mask < m) {
            s.recv(list[me + mask], tmp, count, type);
            if (op != MPI_OP_NULL) s.reduce(tmp, acc, count, type, op);
            s.round();
        }
    }
}

// Empty messages from every rank of list[0..m) to list[0] (in) or back
// (out), at once; I am list[me].
void flat_signal(Schedule &s, const int *list, int m, int me, char *none, bool in) {
    if (me != 0) {
        if (in)
            s.send(list[0], none, 0, MPI_BYTE);
        else
            s.recv(list[0], none, 0, MPI_BYTE);
    }
    for (int i = 1; me == 0 && i < m; ++i) {
        if (in)
            s.recv(list[i], none, 0, MPI_BYTE);
        else
            s.send(list[i], none, 0, MPI_BYTE);
    }
    s.round();
}

}  // namespace

void build_barrier(Schedule &s, const Comm &c) {
    Layout l;
    make_layout(c, 0, &l);
    char *none = static_cast<char *>(s.temp(1, MPI_BYTE));
    flat_signal(s, l.locals, l.nlocals, l.my_local_index, none, true);
    // The dissemination among the leaders (coll.cpp says why).
    const int m = l.nleaders, me = l.my_leader_index;
    for (int k = 1; me >= 0 && k < m; k <<= 1) {
        s.send(l.leaders[(me + k) % m], none, 0, MPI_BYTE);
        s.recv(l.leaders[(me - k + m) % m], none, 0, MPI_BYTE);
        s.round();
    }
    flat_signal(s, l.locals, l.nlocals, l.my_local_index, none, false);
}

void build_bcast(Schedule &s, const Comm &c, void *buf, int count, MPI_Datatype type, int root) {
    Layout l;
    make_layout(c, root, &l);
    if (l.my_leader_index >= 0) tree_bcast(s, l.leaders, l.nleaders, l.my_leader_index, buf, count, type);
    tree_bcast(s, l.locals, l.nlocals, l.my_local_index, buf, count, type);
}

void build_reduce_into(Schedule &s, const Comm &c, void *acc, int count, MPI_Datatype type, MPI_Op op,
                       int root) {
    void *tmp = s.temp(count, type);
    if (op_commutative(op)) {
        Layout l;
        make_layout(c, root, &l);
        tree_reduce(s, l.locals, l.nlocals, l.my_local_index, acc, tmp, count, type, op);
        if (l.my_leader_index >= 0)
            tree_reduce(s, l.leaders, l.nleaders, l.my_leader_index, acc, tmp, count, type, op);
        return;
    }
    // In rank order: acc(root) = x0 op (x1 op (... op x(n-1))).
    const int n = c.group.size;
    if (c.rank != root) {
        s.send(root, acc, count, type);
        s.round();
        return;
    }
    void *mine = s.temp(count, type);
    s.copy(acc, count, type, mine, count, type);
    s.round();
    for (int r = n - 1; r >= 0; --r) {
        void *x = r == c.rank ? mine : tmp;
        if (r != c.rank) s.recv(r, x, count, type);
        if (r == n - 1)
            s.copy(x, count, type, acc, count, type);
        else
            s.reduce(x, acc, count, type, op);
        s.round();
    }
}

void build_reduce(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype type, MPI_Op op, int root) {
    void *acc = c.rank == root ? recvbuf : s.temp(count, type);
    if (sendbuf != MPI_IN_PLACE) s.copy(sendbuf, count, type, acc, count, type);
    s.round();
    build_reduce_into(s, c, acc, count, type, op, root);
}

void build_allreduce(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype type, MPI_Op op) {
    if (sendbuf != MPI_IN_PLACE) s.copy(sendbuf, count, type, recvbuf, count, type);
    s.round();
    build_reduce_into(s, c, recvbuf, count, type, op, 0);
    build_bcast(s, c, recvbuf, count, type, 0);
}

void build_gatherv(Schedule &s, const Comm &c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const Blocks &rb, MPI_Datatype recvtype, int root) {
    if (c.rank != root) {
        s.send(root, sendbuf, sendcount, sendtype);
        s.round();
        return;
    }
    for (int r = 0; r < c.group.size; ++r) {
        char *block = rb.at(recvbuf, r, recvtype);
        if (r != root)
            s.recv(r, block, rb.count(r), recvtype);
        else if (sendbuf != MPI_IN_PLACE)
            s.copy(sendbuf, sendcount, sendtype, block, rb.count(r), recvtype);
    }
    s.round();
}

void build_scatterv(Schedule &s, const Comm &c, const void *sendbuf, const Blocks &sb, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
    if (c.rank != root) {
        s.recv(root, recvbuf, recvcount, recvtype);
        s.round();
        return;
    }
    for (int r = 0; r < c.group.size; ++r) {
        const char *block = sb.at(sendbuf, r, sendtype);
        if (r != root)
            s.send(r, block, sb.count(r), sendtype);
        else if (recvbuf != MPI_IN_PLACE)
            s.copy(block, sb.count(r), sendtype, recvbuf, recvcount, recvtype);
    }
    s.round();
}

void build_allgatherv(Schedule &s, const Comm &c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const Blocks &rb, MPI_Datatype recvtype) {
    if (sendbuf == MPI_IN_PLACE && c.rank != 0) {  // my block is in recvbuf already
        sendbuf = rb.at(recvbuf, c.rank, recvtype);
        sendcount = rb.count(c.rank);
        sendtype = recvtype;
    }
    build_gatherv(s, c, sendbuf, sendcount, sendtype, recvbuf, rb, recvtype, 0);
    if (!rb.counts) {  // the blocks are one array
        build_bcast(s, c, recvbuf, rb.fixed * c.group.size, recvtype, 0);
        return;
    }
    for (int r = 0; r < c.group.size; ++r)
        build_bcast(s, c, rb.at(recvbuf, r, recvtype), rb.count(r), recvtype, 0);
}

void build_alltoallw(Schedule &s, const Comm &c, const void *sendbuf, const Blocks &sb, MPI_Datatype sendtype,
                     void *recvbuf, const Blocks &rb, MPI_Datatype recvtype) {
    const int n = c.group.size, me = c.rank;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const auto bytes = [&](int r) { return rb.count(r) * datatype_get(rb.type(r, recvtype))->size; };
    // In place: what is sent is a packed copy of each block as it was.
    void *aside[util::max_ranks];
    for (int r = 0; in_place && r < n; ++r) {
        if (r == me) continue;
        aside[r] = s.temp(bytes(r), MPI_BYTE);
        s.copy(rb.at(recvbuf, r, recvtype), rb.count(r), rb.type(r, recvtype), aside[r], bytes(r), MPI_BYTE);
    }
    s.round();
    for (int i = 1; i < n; ++i) {  // partners in a rotating order spread the load
        const int to = (me + i) % n, from = (me - i + n) % n;
        s.recv(from, rb.at(recvbuf, from, recvtype), rb.count(from), rb.type(from, recvtype));
        if (in_place)
            s.send(to, aside[to], bytes(to), MPI_BYTE);
        else
            s.send(to, sb.at(sendbuf, to, sendtype), sb.count(to), sb.type(to, sendtype));
    }
    if (!in_place)
        s.copy(sb.at(sendbuf, me, sendtype), sb.count(me), sb.type(me, sendtype),
               rb.at(recvbuf, me, recvtype), rb.count(me), rb.type(me, recvtype));
    s.round();
}

void build_reduce_scatter(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf,
                          const Blocks &pieces, int total, MPI_Datatype type, MPI_Op op) {
    void *all = s.temp(total, type);
    s.copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, total, type, all, total, type);
    s.round();
    build_reduce_into(s, c, all, total, type, op, 0);
    build_scatterv(s, c, all, pieces, type, recvbuf, pieces.count(c.rank), type, 0);
}

void build_scan(Schedule &s, const Comm &c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                MPI_Op op, bool inclusive) {
    void *mine = s.temp(count, type);
    s.copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type, mine, count, type);
    s.round();
    if (c.rank > 0) {
        void *prefix = s.temp(count, type);
        s.recv(c.rank - 1, prefix, count, type);
        if (!inclusive) s.copy(prefix, count, type, recvbuf, count, type);  // the ranks before me
        s.reduce(prefix, mine, count, type, op);                            // mine = prefix op mine
        s.round();
    }
    if (inclusive) s.copy(mine, count, type, recvbuf, count, type);
    if (c.rank + 1 < c.group.size) s.send(c.rank + 1, mine, count, type);
    s.round();
}

}  // namespace lwmpi
