// Making, describing and freeing RMA windows (MPI 3.1 sections 11.2,
// 6.7.3, 6.8, 8.3.2).
//
// Each rank reaches the others' windows through its one IKC window
// (MPIUtil's rma_self), made at its first window: through it the rank
// exposes the memory of each MPI window and control areas holding a
// WinControl per window index (locks, PSCW counters). At creation the
// ranks exchange, over the window's own dup of the communicator, how to
// reach their parts (WinPeer).
#include "win.hpp"

#include <stdlib.h>
#include <string.h>

#include "env/attr.hpp"
#include "env/call.hpp"
#include "coll/coll.hpp"
#include "comm/comm.hpp"
#include "newcomm/newcomm.hpp"
#include "env/errors.hpp"
#include "comm/group.hpp"
#include "common/handles.hpp"
#include "env/info.hpp"
#include "common/slot_table.hpp"
#include "env/state.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

struct Wins {
    SlotTable<Win, max_wins> table;
    /// The control blocks of indexes [k * control_chunk, (k + 1) *
    /// control_chunk) in area k, exposed; nullptr until an index needs it.
    WinControl *controls[max_wins / control_chunk];
    bool registered;  ///< raise_error knows how to find a window's handler
};
thread_local util::RankLocal<Wins> t_wins;

bool handler_of(int handle, MPI_Errhandler *out) {
    const Win *w = win_get(handle);
    if (w) *out = w->errhandler;
    return w != nullptr;
}

bool uses_errhandler(MPI_Errhandler h) {
    const auto &table = t_wins.get().table;
    for (int i = 1; i < table.cap; ++i)
        if (const Win *w = table.at(i); w && w->errhandler == h) return true;
    return false;
}

// A control area, made and exposed, in *out.
int make_controls(WinControl **out) {
    const size_t bytes = sizeof(WinControl) * control_chunk;
    auto *area = static_cast<WinControl *>(aligned_alloc(64, bytes));
    if (!area) return MPI_ERR_NO_MEM;
    memset(area, 0, bytes);
    util::RmaPeer self;
    int e = util::rma_self(&self);
    if (e == MPI_SUCCESS) e = util::rma_expose(area, bytes);
    if (e) {
        free(area);
        return e;
    }
    *out = area;
    return MPI_SUCCESS;
}

// The control block of window index i, its area made and exposed at the
// first window that needs it, in *out.
int control_of(int i, WinControl **out) {
    WinControl *&area = t_wins.get().controls[i / control_chunk];
    if (!area)
        if (int e = make_controls(&area)) return e;
    *out = &area[i % control_chunk];
    memset(*out, 0, sizeof **out);
    return MPI_SUCCESS;
}

// Pointer p as the address the others name (the caller's own address:
// the kernel serves it in the caller's address space, and MPIUtil turns
// it into its global form for the ranks of the cluster).
uint64_t addr_of(const void *p) { return reinterpret_cast<uintptr_t>(p); }

// Frees what `w` holds on the caller (not the dup: the caller does).
void release(Win &w) {
    if (w.exposed) util::rma_withdraw(w.base, static_cast<size_t>(w.bytes));
    for (int i = 0; i < w.nattached; ++i)
        util::rma_withdraw(w.attached[i].base, static_cast<size_t>(w.attached[i].size));
    if (w.owned) free(w.owned);
    free(w.attached);
    free(w.peers);
    free(w.locks);
    if (w.ctrl) memset(w.ctrl, 0, sizeof *w.ctrl);
    const MPI_Errhandler h = w.errhandler;
    t_wins.get().table.remove(handle_index(w.handle));
    release_errhandler(h);
}

// A boolean hint of section 11.2.1 and where WinHints keeps it.
struct FlagHint {
    const char *key;
    bool WinHints::*flag;
};
constexpr FlagHint flag_hints[] = {{"no_locks", &WinHints::no_locks},
                                   {"same_size", &WinHints::same_size},
                                   {"same_disp_unit", &WinHints::same_disp_unit},
                                   {"alloc_shared_noncontig", &WinHints::alloc_shared_noncontig}};

// accumulate_ordering's value: "none", or a comma-separated list of some
// of rar, raw, war, waw (section 11.2.1).
bool valid_ordering(const char *v) {
    if (strcmp(v, "none") == 0) return true;
    for (;;) {
        const char *comma = strchr(v, ',');
        const size_t n = comma ? static_cast<size_t>(comma - v) : strlen(v);
        static constexpr const char *orders[] = {"rar", "raw", "war", "waw"};
        bool known = false;
        for (const char *k : orders)
            known = known || (n == 3 && strncmp(v, k, 3) == 0);
        if (!known) return false;
        if (!comma) return true;
        v = comma + 1;
    }
}

