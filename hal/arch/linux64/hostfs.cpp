// The host's files on linux64: the master's own system calls, relative to
// the cluster process's working folder, which mpirun makes the job's
// folder. openat2's RESOLVE_BENEATH refuses what would leave it (a
// symbolic link pointing out, on top of the kernel's path check).
#include <fcntl.h>

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

}  // namespace

long open(const char *path, unsigned flags) {
    // (openat2 refuses a mode without O_CREAT.)
    const uint64_t mode = flags & TS_O_CREAT ? 0644 : 0;
    OpenHow how{static_cast<uint64_t>(linux_flags(flags)), mode, resolve_beneath | resolve_no_magiclinks};
    long fd = host::sys(SYS_openat2, AT_FDCWD, reinterpret_cast<long>(path), reinterpret_cast<long>(&how),
                        sizeof how);
    if (fd == -ENOSYS)  // a Linux before 5.6: the kernel's path check alone
        fd = host::sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), linux_flags(flags), 0644);
    return fd;
}

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

long remove(const char *path) { return host::sys(SYS_unlinkat, AT_FDCWD, reinterpret_cast<long>(path), 0); }

long rename(const char *from, const char *to) {
    return host::sys(SYS_renameat, AT_FDCWD, reinterpret_cast<long>(from), AT_FDCWD,
                     reinterpret_cast<long>(to));
}

}  // namespace hal::hostfs
