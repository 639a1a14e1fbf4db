// Blocking point-to-point communication (MPI 3.1 chapter 3).
#include <mpi.h>

#include "check.hpp"
#include "errors.hpp"
#include "comm.hpp"
#include "datatype.hpp"
#include "handles.hpp"
#include "protocol.hpp"
#include "state.hpp"
#include "../mpiutil/mpiutil.hpp"
#include "../mpiutil/text.hpp"

namespace lwmpi {

static_assert(util::kAnySource == MPI_ANY_SOURCE && util::kAnyTag == MPI_ANY_TAG);

namespace {

// Raises the failed argument check `code` of `a`, with the bad value.
int raise_arg_error(MPI_Comm comm, const char *fn, int code, const P2PArgs &a, int size,
                    const char *peer) {
    char why[96];
    TextBuilder t(why, sizeof why);
    explain_p2p(t, code, a, size, peer);
    return raise_error(comm, fn, code, why);
}

// MPI_Send and MPI_Ssend: every send is synchronous in this version.
int send(const char *fn, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
         MPI_Comm comm) {
    Comm *c;
    if (int e = enter_comm(fn, comm, &c))
        return e;
    const int size = c->group.size;
    const P2PArgs args{buf, count, datatype, dest, tag};
    if (int e = check_send(args, size))
        return raise_arg_error(comm, fn, e, args, size, "dest");
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    const uint64_t bytes = static_cast<uint64_t>(count) * datatype_get(datatype)->size;
    if (int e = util::send(choose_protocol(bytes), c->group.world[dest], tag, c->context, buf, bytes))
        return raise_error(comm, fn, e, util::error_detail());
    return MPI_SUCCESS;
}

void set_status(MPI_Status *status, int source, int tag, uint64_t bytes) {
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = source;
    status->MPI_TAG = tag;
    status->_cancelled = 0;
    status->_count = static_cast<long long>(bytes);
    // MPI_ERROR is left alone by single-completion calls (section 3.2.5).
}

// Raises MPI_ERR_TRUNCATE for receive `r` from rank `source` of the
// communicator, with the sizes.
int raise_truncate(MPI_Comm comm, const char *fn, const util::RecvResult &r, int source) {
    char why[96];
    TextBuilder(why, sizeof why)
        .put("received ").put_int(static_cast<long long>(r.bytes))
        .put(" of ").put_int(static_cast<long long>(r.offered))
        .put(" bytes from rank ").put_int(source).put(", tag ").put_int(r.tag);
    return raise_error(comm, fn, MPI_ERR_TRUNCATE, why);
}

}  // namespace

}  // namespace lwmpi

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return lwmpi::send("MPI_Send", buf, count, datatype, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return lwmpi::send("MPI_Ssend", buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Recv";
    Comm *c;
    if (int e = enter_comm(fn, comm, &c))
        return e;
    const int size = c->group.size;
    const P2PArgs args{buf, count, datatype, source, tag};
    if (int e = check_recv(args, size))
        return raise_arg_error(comm, fn, e, args, size, "source");
    if (source == MPI_PROC_NULL) {  // section 3.11
        set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    const uint64_t capacity = static_cast<uint64_t>(count) * datatype_get(datatype)->size;
    const int from = source == MPI_ANY_SOURCE ? util::kAnySource : c->group.world[source];
    util::RecvResult r;
    if (int e = util::recv(from, tag, c->context, buf, capacity, &r))
        return raise_error(comm, fn, e, util::error_detail());
    set_status(status, group_rank_of(c->group, r.source), r.tag, r.bytes);
    if (r.offered > r.bytes)
        return raise_truncate(comm, fn, r, group_rank_of(c->group, r.source));
    return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    using namespace lwmpi;
    static constexpr char fn[] = "MPI_Get_count";
    if (!status || !count)
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
    const Datatype *t = datatype_get(datatype);
    if (!t)
        return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_TYPE);
    const long long bytes = status->_count;
    *count = bytes % t->size == 0 && bytes / t->size <= 0x7fffffff ? static_cast<int>(bytes / t->size)
                                                                 : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
