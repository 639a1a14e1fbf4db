// A fixed-capacity map from names to values, shared by the name server's
// table (a user program), the local name daemon's table and cache (kernel
// code) and their host tests. It calls no C library string function, since
// the kernel is freestanding, and allocates nothing; a zero-initialised map
// is empty, so the kernel can keep one in a constant-initialised global.
#pragma once

#include <stddef.h>

#include <tessera/name_protocol.h>

namespace tessera::names {

/// name -> Value for up to N names. Every name given must have passed
/// ts_name_check. Value must be trivially copyable.
template <class Value, int N>
class NameMap {
public:
    /// The value of `name`, or nullptr.
    Value *find(const char *name) {
        const int i = index_of(name);
        return i < 0 ? nullptr : &entries_[i].value;
    }
    const Value *find(const char *name) const {
        const int i = index_of(name);
        return i < 0 ? nullptr : &entries_[i].value;
    }

    /// A new, zeroed value for `name`, which must not be in the map yet; nullptr when full.
    Value *insert(const char *name) {
        for (Entry &e : entries_) {
            if (e.used) continue;
            e = Entry{};
            e.used = true;
            for (size_t i = 0; name[i]; ++i)
                e.name[i] = name[i];
            ++count_;
            return &e.value;
        }
        return nullptr;
    }

    /// Removes the entry of `value` (as returned by find or insert).
    void erase(const Value *value) {
        for (Entry &e : entries_) {
            if (e.used && &e.value == value) {
                e.used = false;
                --count_;
                return;
            }
        }
    }

    /// Calls f(value) for every entry, in slot order.
    template <class F>
    void for_each(F f) {
        for (Entry &e : entries_)
            if (e.used) f(e.value);
    }
    template <class F>
    void for_each(F f) const {
        for (const Entry &e : entries_)
            if (e.used) f(e.value);
    }

    /// Names in the map.
    int size() const { return count_; }

private:
    struct Entry {
        bool used;
        char name[TS_NAME_MAX + 1];  // NUL-terminated
        Value value;
    };

    static bool same(const char *a, const char *b) {
        size_t i = 0;
        for (; a[i] && a[i] == b[i]; ++i) {}
        return a[i] == b[i];
    }

    int index_of(const char *name) const {
        for (int i = 0; i < N; ++i)
            if (entries_[i].used && same(entries_[i].name, name)) return i;
        return -1;
    }

    Entry entries_[N] = {};
    int count_ = 0;
};

}  // namespace tessera::names
