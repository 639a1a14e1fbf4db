// RMA windows (MPI 3.1 chapter 11): the per-rank table behind MPI_Win
// handles, what every rank knows of the others' parts of a window, and
// the epochs the window is in. The memory moves through MPIUtil's
// one-sided transport (mpiutil/rma.hpp); win.cpp makes and frees windows,
// win_ops.cpp moves data, win_sync.cpp synchronizes.
#pragma once

#include <mpi.h>
#include <stdint.h>

#include <mpiutil/mpiutil.hpp>
#include <mpiutil/rma.hpp>
#include "pt2pt/request.hpp"

namespace lwmpi {

class Call;

struct Datatype;

/// Windows a rank may have at once (MPI_ERR_NO_MEM beyond); index 0 is
/// MPI_WIN_NULL's. The table, and the control blocks (control_chunk to an
/// exposed area, made as the indexes come into use), grow with the
/// windows a rank holds.
inline constexpr int max_wins = 4096;
inline constexpr int control_chunk = 64;
/// Regions MPI_Win_attach may add to one dynamic window.
inline constexpr int mask_words = util::max_ranks / 64;

/// LWMPI's words in a rank's part of a window, which the other ranks
/// update with remote atomics (uint64, 8-byte aligned). A rank's control
/// blocks lie in areas it exposes once, one block per window index.
struct WinControl {
    /// The accumulate lock: 0 when free, else the holder's rank + 1. An
    /// accumulate is a read-modify-write done by the origin while it holds
    /// the target's lock, so that MPI's operation and datatype code stays
    /// out of the kernel and accumulates are atomic per element (11.7.1).
    uint64_t acc_lock;
    /// The passive target lock (MPI_Win_lock): writer when held
    /// exclusively, else the number of shared holders.
    uint64_t lock;
    /// PSCW: MPI_Win_complete calls of the origins since the last wait.
    uint64_t completions;
    /// PSCW: bit r set when rank r of the window posted to the caller
    /// (MPI_Win_post), cleared by the caller's MPI_Win_start.
    uint64_t posts[mask_words];
};
inline constexpr uint64_t writer = uint64_t{1} << 63;

/// What a rank knows of rank r's part of a window (exchanged at creation).
struct WinPeer {
    util::RmaPeer at;  ///< how to reach its memory
    uint64_t base;     ///< its window's base address, in its address space
    uint64_t size;     ///< bytes
    uint64_t control;  ///< its WinControl for the window
    int32_t disp_unit;
    int32_t error;  ///< its part failed to be made (every rank then fails)
};

/// A set of ranks of a window's group, as a bit mask.
struct RankMask {
    uint64_t bits[mask_words];
    bool has(int r) const { return bits[r / 64] >> (r % 64) & 1; }
    void add(int r) { bits[r / 64] |= uint64_t{1} << (r % 64); }
};

/// The hints of section 11.2.1 a window was given (at its creation or by
/// MPI_Win_set_info), which MPI_Win_get_info reports. Each only allows an
/// implementation something (no locks, any order of accumulates...);
/// LWMPI keeps the default behaviour, which is right under every value.
struct WinHints {
    bool no_locks;
    bool same_size;
    bool same_disp_unit;
    bool alloc_shared_noncontig;
    char accumulate_ordering[16];  ///< "none", or some of "rar,raw,war,waw"
    char accumulate_ops[16];       ///< "same_op_no_op" or "same_op"
};

/// A region of memory attached to a dynamic window (section 11.2.4).
struct WinRegion {
    void *base;
    MPI_Aint size;
};

struct Win {
    MPI_Win handle;
    MPI_Comm comm;  ///< the window's own dup of the communicator it was made on
    int rank;       ///< the caller's rank in it
    int size;
    int flavor;  ///< MPI_WIN_FLAVOR_*
    void *base;
    MPI_Aint bytes;
    int disp_unit;
    WinHints hints;
    int model;                  ///< MPI_WIN_UNIFIED (the value of MPI_WIN_MODEL)
    void *owned;                ///< memory MPI_Win_free frees (the caller's pointer), or nullptr
    bool exposed;               ///< [base, base + bytes) is exposed to the others
    MPI_Errhandler errhandler;  ///< 0: MPI_ERRORS_ARE_FATAL
    char name[MPI_MAX_OBJECT_NAME];
    WinPeer *peers;    ///< by rank (heap)
    WinControl *ctrl;  ///< the caller's own control block for it
    // Epochs (section 11.5).
    bool fence;       ///< a fence opened an epoch (not ended by MPI_MODE_NOSUCCEED)
    bool fence_used;  ///< an operation was made since that fence
    bool posted;      ///< exposure epoch of MPI_Win_post, until MPI_Win_wait
    uint64_t post_count;
    bool started;  ///< access epoch of MPI_Win_start, until MPI_Win_complete
    RankMask start_group;
    uint8_t lock_all;  ///< MPI_Win_lock_all: 1, or 2 with MPI_MODE_NOCHECK (no lock taken)
    int nlocks;        ///< targets locked by MPI_Win_lock
    uint8_t *locks;    ///< by rank: 0, or 1 (shared), 2 (exclusive), 3 (MPI_MODE_NOCHECK: none taken) (heap)
    RankMask dirty;    ///< targets written to since their last flush
    int nattached;     ///< regions of a dynamic window (MPI_Win_attach)
    int attached_cap;
    WinRegion *attached;  ///< (heap) grown as regions are attached
};

/// The window named by `h`, or nullptr.
Win *win_get(MPI_Win h);

/// require_active(), then window `win` into *out; raises MPI_ERR_WIN (on
/// MPI_COMM_WORLD) when it is not valid.
int enter_win(const char *fn, MPI_Win win, Win **out);
/// The prologue of a call on window `win` (env/call.hpp): enter_win(),
/// then the call's errors go to the window.
int enter(Call &call, MPI_Win win, Win **out);

/// The value of predefined attribute `keyval` of window `w` (section
/// 11.2.6) into *value (MPI_WIN_BASE: the base itself; the others: a
/// pointer to it); false when keyval is none of them.
bool win_attr(const Win &w, int keyval, void **value);

/// Frees the caller's control area and IKC window (MPI_Finalize).
void win_finalize();

// ---- for win_ops.cpp and win_sync.cpp ----

/// Waits until done() (which may fail: an error class, < 0 while not
/// done), moving the rank's requests on between two looks so that
/// two-sided traffic keeps flowing, and backing off (the word it waits on
/// changes by another rank's hand, never by an event the rank could
/// sleep on: util::rma_backoff).
template <class Done>
int win_spin(Done done) {
    for (int tries = 0;; ++tries) {
        const int d = done();
        if (d >= 0) return d;
        if (int e = progress_requests()) return e;
        util::rma_backoff(tries);
    }
}

/// Takes and releases target t's accumulate lock.
int acc_lock(Win &w, int t);
int acc_unlock(Win &w, int t);

/// Makes every put of the caller to target t land (flush).
int win_flush_target(Win &w, int t);

/// MPI_SUCCESS when the caller may access target t now (an access epoch
/// to it is open, section 11.5), else MPI_ERR_RMA_SYNC.
int access_allowed(Win &w, int t);

/// A window rank set from group `g` (its ranks must all be in the
/// window): MPI_ERR_GROUP otherwise; *n gets the group's size.
int win_ranks(const Win &w, MPI_Group g, RankMask *out, int *n);

}  // namespace lwmpi
