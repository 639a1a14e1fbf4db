// Synchronization of RMA windows (MPI 3.1 section 11.5): fences,
// post-start-complete-wait, passive target locks and flushes, and the
// accumulate lock. Every lock and counter is a word of the target's
// WinControl, updated by the origin with MPIUtil's remote atomics (the
// target's kernel does them; no call by the target), or read by its owner.
#include <stddef.h>

#include "env/call.hpp"
#include "coll/coll.hpp"
#include "comm/comm.hpp"
#include "env/errors.hpp"
#include "comm/group.hpp"
#include "win.hpp"

using namespace lwmpi;

namespace lwmpi {

namespace {

// Address of word `field` of target t's control block.
uint64_t control_word(const Win &w, int t, size_t field) { return w.peers[t].control + field; }

int atomic(Win &w, int t, size_t field, util::Atomic kind, uint64_t operand, uint64_t compare = 0,
           uint64_t *old = nullptr) {
    return util::rma_atomic(w.peers[t].at, control_word(w, t, field), kind, operand, compare, old);
}

uint64_t load(const uint64_t &word) { return __atomic_load_n(&word, __ATOMIC_ACQUIRE); }

// The assert bits a call knows (section 11.5.5): MPI_ERR_ASSERT else.
bool assert_ok(int assert, int known) { return (assert & ~known) == 0; }

// Flushes every target written to since its last flush.
int flush_dirty(Win &w) {
    for (int t = 0; t < w.size; ++t)
        if (w.dirty.has(t))
            if (int e = win_flush_target(w, t)) return e;
    return MPI_SUCCESS;
}

// A fence epoch in which nothing was done ends when another kind of
// epoch starts (a program's first fence need not say MPI_MODE_NOSUCCEED);
// one with operations must be closed by a fence first.
int leave_fence(Win &w) {
    if (w.fence && w.fence_used) return MPI_ERR_RMA_SYNC;
    w.fence = false;
    return MPI_SUCCESS;
}

// Takes target t's passive lock: exclusive, a CAS from free; shared, an
// increment that is undone and retried while a writer holds it.
int lock_target(Win &w, int t, int type) {
    constexpr size_t f = offsetof(WinControl, lock);
    if (type == MPI_LOCK_EXCLUSIVE)
        return win_spin([&] {
            uint64_t old;
            if (int e = atomic(w, t, f, util::Atomic::cas, writer, 0, &old)) return e;
            return old == 0 ? MPI_SUCCESS : -1;
        });
    return win_spin([&] {
        uint64_t old;
        if (int e = atomic(w, t, f, util::Atomic::fadd, 1, 0, &old)) return e;
        if (!(old & writer)) return MPI_SUCCESS;
        if (int e = atomic(w, t, f, util::Atomic::fadd, ~uint64_t{0})) return e;  // -1
        return -1;
    });
}

// Releases it once the caller's puts to t have landed.
int unlock_target(Win &w, int t, int type) {
    if (int e = win_flush_target(w, t)) return e;
    return atomic(w, t, offsetof(WinControl, lock), util::Atomic::fadd,
                  type == MPI_LOCK_EXCLUSIVE ? writer : ~uint64_t{0});  // (adding 2^63 clears the bit)
}

// Checks rank for the lock calls: MPI_PROC_NULL does nothing (*skip).
int check_target(const Win &w, int rank, bool *skip) {
    *skip = rank == MPI_PROC_NULL;
    return *skip || (rank >= 0 && rank < w.size) ? MPI_SUCCESS : MPI_ERR_RANK;
}

}  // namespace

int acc_lock(Win &w, int t) {
    const uint64_t me = static_cast<uint64_t>(w.rank) + 1;
    return win_spin([&] {
        uint64_t old;
        if (int e = atomic(w, t, offsetof(WinControl, acc_lock), util::Atomic::cas, me, 0, &old)) return e;
        return old == 0 ? MPI_SUCCESS : -1;
    });
}

// The SWAP is ordered after the puts to t (and the flush makes the
// direct copies visible first).
int acc_unlock(Win &w, int t) {
    if (int e = win_flush_target(w, t)) return e;
    return atomic(w, t, offsetof(WinControl, acc_lock), util::Atomic::swap, 0);
}

int win_flush_target(Win &w, int t) {
    w.dirty.bits[t / 64] &= ~(uint64_t{1} << (t % 64));
    return util::rma_flush(w.peers[t].at);
}

int access_allowed(Win &w, int t) {
    if (w.lock_all || w.locks[t] || (w.started && w.start_group.has(t))) return MPI_SUCCESS;
    if (!w.fence) return MPI_ERR_RMA_SYNC;
    w.fence_used = true;
    return MPI_SUCCESS;
}

int win_ranks(const Win &w, MPI_Group g, RankMask *out, int *n) {
    const GroupData *gd = group_get(g);
    if (!gd) return MPI_ERR_GROUP;
    *out = RankMask{};
    const GroupData &members = comm_get(w.comm)->group;
    for (int i = 0; i < gd->size; ++i) {
        const int r = group_rank_of(members, gd->world[i]);
        if (r == MPI_UNDEFINED) return MPI_ERR_GROUP;
        out->add(r);
    }
    *n = gd->size;
    return MPI_SUCCESS;
}

}  // namespace lwmpi