// Takes the hints of section 11.2.1 that `info` gives (MPI_INFO_NULL:
// none). A value it does not understand is ignored, as section 9 allows.
void take_hints(WinHints &h, MPI_Info info) {
    for (const FlagHint &f : flag_hints)
        if (const char *v = info_lookup(info, f.key)) {
            if (strcmp(v, "true") == 0) h.*f.flag = true;
            if (strcmp(v, "false") == 0) h.*f.flag = false;
        }
    const char *v = info_lookup(info, "accumulate_ordering");
    if (v && strlen(v) < sizeof h.accumulate_ordering && valid_ordering(v))
        TextBuilder(h.accumulate_ordering, sizeof h.accumulate_ordering).put(v);
    v = info_lookup(info, "accumulate_ops");
    if (v && (strcmp(v, "same_op") == 0 || strcmp(v, "same_op_no_op") == 0))
        TextBuilder(h.accumulate_ops, sizeof h.accumulate_ops).put(v);
}

// The first part of making a window over `c` with the hints of `info`:
// the record, the control area, the dup. Errors are raised by the caller.
int begin(Comm &c, int flavor, MPI_Info info, Win **out) {
    Wins &s = t_wins.get();
    if (!s.registered) {  // before its first window can have a handler (errors.hpp)
        s.registered = true;
        register_errhandler_holder(ErrhandlerHolder{HandleKind::win, handler_of, uses_errhandler});
    }
    int i;
    if (int e = s.table.add(1, Win{}, &i)) return e;
    Win &w = *s.table.at(i);
    w.handle = make_handle(HandleKind::win, i);
    w.flavor = flavor;
    w.model = MPI_WIN_UNIFIED;
    w.hints = WinHints{false, false, false, false, "rar,raw,war,waw", "same_op_no_op"};
    take_hints(w.hints, info);
    w.rank = c.rank;
    w.size = c.group.size;
    w.errhandler = 0;  // MPI_ERRORS_ARE_FATAL, not the communicator's (section 8.3.2)
    w.peers = static_cast<WinPeer *>(calloc(static_cast<size_t>(w.size), sizeof(WinPeer)));
    w.locks = static_cast<uint8_t *>(calloc(static_cast<size_t>(w.size), 1));
    int e = w.peers && w.locks ? control_of(i, &w.ctrl) : MPI_ERR_NO_MEM;
    if (e == MPI_SUCCESS) e = comm_make(c, &c.group, &w.comm);
    if (e == MPI_SUCCESS) comm_get(w.comm)->errhandler = MPI_ERRORS_RETURN;  // raised on the window
    if (e) {
        release(w);
        return e;
    }
    *out = &w;
    return MPI_SUCCESS;
}

// The last part: exposes the caller's memory ([base, base + bytes),
// unless `expose` is false) and exchanges the parts. On failure (of any
// rank) frees the window and returns the error.
int publish(Win &w, void *base, MPI_Aint bytes, int disp_unit, bool expose, MPI_Win *out) {
    w.base = base;
    w.bytes = bytes;
    w.disp_unit = disp_unit;
    WinPeer mine{};
    int e = util::rma_self(&mine.at);
    if (e == MPI_SUCCESS && expose) {
        e = util::rma_expose(base, static_cast<size_t>(bytes));
        w.exposed = e == MPI_SUCCESS && bytes > 0;
    }
    mine.base = addr_of(base);
    mine.size = static_cast<uint64_t>(bytes);
    mine.control = addr_of(w.ctrl);
    mine.disp_unit = disp_unit;
    mine.error = e;
    const int n = static_cast<int>(sizeof mine);
    int x = MPI_Allgather(&mine, n, MPI_BYTE, w.peers, n, MPI_BYTE, w.comm);
    for (int r = 0; x == MPI_SUCCESS && r < w.size; ++r)
        if (w.peers[r].error) x = r == w.rank ? e : MPI_ERR_OTHER;
    if (x) {
        MPI_Comm_free(&w.comm);
        release(w);
        return x;
    }
    *out = w.handle;
    return MPI_SUCCESS;
}

