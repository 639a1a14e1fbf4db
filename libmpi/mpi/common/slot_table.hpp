// A per-rank table of objects on the heap behind handle indexes, for the
// object kinds a program may hold by the thousand (communicators, groups:
// test suites hold over a thousand at once). The pointer array grows by
// doubling as the program holds more, up to Max, so a rank pays for the
// handles it holds, not for the most it may. Plain data, all-zero when
// empty, so that it can live in a RankLocal.
#pragma once

#include <mpi.h>
#include <stdlib.h>

namespace lwmpi {

template <typename T, int Max>
struct SlotTable {
    T **slots;  ///< nullptr until the first add
    int cap;    ///< entries of slots

    /// The object at index i, or nullptr (a free index, or out of range).
    T *at(int i) const { return i >= 0 && i < cap ? slots[i] : nullptr; }

    /// A new object, a copy of `init`, at the lowest free index >= first
    /// (into *index). MPI_ERR_NO_MEM when there is no memory for it, or
    /// Max indexes are in use.
    int add(int first, const T &init, int *index) {
        int i = first;
        while (i < cap && slots[i])
            ++i;
        if (i >= Max) return MPI_ERR_NO_MEM;
        if (i >= cap) {
            int grown = cap ? 2 * cap : 16;
            grown = grown > Max ? Max : grown;
            T **s = static_cast<T **>(realloc(slots, sizeof(T *) * static_cast<size_t>(grown)));
            if (!s) return MPI_ERR_NO_MEM;
            for (int k = cap; k < grown; ++k)
                s[k] = nullptr;
            slots = s;
            cap = grown;
        }
        T *obj = static_cast<T *>(malloc(sizeof(T)));
        if (!obj) return MPI_ERR_NO_MEM;
        *obj = init;
        slots[i] = obj;
        *index = i;
        return MPI_SUCCESS;
    }

    /// Frees the object at index i.
    void remove(int i) {
        free(slots[i]);
        slots[i] = nullptr;
    }

    /// Frees every object and the array (MPI_Finalize).
    void clear() {
        for (int i = 0; i < cap; ++i)
            free(slots[i]);
        free(slots);
        slots = nullptr;
        cap = 0;
    }
};

}  // namespace lwmpi
