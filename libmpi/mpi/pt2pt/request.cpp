// LibMPI requests over MPIUtil's engine.
#include "request.hpp"

#include <stdlib.h>

#include "bsend.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "common/handles.hpp"
#include "protocol.hpp"
#include <lwmpi/pool.hpp>
#include <lwmpi/rank_local.hpp>

namespace lwmpi {

namespace {

struct Requests {
    util::SlabPool<Request, util::request_slab, util::max_requests> table;
    /// Requests freed while their operation runs (reap() looks for them).
    int freed_running;
    Background *running;  ///< the rank's running background work, a list
};
thread_local util::RankLocal<Requests> t_requests;

void free_packed(Request &r) {
    if (!r.packed) return;
    if (bsend_owns(r.packed))
        bsend_release(r.packed);
    else
        free(r.packed);
    r.packed = nullptr;
}

// The MPIUtil request of `r` has completed: fill the status, unpack.
void settle(Request &r, const util::Status &st) {
    const P2POp &a = r.args;
    r.error = st.error;
    if (st.cancelled) {
        empty_status(&r.status);
        r.status._cancelled = 1;
    } else if (a.op == Op2::recv) {
        r.status.MPI_SOURCE = group_rank_of(peers(*r.comm), st.source);
        r.status.MPI_TAG = st.tag;
        r.status._count = static_cast<long long>(st.bytes);
        r.status._offered = static_cast<long long>(st.offered);
        if (r.packed && st.error == MPI_SUCCESS) unpack(r.packed, st.bytes, a.rbuf, a.count, *r.type);
        if (st.error == MPI_SUCCESS && st.offered > st.bytes) r.error = MPI_ERR_TRUNCATE;
    }
    free_packed(r);
    util::release(r.util_req);
    r.util_req = -1;
    r.complete = true;
}

// Frees requests that MPI_Request_free (or MPI_Bsend) gave up once their
// operation is over.
void reap() {
    Requests &q = t_requests.get();
    for (int i = 1; q.freed_running > 0 && i < q.table.size(); ++i) {
        Request &r = q.table[i];
        if (r.in_use && r.freed && request_check(r)) request_drop(r);
    }
}

// A buffered send is complete for its caller once the message is in the
// attached buffer (MPI 3.1 section 3.6), but its request keeps the
// operation until the caller is done with it, so that MPI_Cancel can
// still take the message back. Then its carrier, a freed request of its
// own, takes the operation over and frees the block once it has left.
void hand_over(Request &r) {
    if (r.carrier == MPI_REQUEST_NULL) return;
    Request &bg = *request_get(r.carrier);
    r.carrier = MPI_REQUEST_NULL;
    // Its message has left already (or a cancel's answer came): nothing
    // to hand over, and its block is free for the next buffered send now.
    util::Status st;
    if (r.util_req >= 0 && util::done(r.util_req, &st)) settle(r, st);
    if (r.util_req < 0) {
        request_drop(bg);
        return;
    }
    bg.active = true;
    bg.util_req = r.util_req;
    request_free_later(bg);
    bg.packed = r.packed;
    r.util_req = -1;
    r.packed = nullptr;
}

// The table entry of handle `h` in use, freed or not, or nullptr.
Request *entry_of(MPI_Request h) {
    auto &table = t_requests.get().table;
    const int i = table_index(h, HandleKind::request, 1, table.size());
    return i < 0 || !table[i].in_use ? nullptr : &table[i];
}

// Runs the free function of generalized request `r` and drops it.
int generalized_free(Request &r) {
    const int e = r.greq.free ? r.greq.free(r.greq.extra_state) : MPI_SUCCESS;
    request_drop(r);
    return e;
}

}  // namespace

int progress_requests() {
    if (int e = util::progress()) return e;
    for (Background *b = t_requests.get().running; b;) {
        Background *next = b->next;  // (b may leave)
        b->move_on(*b);
        b = next;
    }
    reap();
    return MPI_SUCCESS;
}

void empty_status(MPI_Status *status) {
    if (status == MPI_STATUS_IGNORE) return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->_count = 0;
    status->_offered = 0;
    status->_cancelled = 0;
}

void proc_null_status(MPI_Status *status) {
    if (status == MPI_STATUS_IGNORE) return;
    const int error = status->MPI_ERROR;
    empty_status(status);
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_ERROR = error;
}

Request *request_get(MPI_Request h) {
    Request *r = entry_of(h);
    return r && !r->freed ? r : nullptr;
}

Request *generalized_get(MPI_Request h) {
    Request *r = entry_of(h);
    return r && r->kind == RequestKind::generalized ? r : nullptr;
}

int request_new(const P2POp &op, bool persistent, MPI_Request *out) {
    // Index 0 is the null handle's.
    auto &table = t_requests.get().table;
    const int i = table.find_free(1, [](const Request &r) { return !r.in_use; });
    if (i < 0) return MPI_ERR_NO_MEM;
    Request &r = table[i];
    r = Request{};
    r.in_use = true;
    r.persistent = persistent;
    r.args = op;
    r.type = datatype_hold(op.datatype);
    r.comm = comm_get(op.comm);  // checked by the caller
    comm_hold(*r.comm);
    r.util_req = -1;
    r.carrier = MPI_REQUEST_NULL;
    *out = make_handle(HandleKind::request, i);
    return MPI_SUCCESS;
}

void background_join(Background &b) {
    Background *&head = t_requests.get().running;
    b.next = head;
    head = &b;
}

void background_leave(Background &b) {
    Background **p = &t_requests.get().running;
    while (*p && *p != &b)
        p = &(*p)->next;
    if (*p) *p = b.next;
}

int request_new_background(Comm &c, Background &work, MPI_Request *out) {
    auto &table = t_requests.get().table;
    const int i = table.find_free(1, [](const Request &r) { return !r.in_use; });
    if (i < 0) {
        work.release(work);
        return MPI_ERR_NO_MEM;
    }
    Request &r = table[i];
    r = Request{};
    r.kind = RequestKind::background;
    r.in_use = true;
    r.active = true;
    r.args.comm = c.handle;
    r.args.datatype = MPI_BYTE;  // (predefined: nothing held)
    r.comm = &c;
    comm_hold(c);
    r.util_req = -1;
    r.work = &work;
    *out = make_handle(HandleKind::request, i);
    return MPI_SUCCESS;
}

bool request_running(const Request &r) {
    return r.active && !r.complete && (r.util_req >= 0 || r.kind == RequestKind::background);
}

void request_free_later(Request &r) {
    r.freed = true;
    ++t_requests.get().freed_running;
}

int request_new_generalized(const Generalized &g, MPI_Request *out) {
    const P2POp none{Op2::recv,     nullptr, nullptr,        0,    MPI_DATATYPE_NULL,
                     MPI_PROC_NULL, 0,       MPI_COMM_WORLD, false};
    if (int e = request_new(none, false, out)) return e;
    Request &r = *request_get(*out);
    r.kind = RequestKind::generalized;
    r.greq = g;
    r.active = true;
    return MPI_SUCCESS;
}

int request_new_done(MPI_Comm comm, MPI_Request *out) {
    const P2POp none{Op2::recv, nullptr, nullptr, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, comm, false};
    if (int e = request_new(none, false, out)) return e;
    Request &r = *request_get(*out);
    r.active = true;
    r.complete = true;
    empty_status(&r.status);
    return MPI_SUCCESS;
}

int generalized_complete(Request &r) {
    r.complete = true;
    return r.freed ? generalized_free(r) : MPI_SUCCESS;
}

int generalized_query(Request &r, MPI_Status *status) {
    // query_fn gets a status of its own when the caller ignores it.
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    empty_status(st);
    return r.greq.query ? r.greq.query(r.greq.extra_state, st) : MPI_SUCCESS;
}

int request_free(Request &r) {
    if (r.kind == RequestKind::generalized) {
        if (r.complete) return generalized_free(r);
        request_free_later(r);
        return MPI_SUCCESS;
    }
    if (request_running(r))
        request_free_later(r);
    else
        request_drop(r);
    return MPI_SUCCESS;
}

int request_cancel(Request &r) {
    if (r.kind == RequestKind::generalized)
        return r.greq.cancel ? r.greq.cancel(r.greq.extra_state, r.complete) : MPI_SUCCESS;
    if (r.util_req < 0) return MPI_SUCCESS;  // over: nothing left to take back
    if (int e = util::cancel(r.util_req)) return e;
    r.complete = false;  // (a buffered send held complete: request_check waits for the answer)
    return MPI_SUCCESS;
}

void request_drop(Request &r) {
    hand_over(r);
    if (r.freed) --t_requests.get().freed_running;
    r.freed = false;
    if (r.kind == RequestKind::background) r.work->release(*r.work);
    r.work = nullptr;
    datatype_release(r.args.datatype);
    comm_release(*r.comm);
    r.in_use = false;
}

int request_start(Request &r) {
    const P2POp &a = r.args;
    r.active = true;
    r.complete = false;
    r.error = MPI_SUCCESS;
    r.status = MPI_Status{};
    if (a.peer == MPI_PROC_NULL) {  // section 3.11: completes at once
        proc_null_status(&r.status);
        r.complete = true;
        return MPI_SUCCESS;
    }
    const Comm &c = *r.comm;
    const Datatype &t = *r.type;
    const uint32_t context = c.context + (a.collective ? 1 : 0);
    const uint64_t bytes = static_cast<uint64_t>(a.count) * static_cast<uint64_t>(t.size);
    const bool is_send = a.op != Op2::recv;
    // The carrier of a buffered send is taken first, so that a full table
    // fails the call before anything starts.
    MPI_Request carrier = MPI_REQUEST_NULL;
    int e = a.op == Op2::bsend ? request_new(a, false, &carrier) : MPI_SUCCESS;
    // A contiguous message moves from or into the user's buffer itself.
    void *data = const_cast<char *>(static_cast<const char *>(is_send ? a.sbuf : a.rbuf)) + t.true_lb;
    if (e == MPI_SUCCESS && a.op == Op2::bsend) {
        e = bsend_reserve(bytes, &r.packed);
    } else if (e == MPI_SUCCESS && !t.contiguous && bytes > 0) {
        r.packed = malloc(bytes);
        e = r.packed ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    if (e == MPI_SUCCESS && r.packed) {
        if (is_send) pack(a.sbuf, a.count, t, r.packed);
        data = r.packed;
    }
    if (e == MPI_SUCCESS && is_send) {
        const int dst = peers(c).world[a.peer];
        bool local = false;
        e = util::same_cluster(dst, &local);
        if (e == MPI_SUCCESS) {
            const auto mode = a.op == Op2::ssend ? util::SendMode::synchronous : util::SendMode::standard;
            e = util::isend(choose_protocol(bytes, local, util::limits()), mode, dst, a.tag, context, data,
                            bytes, &r.util_req);
        }
    } else if (e == MPI_SUCCESS) {
        const int src = a.peer == MPI_ANY_SOURCE ? util::any_source : peers(c).world[a.peer];
        e = r.matched ? util::mrecv(r.util_req, data, bytes)
                      : util::irecv(src, a.tag, context, data, bytes, &r.util_req);
        r.matched = false;
    }
    if (e) {
        free_packed(r);
        r.util_req = -1;
        r.active = false;
        if (carrier != MPI_REQUEST_NULL) request_drop(*request_get(carrier));
        return e;
    }
    r.carrier = carrier;
    r.complete = carrier != MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

void request_table_release() {
    Requests &q = t_requests.get();
    q.table.release();
    q.freed_running = 0;
}

int drain_requests() {
    for (;;) {
        if (int e = progress_requests()) return e;
        bool left = false;
        const auto &table = t_requests.get().table;
        // (A freed generalized request waits for its program, which is
        // done calling MPI: nothing here would complete it.)
        for (int i = 1; i < table.size() && !left; ++i)
            left = table[i].in_use && table[i].freed && table[i].kind == RequestKind::p2p;
        if (!left) return MPI_SUCCESS;
        util::idle();
    }
}

bool request_check(Request &r) {
    if (r.complete) return true;
    if (r.kind == RequestKind::background) {
        // Moving the work on starts its next messages, no progress pass.
        if (!r.work->move_on(*r.work)) return false;
        empty_status(&r.status);
        r.error = r.work->result(*r.work);
        r.complete = true;
        return true;
    }
    util::Status st;
    if (r.util_req < 0 || !util::done(r.util_req, &st)) return false;
    settle(r, st);
    return true;
}

bool request_test(Request &r, int *error) {
    // A request that completed when it started (an eager or a copied local
    // send) needs no progress pass: each one is a kernel call.
    *error = MPI_SUCCESS;
    if (request_check(r)) return true;
    *error = progress_requests();
    return *error == MPI_SUCCESS && request_check(r);
}

int request_wait(Request &r) {
    for (int e; !request_test(r, &e); util::idle())
        if (e) return e;
    return MPI_SUCCESS;
}

int request_finish(MPI_Request *h, MPI_Status *status) {
    Request &r = *request_get(*h);
    if (r.kind == RequestKind::generalized) {
        // query_fn's error first, then free_fn's (section 12.2).
        MPI_Status st;
        int e = generalized_query(r, &st);
        if (status != MPI_STATUS_IGNORE) *status = st;
        const int e2 = generalized_free(r);
        *h = MPI_REQUEST_NULL;
        return e ? e : e2;
    }
    if (status != MPI_STATUS_IGNORE) *status = r.status;  // (MPI_ERROR: the caller decides)
    const int error = r.error;
    hand_over(r);
    r.active = false;
    r.complete = false;
    if (!r.persistent) {
        request_drop(r);
        *h = MPI_REQUEST_NULL;
    }
    return error;
}

int run(const P2POp &op, MPI_Status *status) {
    MPI_Request h;
    if (int e = request_new(op, false, &h)) return e;
    Request &r = *request_get(h);
    int e = request_start(r);
    if (e == MPI_SUCCESS) e = request_wait(r);
    if (e) {
        request_drop(r);
        return e;
    }
    return request_finish(&h, status);
}

}  // namespace lwmpi
