// MPIUtil's one-sided transport over IKC windows (rma.hpp).
#include <mpiutil/rma.hpp>

#include <mpi.h>
#include <string.h>

#include "engine.hpp"
#include "os.hpp"
#include <lwmpi/rank_local.hpp>
#include "rank_state.hpp"

namespace lwmpi::util {

namespace {

// A region the caller exposes, with the number of rma_expose() calls it
// serves (overlapping ones are merged into one region).
struct Exposed {
    uintptr_t base;
    uintptr_t size;
    int refs;
};

// Targets the caller wrote to through the kernel since it last flushed
// them: only those need a flush (a kernel call). Past max_pending of them,
// every flush goes to the kernel.
constexpr int max_pending = 64;
struct Target {
    int16_t cluster;
    int16_t key;
};

struct RmaState {
    int key;  // the caller's IKC window, 0 until the first rma_self()
    Exposed regions[TS_WINDOW_REGIONS];
    Target pending[max_pending];
    int npending;
    bool overflow;  // a target was not recorded: flush them all through the kernel
};
thread_local RankLocal<RmaState> t_rma;

// An IKC error as an MPI error class.
int failed(const char *what, long e) {
    return fail(e == -TS_EACCES ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER, what, e);
}

constexpr unsigned kinds[] = {TS_WINDOW_CAS, TS_WINDOW_FADD, TS_WINDOW_SWAP};  // by Atomic

// The entry of p in the pending table, or -1.
int pending_of(const RmaState &s, const RmaPeer &p) {
    for (int i = 0; i < s.npending; ++i)
        if (s.pending[i].cluster == p.cluster && s.pending[i].key == p.key) return i;
    return -1;
}

void note_write(const RmaPeer &p) {
    RmaState &s = t_rma.get();
    if (pending_of(s, p) >= 0) return;
    if (s.npending == max_pending)
        s.overflow = true;
    else
        s.pending[s.npending++] = Target{static_cast<int16_t>(p.cluster), static_cast<int16_t>(p.key)};
}

os::Aliasing aliasing_of(const RmaPeer &p) { return os::Aliasing{p.area_base, p.area_size, p.area_shift}; }

}  // namespace

int rma_self(RmaPeer *out) {
    RmaState &s = t_rma.get();
    if (s.key == 0) {
        const int key = os::window_create();
        if (key < 0) return failed("cannot make an IKC window", key);
        s.key = key;
    }
    const ts_job_info &j = *os::job();
    const os::Aliasing a = os::Aliasing::of(j, os::local_index());
    *out = RmaPeer{j.cluster_id, s.key, os::cluster_shared(1) != nullptr, 0, a.base, a.size, a.shift};
    return MPI_SUCCESS;
}

namespace {

// The bytes between [lo, hi) and region r (0 when they meet).
uintptr_t gap(const Exposed &r, uintptr_t lo, uintptr_t hi) {
    if (r.base + r.size < lo) return lo - (r.base + r.size);
    return hi < r.base ? r.base - hi : 0;
}

}  // namespace

// The kernel keeps at most TS_WINDOW_REGIONS regions, and a region
// exposed over others replaces them by their hull in one call. So the new
// region takes in the regions it overlaps or touches and, while every slot is taken,
// the nearest other one too (the memory between them is then exposed as
// well: only an erroneous program reaches it); the hull serves all their
// callers.
int rma_expose(void *base, size_t size) {
    if (size == 0) return MPI_SUCCESS;
    RmaState &s = t_rma.get();
    uintptr_t lo = reinterpret_cast<uintptr_t>(base), hi = lo + size;
    for (Exposed &r : s.regions)
        if (r.refs && r.base <= lo && hi <= r.base + r.size) {  // already exposed
            ++r.refs;
            return MPI_SUCCESS;
        }
    bool absorbed[TS_WINDOW_REGIONS] = {};
    int refs = 1;
    for (;;) {
        int overlapping = -1, nearest = -1, taken = 0;
        for (int i = 0; i < TS_WINDOW_REGIONS; ++i) {
            const Exposed &r = s.regions[i];
            if (r.refs == 0 || absorbed[i]) continue;
            ++taken;
            // Regions that touch merge too: an access may run from one
            // attached region into the next (MPICH's
            // win_dynamic_rma_flush_get attaches two halves of an array).
            if (r.base <= hi && lo <= r.base + r.size)
                overlapping = i;
            else if (nearest < 0 || gap(r, lo, hi) < gap(s.regions[nearest], lo, hi))
                nearest = i;
        }
        const int next = overlapping >= 0 ? overlapping : taken == TS_WINDOW_REGIONS ? nearest : -1;
        if (next < 0) break;
        const Exposed &r = s.regions[next];
        absorbed[next] = true;
        lo = r.base < lo ? r.base : lo;
        hi = r.base + r.size > hi ? r.base + r.size : hi;
        refs += r.refs;
    }
    if (long e = os::window_expose(s.key, reinterpret_cast<void *>(lo), hi - lo))
        return failed("the kernel exposes no more memory through the window", e);
    int slot = -1;
    for (int i = 0; i < TS_WINDOW_REGIONS; ++i) {
        if (absorbed[i]) s.regions[i].refs = 0;
        if (s.regions[i].refs == 0 && slot < 0) slot = i;
    }
    s.regions[slot] = Exposed{lo, hi - lo, refs};
    return MPI_SUCCESS;
}

void rma_withdraw(void *base, size_t size) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(base);
    for (Exposed &r : t_rma.get().regions)
        if (size && r.refs && r.base <= lo && lo + size <= r.base + r.size) {
            if (--r.refs == 0) os::window_withdraw(t_rma.get().key, reinterpret_cast<void *>(r.base));
            return;
        }
}

