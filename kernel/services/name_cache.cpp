#include "name_cache.hpp"

namespace tessera::names {

bool NameCache::find(const char *name, Address *out) {
    Entry *e = map_.find(name);
    if (!e) return false;
    e->last_use = ++clock_;
    *out = e->addr;
    return true;
}

void NameCache::put(const char *name, Address addr) {
    Entry *e = map_.find(name);
    if (!e && map_.size() == capacity) map_.erase(least_recently_used());
    if (!e) e = map_.insert(name);  // there is room now
    *e = Entry{addr, ++clock_};
}

NameCache::Entry *NameCache::least_recently_used() {
    Entry *oldest = nullptr;
    map_.for_each([&](Entry &e) {
        if (!oldest || e.last_use < oldest->last_use) oldest = &e;
    });
    return oldest;
}

}  // namespace tessera::names
