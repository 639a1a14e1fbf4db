// The host's files on qemu-riscv64: RISC-V semihosting (the RISC-V
// semihosting spec, which takes the Arm semihosting operations). mpirun
// runs QEMU in the job's folder with semihosting for S-mode only
// (-semihosting-config enable=on,target=native,userspace=off), so a path
// the kernel has checked (relative, no "..") names a file of that folder,
// and user code cannot make the call itself.
//
// Semihosting has no folders: no mkdir, rmdir, listing or stat. For those
// the kernel has QEMU run a short shell script in the job's folder
// (SYS_SYSTEM), the path single-quoted, which answers with its exit
// status (an errno number, or the path's type); a listing goes through a
// temporary file of the host's named by SYS_TMPNAM.
#include "hal/hal.hpp"
#include <tessera/file_protocol.h>

namespace hal::hostfs {
namespace {

// The Arm semihosting operations we use.
constexpr long sys_open = 0x01, sys_close = 0x02, sys_write = 0x05, sys_read = 0x06, sys_seek = 0x0a,
               sys_flen = 0x0c, sys_tmpnam = 0x0d, sys_remove = 0x0e, sys_rename = 0x0f, sys_system = 0x12,
               sys_errno = 0x13;

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

// A shell command being put together: a script, then the path
// single-quoted (each ' as '\''), then more script. A path of the job's folder goes in as ./path, so that
// no command takes one that starts with '-' for an option.
struct Command {
    char text[2048];
    size_t used = 0;

