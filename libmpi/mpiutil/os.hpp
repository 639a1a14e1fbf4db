// The operating-system services MPIUtil uses, in one narrow interface.
//
// On the target, os_tessera.cpp forwards each call to the Tessera user
// runtime (<tessera/runtime.h>) and the name client (<tessera/names.h>),
// with the same arguments and the same negative -TS_E* error returns. The
// host unit tests link a simulated fabric instead (tests/fake_os.cpp), so
// the real LWMPI code runs with threads as ranks.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <tessera/syscall.h>

namespace lwmpi::os {

/// The job and cluster of the caller (never null).
const ts_job_info *job();
/// The core of its cluster that runs the caller (0 is the master).
int core();
/// The caller's MPI_COMM_WORLD rank, or -1 in a non-MPI program.
int rank();
/// The caller's index among the MPI processes of its cluster, or -1.
int local_index();

/// Memory shared by the MPI processes of the caller's cluster and only
/// them: `size` bytes, zero at the start of the job, reached by every one
/// of them at the same (global) address; the same pointer on every call.
/// nullptr when size exceeds cluster_shared_bytes, or when the ranks share
/// no memory (each a process, without aliases: alias_base 0).
void *cluster_shared(size_t size);
/// What cluster_shared() gives at most: in threads mode, the cluster's
/// process carries it in its .bss (on Tessera, in processes mode, it is a
/// page the kernel maps, found at the same address by every program).
inline constexpr size_t cluster_shared_bytes = 1024;

/// How the other MPI processes of its cluster see a rank's memory
/// (docs/ARCHITECTURE.md, "The ranks of one cluster"). When each rank is a process
/// (TS_RANKS_PROCESSES), its private area [base, base + size) is also
/// mapped at base + shift in every rank of the cluster, itself included:
/// the *global form* of a pointer p into the area is p + shift, the same
/// in every rank, while p itself means another rank's memory there. A
/// pointer outside the area (text, read-only data) means the same memory
/// everywhere and is its own global form, nullptr included (no area
/// starts at 0). size 0: nothing to translate (threads mode, or no
/// aliases), every pointer is its own global form.
struct Aliasing {
    uintptr_t base;
    uintptr_t size;
    uintptr_t shift;  ///< modulo 2^64: the alias may lie below the area

