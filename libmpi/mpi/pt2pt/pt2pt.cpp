// Point-to-point communication (MPI 3.1 chapter 3): blocking, non-blocking
// and persistent operations in all four modes, completion, probe.
#include <mpi.h>
#include <stdlib.h>

#include "env/call.hpp"
#include "check.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "env/errors.hpp"
#include "request.hpp"
#include "env/state.hpp"
#include "common/trace.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

static_assert(util::any_source == MPI_ANY_SOURCE && util::any_tag == MPI_ANY_TAG);

namespace {

// Copies a completion's status to the caller's (unless MPI_STATUS_IGNORE),
// leaving its MPI_ERROR alone: single completions never set it (3.2.5).
void copy_status(MPI_Status *to, const MPI_Status &from) {
    if (to == MPI_STATUS_IGNORE) return;
    const int error = to->MPI_ERROR;
    *to = from;
    to->MPI_ERROR = error;
}

// The prologue of `call` on op's communicator (enter()), then the checks
// of op's arguments; raises what is wrong.
int check_op(Call &call, const P2POp &op) {
    Comm *c;
    if (int e = enter(call, op.comm, &c)) return e;
    const bool recv = op.op == Op2::recv;
    const P2PArgs args{recv ? op.rbuf : op.sbuf, op.count, op.datatype, op.peer, op.tag};
    const int size = peers(*c).size;
    const int e = recv ? check_recv(args, size) : check_send(args, size);
    if (e == MPI_SUCCESS) return MPI_SUCCESS;
    char why[96];
    TextBuilder t(why, sizeof why);
    explain_p2p(t, e, args, size, recv ? "source" : "dest");
    return call.fail(e, why);
}

// Raises the error `e` a completed request `r` of `comm` ended with.
int raise_completion(MPI_Comm comm, const char *fn, int e, const MPI_Status &st) {
    if (e != MPI_ERR_TRUNCATE) return raise_error(comm, fn, e, util::error_detail());
    char why[96];
    TextBuilder(why, sizeof why)
        .put("received ")
        .put_int(st._count)
        .put(" of ")
        .put_int(st._offered)
        .put(" bytes from rank ")
        .put_int(st.MPI_SOURCE)
        .put(", tag ")
        .put_int(st.MPI_TAG);
    return raise_error(comm, fn, e, why);
}

// Blocking operation `op` of `call`.
int blocking(Call &call, const P2POp &op, MPI_Status *status) {
    if (int e = check_op(call, op)) return e;
    MPI_Status st{};
    const int e = run(op, &st);
    copy_status(status, st);
    return e ? raise_completion(op.comm, call.name(), e, st) : MPI_SUCCESS;
}

// Non-blocking or persistent operation `op` of `call` into *request.
int nonblocking(Call &call, const P2POp &op, bool persistent, MPI_Request *request) {
    if (int e = check_op(call, op)) return e;
    if (!request) return call.fail(MPI_ERR_ARG, "request is NULL");
    if (int e = request_new(op, persistent, request)) return call.fail(e, "too many requests");
    if (persistent) return MPI_SUCCESS;
    if (int e = request_start(*request_get(*request))) {
        MPI_Request h = *request;
        request_finish(&h, MPI_STATUS_IGNORE);
        *request = MPI_REQUEST_NULL;
        return call.fail(e, util::error_detail());
    }
    return MPI_SUCCESS;
}

P2POp send_op(Op2 kind, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return P2POp{kind, buf, nullptr, count, datatype, dest, tag, comm, false};
}

P2POp recv_op(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm) {
    return P2POp{Op2::recv, nullptr, buf, count, datatype, source, tag, comm, false};
}

// ---- completion ----

// Where a completion call stands on one request handle.
enum class Slot { null, inactive, pending, complete };

// Looks at handle *h (moving requests on once when `poll`); raises
// MPI_ERR_REQUEST for an invalid handle.
int look(const char *fn, MPI_Request *h, bool poll, Slot *out) {
    if (*h == MPI_REQUEST_NULL) {
        *out = Slot::null;
        return MPI_SUCCESS;
    }
    Request *r = request_get(*h);
    if (!r) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_REQUEST, "invalid request handle");
    if (!r->active) {
        *out = Slot::inactive;
        return MPI_SUCCESS;
    }
    int e = MPI_SUCCESS;
    const bool done = poll ? request_test(*r, &e) : r->complete;
    if (e) return raise_error(r->args.comm, fn, e, util::error_detail());
    *out = done ? Slot::complete : Slot::pending;
    return MPI_SUCCESS;
}

