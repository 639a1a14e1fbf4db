// The HAL interface: everything above hal/ knows the target only through
// this header. One instance per cluster; "core" is a core of this cluster
// (0 = the master), "cluster" a cluster id of the platform.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "hal/arch.hpp"  // the target's TrapFrame (hal/arch/<target>/include)
#include <tessera/image.h>

namespace hal {

// ---- core ----------------------------------------------------------------

/// Index of the calling core inside its cluster (0 = master).
int core_id();
/// Ticks of the platform timer (qemu-riscv64: the `time` CSR; linux64:
/// CLOCK_MONOTONIC in ns); timebase() ticks per second.
uint64_t time();
uint64_t timebase();

/// Sleep until an event (IPI or timer) may have happened. Call clear_event()
/// before checking the condition you wait for, then wait_event(): an event
/// that arrives in between is not lost.
void clear_event();
void wait_event();
/// Arm this core's timer to raise an event at `deadline` ticks (0: disarm).
void set_timer(uint64_t deadline);
/// Lets the other cores run a moment, for a core that polls and found
/// nothing. qemu-riscv64: sleeps until an event or about 20 us (with
/// single-threaded TCG a hart that polls keeps the host thread until it
/// idles or a 100 ms kick, and starves the hart it waits for); linux64:
/// gives the host CPU to another runnable thread, if any (sched_yield); a
/// core bound to a host CPU (mpirun --bind-to) does so on every 8th call
/// only (a yield is a system call), and only pauses (spin_hint) on the
/// others.
void relax();
/// One turn of a short busy-wait, for a core that waits for another core
/// to end something brief (a kernel call under a lock): tells the processor
/// it spins. Never sleeps. qemu-riscv64: `pause` (Zihintpause, a FENCE
/// hint: a fence where the extension is missing); linux64: x86 `pause`.
void spin_hint();
/// Who takes a message that arrives for a process that polls: true when
/// the NoC's interrupt reaches the master at once (qemu-riscv64), which
/// then copies it into the process's ring; false when the master is a host
/// process that may be asleep (linux64), so the polling core takes its own
/// arrivals (docs/ARCHITECTURE.md, "A ring of arrivals").
bool master_takes_arrivals();

/// A spinlock (acquire/release ordering).
class Spinlock {
public:
    void lock();
    void unlock();
    /// Takes the lock if it is free: true when taken; never waits.
    bool try_lock() { return __atomic_exchange_n(&word_, 1u, __ATOMIC_ACQUIRE) == 0; }

private:
    volatile uint32_t word_ = 0;
};

/// RAII holder of a Spinlock.
class Guard {
public:
    explicit Guard(Spinlock &l) : l_(l) { l_.lock(); }
    ~Guard() { l_.unlock(); }
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;

private:
    Spinlock &l_;
};

/// Writes bytes to the platform console as one piece, under a lock shared by
/// all clusters (so concurrent writes never interleave).
void console_write(const char *s, size_t n);
/// A byte of console input (0..255), or -1 when none has come; never
/// waits. Only cluster 0's kernel reads it: mpirun writes there to stop a
/// job with a report (qemu-riscv64: the UART; linux64: cluster 0's stdin).
int console_read();

/// Ends the whole machine with `status` as its exit status (QEMU's, or the
/// linux64 launcher's).
[[noreturn]] void poweroff(int status);

/// Stops the calling core for good.
[[noreturn]] void halt();

// ---- cluster ---------------------------------------------------------------

/// This cluster's boot manifest (topology, job, programs).
const ts_manifest &manifest();
int cluster_id();
int ncores();
/// First byte after this cluster's image, and the end of its window.
uintptr_t image_end();
uintptr_t window_end();

/// Starts core `core` (1..ncores-1) of this cluster at `entry(core)` on its
/// own kernel stack. Returns false if the core cannot be started.
bool start_core(int core, void (*entry)(int core));

/// A core's kernel stack: its lowest byte and its size in bytes (the
/// profile's kernel_stack_kb on qemu-riscv64, where it sits in the
/// cluster's window; a fixed size on linux64, outside it).
struct Stack {
    char *base;
    size_t size;
};
Stack kernel_stack(int core);

/// Raises an event on every core of `cluster` (an inter-processor interrupt).
void notify_cluster(int cluster);
/// Raises an event on one core of `cluster`.
void notify_core(int cluster, int core);

// ---- traps and user context --------------------------------------------------

/// Why a user thread trapped.
enum class TrapKind { syscall, interrupt, fault };

struct TrapInfo {
    TrapKind kind;
    uint64_t cause;  ///< target-defined (RISC-V: scause); cause_name() names it
    uint64_t tval;   ///< the faulting address (RISC-V: stval)
};

/// Enters user mode (U-mode on RISC-V) with the registers of `tf` in address space `space`
/// (an opaque token from Mmu::space_token()). Traps come back through the
/// kernel's trap handler `kernel_user_trap(tf, info)`.
[[noreturn]] void enter_user(TrapFrame *tf, uint64_t space);

/// Name of a trap cause for reports ("load page fault", ...).
const char *cause_name(uint64_t cause);
/// True when `cause` is a page fault (instruction, load or store).
bool is_page_fault(uint64_t cause);

// ---- memory management unit (qemu-riscv64: Sv39; linux64: a software TLB of mmap mirrors) --------

constexpr size_t page_size = 4096;

/// What AddressSpace::alias_area maps at once: 1 GiB (an Sv39 root entry).
constexpr uintptr_t alias_area_size = 1ull << 30;

/// Page permissions (bit set).
constexpr unsigned perm_r = 1, perm_w = 2, perm_x = 4, perm_user = 8;

/// One address space: a page-table root. The kernel's mappings (its window,
/// the fabric, the devices) are shared by every address space.
class AddressSpace {
public:
    /// Creates the kernel address space (once, on the master) or a user one
    /// sharing the kernel mappings. alloc_page returns a zeroed 4 KiB page.
    bool init(void *(*alloc_page)(), const AddressSpace *kernel);
    /// Maps one 4 KiB page va -> pa with perms; false when out of memory or
    /// already mapped with a different frame.
    bool map(uintptr_t va, uintptr_t pa, unsigned perms);
    /// Unmaps the 4 KiB page at va and flushes it from the calling core's
    /// TLB; returns the frame it mapped, or 0 when it was not mapped.
    uintptr_t unmap(uintptr_t va);
    /// Physical address behind va and its perms; 0 when unmapped.
    uintptr_t lookup(uintptr_t va, unsigned *perms) const;
    /// Maps owner's area [base, base + alias_area_size) at `at` in this
    /// space too, with the same frames and permissions, for the pages owner
    /// maps there now and later (the two spaces share its page tables).
    /// base and at are multiples of alias_area_size, and nothing is mapped
    /// at `at` yet. The kernel never unmaps a page of an aliased area: no
    /// core's TLB is told about the aliases. False when out of memory or on
    /// bad arguments (linux64: base must be its user area, 0x40000000, and
    /// `at` one of its alias slots, TS_MAX_CORES of them from 0x1000000000).
    bool alias_area(AddressSpace &owner, uintptr_t base, uintptr_t at);
    /// Activates this address space on the calling core.
    void activate() const;
    uint64_t token() const;

private:
    bool map_range(uintptr_t base, size_t size, unsigned perms);
    uint64_t *root_ = nullptr;
    void *(*alloc_)() = nullptr;
};

/// Drops every translation the calling core's TLB holds.
void flush_tlb();

/// True when a page fault with `cause` at `addr` hit a translation that is
/// valid by now in `space` (another core mapped it meanwhile): the calling
/// core's TLB is flushed for it and the access can simply be retried.
bool page_fault_is_stale(const AddressSpace &space, uint64_t cause, uint64_t addr);

// ---- the host's files (an I/O cluster's) ------------------------------------------
//
// The files of the job's folder on the host, which the I/O clusters own
// (docs/services.md, "Files"): qemu-riscv64 reaches them by
// semihosting (QEMU runs in the job's folder), linux64 with the cluster
// process's own system calls, relative to its working folder (the job's
// folder). Paths are NUL-terminated kernel strings the kernel has checked
// (<tessera/file_protocol.h>: relative, no ".."); buffers are kernel
// memory. Results: >= 0, or -TS_E* with the host's errno number.
namespace hostfs {

/// Opens path with TS_O_* flags (TS_O_APPEND ignored): a host handle.
long open(const char *path, unsigned flags);
/// Closes a handle open() gave: 0.
long close(long handle);
/// Reads up to n bytes at offset: bytes read, 0 at the end.
long read(long handle, void *buf, size_t n, uint64_t offset);
/// Writes n bytes at offset: bytes written.
long write(long handle, const void *buf, size_t n, uint64_t offset);
/// The file's size in bytes.
long size(long handle);
/// Cuts, or extends with zeros, the file to size bytes: 0.
long truncate(long handle, uint64_t size);
/// Has the host write the file's data out to its storage (fsync): 0.
long sync(long handle);
/// Removes the file: 0.
long remove(const char *path);
/// Renames file `from` to `to` (replacing it): 0.
long rename(const char *from, const char *to);
/// What path names (TS_FILE_TYPE_FILE, _DIR or _OTHER); *size gets its
/// size in bytes.
long stat(const char *path, uint64_t *size);
/// Makes the folder path: 0 (-TS_EEXIST, -TS_ENOENT or -TS_ENOTDIR for its
/// parent).
long mkdir(const char *path);
/// Removes the empty folder path: 0 (-TS_ENOTDIR, -TS_ENOTEMPTY).
long rmdir(const char *path);
/// The entries of folder path from index `first` on, into buf (size
/// bytes, at least TS_LIST_ENTRY_MAX), in a LIST's format
/// (<tessera/file_protocol.h>): bytes of whole entries, 0 past the last.
long list(const char *path, uint64_t first, char *buf, size_t size);

}  // namespace hostfs

// ---- processor: the NoC interface ------------------------------------------------
//
// The emulated NoC offers each cluster one input mailbox (one slot per
// possible sender cluster, messages of manifest().mailbox_size bytes), one
// input portal (the receiver allows one sender; data moves in chunks of
// manifest().portal_chunk bytes) and sync points (per port, a signal counter
// per sender cluster). Every call is non-blocking; the kernel waits with
// clear_event()/wait_event(), and every state change notifies the other
// side's master core (core 0), which runs the kernel.
namespace noc {

/// True when the profile's fabric region holds every cluster's resources.
bool fabric_fits();
/// Bytes of one hardware mailbox message and of one portal chunk.
size_t mailbox_size();
size_t portal_chunk();
/// Hardware input mailboxes and portals of `cluster` (the profile's; at
/// least 1). `hw` arguments below index them: 0..mailboxes(c)-1 and
/// 0..portals(c)-1 of the receiving cluster c.
int mailboxes(int cluster);
int portals(int cluster);

// Who wakes whom: a side wakes the other cluster's master only when it is
// needed (an arrival for a port whose doorbell rings; a slot, chunk buffer
// or allow that a master waits for). A call on a master that finds a slot,
// buffer or chunk not ready asks to be told when it is; a call on another
// core does not (that core retries by itself), so cores that poll exchange
// messages without waking the masters.

/// While `quiet`, the master's calls below ask to be told nothing, as
/// another core's never do: for work done on behalf of a thread that runs
/// and tries again by itself. (No effect on other cores.)
void set_quiet(bool quiet);

/// Puts `msg` (mailbox_size() bytes), for `port`, in our slot of mailbox
/// `hw` of cluster dst, and wakes dst's master if that port's doorbell
/// rings; false when the slot is still full.
bool mailbox_send(int dst, int hw, int port, const void *msg);
/// True when our slot of mailbox `hw` of cluster dst still holds a message
/// we put there: a look without taking anything (the receiver may empty
/// it meanwhile).
bool mailbox_slot_full(int dst, int hw);
/// Copies the message in sender `src`'s slot of our mailbox `hw` and
/// leaves it there; false if empty.
bool mailbox_peek(int hw, int src, void *msg);
/// True when a sender's slot of our mailbox `hw` holds a message. A look
/// without taking anything: another core may take it meanwhile.
bool mailbox_any(int hw);
/// Empties sender `src`'s slot of our mailbox `hw` (after a peek) and tells
/// the sender's master if it waits for the slot.
void mailbox_release(int hw, int src);
/// Our master's doorbell for arrivals to `port` (0..TS_PORTS-1): whether a
/// message for it wakes the master. Every doorbell rings at the start.
void set_doorbell(int port, bool rings);
bool doorbell_rings(int port);

/// Receiver: our portal `hw` accepts chunks from cluster src tagged `tag`,
/// `bytes` in all (the transfer's last chunk may carry more: they are
/// dropped). A sender writes ahead of the reader up to the depth of the
/// portal's ring of chunk buffers.
void portal_allow(int hw, int src, uint64_t tag, uint32_t bytes);
/// Receiver: ends the transfer on portal `hw` before its last chunk (the
/// reader gave up): the sender is no longer allowed, and a chunk it wrote
/// for this transfer is dropped.
void portal_close(int hw);
/// Receiver: takes the next chunk of portal `hw`, of a transfer that
/// still has `remaining` bytes to come, and copies at most `room` of its
/// bytes into buf (none, and buf may be null, with room 0: a reader that
/// drops the end of a transfer its buffer cannot hold). The chunk that
/// completes the transfer closes the allow before it is released, so the
/// sender's next transfer waits for a new allow; bytes beyond `remaining`
/// are dropped. Returns the transfer's bytes the chunk carried (at most
/// `remaining`), 0 if no chunk yet.
size_t portal_read_chunk(int hw, void *buf, size_t remaining, size_t room = SIZE_MAX);
/// Sender: writes one chunk (n <= portal_chunk()) into portal `hw` of dst;
/// false until dst allows (our cluster, tag), still wants bytes under that
/// allow, and its next chunk buffer is free. The write is done once the
/// chunk is in dst's portal; the reader takes it from there.
bool portal_write_chunk(int dst, int hw, uint64_t tag, const void *data, size_t n);

/// Adds one signal from this cluster to dst's sync `port`.
void sync_signal(int dst, int port);
/// Consumes one signal from src at our sync `port`; false if none.
bool sync_consume(int port, int src);

}  // namespace noc
}  // namespace hal

/// The kernel's entry points, called by the HAL.
extern "C" [[noreturn]] void kernel_main(int core);
extern "C" [[noreturn]] void kernel_user_trap(hal::TrapFrame *tf, hal::TrapInfo info);
/// A trap taken in S-mode (a kernel bug): report and power off.
extern "C" [[noreturn]] void kernel_trap_panic(uint64_t cause, uint64_t pc, uint64_t tval);
