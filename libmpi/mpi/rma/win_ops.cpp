// One-sided communication calls (MPI 3.1 section 11.3): put, get and the
// accumulates, on the target's memory through MPIUtil's transport.
//
// The target datatype is laid out at the origin: its type map, element
// after element, gives contiguous (displacement, length) segments of the
// target's memory, each one transfer; the origin's data is packed (put)
// or unpacked (get) in type-map order alongside. An accumulate is done by
// the origin while it holds the target's accumulate lock: it reads the
// target's segments into an image of the target layout, applies the
// operation there with LibMPI's reduction code, writes the segments back
// and releases the lock once they have landed. No MPI operation or
// datatype code runs in the kernel.
#include <stdlib.h>
#include <string.h>

#include "env/call.hpp"
#include "pt2pt/check.hpp"
#include "datatype/datatype.hpp"
#include "env/errors.hpp"
#include "common/handles.hpp"
#include "datatype/op.hpp"
#include "win.hpp"

using namespace lwmpi;

namespace lwmpi {

namespace {

// Calls f(disp, len) on the data segments of `count` elements of `t`, in
// type-map order, adjacent ones joined; stops at f's error.
template <class F>
int for_each_segment(int count, const Datatype &t, F f) {
    // One segment, without a walk over every element.
    if (t.contiguous) return count > 0 && t.size > 0 ? f(t.true_lb, count * t.size) : MPI_SUCCESS;
    MPI_Aint at = 0, len = 0;
    if (int e = for_each_piece(t, count, [&](MPI_Aint d, MPI_Aint n) {
            if (n == 0) return MPI_SUCCESS;
            if (len > 0 && d == at + len) {
                len += n;
                return MPI_SUCCESS;
            }
            const int flushed = len > 0 ? f(at, len) : MPI_SUCCESS;
            at = d;
            len = n;
            return flushed;
        }))
        return e;
    return len > 0 ? f(at, len) : MPI_SUCCESS;
}

// The origin side of an operation: a buffer of `count` elements of `type`.
struct Side {
    const void *buf;
    int count;
    MPI_Datatype type;
    const Datatype *t;
    int64_t bytes() const { return count * t->size; }
};

// The target side: its rank, its datatype, where the data starts.
struct Target {
    int rank;  ///< MPI_PROC_NULL: nothing to do
    MPI_Aint disp;
    int count;
    MPI_Datatype type;
    const Datatype *t;
    uint64_t addr;    ///< base + disp * disp_unit (dynamic: disp), in the target's address space
    MPI_Aint lo, hi;  ///< span of its segments, from addr
};

int check_side(const Side &s) {
    if (int e = check_count(s.count)) return e;
    if (int e = check_datatype(s.type)) return e;
    return check_buffer(s.buf, s.count, s.type);
}

// Checks the target's arguments and the epoch; fills t.
int check_target(Win &w, Target &t, const char **why) {
    if (int e = check_count(t.count)) return e;
    if (int e = check_datatype(t.type)) return e;
    if (t.rank != MPI_PROC_NULL && (t.rank < 0 || t.rank >= w.size)) return MPI_ERR_RANK;
    const bool dynamic = w.flavor == MPI_WIN_FLAVOR_DYNAMIC;
    if (t.disp < 0 && !dynamic) return MPI_ERR_DISP;
    t.t = datatype_get(t.type);
    if (t.rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (int e = access_allowed(w, t.rank)) {
        *why = "no access epoch to the target is open";
        return e;
    }
    const WinPeer &p = w.peers[t.rank];
    const MPI_Aint offset = dynamic ? 0 : t.disp * p.disp_unit;
    t.addr = (dynamic ? static_cast<uint64_t>(t.disp) : p.base) + static_cast<uint64_t>(dynamic ? 0 : offset);
    t.lo = t.hi = 0;
    bool first = true;
    for_each_segment(t.count, *t.t, [&](MPI_Aint d, MPI_Aint n) {
        t.lo = first || d < t.lo ? d : t.lo;
        t.hi = first || d + n > t.hi ? d + n : t.hi;
        first = false;
        return MPI_SUCCESS;
    });
    // (A dynamic window's memory is known to its kernel only.)
    if (!dynamic && t.hi > t.lo && (offset + t.lo < 0 || offset + t.hi > static_cast<MPI_Aint>(p.size))) {
        *why = "past the end of the target's window";
        return MPI_ERR_RMA_RANGE;
    }
    return MPI_SUCCESS;
}

// How the window's memory is reached: a dynamic window's through the
// kernel, which knows what is attached; a shared one's directly (it is
// not exposed); any other's directly within a cluster.
util::Path path(const Win &w) {
    return w.flavor == MPI_WIN_FLAVOR_DYNAMIC  ? util::Path::kernel
           : w.flavor == MPI_WIN_FLAVOR_SHARED ? util::Path::memory
                                               : util::Path::any;
}

// Moves `n` bytes between buf and the target segments of t: put (to the
// target) or get. buf holds them in type-map order.
int move(Win &w, const Target &t, bool put, char *buf) {
    const util::RmaPeer &p = w.peers[t.rank].at;
    MPI_Aint off = 0;
    return for_each_segment(t.count, *t.t, [&](MPI_Aint d, MPI_Aint n) {
        const uint64_t at = t.addr + static_cast<uint64_t>(d);
        const size_t len = static_cast<size_t>(n);
        const int e = put ? util::rma_put(p, at, buf + off, len, path(w))
                          : util::rma_get(p, at, buf + off, len, path(w));
        off += n;
        return e;
    });
}

// Moves the target image `img` (the target layout, from t.lo) to or from
// the target's segments.
int move_image(Win &w, const Target &t, bool put, char *img) {
    const util::RmaPeer &p = w.peers[t.rank].at;
    return for_each_segment(t.count, *t.t, [&](MPI_Aint d, MPI_Aint n) {
        const uint64_t at = t.addr + static_cast<uint64_t>(d);
        char *mine = img + (d - t.lo);
        const size_t len = static_cast<size_t>(n);
        return put ? util::rma_put(p, at, mine, len, path(w)) : util::rma_get(p, at, mine, len, path(w));
    });
}

// MPI_Put and MPI_Get's work once checked.
int put_get(Win &w, const Side &o, const Target &t, bool put) {
    if (t.rank == MPI_PROC_NULL || o.bytes() == 0) return MPI_SUCCESS;
    char *data = const_cast<char *>(static_cast<const char *>(o.buf)) + o.t->true_lb;
    char *packed = nullptr;
    if (!o.t->contiguous) {
        packed = static_cast<char *>(malloc(static_cast<size_t>(o.bytes())));
        if (!packed) return MPI_ERR_NO_MEM;
        if (put) pack(o.buf, o.count, *o.t, packed);
        data = packed;
    }
    const int e = move(w, t, put, data);
    if (e == MPI_SUCCESS && packed && !put)
        unpack(packed, static_cast<uint64_t>(o.bytes()), const_cast<void *>(o.buf), o.count, *o.t);
    free(packed);
    if (put) w.dirty.add(t.rank);
    return e;
}

bool predefined_op(MPI_Op op) {
    return handle_is(op, HandleKind::op) && handle_index(op) >= 1 &&
           handle_index(op) <= handle_index(MPI_NO_OP);
}

// The accumulate family's checks of op and the datatypes (section
// 11.3.4): a predefined op (or MPI_REPLACE, MPI_NO_OP) on a target type
// made of one predefined type, which the origin's and the result's share.
// An access of no data at the target (a count of 0, a type of size 0)
// moves nothing, whatever its types: only the op is checked.
int check_accumulate(MPI_Op op, const Side *o, const Side *r, const Target &t, const char **why) {
    if (!predefined_op(op)) {
        *why = "accumulates take predefined operations only";
        return MPI_ERR_OP;
    }
    if (static_cast<int64_t>(t.count) * t.t->size == 0) return MPI_SUCCESS;
    const MPI_Datatype basic = t.t->basic;
    if (basic == MPI_DATATYPE_NULL || (o && o->t->basic != basic && o->bytes()) ||
        (r && r->t->basic != basic && r->bytes())) {
        *why = "the datatypes must be made of one and the same predefined type";
        return MPI_ERR_TYPE;
    }
    if (op != MPI_REPLACE && op != MPI_NO_OP) return check_op(op, t.type);
    return MPI_SUCCESS;
}

// An accumulate (MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
// MPI_Compare_and_swap) once checked: under the target's accumulate lock,
// result (if any) gets the target's data, then the target gets origin op
// target (MPI_REPLACE: origin; MPI_NO_OP: unchanged; compare: origin if
// the target equals *compare).
int accumulate(Win &w, const Side *o, const Side *r, const Target &t, MPI_Op op, const void *compare) {
    if (t.rank == MPI_PROC_NULL || t.hi <= t.lo) return MPI_SUCCESS;
    const size_t span = static_cast<size_t>(t.hi - t.lo);
    const uint64_t bytes = static_cast<uint64_t>(t.count * t.t->size);
    const bool writes = op != MPI_NO_OP;
    char *cur = static_cast<char *>(malloc(span));
    char *mine = static_cast<char *>(writes ? malloc(span) : nullptr);
    char *packed = static_cast<char *>(malloc(bytes ? bytes : 1));
    int e = cur && packed && (mine || !writes) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (e == MPI_SUCCESS && writes) {  // the origin's data in the target's layout
        pack(o->buf, o->count, *o->t, packed);
        unpack(packed, bytes, mine - t.lo, t.count, *t.t);
    }
    if (e == MPI_SUCCESS) e = acc_lock(w, t.rank);
    if (e == MPI_SUCCESS) {
        e = move_image(w, t, false, cur);
        if (e == MPI_SUCCESS && r) {
            pack(cur - t.lo, t.count, *t.t, packed);
            unpack(packed, bytes, const_cast<void *>(r->buf), r->count, *r->t);
        }
        const char *out = nullptr;  // the image to write back
        if (e == MPI_SUCCESS && writes) {
            if (compare)
                out = memcmp(cur - t.lo + t.t->true_lb, compare, static_cast<size_t>(t.t->size)) == 0
                          ? mine
                          : nullptr;
            else if (op == MPI_REPLACE)
                out = mine;
            else if ((e = reduce_checked(mine - t.lo, cur - t.lo, t.count, t.type, *t.t, op)) == MPI_SUCCESS)
                out = cur;
        }
        if (out) e = move_image(w, t, true, const_cast<char *>(out));
        const int u = acc_unlock(w, t.rank);
        if (e == MPI_SUCCESS) e = u;
    }
    free(cur);
    free(mine);
    free(packed);
    return e;
}

// Raises `e` for `call` (on its window, once entered), with `why` or
// MPIUtil's detail of a transfer's failure.
int fail(const Call &call, int e, const char *why = nullptr) {
    return call.fail(e, why                                            ? why
                        : e == MPI_ERR_RMA_RANGE || e == MPI_ERR_OTHER ? util::error_detail()
                                                                       : nullptr);
}

// The request-based forms are for passive target epochs only (11.3.5).
int passive(const Win &w, int rank) {
    return rank == MPI_PROC_NULL || w.lock_all || w.locks[rank] ? MPI_SUCCESS : MPI_ERR_RMA_SYNC;
}

int do_put_get(Call &call, bool put, const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
               MPI_Win win, MPI_Request *request) {
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    Side o{origin_addr, origin_count, origin_datatype, nullptr};
    Target t{target_rank, target_disp, target_count, target_datatype, nullptr, 0, 0, 0};
    const char *why = nullptr;
    if (int e = check_side(o)) return fail(call, e);
    o.t = datatype_get(origin_datatype);
    if (request && passive(*w, target_rank))
        return fail(call, MPI_ERR_RMA_SYNC, "not in a passive target epoch");
    if (int e = check_target(*w, t, &why)) return fail(call, e, why);
    if (o.bytes() != t.count * t.t->size) return fail(call, MPI_ERR_TYPE, "origin and target sizes differ");
    if (int e = put_get(*w, o, t, put)) return fail(call, e);
    if (request)
        if (int e = request_new_done(w->comm, request)) return fail(call, e);
    return MPI_SUCCESS;
}

// MPI_Accumulate, MPI_Get_accumulate and their request forms.
int do_accumulate(Call &call, const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                  void *result_addr, int result_count, MPI_Datatype result_datatype, bool fetch,
                  int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                  MPI_Op op, MPI_Win win, MPI_Request *request) {
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    Side o{origin_addr, origin_count, origin_datatype, nullptr};
    Side r{result_addr, result_count, result_datatype, nullptr};
    Target t{target_rank, target_disp, target_count, target_datatype, nullptr, 0, 0, 0};
    const char *why = nullptr;
    const bool uses_origin = op != MPI_NO_OP;  // (MPI_NO_OP ignores the origin buffer, 11.3.4)
    if (uses_origin)
        if (int e = check_side(o)) return fail(call, e);
    if (fetch)
        if (int e = check_side(r)) return fail(call, e);
    o.t = uses_origin ? datatype_get(origin_datatype) : nullptr;
    r.t = fetch ? datatype_get(result_datatype) : nullptr;
    if (request && passive(*w, target_rank))
        return fail(call, MPI_ERR_RMA_SYNC, "not in a passive target epoch");
    if (int e = check_target(*w, t, &why)) return fail(call, e, why);
    if (!uses_origin && !fetch) op = MPI_NO_OP;
    if (int e = check_accumulate(op, uses_origin ? &o : nullptr, fetch ? &r : nullptr, t, &why))
        return fail(call, e, why);
    const int64_t bytes = t.count * t.t->size;
    if ((uses_origin && o.bytes() != bytes) || (fetch && r.bytes() != bytes))
        return fail(call, MPI_ERR_TYPE, "origin and target sizes differ");
    if (!fetch && op == MPI_NO_OP) return MPI_SUCCESS;
    if (int e = accumulate(*w, uses_origin ? &o : nullptr, fetch ? &r : nullptr, t, op, nullptr))
        return fail(call, e);
    if (request)
        if (int e = request_new_done(w->comm, request)) return fail(call, e);
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace lwmpi

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    Call call("MPI_Put");
    return do_put_get(call, true, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win, nullptr);
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    Call call("MPI_Get");
    return do_put_get(call, false, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win, nullptr);
}

int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request) {
    Call call("MPI_Rput");
    if (!request) return raise_error(win, call.name(), MPI_ERR_ARG, "request is NULL");
    return do_put_get(call, true, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win, request);
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request) {
    Call call("MPI_Rget");
    if (!request) return raise_error(win, call.name(), MPI_ERR_ARG, "request is NULL");
    return do_put_get(call, false, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win, request);
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                   MPI_Win win) {
    Call call("MPI_Accumulate");
    return do_accumulate(call, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
                         false, target_rank, target_disp, target_count, target_datatype, op, win, nullptr);
}

int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPI_Win win, MPI_Request *request) {
    Call call("MPI_Raccumulate");
    if (!request) return raise_error(win, call.name(), MPI_ERR_ARG, "request is NULL");
    return do_accumulate(call, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
                         false, target_rank, target_disp, target_count, target_datatype, op, win, request);
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win) {
    Call call("MPI_Get_accumulate");
    return do_accumulate(call, origin_addr, origin_count, origin_datatype, result_addr, result_count,
                         result_datatype, true, target_rank, target_disp, target_count, target_datatype, op,
                         win, nullptr);
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win, MPI_Request *request) {
    Call call("MPI_Rget_accumulate");
    if (!request) return raise_error(win, call.name(), MPI_ERR_ARG, "request is NULL");
    return do_accumulate(call, origin_addr, origin_count, origin_datatype, result_addr, result_count,
                         result_datatype, true, target_rank, target_disp, target_count, target_datatype, op,
                         win, request);
}

namespace {
// One element of a predefined datatype (MPI_Fetch_and_op, _Compare_and_swap).
int check_single(MPI_Datatype datatype) {
    if (int e = check_datatype(datatype)) return e;
    return datatype_get(datatype)->predefined ? MPI_SUCCESS : MPI_ERR_TYPE;
}
}  // namespace

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                     MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
    Call call("MPI_Fetch_and_op");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (int e = check_single(datatype)) return fail(call, e, "one element of a predefined type");
    return do_accumulate(call, origin_addr, 1, datatype, result_addr, 1, datatype, true, target_rank,
                         target_disp, 1, datatype, op, win, nullptr);
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
    Call call("MPI_Compare_and_swap");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (int e = check_single(datatype)) return fail(call, e, "one element of a predefined type");
    if (!origin_addr || !compare_addr || !result_addr) return fail(call, MPI_ERR_BUFFER);
    Side o{origin_addr, 1, datatype, datatype_get(datatype)};
    Side r{result_addr, 1, datatype, o.t};
    Target t{target_rank, target_disp, 1, datatype, nullptr, 0, 0, 0};
    const char *why = nullptr;
    if (int e = check_target(*w, t, &why)) return fail(call, e, why);
    if (o.t->basic != datatype) return fail(call, MPI_ERR_TYPE, "a pair type cannot be compared");
    if (int e = accumulate(*w, &o, &r, t, MPI_REPLACE, compare_addr)) return fail(call, e);
    return MPI_SUCCESS;
}
