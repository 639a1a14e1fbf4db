// Neighbourhood collectives (MPI 3.1 section 7.6): each rank receives one
// block from each of its sources and sends one block to each of its
// destinations (topo.hpp's neighbour lists), over point-to-point messages
// on the communicator's collective context. Every receive and send is in
// flight at once: a rank may wait on a neighbour that waits on another
// one, and no bound on the window would be free of deadlock for every
// graph.
#include <mpi.h>

#include <stdint.h>
#include <stdlib.h>

#include "env/call.hpp"
#include "pt2pt/batch.hpp"
#include "pt2pt/check.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "env/errors.hpp"
#include "env/state.hpp"
#include "comm/topo.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// Tags of the neighbourhood collectives, above those of coll.cpp: base +
// neighbor_send_tag() / neighbor_recv_tag().
constexpr int neighbor_tag = 64;

// The blocks of one side (send or receive) of a neighbourhood collective:
// block i is count(i) elements of type(i) at at(i).
struct Blocks {
    enum Form : uint8_t {
        plain,   ///< `fixed` elements of `fixed_type` each, back to back
        whole,   ///< one block, the whole buffer, for every neighbour (allgather's send side)
        vector,  ///< counts[i] elements at displs[i] elements from buf
        w,       ///< counts[i] elements of types[i] at bytes[i] bytes from buf
    };
    Form form;
    char *buf;
    int fixed;
    MPI_Datatype fixed_type;
    const int *counts;
    const int *displs;
    const MPI_Aint *bytes;
    const MPI_Datatype *types;

    int count(int i) const { return form == plain || form == whole ? fixed : counts[i]; }
    MPI_Datatype type(int i) const { return form == w ? types[i] : fixed_type; }
    char *at(int i) const {
        switch (form) {
        case whole: return buf;
        case w: return buf + bytes[i];
        case vector: return buf + displs[i] * datatype_get(fixed_type)->extent;
        case plain: break;
        }
        return buf + static_cast<MPI_Aint>(i) * fixed * datatype_get(fixed_type)->extent;
    }
};

char *mutable_buf(const void *buf) { return static_cast<char *>(const_cast<void *>(buf)); }

Blocks fixed_blocks(Blocks::Form form, const void *buf, int count, MPI_Datatype type) {
    return Blocks{form, mutable_buf(buf), count, type, nullptr, nullptr, nullptr, nullptr};
}

Blocks vector_blocks(const void *buf, const int counts[], const int displs[], MPI_Datatype type) {
    return Blocks{Blocks::vector, mutable_buf(buf), 0, type, counts, displs, nullptr, nullptr};
}

Blocks w_blocks(const void *buf, const int counts[], const MPI_Aint displs[], const MPI_Datatype types[]) {
    return Blocks{Blocks::w, mutable_buf(buf), 0, MPI_DATATYPE_NULL, counts, nullptr, displs, types};
}

// Raises `code` for the call with "<what> (<side>)" as the detail.
int raise_side(const Call &call, int code, const char *what, const char *side) {
    char why[64];
    TextBuilder(why, sizeof why).put(what).put(" (").put(side).put(')');
    return call.fail(code, why);
}

// Checks the `n` blocks of b (one when b.form is whole): no MPI_IN_PLACE
// and the arrays they need (MPI_ERR_ARG), each count (MPI_ERR_COUNT),
// datatype (MPI_ERR_TYPE) and buffer (MPI_ERR_BUFFER; not in the w-form,
// whose displacements may be addresses from MPI_BOTTOM).
int check_blocks(const Call &call, const char *side, const Blocks &b, int n) {
    if (b.buf == MPI_IN_PLACE) return raise_side(call, MPI_ERR_ARG, "MPI_IN_PLACE", side);
    if (b.form == Blocks::whole) n = 1;
    const bool arrays = b.form == Blocks::vector ? b.counts && b.displs
                        : b.form == Blocks::w    ? b.counts && b.bytes && b.types
                                                 : true;
    if (n > 0 && !arrays) return raise_side(call, MPI_ERR_ARG, "NULL counts, displacements or types", side);
    for (int i = 0; i < n; ++i) {
        if (check_count(b.count(i))) return raise_side(call, MPI_ERR_COUNT, "negative count", side);
        if (int e = check_datatype(b.type(i))) return raise_side(call, e, "bad datatype", side);
        if (b.form != Blocks::w && check_buffer(b.buf, b.count(i), b.type(i)))
            return raise_side(call, MPI_ERR_BUFFER, "NULL buffer", side);
    }
    return MPI_SUCCESS;
}

// Neighbourhood collective `call` on comm: the checks, then every
// block received from its source and sent to its destination.
int neighbor_exchange(Call &call, MPI_Comm comm, const Blocks &send, const Blocks &recv) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    const Topology &t = c->topo;
    if (t.kind == TopoKind::none) return call.fail(MPI_ERR_TOPOLOGY, "the communicator has no topology");
    int in, out;
    neighbor_counts(t, c->rank, &in, &out);
    if (int e = check_blocks(call, "send", send, out)) return e;
    if (int e = check_blocks(call, "receive", recv, in)) return e;
    int *sources = static_cast<int *>(malloc(sizeof(int) * static_cast<size_t>(in + out + 1)));
    if (!sources) return call.fail(MPI_ERR_NO_MEM, "no memory for the neighbour lists");
    int *destinations = sources + in;
    neighbor_lists(t, c->rank, sources, destinations);
    int e;
    {
        Batch b(*c, in + out);
        // Receives first, so that a message finds its receive posted.
        for (int i = 0; i < in; ++i)
            if (sources[i] != MPI_PROC_NULL)
                b.recv(sources[i], neighbor_tag + neighbor_recv_tag(t, i), recv.at(i), recv.count(i),
                       recv.type(i));
        for (int j = 0; j < out; ++j)
            if (destinations[j] != MPI_PROC_NULL)
                b.send(destinations[j], neighbor_tag + neighbor_send_tag(t, j), send.at(j), send.count(j),
                       send.type(j));
        e = b.finish();
    }
    free(sources);
    return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS;
}

}  // namespace

}  // namespace lwmpi

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Neighbor_allgather");
    return neighbor_exchange(call, comm, fixed_blocks(Blocks::whole, sendbuf, sendcount, sendtype),
                             fixed_blocks(Blocks::plain, recvbuf, recvcount, recvtype));
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                            MPI_Comm comm) {
    Call call("MPI_Neighbor_allgatherv");
    return neighbor_exchange(call, comm, fixed_blocks(Blocks::whole, sendbuf, sendcount, sendtype),
                             vector_blocks(recvbuf, recvcounts, displs, recvtype));
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Neighbor_alltoall");
    return neighbor_exchange(call, comm, fixed_blocks(Blocks::plain, sendbuf, sendcount, sendtype),
                             fixed_blocks(Blocks::plain, recvbuf, recvcount, recvtype));
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm) {
    Call call("MPI_Neighbor_alltoallv");
    return neighbor_exchange(call, comm, vector_blocks(sendbuf, sendcounts, sdispls, sendtype),
                             vector_blocks(recvbuf, recvcounts, rdispls, recvtype));
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    Call call("MPI_Neighbor_alltoallw");
    return neighbor_exchange(call, comm, w_blocks(sendbuf, sendcounts, sdispls, sendtypes),
                             w_blocks(recvbuf, recvcounts, rdispls, recvtypes));
}