// The checks every creation shares: comm an intracommunicator, the
// window pointer, the info.
int enter_create(Call &call, MPI_Comm comm, MPI_Info info, MPI_Win *win, Comm **c) {
    if (int e = enter_intra(call, comm, c)) return e;
    if (!win) return call.fail(MPI_ERR_ARG, "win is NULL");
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    return MPI_SUCCESS;
}

int check_part(const Call &call, MPI_Aint size, int disp_unit) {
    if (size < 0) return call.fail(MPI_ERR_SIZE);
    if (disp_unit <= 0) return call.fail(MPI_ERR_DISP, "disp_unit must be positive");
    return MPI_SUCCESS;
}

// MPI_Win_create and MPI_Win_allocate (owned: memory the window frees),
// once enter_create() has run.
int create(const Call &call, Comm &c, int flavor, MPI_Info info, void *base, MPI_Aint size, int disp_unit,
           void *owned, MPI_Win *win) {
    Win *w;
    int e = begin(c, flavor, info, &w);
    if (e == MPI_SUCCESS) {
        w->owned = owned;
        e = publish(*w, base, size, disp_unit, true, win);
    } else {
        free(owned);
    }
    return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS;
}

}  // namespace

Win *win_get(MPI_Win h) {
    const int i = table_index(h, HandleKind::win, 1, max_wins);
    return i < 0 ? nullptr : t_wins.get().table.at(i);
}

int enter_win(const char *fn, MPI_Win win, Win **out) {
    if (int e = require_active(fn)) return e;
    *out = win_get(win);
    if (!*out) return raise_error(MPI_COMM_WORLD, fn, MPI_ERR_WIN);
    return MPI_SUCCESS;
}

int enter(Call &call, MPI_Win win, Win **out) {
    if (int e = enter_win(call.name(), win, out)) return e;
    call.on(win);
    return MPI_SUCCESS;
}

bool win_attr(const Win &w, int keyval, void **value) {
    switch (keyval) {
    case MPI_WIN_BASE: *value = w.base; return true;
    case MPI_WIN_SIZE: *value = const_cast<MPI_Aint *>(&w.bytes); return true;
    case MPI_WIN_DISP_UNIT: *value = const_cast<int *>(&w.disp_unit); return true;
    case MPI_WIN_CREATE_FLAVOR: *value = const_cast<int *>(&w.flavor); return true;
    case MPI_WIN_MODEL: *value = const_cast<int *>(&w.model); return true;
    default: return false;
    }
}

void win_finalize() {
    Wins &s = t_wins.get();
    // Windows the program did not free: their records only (freeing is
    // collective, and MPI_Finalize may not wait for it).
    for (int i = 1; i < s.table.cap; ++i)
        if (Win *w = s.table.at(i)) {
            free(w->peers);
            free(w->locks);
            free(w->attached);
        }
    s.table.clear();
    for (WinControl *&area : s.controls) {
        free(area);
        area = nullptr;
    }
    util::rma_finalize();
}

}  // namespace lwmpi

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) {
    Call call("MPI_Win_create");
    Comm *c;
    if (int e = enter_create(call, comm, info, win, &c)) return e;
    if (int e = check_part(call, size, disp_unit)) return e;
    if (size > 0 && !base) return call.fail(MPI_ERR_BASE);
    return create(call, *c, MPI_WIN_FLAVOR_CREATE, info, base, size, disp_unit, nullptr, win);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win) {
    Call call("MPI_Win_allocate");
    Comm *c;
    if (int e = enter_create(call, comm, info, win, &c)) return e;
    if (int e = check_part(call, size, disp_unit)) return e;
    if (!baseptr) return call.fail(MPI_ERR_ARG, "baseptr is NULL");
    // (Every rank takes part in the creation even when its memory fails,
    // so that none waits for it: publish() tells them all.)
    void *mem = aligned_alloc(16, static_cast<size_t>((size + 15) / 16 * 16 + 16));
    if (mem) memset(mem, 0, static_cast<size_t>(size));
    *static_cast<void **>(baseptr) = mem;
    Win *w;
    int e = begin(*c, MPI_WIN_FLAVOR_ALLOCATE, info, &w);
    if (e == MPI_SUCCESS) {
        w->owned = mem;
        e = publish(*w, mem, mem ? size : 0, disp_unit, mem != nullptr, win);
        if (e == MPI_SUCCESS && !mem) {
            MPI_Win_free(win);
            e = MPI_ERR_NO_MEM;
        }
    } else {
        free(mem);
    }
    return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
    Call call("MPI_Win_create_dynamic");
    Comm *c;
    if (int e = enter_create(call, comm, info, win, &c)) return e;
    return create(call, *c, MPI_WIN_FLAVOR_DYNAMIC, info, nullptr, 0, 1, nullptr, win);
}

