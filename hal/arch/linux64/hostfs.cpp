// The host's files on linux64: the master's own system calls, relative to
// the cluster process's working folder, which mpirun makes the job's
// folder. openat2's RESOLVE_BENEATH refuses what would leave it (a
// symbolic link pointing out, on top of the kernel's path check).
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "linux.hpp"
#include <tessera/file_protocol.h>

namespace hal::hostfs {
namespace {

// openat2(2)'s argument (linux/openat2.h), and the flags we use.
struct OpenHow {
    uint64_t flags, mode, resolve;
};
constexpr uint64_t resolve_no_magiclinks = 0x02, resolve_beneath = 0x08;

// TS_O_* are Linux's numbers; O_APPEND is left out (a write gives its
// offset), and no handle outlives the cluster in a child.
long linux_flags(unsigned flags) {
    return (flags & (TS_O_ACCMODE | TS_O_CREAT | TS_O_EXCL | TS_O_TRUNC)) | O_CLOEXEC;
}

// Opens path with Linux's open flags, beneath the working folder.
long open_beneath(const char *path, long flags) {
    // (openat2 refuses a mode without O_CREAT.)
    const uint64_t mode = flags & O_CREAT ? 0644 : 0;
    OpenHow how{static_cast<uint64_t>(flags), mode, resolve_beneath | resolve_no_magiclinks};
    long fd = host::sys(SYS_openat2, AT_FDCWD, reinterpret_cast<long>(path), reinterpret_cast<long>(&how),
                        sizeof how);
    if (fd == -ENOSYS)  // a Linux before 5.6: the kernel's path check alone
        fd = host::sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), flags, 0644);
    return fd;
}

// getdents64(2)'s record.
struct Dirent64 {
    uint64_t ino;
    int64_t off;
    uint16_t reclen;
    uint8_t type;
    char name[];
};

// A LIST entry's type for getdents64's d_type.
char entry_type(uint8_t d_type) {
    constexpr uint8_t dt_dir = 4, dt_reg = 8;
    return d_type == dt_dir ? TS_FILE_TYPE_DIR : d_type == dt_reg ? TS_FILE_TYPE_FILE : TS_FILE_TYPE_OTHER;
}

bool dot_or_dot_dot(const char *name) {
    return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0));
}

}  // namespace

long open(const char *path, unsigned flags) { return open_beneath(path, linux_flags(flags)); }

long close(long handle) { return host::sys(SYS_close, handle); }

long read(long handle, void *buf, size_t n, uint64_t offset) {
    long r;
    do
        r = host::sys(SYS_pread64, handle, reinterpret_cast<long>(buf), static_cast<long>(n),
                      static_cast<long>(offset));
    while (r == -EINTR);
    return r;
}

long write(long handle, const void *buf, size_t n, uint64_t offset) {
    long r;
    do
        r = host::sys(SYS_pwrite64, handle, reinterpret_cast<long>(buf), static_cast<long>(n),
                      static_cast<long>(offset));
    while (r == -EINTR);
    return r;
}

long size(long handle) {
    constexpr long seek_end = 2;  // lseek(2)'s SEEK_END
    return host::sys(SYS_lseek, handle, 0, seek_end);
}

long truncate(long handle, uint64_t size) {
    long r;
    do
        r = host::sys(SYS_ftruncate, handle, static_cast<long>(size));
    while (r == -EINTR);
    return r;
}

long sync(long handle) { return host::sys(SYS_fsync, handle); }

long remove(const char *path) { return host::sys(SYS_unlinkat, AT_FDCWD, reinterpret_cast<long>(path), 0); }

long rename(const char *from, const char *to) {
    return host::sys(SYS_renameat, AT_FDCWD, reinterpret_cast<long>(from), AT_FDCWD,
                     reinterpret_cast<long>(to));
}

long stat(const char *path, uint64_t *size) {
    const long fd = open_beneath(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return fd;
    struct stat st {};
    const long r = host::sys(SYS_fstat, fd, reinterpret_cast<long>(&st));
    host::sys(SYS_close, fd);
    if (r < 0) return r;
    *size = static_cast<uint64_t>(st.st_size);
    return S_ISDIR(st.st_mode)   ? TS_FILE_TYPE_DIR
           : S_ISREG(st.st_mode) ? TS_FILE_TYPE_FILE
                                 : TS_FILE_TYPE_OTHER;
}

// Runs at(fd, name) with the folder that holds path's last component
// opened beneath the working folder (so that no symbolic link on the way
// leads out of it) and that component's name.
template <class At>
long in_parent(const char *path, At at) {
    const char *name = path;  // after the last '/'
    for (const char *c = path; *c; ++c)
        if (*c == '/') name = c + 1;
    const size_t parent_len = name > path ? static_cast<size_t>(name - path - 1) : 0;
    if (parent_len > TS_PATH_MAX) return -TS_ENAMETOOLONG;
    char parent[TS_PATH_MAX + 1] = ".";
    if (name > path) {
        memcpy(parent, path, parent_len);
        parent[parent_len] = 0;
    }
    const long fd = open_beneath(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return fd;
    const long r = at(fd, name);
    host::sys(SYS_close, fd);
    return r;
}

long mkdir(const char *path) {
    return in_parent(path, [](long fd, const char *name) {
        return host::sys(SYS_mkdirat, fd, reinterpret_cast<long>(name), 0755);
    });
}

long rmdir(const char *path) {
    return in_parent(path, [](long fd, const char *name) {
        return host::sys(SYS_unlinkat, fd, reinterpret_cast<long>(name), AT_REMOVEDIR);
    });
}

// The whole folder from its start each time, skipping `first` entries:
// a listing is stateless, as the file server's LIST is.
long list(const char *path, uint64_t first, char *buf, size_t size) {
    const long fd = open_beneath(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return fd;
    alignas(8) static char records[4096];  // the master serves one call at a time
    uint64_t index = 0;
    size_t used = 0;
    long n;
    bool full = false;
    while (!full &&
           (n = host::sys(SYS_getdents64, fd, reinterpret_cast<long>(records), sizeof records)) > 0) {
        for (long at = 0; at < n;) {
            const auto *d = reinterpret_cast<const Dirent64 *>(records + at);
            at += d->reclen;
            if (dot_or_dot_dot(d->name) || index++ < first) continue;
            size_t len = 0;
            while (d->name[len])
                ++len;
            if (used + len + 2 > size) {
                full = true;
                break;
            }
            buf[used] = entry_type(d->type);
            memcpy(buf + used + 1, d->name, len + 1);
            used += len + 2;
        }
    }
    host::sys(SYS_close, fd);
    return used || n >= 0 ? static_cast<long>(used) : n;
}

}  // namespace hal::hostfs