// Finishes complete request *h into `status`; its error goes to its
// communicator's handler.
int finish(const char *fn, MPI_Request *h, MPI_Status *status) {
    const MPI_Comm comm = request_get(*h)->args.comm;
    MPI_Status st;
    const int e = request_finish(h, &st);
    copy_status(status, st);
    return e ? raise_completion(comm, fn, e, st) : MPI_SUCCESS;
}

// One pass of a multiple-completion call over requests[0..count): finishes
// the complete ones (all of them, or with `first_only` the first one) and
// records their indices. *active counts the handles still pending or
// finished in this pass (null and inactive ones do not count).
struct Pass {
    int finished;
    int active;
    int error;        ///< MPI_ERR_IN_STATUS when one finished with an error
    int first_error;  ///< the class of the first one that did
    MPI_Comm comm;    ///< and its communicator
};

int pass(const char *fn, int count, MPI_Request requests[], MPI_Status statuses[], int indices[],
         bool first_only, bool all_or_none, Pass *out) {
    *out = Pass{0, 0, MPI_SUCCESS, MPI_SUCCESS, MPI_COMM_WORLD};
    if (int e = progress_requests()) return raise_error(MPI_COMM_WORLD, fn, e, util::error_detail());
    bool all = true;
    for (int i = 0; i < count; ++i) {
        Slot s;
        if (int e = look(fn, &requests[i], false, &s)) return e;
        if (s == Slot::null || s == Slot::inactive) continue;
        ++out->active;
        // Progress was made once above, for all of them.
        if (s == Slot::pending && request_check(*request_get(requests[i]))) s = Slot::complete;
        all = all && s == Slot::complete;
    }
    if (all_or_none && !all) return MPI_SUCCESS;
    // The statuses finished in this pass and their classes: on the stack
    // for a few requests, on the heap for a wait on many.
    struct Finished {
        MPI_Status *status;
        int code;
    };
    constexpr int on_stack_max = 64;
    Finished on_stack[on_stack_max];
    Finished *done =
        count <= on_stack_max ? on_stack : static_cast<Finished *>(malloc(sizeof(Finished) * count));
    if (!done) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_NO_MEM, "no memory for the statuses");
    for (int i = 0; i < count && !(first_only && out->finished); ++i) {
        // Waitall's statuses follow the requests; the others' are packed.
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? nullptr
                         : all_or_none                   ? &statuses[i]
                                                         : &statuses[first_only ? 0 : out->finished];
        Slot s;
        look(fn, &requests[i], false, &s);
        if (s != Slot::complete) {
            if (all_or_none && st) empty_status(st);
            continue;
        }
        MPI_Status tmp;
        const MPI_Comm comm = request_get(requests[i])->args.comm;
        const int e = request_finish(&requests[i], &tmp);
        copy_status(st, tmp);
        done[out->finished] = Finished{st, e};
        if (e && !out->error) {
            out->error = MPI_ERR_IN_STATUS;
            out->first_error = e;
            out->comm = comm;
        }
        if (indices) indices[out->finished] = i;
        ++out->finished;
    }
    // With MPI_ERR_IN_STATUS, every status finished tells its class (3.7.5);
    // otherwise MPI_ERROR is left as it was.
    for (int k = 0; out->error && k < out->finished; ++k)
        if (done[k].status) done[k].status->MPI_ERROR = done[k].code;
    if (done != on_stack) free(done);
    return MPI_SUCCESS;
}

