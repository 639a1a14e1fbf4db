// The kernel calls that reach the host's files (TS_SYS_HOSTFS_*), for the
// file server on an I/O cluster (docs/services.md, "Files"). The HAL does
// the platform's part (hal::hostfs); here every call is checked: only a
// process of an I/O cluster may make it, a path must stay inside the job's
// folder (ts_path_check), and a handle is an index into this cluster's
// table, usable only by the process that opened it, so no process reaches
// another's host files, or the kernel's own (on linux64, its fds). Served
// by the master, one at a time: the table and the bounce buffer are its.
#include "kernel.hpp"
#include <tessera/file_protocol.h>

namespace kernel {
namespace {

constexpr int max_handles = 256;  // a file per rank of a full mppa256 job, and more

struct HostFile {
    Process *owner = nullptr;  ///< nullptr: free
    long host = -1;            ///< the HAL's handle
};

/// Data goes through the kernel in pieces of this size, so the HAL sees
/// kernel memory only (linux64 mirrors a user page on first touch; QEMU's
/// semihosting would have to walk the user's page tables).
constexpr size_t bounce_size = 16 * 1024;

/// The table and the bounce buffer: I/O clusters only (hostfs_init), so
/// that a small compute cluster does not pay for them.
struct HostFs {
    HostFile files[max_handles];
    alignas(16) char bounce[bounce_size];
};
HostFs *fs;

bool on_io_cluster() { return hal::cluster_id() < static_cast<int>(hal::manifest().nio_clusters); }

/// Copies a user path of len bytes into path (NUL-terminated) and checks
/// it: 0 or -TS_E*.
long take_path(uint64_t user, uint64_t len, char (&path)[TS_PATH_MAX + 1]) {
    if (len > TS_PATH_MAX) return -TS_ENAMETOOLONG;
    if (long err = copy_from_user(path, user, len)) return err;
    path[len] = 0;
    return ts_path_check(path, len);
}

/// The caller's open handle `h`, or nullptr.
HostFile *lookup(uint64_t h) {
    if (h >= max_handles || fs->files[h].owner != current_process() || !fs->files[h].owner) return nullptr;
    return &fs->files[h];
}

}  // namespace

long sys_hostfs_open(Call &c) {
    if (!on_io_cluster()) return -TS_EPERM;
    char path[TS_PATH_MAX + 1];
    if (long err = take_path(c.a[0], c.a[1], path)) return err;
    if (c.a[2] & ~static_cast<uint64_t>(TS_O_ACCMODE | TS_O_CREAT | TS_O_EXCL | TS_O_TRUNC | TS_O_APPEND) ||
        (c.a[2] & TS_O_ACCMODE) == TS_O_ACCMODE)
        return -TS_EINVAL;
    for (int h = 0; h < max_handles; ++h) {
        if (fs->files[h].owner) continue;
        const long host = hal::hostfs::open(path, static_cast<unsigned>(c.a[2]));
        if (host < 0) return host;
        fs->files[h] = {current_process(), host};
        return h;
    }
    return -TS_ENFILE;
}

long sys_hostfs_close(Call &c) {
    if (!on_io_cluster()) return -TS_EPERM;
    HostFile *f = lookup(c.a[0]);
    if (!f) return -TS_EBADF;
    const long r = hal::hostfs::close(f->host);
    *f = {};
    return r;
}

// Through the bounce buffer, piece by piece, until a short read (the end).
long sys_hostfs_read(Call &c) {
    if (!on_io_cluster()) return -TS_EPERM;
    HostFile *f = lookup(c.a[0]);
    if (!f) return -TS_EBADF;
    const uint64_t buf = c.a[1], len = c.a[2], offset = c.a[3];
    if (long err = check_user(buf, len, true)) return err;
    uint64_t done = 0;
    while (done < len) {
        const size_t want = len - done < bounce_size ? len - done : bounce_size;
        const long n = hal::hostfs::read(f->host, fs->bounce, want, offset + done);
        if (n < 0) return done ? static_cast<long>(done) : n;
        if (long err = copy_to_user(buf + done, fs->bounce, static_cast<size_t>(n))) return err;
        done += static_cast<uint64_t>(n);
        if (static_cast<size_t>(n) < want) break;
    }
    return static_cast<long>(done);
}

long sys_hostfs_write(Call &c) {
    if (!on_io_cluster()) return -TS_EPERM;
    HostFile *f = lookup(c.a[0]);
    if (!f) return -TS_EBADF;
    const uint64_t buf = c.a[1], len = c.a[2], offset = c.a[3];
    if (long err = check_user(buf, len, false)) return err;
    uint64_t done = 0;
    while (done < len) {
        const size_t piece = len - done < bounce_size ? len - done : bounce_size;
        if (long err = copy_from_user(fs->bounce, buf + done, piece)) return err;
        const long n = hal::hostfs::write(f->host, fs->bounce, piece, offset + done);
        if (n < 0) return done ? static_cast<long>(done) : n;
        done += static_cast<uint64_t>(n);
        if (static_cast<size_t>(n) < piece) break;
    }
    return static_cast<long>(done);
}

long sys_hostfs_size(Call &c) {
    if (!on_io_cluster()) return -TS_EPERM;
    HostFile *f = lookup(c.a[0]);
    return f ? hal::hostfs::size(f->host) : -TS_EBADF;
}

long sys_hostfs_unlink(Call &c) {
    if (!on_io_cluster()) return -TS_EPERM;
    char path[TS_PATH_MAX + 1];
    if (long err = take_path(c.a[0], c.a[1], path)) return err;
    return hal::hostfs::remove(path);
}

long sys_hostfs_rename(Call &c) {
    if (!on_io_cluster()) return -TS_EPERM;
    char from[TS_PATH_MAX + 1], to[TS_PATH_MAX + 1];
    if (long err = take_path(c.a[0], c.a[1], from)) return err;
    if (long err = take_path(c.a[2], c.a[3], to)) return err;
    return hal::hostfs::rename(from, to);
}

void hostfs_init() {
    if (!on_io_cluster()) return;
    fs = static_cast<HostFs *>(boot_alloc(sizeof(HostFs)));
    if (!fs) panic("no room for the host files' table");
}

void hostfs_release(Process *p) {
    if (!fs) return;
    for (HostFile &f : fs->files)
        if (f.owner == p) {
            hal::hostfs::close(f.host);
            f = {};
        }
}

}  // namespace kernel