    Command &add(const char *s) {
        while (*s && used + 1 < sizeof text)
            text[used++] = *s++;
        text[used] = 0;
        return *this;
    }
    Command &quoted(const char *path) {
        add("'");
        for (const char *c = path; *c; ++c) {
            const char one[2] = {*c, 0};
            add(*c == '\'' ? "'\\''" : one);
        }
        return add("'");
    }
    Command &set_path(const char *path) { return add("p=./").quoted(path); }
    Command &number(uint64_t n) {
        char digits[21];
        size_t k = sizeof digits;
        digits[--k] = 0;
        do
            digits[--k] = static_cast<char>('0' + n % 10);
        while (n /= 10);
        return add(digits + k);
    }
    bool fits() const { return used + 1 < sizeof text; }
};

// The command of the call being served, empty: the master serves one call
// at a time, and a kernel stack (4 KiB) has no room for it.
Command &new_command() {
    static Command c;
    c.used = 0;
    c.text[0] = 0;
    return c;
}

// Runs the command in /bin/sh on the host, in the job's folder: its exit
// status (0..255), or -TS_E* when it could not run.
long run(const Command &c) {
    if (!c.fits()) return -TS_ENAMETOOLONG;
    const uint64_t block[2] = {reinterpret_cast<uint64_t>(c.text), c.used};
    const long status = semihost(sys_system, block);
    if (status < 0) return host_error();
    return status & 0x7f ? -TS_EIO : (status >> 8) & 0xff;  // killed by a signal: no answer
}

// The script's status as a result: 0 for success, an errno number as -TS_E*.
long as_result(long status) { return status > 0 ? -status : status; }

// The type of path (TS_FILE_TYPE_*) as the script's exit status, or
// ENOENT; $p is the path.
constexpr const char *type_script =
    "[ -d \"$p\" ] && exit 100; [ -f \"$p\" ] && exit 102; [ -e \"$p\" ] && exit 63; exit 2";
static_assert(TS_FILE_TYPE_DIR == 100 && TS_FILE_TYPE_FILE == 102 && TS_FILE_TYPE_OTHER == 63);

// The host's temporary file for listings, named once.
const char *listing_file() {
    static char name[64];
    if (!name[0]) {
        const uint64_t block[3] = {reinterpret_cast<uint64_t>(name),
                                   static_cast<uint64_t>(hal::cluster_id() & 0xff), sizeof name};
        if (semihost(sys_tmpnam, block) != 0) name[0] = 0;
    }
    return name[0] ? name : nullptr;
}

// Semihosting has no ftruncate or fsync, so a script does them on QEMU's
// own descriptor of the file: QEMU opens a file with open(2), without
// O_CLOEXEC, and runs SYS_SYSTEM's shell with system(3), so the shell
// holds that descriptor too, sharing its file position. The handle is
// sought to a tag no transfer of ours leaves it at (1 TiB, below ext4's
// largest file, past which a seek fails, plus the handle), and the script
// takes the one descriptor (/proc/$$/fdinfo) at that position and runs the
// command add_action(c) adds on its /proc path, "$d" (-TS_EIO when it
// fails, or when no single descriptor is at the tag). A descriptor follows
// its file through a rename or an unlink, which a path would not.
template <class AddAction>
long on_descriptor(long handle, AddAction add_action) {
    const uint64_t tag = (uint64_t{1} << 40) + static_cast<uint64_t>(handle);
    if (const long err = seek(handle, tag)) return err;
    Command &c = new_command();
    c.add("set -- $(grep -l '^pos:[[:space:]]*").number(tag).add("$' /proc/$$/fdinfo/* 2>/dev/null); ");
    add_action(c.add("[ $# = 1 ] || exit 5; d=/proc/$$/fd/${1##*/}; "));
    c.add(" 2>/dev/null || exit 5");
    const long r = as_result(run(c));
    seek(handle, 0);  // no descriptor keeps the tag
    return r;
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

long truncate(long handle, uint64_t size) {
    return on_descriptor(handle,
                         [size](Command &c) { c.add("truncate -s ").number(size).add(" -- \"$d\""); });
}

long sync(long handle) {
    return on_descriptor(handle, [](Command &c) { c.add("sync -- \"$d\""); });
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

// A file that holds a byte is known without the shell; a path that does
// not open fails without it. What is left (an empty file, a folder,
// anything else) the shell tells apart.
long stat(const char *path, uint64_t *size) {
    const long h = open_mode(path, mode_read);
    if (h < 0) return h;
    const long n = hostfs::size(h);
    char byte;
    const bool file = n > 0 && read(h, &byte, 1, 0) == 1;
    close(h);
    if (n < 0) return n;
    if (file) {
        *size = static_cast<uint64_t>(n);
        return TS_FILE_TYPE_FILE;
    }
    const long type = run(new_command().set_path(path).add("; ").add(type_script));
    if (type < 0 || type == TS_ENOENT) return type < 0 ? type : -TS_ENOENT;
    *size = 0;
    return type;
}

long mkdir(const char *path) {
    return as_result(run(new_command().set_path(path).add(
        "; if [ -e \"$p\" ] || [ -L \"$p\" ]; then exit 17; fi; d=$(dirname -- \"$p\"); "
        "[ -e \"$d\" ] || exit 2; [ -d \"$d\" ] || exit 20; mkdir -- \"$p\" 2>/dev/null || exit 13")));
}

long rmdir(const char *path) {
    return as_result(run(new_command().set_path(path).add(
        "; [ -e \"$p\" ] || exit 2; [ -d \"$p\" ] || exit 20; [ -z \"$(ls -A -- \"$p\")\" ] || exit 39; "
        "rmdir -- \"$p\" 2>/dev/null || exit 13")));
}

// find(1) writes the folder's entries into the listing file, each its
// type letter (find's %y: f, d, or another for anything else), its name
// and a NUL; they are read back, from entry `first` on.
long list(const char *path, uint64_t first, char *buf, size_t size) {
    const char *file = listing_file();
    if (!file) return -TS_EIO;
    Command &c = new_command();
    c.set_path(path);
    c.add(
         "; [ -e \"$p\" ] || exit 2; [ -d \"$p\" ] || exit 20; "
         "find \"$p\" -mindepth 1 -maxdepth 1 -printf '%y%f\\0' >")
        .quoted(file)
        .add(" || exit 5");
    if (const long err = as_result(run(c))) return err;
    const long h = open_mode(file, mode_read);
    if (h < 0) return h;
    static char piece[512], entry[TS_LIST_ENTRY_MAX];
    size_t entry_len = 0, used = 0;
    uint64_t index = 0, offset = 0;
    bool full = false;
    for (long n; !full && (n = read(h, piece, sizeof piece, offset)) > 0; offset += static_cast<uint64_t>(n))
        for (long i = 0; i < n && !full; ++i) {
            if (entry_len < sizeof entry) entry[entry_len++] = piece[i];
            if (piece[i] != 0) continue;
            // A whole entry: its type letter as ours, then the name.
            if (entry[0] != TS_FILE_TYPE_DIR && entry[0] != TS_FILE_TYPE_FILE) entry[0] = TS_FILE_TYPE_OTHER;
            const bool whole = entry[entry_len - 1] == 0 && entry_len > 2;
            if (whole && index++ >= first) {
                if (used + entry_len > size) {
                    full = true;
                    break;
                }
                for (size_t k = 0; k < entry_len; ++k)
                    buf[used + k] = entry[k];
                used += entry_len;
            }
            entry_len = 0;
        }
    close(h);
    remove(file);
    return static_cast<long>(used);
}

}  // namespace hal::hostfs
