// The kernel calls that reach the host's files (TS_SYS_HOSTFS_*), for the
// file server on an I/O cluster (docs/services.md, "Files"). The HAL does
// the platform's part (hal::hostfs); here every call is checked: only a
// process of an I/O cluster may make it, a path must stay inside the job's
// folder (ts_path_check), and a handle is an index into this cluster's
// table, usable only by the process that opened it, so no process reaches
// another's host files, or the kernel's own (on linux64, its fds). Served
// by the master, one at a time: the table and the bounce buffer are its.
#include <string.h>

#include "kernel.hpp"
#include <tessera/file_protocol.h>

namespace kernel {

struct HostFile {
    Process *owner = nullptr;  ///< nullptr: free
    long host = -1;            ///< the HAL's handle
    unsigned flags = 0;        ///< the TS_O_* it was opened with
};

namespace {

constexpr int max_handles = 256;  // a file per rank of a full mppa256 job, and more

/// Data goes through the kernel in pieces of this size, so the HAL sees
/// kernel memory only (linux64 mirrors a user page on first touch; QEMU's
/// semihosting would have to walk the user's page tables). A quarter of a
/// request's TS_FILE_CHUNK: fewer host calls a request (each a seek and a
/// transfer on QEMU), for 256 KiB of the I/O cluster's memory.
constexpr size_t bounce_size = 256 * 1024;

/// The table and the bounce buffer: I/O clusters only (hostfs_init), so
/// that a small compute cluster does not pay for them.
struct HostFs {
    HostFile files[max_handles];
    alignas(16) char bounce[bounce_size];
};
// mpirun's memory check counts these bytes (tools/tessera/fit.py,
// HOSTFS_BYTES): change both together.
static_assert(sizeof(HostFile) == 24 && bounce_size == 256 * 1024);
HostFs *fs;

bool on_io_cluster() { return hal::cluster_id() < static_cast<int>(hal::manifest().nio_clusters); }

/// Copies a checked user path into path (NUL-terminated) and checks it:
/// 0 or -TS_E*.
long take_path(kcall::UserIn user, char (&path)[TS_PATH_MAX + 1]) {
    if (user.size > TS_PATH_MAX) return -TS_ENAMETOOLONG;
    memcpy(path, user.data, user.size);
    path[user.size] = 0;
    return ts_path_check(path, user.size);
}

}  // namespace

long decode_file(int handle, HostFile *&out) {
    out = nullptr;
    if (!on_io_cluster()) return -TS_EPERM;
    if (handle < 0 || handle >= max_handles || !fs->files[handle].owner ||
        fs->files[handle].owner != current_process())
        return -TS_EBADF;
    out = &fs->files[handle];
    return 0;
}

long sys_hostfs_open(const hostfs_open_args &a, Call &) {
    if (!on_io_cluster()) return -TS_EPERM;
    char path[TS_PATH_MAX + 1];
    if (long err = take_path(a.path, path)) return err;
    if (a.flags & ~static_cast<unsigned>(TS_O_ACCMODE | TS_O_CREAT | TS_O_EXCL | TS_O_TRUNC | TS_O_APPEND) ||
        (a.flags & TS_O_ACCMODE) == TS_O_ACCMODE)
        return -TS_EINVAL;
    for (int h = 0; h < max_handles; ++h) {
        if (fs->files[h].owner) continue;
        const long host = hal::hostfs::open(path, a.flags);
        if (host < 0) return host;
        fs->files[h] = {current_process(), host, a.flags};
        return h;
    }
    return -TS_ENFILE;
}

long sys_hostfs_close(const hostfs_close_args &a, Call &) {
    const long r = hal::hostfs::close(a.handle->host);
    *a.handle = {};
    return r;
}

// Through the bounce buffer, piece by piece, until a short read (the end).
// The master serves one call at a time, so the buffer checked by this
// attempt's decoding stays mapped while it runs.
long sys_hostfs_read(const hostfs_read_args &a, Call &) {
    const size_t len = a.buf.size;
    char *buf = static_cast<char *>(a.buf.data);
    size_t done = 0;
    while (done < len) {
        const size_t want = len - done < bounce_size ? len - done : bounce_size;
        const long n = hal::hostfs::read(a.handle->host, fs->bounce, want, a.offset + done);
        if (n < 0) return done ? static_cast<long>(done) : n;
        memcpy(buf + done, fs->bounce, static_cast<size_t>(n));
        done += static_cast<size_t>(n);
        if (static_cast<size_t>(n) < want) break;
    }
    return static_cast<long>(done);
}

long sys_hostfs_write(const hostfs_write_args &a, Call &) {
    const size_t len = a.buf.size;
    const char *buf = static_cast<const char *>(a.buf.data);
    size_t done = 0;
    while (done < len) {
        const size_t piece = len - done < bounce_size ? len - done : bounce_size;
        memcpy(fs->bounce, buf + done, piece);
        const long n = hal::hostfs::write(a.handle->host, fs->bounce, piece, a.offset + done);
        if (n < 0) return done ? static_cast<long>(done) : n;
        done += static_cast<size_t>(n);
        if (static_cast<size_t>(n) < piece) break;
    }
    return static_cast<long>(done);
}

long sys_hostfs_size(const hostfs_size_args &a, Call &) { return hal::hostfs::size(a.handle->host); }

// Checked here, not left to the host: on QEMU the HAL reaches the file
// by a path of its own, which a read-only handle does not restrict.
long sys_hostfs_truncate(const hostfs_truncate_args &a, Call &) {
    if ((a.handle->flags & TS_O_ACCMODE) == TS_O_RDONLY) return -TS_EINVAL;
    return hal::hostfs::truncate(a.handle->host, a.size);
}

long sys_hostfs_sync(const hostfs_sync_args &a, Call &) { return hal::hostfs::sync(a.handle->host); }

long sys_hostfs_unlink(const hostfs_unlink_args &a, Call &) {
    if (!on_io_cluster()) return -TS_EPERM;
    char path[TS_PATH_MAX + 1];
    if (long err = take_path(a.path, path)) return err;
    return hal::hostfs::remove(path);
}

long sys_hostfs_rename(const hostfs_rename_args &a, Call &) {
    if (!on_io_cluster()) return -TS_EPERM;
    char from[TS_PATH_MAX + 1], to[TS_PATH_MAX + 1];
    if (long err = take_path(a.from, from)) return err;
    if (long err = take_path(a.to, to)) return err;
    return hal::hostfs::rename(from, to);
}

long sys_hostfs_stat(const hostfs_stat_args &a, Call &) {
    if (!on_io_cluster()) return -TS_EPERM;
    char path[TS_PATH_MAX + 1];
    if (long err = take_path(a.path, path)) return err;
    uint64_t size = 0;
    const long type = hal::hostfs::stat(path, &size);
    if (type >= 0) *a.size = size;
    return type;
}

long sys_hostfs_mkdir(const hostfs_mkdir_args &a, Call &) {
    if (!on_io_cluster()) return -TS_EPERM;
    char path[TS_PATH_MAX + 1];
    if (long err = take_path(a.path, path)) return err;
    return hal::hostfs::mkdir(path);
}

long sys_hostfs_rmdir(const hostfs_rmdir_args &a, Call &) {
    if (!on_io_cluster()) return -TS_EPERM;
    char path[TS_PATH_MAX + 1];
    if (long err = take_path(a.path, path)) return err;
    return hal::hostfs::rmdir(path);
}

// Into the bounce buffer, then the caller's: the HAL sees kernel memory only.
long sys_hostfs_list(const hostfs_list_args &a, Call &) {
    if (!on_io_cluster()) return -TS_EPERM;
    char path[TS_PATH_MAX + 1];
    if (long err = take_path(a.path, path)) return err;
    static_assert(sizeof a.out->bytes <= bounce_size);
    const long n = hal::hostfs::list(path, a.first, fs->bounce, sizeof a.out->bytes);
    if (n > 0) memcpy(a.out->bytes, fs->bounce, static_cast<size_t>(n));
    return n;
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
