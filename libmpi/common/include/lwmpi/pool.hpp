// A table of T that grows in slabs, for LWMPI's request pools: entries are
// found by index (request queues and tokens link them by index) and never
// move, so indices and pointers stay valid as the table grows. A pool
// holds no entries until its first use: its slabs, and the table of
// pointers to them (doubled when full), come from malloc as requests are
// taken, so a rank pays for the requests it keeps in flight at once and
// one that posts thousands (osu_bw's window, receives posted before any
// send) is served. A slab once made stays until release().
#pragma once

#include <stdint.h>
#include <stdlib.h>

#include <new>

namespace lwmpi::util {

/// Slab entries are T{} when the slab is made, and T{} must be a free
/// entry. At most MaxEntries entries (a multiple of SlabSize, a power of
/// two). All-zero memory is an empty pool (MPIUtil's rank state is
/// cleared with memset).
template <class T, int SlabSize, int MaxEntries>
class SlabPool {
    static_assert(SlabSize > 0 && (SlabSize & (SlabSize - 1)) == 0, "a power of two: indexing shifts");
    static_assert(MaxEntries % SlabSize == 0, "whole slabs");
    static constexpr int max_slabs = MaxEntries / SlabSize;

public:
    /// Entry i, 0 <= i < size().
    T &operator[](int i) { return slabs_[i / SlabSize][i % SlabSize]; }
    const T &operator[](int i) const { return slabs_[i / SlabSize][i % SlabSize]; }
    /// Entries made so far.
    int size() const { return nslabs_ * SlabSize; }

    /// The index of an entry for which `is_free` holds, searched from
    /// where the last search ended and from `first` on (entries below it
    /// are not given out); the table grows by a slab when none is free. -1
    /// when it is at MaxEntries or out of memory.
    template <class F>
    int find_free(int first, F is_free) {
        const int span = size() - first;
        const int start = hint_ < first ? 0 : hint_ - first;
        for (int n = 0; n < span; ++n) {
            const int i = first + (start + n) % span;
            if (is_free((*this)[i])) return hint_ = i;
        }
        for (;;) {  // a fresh slab's entries are all free
            const int made = size();
            if (!grow()) return -1;
            if (first < size()) return hint_ = first > made ? first : made;
        }
    }

    /// Frees every slab and the slab table: the pool is empty again (no
    /// index is valid). Call when no entry is in use any more.
    void release() {
        for (int k = 0; k < nslabs_; ++k)
            free(slabs_[k]);
        free(slabs_);
        slabs_ = nullptr;
        nslabs_ = cap_ = hint_ = 0;
    }

private:
    // Adds a slab; false when the pool is full or out of memory.
    bool grow() {
        if (nslabs_ == max_slabs) return false;
        if (nslabs_ == cap_) {
            const int cap =
                cap_ ? (2 * cap_ < max_slabs ? 2 * cap_ : max_slabs) : (max_slabs < 4 ? max_slabs : 4);
            auto *table = static_cast<T **>(realloc(slabs_, sizeof(T *) * static_cast<size_t>(cap)));
            if (!table) return false;
            slabs_ = table;
            cap_ = cap;
        }
        T *slab = static_cast<T *>(malloc(sizeof(T) * SlabSize));
        if (!slab) return false;
        for (int i = 0; i < SlabSize; ++i)
            new (&slab[i]) T{};
        slabs_[nslabs_++] = slab;
        return true;
    }

    // No constructor or destructor of its own, so that a pool can be
    // thread_local (RankLocal) on the target.
    T **slabs_;  ///< cap_ entries (heap), the first nslabs_ in use
    int nslabs_;
    int cap_;
    int hint_;
};

/// Where heap nodes come from: malloc() and free(). A Heap of nodes kept
/// in another form than malloc's (the local path's blocks, global forms)
/// gives the same two functions.
struct Malloc {
    static void *allocate(size_t bytes) { return malloc(bytes); }
    static void release(void *p) { free(p); }
};

/// Frees every node of the list at `head` (linked through `next`) into
/// Heap; `head` ends up nullptr.
template <class Heap = Malloc, class T>
void free_all(T *&head) {
    while (T *n = head) {
        head = n->next;
        Heap::release(n);
    }
}

/// Heap nodes of one size that one rank reuses, so that steady traffic
/// allocates nothing: a node given back is kept for the next take. T links
/// through its `next` field. All-zero memory is an empty list.
template <class T, class Heap = Malloc>
struct SpareList {
    T *head;

    /// A spare node, else a new one of `bytes` bytes (counted in
    /// *allocations); nullptr when out of memory.
    T *take(size_t bytes, uint64_t *allocations) {
        if (T *n = head) {
            head = n->next;
            return n;
        }
        T *n = static_cast<T *>(Heap::allocate(bytes));
        if (n) ++*allocations;
        return n;
    }
    void give(T *n) {
        n->next = head;
        head = n;
    }
    /// Gives back `n` when it is of the list's size (`ours`), else frees it.
    void give_or_free(T *n, bool ours) {
        if (ours)
            give(n);
        else
            Heap::release(n);
    }
    /// Frees every spare node.
    void drop() { free_all<Heap>(head); }
};

}  // namespace lwmpi::util