// One block for the whole window, allocated by rank 0 and reached by all
// at its global form (the ranks of one cluster share memory), each
// rank's part after the previous rank's (section 11.2.3). Only the
// same-cluster path ever touches it: it is not exposed to the kernel.
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                            MPI_Win *win) {
    Call call("MPI_Win_allocate_shared");
    Comm *c;
    if (int e = enter_create(call, comm, info, win, &c)) return e;
    if (int e = check_part(call, size, disp_unit)) return e;
    if (!baseptr) return call.fail(MPI_ERR_ARG, "baseptr is NULL");
    util::RmaPeer self;
    if (int e = util::rma_self(&self)) return call.fail(e, util::error_detail());
    // (A rank alone shares memory with itself.)
    bool shared = self.shared || c->group.size == 1;
    for (int r = 0; r < c->group.size && shared && c->group.size > 1; ++r)
        if (util::same_cluster(c->group.world[r], &shared)) shared = false;
    if (!shared) return call.fail(MPI_ERR_RMA_SHARED, "its ranks share no memory");
    Win *w;
    int e = begin(*c, MPI_WIN_FLAVOR_SHARED, info, &w);
    if (e) return call.fail(e, util::error_detail());
    // Every part's size, then rank 0's block (its global form) to all.
    MPI_Aint sizes[util::max_ranks], total = 0, offset = 0;
    uint64_t block = 0;
    e = MPI_Allgather(&size, 1, MPI_AINT, sizes, 1, MPI_AINT, w->comm);
    for (int r = 0; e == MPI_SUCCESS && r < w->size; ++r) {
        offset += r < w->rank ? sizes[r] : 0;
        total += sizes[r];
    }
    if (e == MPI_SUCCESS && w->rank == 0) {
        w->owned = calloc(1, static_cast<size_t>(total) + 16);
        block = addr_of(util::rma_global(w->owned));
    }
    if (e == MPI_SUCCESS) e = MPI_Bcast(&block, 1, MPI_UINT64_T, 0, w->comm);
    if (e == MPI_SUCCESS && block == 0) e = MPI_ERR_NO_MEM;
    if (e) {
        MPI_Comm_free(&w->comm);
        release(*w);
        return call.fail(e, util::error_detail());
    }
    void *base = reinterpret_cast<char *>(static_cast<uintptr_t>(block)) + offset;
    *static_cast<void **>(baseptr) = base;
    e = publish(*w, base, size, disp_unit, false, win);
    return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr) {
    Call call("MPI_Win_shared_query");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (w->flavor != MPI_WIN_FLAVOR_SHARED) return call.fail(MPI_ERR_RMA_FLAVOR);
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size)) return call.fail(MPI_ERR_RANK);
    if (!size || !disp_unit || !baseptr) return call.fail(MPI_ERR_ARG);
    int r = rank;
    if (r == MPI_PROC_NULL)
        for (r = 0; r < w->size - 1 && w->peers[r].size == 0;)
            ++r;
    const WinPeer &p = w->peers[r];
    *size = static_cast<MPI_Aint>(p.size);
    *disp_unit = p.disp_unit;
    // A segment of size 0 has no memory to point at: NULL, as in MPICH.
    *static_cast<void **>(baseptr) =
        p.size ? reinterpret_cast<void *>(static_cast<uintptr_t>(p.base)) : nullptr;
    return MPI_SUCCESS;
}

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
    Call call("MPI_Win_attach");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) return call.fail(MPI_ERR_RMA_FLAVOR);
    if (size < 0) return call.fail(MPI_ERR_SIZE);
    if (size > 0 && !base) return call.fail(MPI_ERR_BASE);
    if (w->nattached == w->attached_cap) {
        const int cap = w->attached_cap ? 2 * w->attached_cap : 8;
        auto *grown =
            static_cast<WinRegion *>(realloc(w->attached, static_cast<size_t>(cap) * sizeof(WinRegion)));
        if (!grown) return call.fail(MPI_ERR_NO_MEM, "no memory for the window's regions");
        w->attached = grown;
        w->attached_cap = cap;
    }
    if (int e = util::rma_expose(base, static_cast<size_t>(size)))
        return call.fail(e == MPI_ERR_NO_MEM ? e : MPI_ERR_RMA_ATTACH, util::error_detail());
    w->attached[w->nattached++] = WinRegion{base, size};
    return MPI_SUCCESS;
}

