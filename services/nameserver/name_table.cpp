#include "name_table.hpp"

#include <string.h>

namespace tessera::names {

int NameTable::check_name(const char *name)
{
    if (!name)
        return -TS_EINVAL;
    const size_t len = strnlen(name, TS_NAME_MAX + 1);
    if (len == 0)
        return -TS_EINVAL;
    return len > TS_NAME_MAX ? -TS_ENAMETOOLONG : 0;
}

int NameTable::find(const char *name) const
{
    for (int i = 0; i < kCapacity; ++i)
        if (entries_[i].used && strcmp(entries_[i].name, name) == 0)
            return i;
    return -1;
}

int NameTable::link(const char *name, int cluster)
{
    if (const int err = check_name(name))
        return err;
    if (cluster < 0 || cluster >= nclusters_)
        return -TS_EINVAL;
    if (find(name) >= 0)
        return -TS_EEXIST;
    for (Entry &e : entries_) {
        if (!e.used) {
            e.used = true;
            e.cluster = cluster;
            strcpy(e.name, name);  // fits: check_name bounded it
            ++count_;
            return 0;
        }
    }
    return -TS_ENFILE;
}

int NameTable::lookup(const char *name) const
{
    if (const int err = check_name(name))
        return err;
    const int i = find(name);
    return i < 0 ? -TS_ENOENT : entries_[i].cluster;
}

int NameTable::unlink(const char *name)
{
    if (const int err = check_name(name))
        return err;
    const int i = find(name);
    if (i < 0)
        return -TS_ENOENT;
    entries_[i].used = false;
    --count_;
    return 0;
}

int handle_request(NameTable &table, const ts_name_request &req)
{
    // The name comes off the wire: it need not be NUL-terminated.
    if (strnlen(req.name, sizeof req.name) == sizeof req.name)
        return -TS_ENAMETOOLONG;
    switch (req.op) {
    case TS_NAME_LINK:
        return table.link(req.name, req.cluster);
    case TS_NAME_LOOKUP:
        return table.lookup(req.name);
    case TS_NAME_UNLINK:
        return table.unlink(req.name);
    default:
        return -TS_EINVAL;
    }
}

}  // namespace tessera::names