bool rma_direct(const RmaPeer &p) { return p.shared && p.cluster == cluster_id(); }

namespace {
bool go_direct(const RmaPeer &p, Path path) {
    return path == Path::memory || (path == Path::any && rma_direct(p));
}
}  // namespace

void *rma_pointer(const RmaPeer &p, uint64_t addr) {
    return aliasing_of(p).global(reinterpret_cast<const void *>(static_cast<uintptr_t>(addr)));
}

int rma_put(const RmaPeer &p, uint64_t addr, const void *buf, size_t n, Path path) {
    if (n == 0) return MPI_SUCCESS;
    if (go_direct(p, path)) {
        memcpy(rma_pointer(p, addr), buf, n);
        return MPI_SUCCESS;
    }
    const long e = os::window_write(t_rma.get().key, p.cluster, p.key, addr, buf, n);
    if (e) return failed("window write", e);
    note_write(p);
    return MPI_SUCCESS;
}

int rma_get(const RmaPeer &p, uint64_t addr, void *buf, size_t n, Path path) {
    if (n == 0) return MPI_SUCCESS;
    if (go_direct(p, path)) {
        memcpy(buf, rma_pointer(p, addr), n);
        return MPI_SUCCESS;
    }
    const long e = os::window_read(t_rma.get().key, p.cluster, p.key, addr, buf, n);
    return e ? failed("window read", e) : MPI_SUCCESS;
}

int rma_flush(const RmaPeer &p) {
    // Direct copies are done; the fence orders them before what follows
    // (a flag the target then reads).
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    RmaState &s = t_rma.get();
    const int i = pending_of(s, p);
    if (s.key == 0 || (i < 0 && !s.overflow)) return MPI_SUCCESS;  // nothing of the kernel's to wait for
    if (i >= 0) s.pending[i] = s.pending[--s.npending];
    const long e = os::window_flush(s.key, p.cluster, p.key);
    return e ? failed("a window write", e) : MPI_SUCCESS;
}

int rma_atomic(const RmaPeer &p, uint64_t addr, Atomic kind, uint64_t operand, uint64_t compare,
               uint64_t *old) {
    uint64_t before = 0;
    if (rma_direct(p)) {
        auto *word = static_cast<uint64_t *>(rma_pointer(p, addr));
        if (kind == Atomic::fadd) {
            before = __atomic_fetch_add(word, operand, __ATOMIC_SEQ_CST);
        } else if (kind == Atomic::swap) {
            before = __atomic_exchange_n(word, operand, __ATOMIC_SEQ_CST);
        } else {
            before = compare;
            __atomic_compare_exchange_n(word, &before, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        }
    } else if (long e = os::window_atomic(t_rma.get().key, p.cluster, p.key, addr,
                                          kinds[static_cast<int>(kind)], operand, compare, &before)) {
        return failed("window atomic", e);
    }
    if (old) *old = before;
    return MPI_SUCCESS;
}

void rma_backoff(int tries) {
    constexpr int yields = 4, max_shift = 8;
    Unlocked unlocked;  // my rank's other threads may call MPI meanwhile
    if (tries < yields) {
        os::yield();
        return;
    }
    const int shift = tries - yields < max_shift ? tries - yields : max_shift;
    os::sleep_ns(1000UL << shift);
}

void *rma_global(const void *p) { return os::global(p); }

void rma_finalize() {
    RmaState &s = t_rma.get();
    if (s.key > 0) os::window_free(s.key);
    s = RmaState{};
}

}  // namespace lwmpi::util