    /// That of the rank with local index `local` in a job described by
    /// `j` (ts_job_info: the area is the same in every rank, its aliases
    /// lie one after the other from alias_base).
    static Aliasing of(const ts_job_info &j, int local) {
        if (j.ranks_mode != TS_RANKS_PROCESSES || j.alias_base == 0 || local < 0) return Aliasing{};
        const uintptr_t alias = j.alias_base + static_cast<uintptr_t>(local) * j.private_size;
        return Aliasing{j.private_base, j.private_size, alias - j.private_base};
    }
    /// p's global form.
    void *global(const void *p) const {
        const uintptr_t a = reinterpret_cast<uintptr_t>(p);
        return reinterpret_cast<void *>(a - base < size ? a + shift : a);
    }
    /// The pointer whose global form is g, for a g into the aliases of
    /// the area; any other g unchanged.
    void *private_of(const void *g) const {
        const uintptr_t a = reinterpret_cast<uintptr_t>(g) - shift;
        return a - base < size ? reinterpret_cast<void *>(a) : const_cast<void *>(g);
    }
};

/// The global form of the caller's pointer p (Aliasing): the address at
/// which every MPI process of the caller's cluster reaches what p points
/// to, for pointers that others dereference (the local path's messages
/// and the buffers they copy from). The caller reaches it there too.
/// Identity in threads mode. (Neither translation reads the memory: a new
/// heap block is translated before anything is written to it.)
[[gnu::access(none, 1)]] void *global(const void *p);
/// global()'s reverse for the caller's own memory: the caller's pointer
/// whose global form is g (free() needs that one); any other g unchanged.
[[gnu::access(none, 1)]] void *private_of(const void *g);

/// A word shared by the threads of the caller's rank and only them,
/// nullptr at the start of the job (LWMPI notes there which thread holds
/// the rank's state, rank_local.hpp): in processes mode the process's; in
/// threads mode, where a process holds all the ranks of a cluster, one per
/// local index (a thread a rank starts has the rank's, ts_local_index).
void *&rank_word();

/// Between the threads of the caller's process (ts_futex_wait,
/// ts_futex_wake): sleeps while *addr is `expected`, at most timeout_ns
/// (0: no limit), and may wake spuriously; wakes up to n sleepers of addr.
void futex_wait(const uint32_t *addr, uint32_t expected, unsigned long timeout_ns);
void futex_wake(const uint32_t *addr, int n);

/// Ticks of job()->timebase_hz since an arbitrary origin.
unsigned long time();
void sleep_ns(unsigned long ns);
/// Lets the other cores of the host run a moment (ts_thread_yield).
void yield();

/// Writes `n` bytes to the console in one piece.
void console_write(const char *s, size_t n);
/// Writes out the caller's buffered stdio output; true when that output
/// ends in the middle of a line (ts_console_flush).
bool console_flush();
/// Tells the job monitor what the caller is blocked in
/// (TS_SYS_MPI_STATE_SEND): 0 or -TS_E*.
int mpi_state_send(const ts_mpi_state &st);
/// Ends the whole job with exit status `code`.
[[noreturn]] void abort_job(int code);

// The job's trace (mpirun --trace; <tessera/trace.h>).

/// True when the job is traced (TS_JOB_MPI_TRACE).
bool tracing();
/// Records MPI event `kind` (TS_TRACE_MPI_*) of world rank `rank` on the
/// caller's core, with the kernel's clock (TS_SYS_TRACE_RECORD).
void trace_record(unsigned kind, int rank, int a, long b, unsigned long c, unsigned long d);
/// Writes both rings of core `core` of the caller's cluster into the job
/// folder, as the file "tessera-trace-c<cluster>-k<core>.bin" (the two
/// TS_SYS_TRACE_READ dumps back to back), which mpirun --trace turns into
/// its JSON file: 0, or -TS_E*.
int trace_dump(int core);

// Files of the job's folder, through the C library's POSIX calls
// (os_files.cpp, in both builds; on the target the runtime's file client,
// docs/services.md "Files"). Paths are
// the program's; descriptors are >= 0; errors are -errno, in the C
// library's numbering.

/// How file_open() opens a file.
enum FileFlags : unsigned {
    file_read = 1,       ///< for reading
    file_write = 2,      ///< for writing (both: for both)
    file_create = 4,     ///< made when missing
    file_exclusive = 8,  ///< with file_create: fails (-EEXIST) when it exists
};
/// A descriptor of `path` opened with FileFlags `flags`, or -errno.
int file_open(const char *path, unsigned flags);
int file_close(int fd);
/// Up to n bytes at byte `offset` (the file position unchanged): bytes
/// moved (fewer at the end of the file for a read), or -errno.
long file_pread(int fd, void *buf, size_t n, int64_t offset);
long file_pwrite(int fd, const void *buf, size_t n, int64_t offset);
/// The file's size in bytes, or -errno.
int64_t file_size(int fd);
/// Cuts or extends (with zeros) the file to `size` bytes: 0 or -errno.
int file_truncate(int fd, int64_t size);
/// Sends what was written to the host's storage: 0 or -errno.
int file_sync(int fd);
/// Removes `path`: 0 or -errno.
int file_unlink(const char *path);

// IKC, as in <tessera/syscall.h>: ids >= 0, errors are -TS_E*.
int mailbox_create(int port);
int mailbox_open(int local_port, int cluster, int port);
/// Asynchronous write: 0 once started; mailbox_test() returns what
/// ts_mailbox_write would have once it is done, -TS_EAGAIN while it runs.
/// (MPIUtil reads its mailbox through a ring: mailbox_ring below.)
long mailbox_awrite(int id, const void *buf, size_t size);
long mailbox_test(int id);
/// A write that never waits: size, or -TS_EAGAIN when the receiver has no
/// room yet (nothing was written).
long mailbox_trywrite(int id, const void *buf, size_t size);
/// Arrivals of input mailbox `id` go into `ring` from now on (nslots
/// slots, TS_RING_BYTES of memory): 0, TS_RING_PULL (take them with
/// mailbox_drain() when the ring is empty) or -TS_E*.
long mailbox_ring(int id, ts_ring *ring, unsigned nslots);
/// Moves what arrived for `id` into its ring: messages moved, or -TS_E*.
long mailbox_drain(int id);
/// Messages waiting for input mailbox `id` (TS_IKC_IOCTL_STATS's parked).
long mailbox_parked(int id);
int mailbox_close(int id);
int mailbox_unlink(int id);

int portal_create(int port);
/// Lets (cluster, port) write its transfer tagged `tag` to input portal id.
int portal_allow(int id, int cluster, int port, uint32_t tag);
int portal_open(int local_port, int cluster, int port);
/// Asynchronous reads and writes only, as for mailboxes. A read takes a
/// transfer of `transfer` bytes (0: size), keeps the first `size` in buf
/// and drops the rest; a write waits for its receiver's allow of `tag`.
long portal_aread(int id, void *buf, size_t size, size_t transfer);
long portal_awrite(int id, const void *buf, size_t size, uint32_t tag);
long portal_wait(int id);
long portal_test(int id);
/// As portal_test, but a write that has moved no byte yet is cancelled:
/// -TS_ECANCELED (ts_portal_cancel).
long portal_cancel(int id);
/// Sleeps while the caller's count of events is `seen`, at most
/// timeout_ns (0: no timeout): that count (>= 0), or -TS_E*. Events: an
/// asynchronous operation the caller started (any of these) finished, an
/// ikc_wake() for it, a message put in its ring while the ring's `wake`
/// was set.
long ikc_wait_any(unsigned long seen, unsigned long timeout_ns);
/// An event for the MPI process of the caller's cluster on core `core`:
/// 0, or -TS_E*.
int ikc_wake(int core);
int portal_close(int id);
int portal_unlink(int id);

// IKC windows (<tessera/syscall.h>, TS_SYS_WINDOW_*): regions of the
// caller's memory that other processes, on any cluster, write, read and
// update atomically at an address of the caller's address space, served
// by the caller's kernel with no action by the caller. A window's key
// names it locally and, with the owner's cluster, to the others.
// Requests from one window to one target are carried out in order.

/// A new window: its key (> 0), or -TS_ENFILE.
int window_create();
/// Exposes [base, base + size) through window `key`: 0, -TS_EINVAL
/// (empty, overlapping, too many regions), -TS_EFAULT, -TS_EBADF.
int window_expose(int key, void *base, size_t size);
/// Withdraws the region exposed at base: 0, -TS_ENOENT, -TS_EBADF.
int window_withdraw(int key, void *base);
int window_free(int key);
/// Writes n bytes from buf at addr of window `target` of `cluster`: 0 once
/// they have left buf; they have landed once a later window_flush (or a
/// read or atomic to the same target) returns.
long window_write(int key, int cluster, int target, uint64_t addr, const void *buf, size_t n);
/// Reads n bytes at addr of window `target` of `cluster` into buf: 0
/// once they are there.
long window_read(int key, int cluster, int target, uint64_t addr, void *buf, size_t n);
/// 0 once every earlier write from window `key` to `target` has landed;
/// -TS_EACCES when one hit memory the target does not expose.
long window_flush(int key, int cluster, int target);
/// TS_WINDOW_CAS, _FADD or _SWAP on the 8-byte-aligned 64-bit word at
/// addr of window `target` of `cluster`; *old gets its old value: 0, or
/// -TS_E* (-TS_EACCES: not exposed; -TS_ENOENT: no such window).
long window_atomic(int key, int cluster, int target, uint64_t addr, unsigned kind, uint64_t operand,
                   uint64_t compare, uint64_t *old);

// Names through the local name daemon (<tessera/names.h>): 0 on
// success, -TS_E* otherwise (-TS_ENOENT: not registered yet).
int name_register(const char *name, int port);
/// A resolution in two steps (ts_name_resolve_start, _test): test gives
/// -TS_EAGAIN until the daemon's answer is in; the ends of its write and
/// read are events of ikc_wait_any().
int name_resolve_start(const char *name);
int name_resolve_test(int *cluster, int *port);
int name_unregister(const char *name);

}  // namespace lwmpi::os

namespace lwmpi::util {

/// The one call the OS makes into MPIUtil (ts_rank_exit_hook): the calling
/// thread ends with `status`. When it is a rank between init() and
/// finalize(), reports it and ends the job with `status` (1 if that is 0),
/// since the other ranks would wait for it forever. True when the thread
/// is a rank that called init() (the runtime leaves the others to itself).
bool rank_exit(int status);

}  // namespace lwmpi::util
