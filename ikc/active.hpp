// The active table: one entry per hardware NoC connection in use.
//
// Virtual mailboxes and portals (the virtual tables) are mapped N:1 onto
// these entries through their logical ports: an input on port p uses the
// cluster's hardware input p % (its count); an output to (c, p) uses
// hardware input p % (c's count) of cluster c. An entry lives while at least
// one virtual abstraction is attached to it, and carries at most the
// profile's `virtual_per_hw` of them. It also holds the lock under which its
// virtual abstractions take turns on the hardware: a transfer that needs the
// resource for more than one step (a portal read, from the allow to the
// last chunk) holds it; the others wait.
//
// Pure logic (no hardware access), so the host tests can check it.
#pragma once

#include <stddef.h>

#include <tessera/syscall.h>

namespace kernel::ikc {

/// Which hardware connection an entry stands for.
struct ActiveKey {
    int kind;     ///< Kind::mailbox or Kind::portal (as int)
    bool input;   ///< our input resource, or an output to a remote one
    int cluster;  ///< the cluster whose input resource it is
    int hw;       ///< index of that cluster's hardware resource
    bool operator==(const ActiveKey &) const = default;
};

template <int N>
class ActiveTable {
public:
    /// Attaches one more virtual abstraction to the entry for `key` (made
    /// if needed): its index, or -TS_ENFILE when the table is full or the
    /// entry already carries `limit` virtual abstractions.
    int attach(const ActiveKey &key, int limit) {
        int free = -1;
        for (int i = 0; i < N; ++i) {
            Entry &e = entries_[i];
            if (e.refs > 0 && e.key == key) {
                if (e.refs >= limit) return -TS_ENFILE;
                ++e.refs;
                return i;
            }
            if (e.refs == 0 && free < 0) free = i;
        }
        if (free < 0) return -TS_ENFILE;
        entries_[free] = Entry{key, 1, 0};
        return free;
    }

    /// Detaches one virtual abstraction; the entry goes with the last one.
    void detach(int index) {
        Entry &e = entries_[index];
        if (e.refs > 0 && --e.refs == 0) e = Entry{};
    }

    /// Takes the entry's lock for `who` (> 0); true when `who` holds it.
    /// A refusal marks the lock contended.
    bool lock(int index, int who) {
        Entry &e = entries_[index];
        if (e.holder != 0 && e.holder != who) {
            e.contended = true;
            return false;
        }
        e.holder = who;
        return true;
    }

    /// Gives the lock back if `who` holds it: true when somebody was
    /// refused it meanwhile (and may now retry).
    bool unlock(int index, int who) {
        Entry &e = entries_[index];
        if (e.holder != who) return false;
        e.holder = 0;
        const bool contended = e.contended;
        e.contended = false;
        return contended;
    }

    /// Virtual abstractions attached to entry `index`, and entries in use.
    int refs(int index) const { return entries_[index].refs; }
    int in_use() const {
        int n = 0;
        for (const Entry &e : entries_)
            n += e.refs > 0;
        return n;
    }

private:
    struct Entry {
        ActiveKey key{};
        int refs = 0;
        int holder = 0;          ///< who holds the lock (0: nobody)
        bool contended = false;  ///< somebody was refused the lock since it was taken
    };
    Entry entries_[N];
};

}  // namespace kernel::ikc
