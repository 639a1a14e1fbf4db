// The host's files on qemu-riscv64: RISC-V semihosting (the RISC-V
// semihosting spec, which takes the Arm semihosting operations). mpirun
// runs QEMU in the job's folder with semihosting for S-mode only
// (-semihosting-config enable=on,target=native,userspace=off), so a path
// the kernel has checked (relative, no "..") names a file of that folder,
// and user code cannot make the call itself.
#include "hal/hal.hpp"
#include <tessera/file_protocol.h>

namespace hal::hostfs {
namespace {

// The Arm semihosting operations we use.
constexpr long sys_open = 0x01, sys_close = 0x02, sys_write = 0x05, sys_read = 0x06, sys_seek = 0x0a,
               sys_flen = 0x0c, sys_remove = 0x0e, sys_rename = 0x0f, sys_errno = 0x13;

// SYS_OPEN's modes, fopen's: "rb", "r+b", "w+b" (binary: no translation).
constexpr long mode_read = 1, mode_update = 3, mode_create = 7;

// One semihosting call: the spec's sequence `slli x0,x0,0x1f; ebreak;
// srai x0,x0,7`, uncompressed and in one page (QEMU reads the words
// around the ebreak), with the operation in a0 and the address of its
// parameter block in a1; the result comes back in a0.
__attribute__((noinline)) long semihost(long op, const void *block) {
    register long a0 asm("a0") = op;
    register const void *a1 asm("a1") = block;
    asm volatile(
        ".option push\n"
        ".option norvc\n"
        ".balign 16\n"
        "slli x0, x0, 0x1f\n"
        "ebreak\n"
        "srai x0, x0, 7\n"
        ".option pop\n"
        : "+r"(a0)
        : "r"(a1)
        : "memory");
    return a0;
}

// The host's errno of the last call that failed, as -TS_E* (the numbers
// are Linux's, as the host's are); -TS_EIO when it says nothing.
long host_error() {
    const long e = semihost(sys_errno, nullptr);
    return e > 0 && e < 4096 ? -e : -TS_EIO;
}

size_t length(const char *s) {
    size_t n = 0;
    while (s[n])
        ++n;
    return n;
}

bool same(const char *a, const char *b) {
    while (*a && *a == *b)
        ++a, ++b;
    return *a == *b;
}

long open_mode(const char *path, long mode) {
    // Semihosting's special names (the console, the feature file) are no
    // files of the job's folder.
    if (same(path, ":tt") || same(path, ":semihosting-features")) return -TS_EACCES;
    const uint64_t block[3] = {reinterpret_cast<uint64_t>(path), static_cast<uint64_t>(mode), length(path)};
    const long h = semihost(sys_open, block);
    return h >= 0 ? h : host_error();
}

bool exists(const char *path) {
    const long h = open_mode(path, mode_read);
    if (h < 0) return false;
    close(h);
    return true;
}

long seek(long handle, uint64_t offset) {
    const uint64_t block[2] = {static_cast<uint64_t>(handle), offset};
    return semihost(sys_seek, block) == 0 ? 0 : host_error();
}

}  // namespace

// SYS_OPEN takes fopen's modes only, so the POSIX flags become a mode and,
// where fopen has none, a look first: "w+b" creates and truncates, "r+b"
// neither. Every file is opened for reading and writing when it may be
// written; the file server enforces the access mode.
long open(const char *path, unsigned flags) {
    const bool writes = (flags & TS_O_ACCMODE) != TS_O_RDONLY;
    if (flags & TS_O_CREAT) {
        if (flags & TS_O_EXCL && exists(path)) return -TS_EEXIST;
        if (!(flags & (TS_O_EXCL | TS_O_TRUNC))) {
            const long h = open_mode(path, writes ? mode_update : mode_read);
            if (h != -TS_ENOENT) return h;
        }
        return open_mode(path, mode_create);
    }
    if (writes && flags & TS_O_TRUNC) return exists(path) ? open_mode(path, mode_create) : -TS_ENOENT;
    return open_mode(path, writes ? mode_update : mode_read);
}

long close(long handle) {
    const uint64_t block[1] = {static_cast<uint64_t>(handle)};
    return semihost(sys_close, block) == 0 ? 0 : host_error();
}

// SYS_READ and SYS_WRITE answer the bytes they did NOT move. A failed read
// moves nothing, as one at the end does: it reads as the end.
long read(long handle, void *buf, size_t n, uint64_t offset) {
    if (const long err = seek(handle, offset)) return err;
    const uint64_t block[3] = {static_cast<uint64_t>(handle), reinterpret_cast<uint64_t>(buf), n};
    const long left = semihost(sys_read, block);
    return left >= 0 && static_cast<size_t>(left) <= n ? static_cast<long>(n) - left : -TS_EIO;
}

long write(long handle, const void *buf, size_t n, uint64_t offset) {
    if (const long err = seek(handle, offset)) return err;
    const uint64_t block[3] = {static_cast<uint64_t>(handle), reinterpret_cast<uint64_t>(buf), n};
    const long left = semihost(sys_write, block);
    if (left < 0 || static_cast<size_t>(left) > n) return -TS_EIO;
    if (n > 0 && static_cast<size_t>(left) == n) return host_error();  // nothing written: why
    return static_cast<long>(n) - left;
}

long size(long handle) {
    const uint64_t block[1] = {static_cast<uint64_t>(handle)};
    const long n = semihost(sys_flen, block);
    return n >= 0 ? n : host_error();
}

long remove(const char *path) {
    const uint64_t block[2] = {reinterpret_cast<uint64_t>(path), length(path)};
    return semihost(sys_remove, block) == 0 ? 0 : host_error();
}

long rename(const char *from, const char *to) {
    const uint64_t block[4] = {reinterpret_cast<uint64_t>(from), length(from), reinterpret_cast<uint64_t>(to),
                               length(to)};
    return semihost(sys_rename, block) == 0 ? 0 : host_error();
}

}  // namespace hal::hostfs