int check_array(const char *fn, int count, const void *requests) {
    if (count < 0) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_COUNT);
    if (count > 0 && !requests) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "requests is NULL");
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace lwmpi

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    Call call("MPI_Send", Traced::yes);
    return blocking(call, send_op(Op2::send, buf, count, datatype, dest, tag, comm), MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    Call call("MPI_Ssend", Traced::yes);
    return blocking(call, send_op(Op2::ssend, buf, count, datatype, dest, tag, comm), MPI_STATUS_IGNORE);
}

// A ready send is a standard one (section 3.4 allows it).
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    Call call("MPI_Rsend", Traced::yes);
    return blocking(call, send_op(Op2::rsend, buf, count, datatype, dest, tag, comm), MPI_STATUS_IGNORE);
}

// Copies into the attached buffer and returns; the message leaves in the
// background (section 3.6).
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    Call call("MPI_Bsend", Traced::yes);
    MPI_Request r;
    if (int e = nonblocking(call, send_op(Op2::bsend, buf, count, datatype, dest, tag, comm), false, &r))
        return e;
    return finish(call.name(), &r, MPI_STATUS_IGNORE);  // complete: the message is in the buffer
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
    Call call("MPI_Recv", Traced::yes);
    return blocking(call, recv_op(buf, count, datatype, source, tag, comm), status);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
    Call call("MPI_Isend", Traced::yes);
    return nonblocking(call, send_op(Op2::send, buf, count, datatype, dest, tag, comm), false, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
    Call call("MPI_Issend", Traced::yes);
    return nonblocking(call, send_op(Op2::ssend, buf, count, datatype, dest, tag, comm), false, request);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
    Call call("MPI_Ibsend", Traced::yes);
    return nonblocking(call, send_op(Op2::bsend, buf, count, datatype, dest, tag, comm), false, request);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
    Call call("MPI_Irsend", Traced::yes);
    return nonblocking(call, send_op(Op2::rsend, buf, count, datatype, dest, tag, comm), false, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
    Call call("MPI_Irecv", Traced::yes);
    return nonblocking(call, recv_op(buf, count, datatype, source, tag, comm), false, request);
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request) {
    Call call("MPI_Send_init");
    return nonblocking(call, send_op(Op2::send, buf, count, datatype, dest, tag, comm), true, request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
    Call call("MPI_Ssend_init");
    return nonblocking(call, send_op(Op2::ssend, buf, count, datatype, dest, tag, comm), true, request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
    Call call("MPI_Bsend_init");
    return nonblocking(call, send_op(Op2::bsend, buf, count, datatype, dest, tag, comm), true, request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
    Call call("MPI_Rsend_init");
    return nonblocking(call, send_op(Op2::rsend, buf, count, datatype, dest, tag, comm), true, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request) {
    Call call("MPI_Recv_init");
    return nonblocking(call, recv_op(buf, count, datatype, source, tag, comm), true, request);
}

int MPI_Start(MPI_Request *request) {
    Call call("MPI_Start", Traced::yes);
    if (int e = call.active()) return e;
    Request *r = request ? request_get(*request) : nullptr;
    if (!r || !r->persistent || r->active)
        return call.fail(MPI_ERR_REQUEST, "not an inactive persistent request");
    if (int e = request_start(*r)) return raise_error(r->args.comm, call.name(), e, util::error_detail());
    return MPI_SUCCESS;
}

int MPI_Startall(int count, MPI_Request requests[]) {
    Call call("MPI_Startall", Traced::yes);
    if (int e = call.active()) return e;
    if (int e = check_array(call.name(), count, requests)) return e;
    for (int i = 0; i < count; ++i)
        if (int e = MPI_Start(&requests[i])) return e;
    return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    Call call("MPI_Wait", Traced::yes);
    if (int e = call.active()) return e;
    if (!request) return call.fail(MPI_ERR_ARG, "request is NULL");
    for (;;) {
        Slot s;
        if (int e = look(call.name(), request, true, &s)) return e;
        if (s == Slot::null || s == Slot::inactive) {
            empty_status(status);
            return MPI_SUCCESS;
        }
        if (s == Slot::complete) return finish(call.name(), request, status);
        util::idle();
    }
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    Call call("MPI_Test", Traced::yes);
    if (int e = call.active()) return e;
    if (!request || !flag) return call.fail(MPI_ERR_ARG);
    Slot s;
    if (int e = look(call.name(), request, true, &s)) return e;
    *flag = s != Slot::pending;
    if (!*flag) util::test_failed();
    if (s == Slot::null || s == Slot::inactive) empty_status(status);
    return s == Slot::complete ? finish(call.name(), request, status) : MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    Call call("MPI_Waitall", Traced::yes);
    if (int e = call.active()) return e;
    if (int e = check_array(call.name(), count, requests)) return e;
    for (;;) {
        Pass p;
        if (int e = pass(call.name(), count, requests, statuses, nullptr, false, true, &p)) return e;
        if (p.finished == p.active) return p.error ? raise_error(p.comm, call.name(), p.error) : MPI_SUCCESS;
        util::idle();
    }
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    Call call("MPI_Testall", Traced::yes);
    if (int e = call.active()) return e;
    if (int e = check_array(call.name(), count, requests)) return e;
    if (!flag) return call.fail(MPI_ERR_ARG);
    Pass p;
    if (int e = pass(call.name(), count, requests, statuses, nullptr, false, true, &p)) return e;
    *flag = p.finished == p.active;
    if (!*flag) util::test_failed();
    return p.error ? raise_error(p.comm, call.name(), p.error) : MPI_SUCCESS;
}

// Waitany and Testany: the first complete request (section 3.7.5).
static int any(const char *fn, int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    if (int e = require_active(fn)) return e;
    if (int e = check_array(fn, count, requests)) return e;
    if (!index) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
    for (;;) {
        Pass p;
        int i = MPI_UNDEFINED;
        if (int e = pass(fn, count, requests, status, &i, true, false, &p)) return e;
        if (p.finished || p.active == 0 || flag) {
            if (flag) *flag = p.finished || p.active == 0;
            if (flag && !*flag) util::test_failed();
            *index = p.finished ? i : MPI_UNDEFINED;
            if (p.active == 0) empty_status(status);
            // One request: its own error, not MPI_ERR_IN_STATUS (3.7.5).
            return p.error ? raise_error(p.comm, fn, p.first_error) : MPI_SUCCESS;
        }
        util::idle();
    }
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    Call call("MPI_Waitany", Traced::yes);
    return any(call.name(), count, requests, index, nullptr, status);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    Call call("MPI_Testany", Traced::yes);
    if (!flag) return raise_error(MPI_COMM_WORLD, call.name(), MPI_ERR_ARG);
    return any(call.name(), count, requests, index, flag, status);
}

// Waitsome and Testsome: every complete request (section 3.7.5).
static int some(const char *fn, int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[], bool wait) {
    if (int e = require_active(fn)) return e;
    if (int e = check_array(fn, incount, requests)) return e;
    if (!outcount || (incount > 0 && !indices)) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG);
    for (;;) {
        Pass p;
        if (int e = pass(fn, incount, requests, statuses, indices, false, false, &p)) return e;
        if (p.finished || p.active == 0 || !wait) {
            if (!p.finished && p.active > 0) util::test_failed();
            *outcount = p.active == 0 ? MPI_UNDEFINED : p.finished;
            return p.error ? raise_error(p.comm, fn, p.error) : MPI_SUCCESS;
        }
        util::idle();
    }
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
    Call call("MPI_Waitsome", Traced::yes);
    return some(call.name(), incount, requests, outcount, indices, statuses, true);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
    Call call("MPI_Testsome", Traced::yes);
    return some(call.name(), incount, requests, outcount, indices, statuses, false);
}

int MPI_Request_free(MPI_Request *request) {
    Call call("MPI_Request_free");
    if (int e = call.active()) return e;
    Request *r = request ? request_get(*request) : nullptr;
    if (!r) return call.fail(MPI_ERR_REQUEST, "invalid request handle");
    const MPI_Comm comm = r->args.comm;
    *request = MPI_REQUEST_NULL;
    if (int e = request_free(*r))
        return raise_error(comm, call.name(), e, "the free function of a generalized request");
    return MPI_SUCCESS;
}

// Marks an active request for cancellation; a wait or test completes it
// (section 3.8.4).
int MPI_Cancel(MPI_Request *request) {
    Call call("MPI_Cancel");
    if (int e = call.active()) return e;
    Request *r = request ? request_get(*request) : nullptr;
    if (!r || !r->active) return call.fail(MPI_ERR_REQUEST, "not an active request");
    if (int e = request_cancel(*r))
        return raise_error(r->args.comm, call.name(), e,
                           r->kind == RequestKind::generalized
                               ? "the cancel function of a generalized request"
                               : util::error_detail());
    return MPI_SUCCESS;
}

// MPI_Test without finishing the request (section 3.7.3).
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
    Call call("MPI_Request_get_status");
    if (int e = call.active()) return e;
    if (!flag) return call.fail(MPI_ERR_ARG, "flag is NULL");
    MPI_Request h = request;
    Slot s;
    if (int e = look(call.name(), &h, true, &s)) return e;
    *flag = s != Slot::pending;
    if (s == Slot::pending) util::test_failed();
    if (s == Slot::null || s == Slot::inactive) empty_status(status);
    if (s != Slot::complete) return MPI_SUCCESS;
    Request &r = *request_get(request);
    MPI_Status st = r.status;
    int e = r.error;
    if (r.kind == RequestKind::generalized) e = generalized_query(r, &st);
    copy_status(status, st);
    return e ? raise_completion(r.args.comm, call.name(), e, st) : MPI_SUCCESS;
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag) {
    Call call("MPI_Status_set_cancelled");
    if (!status) return call.fail(MPI_ERR_ARG);
    status->_cancelled = flag != 0;
    return MPI_SUCCESS;
}

// Takes the oldest message matching (world rank `world`, tag) on `c` off
// the matching into a new LibMPI request, not started, which *message
// names (section 3.8.2); *found false (and nothing taken) when none has
// arrived.
static int match_message(const Comm &c, MPI_Comm comm, int world, int tag, util::Status *st,
                         MPI_Message *message, bool *found) {
    *found = false;
    // The request first: a message once taken must find its handle.
    MPI_Request h;
    if (int e = request_new(recv_op(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, comm), false, &h)) return e;
    Request &r = *request_get(h);
    int taken = -1;
    const int e = util::mprobe(world, tag, c.context, st, &taken);
    if (e || taken < 0) {
        request_drop(r);
        return e;
    }
    r.util_req = taken;
    r.matched = true;
    r.args.peer = group_rank_of(peers(c), st->source);
    r.args.tag = st->tag;
    *message = make_handle(HandleKind::message, handle_index(h));
    *found = true;
    return MPI_SUCCESS;
}

// Probe and Iprobe (section 3.8.1), and with `message` Mprobe and Improbe
// (3.8.2): blocking when flag is null.
static int probe(const char *fn, int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status) {
    Comm *c;
    if (int e = enter_comm(fn, comm, &c)) return e;
    if (int e = check_source(source, peers(*c).size)) return raise_error(comm, fn, e);
    if (int e = check_recv_tag(tag)) return raise_error(comm, fn, e);
    if (source == MPI_PROC_NULL) {
        if (flag) *flag = 1;
        if (message) *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    const int world = source == MPI_ANY_SOURCE ? util::any_source : peers(*c).world[source];
    for (;;) {
        if (int e = progress_requests()) return raise_error(comm, fn, e, util::error_detail());
        util::Status st;
        bool found = false;
        if (!message)
            found = util::probe(world, tag, c->context, &st);
        else if (int e = match_message(*c, comm, world, tag, &st, message, &found))
            return raise_error(comm, fn, e, e == MPI_ERR_NO_MEM ? "too many requests" : util::error_detail());
        if (found && status != MPI_STATUS_IGNORE) {
            status->MPI_SOURCE = group_rank_of(peers(*c), st.source);
            status->MPI_TAG = st.tag;
            status->_count = static_cast<long long>(st.bytes);
            status->_cancelled = 0;
        }
        if (flag) {
            *flag = found;
            if (!found) util::test_failed();
            return MPI_SUCCESS;
        }
        if (found) return MPI_SUCCESS;
        util::idle();
    }
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
    Call call("MPI_Probe", Traced::yes);
    return probe(call.name(), source, tag, comm, nullptr, nullptr, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
    Call call("MPI_Iprobe", Traced::yes);
    if (!flag) return raise_error(comm, call.name(), MPI_ERR_ARG);
    return probe(call.name(), source, tag, comm, flag, nullptr, status);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) {
    Call call("MPI_Mprobe", Traced::yes);
    if (!message) return raise_error(comm, call.name(), MPI_ERR_ARG, "message is NULL");
    return probe(call.name(), source, tag, comm, nullptr, message, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) {
    Call call("MPI_Improbe", Traced::yes);
    if (!flag || !message) return raise_error(comm, call.name(), MPI_ERR_ARG);
    return probe(call.name(), source, tag, comm, flag, message, status);
}

// Starts the receive of matched message *message (MPI_Mrecv and
// MPI_Imrecv) into *request; *message becomes MPI_MESSAGE_NULL. Errors go
// to the message's communicator.
static int start_matched(Call &call, void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                         MPI_Request *request) {
    if (!message) return call.fail(MPI_ERR_ARG, "message is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {  // a receive from MPI_PROC_NULL
        const int e = nonblocking(
            call, recv_op(buf, count, datatype, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_SELF), false, request);
        if (e == MPI_SUCCESS) *message = MPI_MESSAGE_NULL;
        return e;
    }
    const MPI_Request h = make_handle(HandleKind::request, handle_index(*message));
    Request *r = handle_is(*message, HandleKind::message) ? request_get(h) : nullptr;
    if (!r || !r->matched) return call.fail(MPI_ERR_ARG, "not a matched message (MPI_Mprobe, MPI_Improbe)");
    if (int e = check_op(call, recv_op(buf, count, datatype, MPI_ANY_SOURCE, MPI_ANY_TAG, r->args.comm)))
        return e;
    datatype_release(r->args.datatype);
    r->args.rbuf = buf;
    r->args.count = count;
    r->args.datatype = datatype;
    r->type = datatype_hold(datatype);
    if (int e = request_start(*r)) return call.fail(e, util::error_detail());
    *message = MPI_MESSAGE_NULL;
    *request = h;
    return MPI_SUCCESS;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) {
    Call call("MPI_Imrecv", Traced::yes);
    if (!request) return call.fail(MPI_ERR_ARG, "request is NULL");
    return start_matched(call, buf, count, datatype, message, request);
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) {
    Call call("MPI_Mrecv", Traced::yes);
    MPI_Request h;
    if (int e = start_matched(call, buf, count, datatype, message, &h)) return e;
    if (int e = request_wait(*request_get(h))) return call.fail(e, util::error_detail());
    return finish(call.name(), &h, status);
}

namespace lwmpi {
namespace {

// MPI_Sendrecv and MPI_Sendrecv_replace (`call`): the receive is posted
// first, so the peers may call it in either order.
int sendrecv(Call &call, const P2POp &send, const P2POp &recv, MPI_Status *status) {
    // Everything is checked and taken before anything starts.
    if (int e = check_op(call, send)) return e;
    if (int e = check_op(call, recv)) return e;
    MPI_Request reqs[2];
    if (request_new(recv, false, &reqs[0]) != MPI_SUCCESS)
        return call.fail(MPI_ERR_NO_MEM, "too many requests");
    if (request_new(send, false, &reqs[1]) != MPI_SUCCESS) {
        request_drop(*request_get(reqs[0]));
        return call.fail(MPI_ERR_NO_MEM, "too many requests");
    }
    int e = request_start(*request_get(reqs[0]));
    if (e == MPI_SUCCESS) e = request_start(*request_get(reqs[1]));
    for (int i = 0; i < 2 && e == MPI_SUCCESS; ++i)
        e = request_wait(*request_get(reqs[i]));
    if (e) {  // (a receive left posted would swallow a later message)
        for (MPI_Request h : reqs)
            request_drop(*request_get(h));
        return call.fail(e, util::error_detail());
    }
    e = finish(call.name(), &reqs[0], status);
    const int e2 = finish(call.name(), &reqs[1], MPI_STATUS_IGNORE);
    return e ? e : e2;
}

}  // namespace
}  // namespace lwmpi

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status) {
    Call call("MPI_Sendrecv", Traced::yes);
    return sendrecv(call, send_op(Op2::send, sendbuf, sendcount, sendtype, dest, sendtag, comm),
                    recv_op(recvbuf, recvcount, recvtype, source, recvtag, comm), status);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status) {
    Call call("MPI_Sendrecv_replace", Traced::yes);
    const P2POp recv = recv_op(buf, count, datatype, source, recvtag, comm);
    if (int e = check_op(call, recv)) return e;
    // The message to send leaves from a packed copy; the receive lands in buf.
    const Datatype *t = datatype_get(datatype);
    const uint64_t bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(t->size);
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy) return call.fail(MPI_ERR_NO_MEM);
    pack(buf, count, *t, copy);
    const int e = sendrecv(
        call, send_op(Op2::send, copy, static_cast<int>(bytes), MPI_BYTE, dest, sendtag, comm), recv, status);
    free(copy);
    return e;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    Call call("MPI_Get_count");
    if (!status || !count) return call.fail(MPI_ERR_ARG);
    const Datatype *t = datatype_get(datatype);
    if (!t) return call.fail(MPI_ERR_TYPE);
    const long long bytes = status->_count;
    if (t->size == 0) {
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *count = bytes % t->size == 0 && bytes / t->size <= 0x7fffffff ? static_cast<int>(bytes / t->size)
                                                                   : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
    Call call("MPI_Get_elements_x");
    if (!status || !count) return call.fail(MPI_ERR_ARG);
    const Datatype *t = datatype_get(datatype);
    if (!t) return call.fail(MPI_ERR_TYPE);
    const int64_t n = count_basic(*t, static_cast<uint64_t>(status->_count));
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    Call call("MPI_Get_elements");
    MPI_Count n = 0;
    if (int e = MPI_Get_elements_x(status, datatype, &n)) return e;
    if (!count) return call.fail(MPI_ERR_ARG);
    *count = n > 0x7fffffff ? MPI_UNDEFINED : static_cast<int>(n);
    return MPI_SUCCESS;
}

// Sets status so that it holds `count` basic elements of `datatype`
// (section 12.3): the bytes they take, received in full.
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) {
    Call call("MPI_Status_set_elements_x");
    if (!status) return call.fail(MPI_ERR_ARG, "status is NULL");
    const Datatype *t = datatype_get(datatype);
    if (!t) return call.fail(MPI_ERR_TYPE);
    const int64_t bytes = count < 0 ? -1 : bytes_of_basic(*t, count);
    if (bytes < 0) {
        char why[64];
        TextBuilder(why, sizeof why).put("count ").put_int(count);
        return call.fail(MPI_ERR_COUNT, why);
    }
    status->_count = bytes;
    status->_offered = bytes;
    return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count) {
    return MPI_Status_set_elements_x(status, datatype, count);
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag) {
    Call call("MPI_Test_cancelled");
    if (!status || !flag) return call.fail(MPI_ERR_ARG);
    *flag = status->_cancelled;
    return MPI_SUCCESS;
}
