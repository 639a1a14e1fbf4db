// A table of T that grows in slabs, for LWMPI's request pools: entries are
// found by index (request queues and tokens link them by index) and never
// move, so indices and pointers stay valid as the table grows. The first
// slab is part of the pool object; the others are allocated with malloc
// only when every entry is taken, so a program that keeps few requests in
// flight allocates nothing, and one that posts thousands (osu_bw's window,
// receives posted before any send) is served.
#pragma once

#include <stdint.h>
#include <stdlib.h>

#include <new>

namespace lwmpi::util {

/// Slab entries are T{} when the slab is made. At most MaxEntries entries
/// (a multiple of SlabSize). All-zero memory is an empty pool (MPIUtil's
/// rank state is cleared with memset).
template <class T, int SlabSize, int MaxEntries>
class SlabPool {
    static_assert(MaxEntries % SlabSize == 0, "whole slabs");

public:
    /// Entry i, 0 <= i < size().
    T &operator[](int i) { return i < SlabSize ? first_[i] : slabs_[i / SlabSize][i % SlabSize]; }
    const T &operator[](int i) const { return const_cast<SlabPool &>(*this)[i]; }
    /// Entries made so far.
    int size() const { return SlabSize + grown_; }

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
        if (size() >= MaxEntries) return -1;
        T *slab = static_cast<T *>(malloc(sizeof(T) * SlabSize));
        if (!slab) return -1;
        for (int i = 0; i < SlabSize; ++i)
            new (&slab[i]) T{};
        hint_ = size();
        slabs_[hint_ / SlabSize] = slab;
        grown_ += SlabSize;
        return hint_;
    }

private:
    // No constructor or destructor of its own, so that a pool can be
    // thread_local on the target; its slabs last as long as the thread.
    T first_[SlabSize];
    T *slabs_[MaxEntries / SlabSize];  ///< [0] unused: the first slab is first_
    int grown_;                        ///< entries in slabs_
    int hint_;
};

/// Frees every node of the heap list at `head` (linked through `next`);
/// `head` ends up nullptr.
template <class T>
void free_all(T *&head) {
    while (T *n = head) {
        head = n->next;
        free(n);
    }
}

/// Heap nodes of one size that one thread reuses, so that steady traffic
/// allocates nothing: a node given back is kept for the next take. T links
/// through its `next` field. All-zero memory is an empty list.
template <class T>
struct SpareList {
    T *head;

    /// A spare node, else a new one of `bytes` bytes (counted in
    /// *allocations); nullptr when out of memory.
    T *take(size_t bytes, uint64_t *allocations) {
        if (T *n = head) {
            head = n->next;
            return n;
        }
        T *n = static_cast<T *>(malloc(bytes));
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
            free(n);
    }
    /// Frees every spare node.
    void drop() { free_all(head); }
};

}  // namespace lwmpi::util