int MPI_Win_fence(int assert, MPI_Win win) {
    Call call("MPI_Win_fence");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!assert_ok(assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED))
        return call.fail(MPI_ERR_ASSERT);
    if (w->started || w->posted || w->nlocks || w->lock_all)
        return call.fail(MPI_ERR_RMA_SYNC, "another kind of epoch is open");
    if (int e = flush_dirty(*w)) return call.fail(e, util::error_detail());
    if (int e = barrier(*comm_get(w->comm))) return call.fail(e, util::error_detail());
    w->fence = !(assert &MPI_MODE_NOSUCCEED);
    w->fence_used = false;
    return MPI_SUCCESS;
}

// Tells each origin of `group` that the caller's window is open to it: a
// bit of the origin's posts word, set by a remote add.
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
    Call call("MPI_Win_post");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!assert_ok(assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT))
        return call.fail(MPI_ERR_ASSERT);
    RankMask origins;
    int n;
    if (int e = win_ranks(*w, group, &origins, &n)) return call.fail(e);
    if (w->posted || leave_fence(*w)) return call.fail(MPI_ERR_RMA_SYNC, "an epoch is open");
    const size_t word = offsetof(WinControl, posts) + sizeof(uint64_t) * static_cast<size_t>(w->rank / 64);
    const uint64_t bit = uint64_t{1} << (w->rank % 64);
    for (int o = 0; o < w->size; ++o)
        if (origins.has(o))
            if (int e = atomic(*w, o, word, util::Atomic::fadd, bit))
                return call.fail(e, util::error_detail());
    w->posted = true;
    w->post_count = static_cast<uint64_t>(n);
    return MPI_SUCCESS;
}

// Waits for the posts of every target of `group`, then takes them.
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
    Call call("MPI_Win_start");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!assert_ok(assert, MPI_MODE_NOCHECK)) return call.fail(MPI_ERR_ASSERT);
    RankMask targets;
    int n;
    if (int e = win_ranks(*w, group, &targets, &n)) return call.fail(e);
    if (w->started || w->nlocks || w->lock_all || leave_fence(*w))
        return call.fail(MPI_ERR_RMA_SYNC, "an access epoch is open");
    int e = win_spin([&] {
        for (int k = 0; k < mask_words; ++k)
            if ((load(w->ctrl->posts[k]) & targets.bits[k]) != targets.bits[k]) return -1;
        return MPI_SUCCESS;
    });
    if (e) return call.fail(e, util::error_detail());
    for (int k = 0; k < mask_words; ++k)
        __atomic_fetch_and(&w->ctrl->posts[k], ~targets.bits[k], __ATOMIC_ACQ_REL);
    w->started = true;
    w->start_group = targets;
    return MPI_SUCCESS;
}

// Once its puts to a target have landed, the origin counts itself done
// there.
int MPI_Win_complete(MPI_Win win) {
    Call call("MPI_Win_complete");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!w->started) return call.fail(MPI_ERR_RMA_SYNC, "no MPI_Win_start");
    for (int t = 0; t < w->size; ++t)
        if (w->start_group.has(t)) {
            int e = win_flush_target(*w, t);
            if (e == MPI_SUCCESS) e = atomic(*w, t, offsetof(WinControl, completions), util::Atomic::fadd, 1);
            if (e) return call.fail(e, util::error_detail());
        }
    w->started = false;
    return MPI_SUCCESS;
}

namespace {
// MPI_Win_wait and MPI_Win_test: whether every origin has completed (and
// then the exposure epoch is over).
int exposure_over(Win &w, bool *over) {
    *over = load(w.ctrl->completions) >= w.post_count;
    if (!*over) return MPI_SUCCESS;
    __atomic_fetch_sub(&w.ctrl->completions, w.post_count, __ATOMIC_ACQ_REL);
    w.posted = false;
    return MPI_SUCCESS;
}
}  // namespace

int MPI_Win_wait(MPI_Win win) {
    Call call("MPI_Win_wait");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!w->posted) return call.fail(MPI_ERR_RMA_SYNC, "no MPI_Win_post");
    const int e = win_spin([&] {
        bool over;
        exposure_over(*w, &over);
        return over ? MPI_SUCCESS : -1;
    });
    return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS;
}

