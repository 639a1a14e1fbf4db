// The name server's table and request handling, with no OS calls so the
// host tests can check them.
#pragma once

#include <tessera/name_map.hpp>

namespace tessera::names {

/// name -> cluster, for up to capacity names of 1..TS_NAME_MAX characters
/// (room for every rank of a full MPPA-256 job, 256, and as many others).
class NameTable {
public:
    static constexpr int capacity = 512;

    /// Clusters are 0..nclusters-1.
    explicit NameTable(int nclusters) : nclusters_(nclusters) {}

    /// 0 | -TS_EEXIST | -TS_ENAMETOOLONG | -TS_EINVAL | -TS_ENFILE (full).
    int link(const char *name, int cluster);
    /// The cluster of `name` | -TS_ENOENT | -TS_ENAMETOOLONG | -TS_EINVAL.
    int lookup(const char *name) const;
    /// 0 | -TS_ENOENT | -TS_ENAMETOOLONG | -TS_EINVAL.
    int unlink(const char *name);
    /// Names linked now.
    int size() const { return map_.size(); }

private:
    int nclusters_;
    NameMap<int, capacity> map_;
};

/// Serves one request: the result to send back (-TS_EINVAL for a bad op).
int handle_request(NameTable &table, const ts_name_request &req);

}  // namespace tessera::names
