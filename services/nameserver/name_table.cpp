#include "name_table.hpp"

namespace tessera::names {

int NameTable::link(const char *name, int cluster) {
    if (const int err = ts_name_check(name)) return err;
    if (cluster < 0 || cluster >= nclusters_) return -TS_EINVAL;
    if (map_.find(name)) return -TS_EEXIST;
    int *slot = map_.insert(name);
    if (!slot) return -TS_ENFILE;
    *slot = cluster;
    return 0;
}

int NameTable::lookup(const char *name) const {
    if (const int err = ts_name_check(name)) return err;
    const int *cluster = map_.find(name);
    return cluster ? *cluster : -TS_ENOENT;
}

int NameTable::unlink(const char *name) {
    if (const int err = ts_name_check(name)) return err;
    const int *cluster = map_.find(name);
    if (!cluster) return -TS_ENOENT;
    map_.erase(cluster);
    return 0;
}

int handle_request(NameTable &table, const ts_name_request &req) {
    // The name comes off the wire: ts_name_check reads no further than the
    // field, and an unterminated one is too long.
    switch (req.op) {
    case TS_NAME_LINK: return table.link(req.name, req.arg);
    case TS_NAME_LOOKUP: return table.lookup(req.name);
    case TS_NAME_UNLINK: return table.unlink(req.name);
    default: return -TS_EINVAL;
    }
}

}  // namespace tessera::names
