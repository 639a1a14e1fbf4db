// What the blocking and the non-blocking collectives share.
#include "coll_common.hpp"

#include <stdlib.h>

#include "pt2pt/check.hpp"
#include "env/errors.hpp"
#include "datatype/op.hpp"
#include <lwmpi/text.hpp>

namespace lwmpi {

char *Blocks::at(const void *buf, int r, MPI_Datatype type) const {
    char *base = const_cast<char *>(static_cast<const char *>(buf));
    if (types) return base + (displs ? displs[r] : 0);
    return base + displ(r) * datatype_get(type)->extent;
}

MPI_Aint Blocks::span(int n) const {
    MPI_Aint end = 0;
    for (int r = 0; r < n; ++r)
        end = displ(r) + count(r) > end ? displ(r) + count(r) : end;
    return end;
}

void make_layout(const Comm &c, int root, Layout *l) {
    const int n = c.group.size;
    const auto cluster = [&](int r) { return util::cluster_of(c.group.world[r]); };
    const int mine = cluster(c.rank);
    l->nleaders = l->nlocals = 0;
    l->my_leader_index = l->my_local_index = -1;
    // Leaders: root, then the lowest rank of each other cluster.
    l->leaders[l->nleaders++] = root;
    for (int r = 0; r < n; ++r) {
        bool seen = cluster(r) == cluster(root);
        for (int i = 1; i < l->nleaders && !seen; ++i)
            seen = cluster(l->leaders[i]) == cluster(r);
        if (!seen) l->leaders[l->nleaders++] = r;
    }
    int leader = -1;
    for (int i = 0; i < l->nleaders; ++i) {
        if (cluster(l->leaders[i]) == mine) leader = l->leaders[i];
        if (l->leaders[i] == c.rank) l->my_leader_index = i;
    }
    l->locals[l->nlocals++] = leader;
    for (int r = 0; r < n; ++r)
        if (r != leader && cluster(r) == mine) l->locals[l->nlocals++] = r;
    for (int i = 0; i < l->nlocals; ++i)
        if (l->locals[i] == c.rank) l->my_local_index = i;
}

int check(const Call &call, int e, const char *what, long long value) {
    if (e == MPI_SUCCESS) return MPI_SUCCESS;
    char why[64];
    TextBuilder(why, sizeof why).put(what).put(' ').put_int(value);
    return call.fail(e, why);
}

int check_root(const Call &call, const Comm &c, int root) {
    const bool ok =
        (root >= 0 && root < peers(c).size) || (c.inter && (root == MPI_ROOT || root == MPI_PROC_NULL));
    return check(call, ok ? MPI_SUCCESS : MPI_ERR_ROOT, "root", root);
}

int check_not_in_place(const Call &call, const Comm &c, const void *buf) {
    if (!c.inter || buf != MPI_IN_PLACE) return MPI_SUCCESS;
    return call.fail(MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator");
}

int check_buf(const Call &call, const void *buf, int count, MPI_Datatype type) {
    if (int e = check(call, check_count(count), "count", count)) return e;
    if (int e = check_datatype(type)) return call.fail(e);
    return check(call, check_buffer(buf, count, type), "NULL buffer for count", count);
}

int check_reduce(const Call &call, const void *buf, int count, MPI_Datatype type, MPI_Op op) {
    if (int e = check_buf(call, buf, count, type)) return e;
    if (int e = check_op(op, type)) return call.fail(e, e == MPI_ERR_OP ? explain_op_error(op) : nullptr);
    return MPI_SUCCESS;
}

int check_blocks(const Call &call, const Comm &c, const void *buf, const Blocks &b, MPI_Datatype type) {
    if (!b.counts) return check_buf(call, buf, b.fixed, type);
    if (!b.displs) return call.fail(MPI_ERR_ARG, "counts or displacements are NULL");
    for (int r = 0; r < peers(c).size; ++r)
        if (int e = check_buf(call, buf, b.counts[r], b.type(r, type))) return e;
    return MPI_SUCCESS;
}

int fail(const Call &call, int e) { return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS; }

int check_reduction(const Call &call, const Comm &c, const void *sendbuf, const void *recvbuf, int count,
                    MPI_Datatype type, MPI_Op op, bool rooted, int root) {
    if (rooted)
        if (int e = check_root(call, c, root)) return e;
    if (c.inter) {  // one group sends, the other receives (section 5.2.2)
        const bool sends = !rooted || (root != MPI_ROOT && root != MPI_PROC_NULL);
        if (sends) {
            if (int e = check_not_in_place(call, c, sendbuf)) return e;
            if (int e = check_reduce(call, sendbuf, count, type, op)) return e;
        }
        return !rooted || root == MPI_ROOT ? check_buf(call, recvbuf, count, type) : MPI_SUCCESS;
    }
    const bool receives = !rooted || c.rank == root;
    const bool in_place = receives && sendbuf == MPI_IN_PLACE;
    if (int e = check_reduce(call, in_place ? recvbuf : sendbuf, count, type, op)) return e;
    return receives ? check_buf(call, recvbuf, count, type) : MPI_SUCCESS;
}

int check_rooted(const Call &call, const Comm &c, const void *one, int count, MPI_Datatype type,
                 const void *many, const Blocks &blocks, MPI_Datatype blocks_type, int root) {
    if (int e = check_root(call, c, root)) return e;
    if (c.inter) {  // the root has the blocks, the other group a buffer each
        if (root == MPI_PROC_NULL) return MPI_SUCCESS;
        return root == MPI_ROOT ? check_blocks(call, c, many, blocks, blocks_type)
                                : check_buf(call, one, count, type);
    }
    if (!(c.rank == root && one == MPI_IN_PLACE))
        if (int e = check_buf(call, one, count, type)) return e;
    if (c.rank == root)
        if (int e = check_blocks(call, c, many, blocks, blocks_type)) return e;
    return MPI_SUCCESS;
}

int check_all(const Call &call, const Comm &c, const void *sendbuf, int sendcount, const Blocks *sb,
              MPI_Datatype sendtype, const void *recvbuf, const Blocks &rb, MPI_Datatype recvtype) {
    if (int e = check_not_in_place(call, c, sendbuf)) return e;
    if (sendbuf != MPI_IN_PLACE) {
        const int e = sb ? check_blocks(call, c, sendbuf, *sb, sendtype)
                         : check_buf(call, sendbuf, sendcount, sendtype);
        if (e) return e;
    }
    return check_blocks(call, c, recvbuf, rb, recvtype);
}

int check_reduce_scatter(const Call &call, const Comm &c, const void *sendbuf, const void *recvbuf,
                         bool v_form, const int *counts, int fixed, MPI_Datatype type, MPI_Op op, int *total,
                         int *displs) {
    const int n = c.group.size;
    if (v_form && !counts) return call.fail(MPI_ERR_ARG, "recvcounts is NULL");
    if (counts) {
        for (int r = 0; r < n; ++r)
            if (int e = check(call, check_count(counts[r]), "count", counts[r])) return e;
    } else if (int e = check(call, check_count(fixed), "count", fixed)) {
        return e;
    }
    *total = 0;
    for (int r = 0; r < n; ++r) {
        if (counts) displs[r] = *total;
        *total += counts ? counts[r] : fixed;
    }
    if (int e = check_not_in_place(call, c, sendbuf)) return e;
    if (int e = check_reduce(call, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, *total, type, op)) return e;
    return check_buf(call, recvbuf, counts ? counts[c.rank] : fixed, type);
}

}  // namespace lwmpi