int MPI_Win_detach(MPI_Win win, const void *base) {
    Call call("MPI_Win_detach");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) return call.fail(MPI_ERR_RMA_FLAVOR);
    for (int i = 0; i < w->nattached; ++i)
        if (w->attached[i].base == base) {
            util::rma_withdraw(w->attached[i].base, static_cast<size_t>(w->attached[i].size));
            w->attached[i] = w->attached[--w->nattached];
            return MPI_SUCCESS;
        }
    return call.fail(MPI_ERR_RMA_ATTACH, "no region attached at base");
}

// Collective: once every rank is past the barrier, none accesses the
// window any more and its memory can go.
int MPI_Win_free(MPI_Win *win) {
    Call call("MPI_Win_free");
    if (!win) return call.fail(MPI_ERR_ARG);
    Win *w;
    if (int e = enter(call, *win, &w)) return e;
    if (w->started || w->posted || w->nlocks || w->lock_all)
        return call.fail(MPI_ERR_RMA_SYNC, "the window is in an epoch");
    if (int e = attr_delete_all(HandleKind::win, *win))
        return call.fail(e, "an attribute delete callback failed");
    for (int t = 0; t < w->size; ++t)
        if (w->dirty.has(t))
            if (int e = win_flush_target(*w, t)) return call.fail(e, util::error_detail());
    if (int e = barrier(*comm_get(w->comm))) return call.fail(e, util::error_detail());
    MPI_Comm_free(&w->comm);
    release(*w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

int MPI_Win_get_group(MPI_Win win, MPI_Group *group) {
    Call call("MPI_Win_get_group");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!group) return call.fail(MPI_ERR_ARG);
    if (int e = group_new(comm_get(w->comm)->group, group)) return call.fail(e);
    return MPI_SUCCESS;
}

/// Replaces the window's hints of section 11.2.1 that `info` gives
/// (section 11.2.7); the others keep their values.
int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
    Call call("MPI_Win_set_info");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    take_hints(w->hints, info);
    return MPI_SUCCESS;
}

/// A new info object with the window's hints of section 11.2.1, each
/// with the value in use (section 11.2.7); alloc_shared_noncontig for a
/// shared window only.
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used) {
    Call call("MPI_Win_get_info");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!info_used) return call.fail(MPI_ERR_ARG);
    MPI_Info info;
    if (int e = info_new(&info)) return call.fail(e, "too many info objects");
    const WinHints &h = w->hints;
    int e = MPI_SUCCESS;
    for (const FlagHint &f : flag_hints)
        if (e == MPI_SUCCESS &&
            (f.flag != &WinHints::alloc_shared_noncontig || w->flavor == MPI_WIN_FLAVOR_SHARED))
            e = info_put(info, f.key, h.*f.flag ? "true" : "false");
    if (e == MPI_SUCCESS) e = info_put(info, "accumulate_ordering", h.accumulate_ordering);
    if (e == MPI_SUCCESS) e = info_put(info, "accumulate_ops", h.accumulate_ops);
    if (e) {
        MPI_Info_free(&info);
        return call.fail(e, "no memory for the hints");
    }
    *info_used = info;
    return MPI_SUCCESS;
}

int MPI_Win_set_name(MPI_Win win, const char *win_name) {
    Call call("MPI_Win_set_name");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!win_name) return call.fail(MPI_ERR_ARG);
    TextBuilder(w->name, sizeof w->name).put(win_name);
    return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen) {
    Call call("MPI_Win_get_name");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!win_name || !resultlen) return call.fail(MPI_ERR_ARG);
    strcpy(win_name, w->name);
    *resultlen = static_cast<int>(strlen(w->name));
    return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
    Call call("MPI_Win_set_errhandler");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (set_errhandler(&w->errhandler, errhandler)) return call.fail(MPI_ERR_ARG, "invalid error handler");
    return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) {
    Call call("MPI_Win_get_errhandler");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!errhandler) return call.fail(MPI_ERR_ARG);
    *errhandler = w->errhandler ? w->errhandler : MPI_ERRORS_ARE_FATAL;
    return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
    Call call("MPI_Win_call_errhandler");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    call.fail(errorcode, "raised by the program");
    return MPI_SUCCESS;
}