int MPI_Win_test(MPI_Win win, int *flag) {
    Call call("MPI_Win_test");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!flag) return call.fail(MPI_ERR_ARG);
    if (!w->posted) return call.fail(MPI_ERR_RMA_SYNC, "no MPI_Win_post");
    if (int e = progress_requests()) return call.fail(e, util::error_detail());
    bool over;
    exposure_over(*w, &over);
    if (!over) util::test_failed();
    *flag = over;
    return MPI_SUCCESS;
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
    Call call("MPI_Win_lock");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) return call.fail(MPI_ERR_LOCKTYPE);
    bool skip;
    if (int e = check_target(*w, rank, &skip)) return call.fail(e);
    if (!assert_ok(assert, MPI_MODE_NOCHECK)) return call.fail(MPI_ERR_ASSERT);
    if (skip) return MPI_SUCCESS;
    if (w->started || w->lock_all || w->locks[rank] || leave_fence(*w))
        return call.fail(MPI_ERR_RMA_SYNC, "an access epoch to the target is open");
    if (!(assert &MPI_MODE_NOCHECK))
        if (int e = lock_target(*w, rank, lock_type)) return call.fail(e, util::error_detail());
    // (NOCHECK: no one else holds it, the program says; nothing to release.)
    w->locks[rank] = assert &MPI_MODE_NOCHECK ? 3 : lock_type == MPI_LOCK_SHARED ? 1 : 2;
    ++w->nlocks;
    return MPI_SUCCESS;
}

int MPI_Win_unlock(int rank, MPI_Win win) {
    Call call("MPI_Win_unlock");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    bool skip;
    if (int e = check_target(*w, rank, &skip)) return call.fail(e);
    if (skip) return MPI_SUCCESS;
    if (!w->locks[rank]) return call.fail(MPI_ERR_RMA_SYNC, "the target is not locked");
    const int held = w->locks[rank];
    w->locks[rank] = 0;
    --w->nlocks;
    const int e = held == 3 ? win_flush_target(*w, rank)
                            : unlock_target(*w, rank, held == 1 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE);
    return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS;
}

int MPI_Win_lock_all(int assert, MPI_Win win) {
    Call call("MPI_Win_lock_all");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!assert_ok(assert, MPI_MODE_NOCHECK)) return call.fail(MPI_ERR_ASSERT);
    if (w->started || w->lock_all || w->nlocks || leave_fence(*w))
        return call.fail(MPI_ERR_RMA_SYNC, "an access epoch is open");
    if (!(assert &MPI_MODE_NOCHECK))
        for (int t = 0; t < w->size; ++t)
            if (int e = lock_target(*w, t, MPI_LOCK_SHARED)) return call.fail(e, util::error_detail());
    w->lock_all = assert &MPI_MODE_NOCHECK ? 2 : 1;
    return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win win) {
    Call call("MPI_Win_unlock_all");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    if (!w->lock_all) return call.fail(MPI_ERR_RMA_SYNC, "no MPI_Win_lock_all");
    const bool checked = w->lock_all == 1;
    w->lock_all = 0;
    for (int t = 0; t < w->size; ++t) {
        const int e = checked ? unlock_target(*w, t, MPI_LOCK_SHARED) : win_flush_target(*w, t);
        if (e) return call.fail(e, util::error_detail());
    }
    return MPI_SUCCESS;
}

namespace {
// The flushes: rank's (all: every rank's) operations are complete at the
// target; `local` ones need only local completion, which LWMPI's
// operations have when they return.
int flush(Call &call, MPI_Win win, int rank, bool all, bool local) {
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    bool skip = false;
    if (!all)
        if (int e = check_target(*w, rank, &skip)) return call.fail(e);
    if (skip) return MPI_SUCCESS;
    if (!w->lock_all && (all ? w->nlocks == 0 : !w->locks[rank]))
        return call.fail(MPI_ERR_RMA_SYNC, "no passive target epoch");
    if (local) return MPI_SUCCESS;
    const int e = all ? flush_dirty(*w) : win_flush_target(*w, rank);
    return e ? call.fail(e, util::error_detail()) : MPI_SUCCESS;
}
}  // namespace

int MPI_Win_flush(int rank, MPI_Win win) {
    Call call("MPI_Win_flush");
    return flush(call, win, rank, false, false);
}
int MPI_Win_flush_all(MPI_Win win) {
    Call call("MPI_Win_flush_all");
    return flush(call, win, 0, true, false);
}
int MPI_Win_flush_local(int rank, MPI_Win win) {
    Call call("MPI_Win_flush_local");
    return flush(call, win, rank, false, true);
}
int MPI_Win_flush_local_all(MPI_Win win) {
    Call call("MPI_Win_flush_local_all");
    return flush(call, win, 0, true, true);
}

// In the unified model the window has one copy: ordering the caller's own
// loads and stores with the others' accesses is a full memory barrier.
int MPI_Win_sync(MPI_Win win) {
    Call call("MPI_Win_sync");
    Win *w;
    if (int e = enter(call, win, &w)) return e;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}
