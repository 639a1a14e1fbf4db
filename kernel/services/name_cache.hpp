// The local name daemon's cache of remote resolutions, with no OS calls so
// the host tests can check it.
#pragma once

#include <stdint.h>

#include <tessera/name_map.hpp>

namespace tessera::names {

/// A logical address: a port of a cluster.
struct Address {
    int cluster;
    int port;
};

/// name -> Address for up to capacity names; when full, a new name takes
/// the place of the least recently used one (found or put). Names must
/// have passed ts_name_check. Zero-initialised, it is empty.
class NameCache {
public:
    static constexpr int capacity = 16;

    /// The cached address of `name` in *out (which becomes the most
    /// recently used entry): true, or false when it is not cached.
    bool find(const char *name, Address *out);
    /// Caches name -> addr (replacing what `name` had).
    void put(const char *name, Address addr);
    /// Names cached now.
    int size() const { return map_.size(); }

private:
    struct Entry {
        Address addr;
        uint64_t last_use;  ///< clock_ at the last find or put
    };

    Entry *least_recently_used();

    NameMap<Entry, capacity> map_;
    uint64_t clock_ = 0;
};

}  // namespace tessera::names
