#include "check.hpp"

#include "datatype/datatype.hpp"
#include "common/handles.hpp"
#include <lwmpi/text.hpp>

namespace lwmpi {

int check_count(int count) { return count >= 0 ? MPI_SUCCESS : MPI_ERR_COUNT; }

int check_buffer(const void *buf, int count, MPI_Datatype datatype) {
    if (buf || count == 0) return MPI_SUCCESS;
    const Datatype *t = datatype_get(datatype);
    return t && !t->predefined ? MPI_SUCCESS : MPI_ERR_BUFFER;
}

int check_dest(int dest, int size) {
    return dest == MPI_PROC_NULL || (dest >= 0 && dest < size) ? MPI_SUCCESS : MPI_ERR_RANK;
}

int check_source(int source, int size) {
    return source == MPI_ANY_SOURCE ? MPI_SUCCESS : check_dest(source, size);
}

int check_send_tag(int tag) { return tag >= 0 && tag <= LWMPI_TAG_UB ? MPI_SUCCESS : MPI_ERR_TAG; }

int check_recv_tag(int tag) { return tag == MPI_ANY_TAG ? MPI_SUCCESS : check_send_tag(tag); }

namespace {
int check_common(const P2PArgs &a) {
    if (int e = check_count(a.count)) return e;
    // Nothing moves between MPI_PROC_NULL and an empty buffer: programs
    // pass MPI_DATATYPE_NULL there (MPICH's recvnull), which LWMPI takes.
    if (a.count == 0 && a.peer == MPI_PROC_NULL && a.datatype == MPI_DATATYPE_NULL) return MPI_SUCCESS;
    if (int e = check_datatype(a.datatype)) return e;
    return check_buffer(a.buf, a.count, a.datatype);
}
}  // namespace

int check_send(const P2PArgs &a, int comm_size) {
    if (int e = check_common(a)) return e;
    if (int e = check_dest(a.peer, comm_size)) return e;
    return check_send_tag(a.tag);
}

int check_recv(const P2PArgs &a, int comm_size) {
    if (int e = check_common(a)) return e;
    if (int e = check_source(a.peer, comm_size)) return e;
    return check_recv_tag(a.tag);
}

void explain_p2p(TextBuilder &t, int code, const P2PArgs &a, int comm_size, const char *peer) {
    switch (code) {
    case MPI_ERR_COUNT: t.put("count ").put_int(a.count); break;
    case MPI_ERR_BUFFER: t.put("NULL buffer for count ").put_int(a.count); break;
    case MPI_ERR_RANK:
        t.put(peer).put(' ').put_int(a.peer).put("; the communicator has ").put_int(comm_size);
        t.put(comm_size == 1 ? " rank" : " ranks");
        break;
    case MPI_ERR_TAG: t.put("tag ").put_int(a.tag).put("; tags are 0..").put_int(LWMPI_TAG_UB); break;
    default: break;
    }
}

}  // namespace lwmpi
