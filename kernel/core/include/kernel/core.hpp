// The kernel's core services (docs/ARCHITECTURE.md, "The layers"): log and
// panics, page frames, processes and threads, user-memory access, the
// kernel-call machinery (posting to the master, waiting). Used by ikc and by
// the rest of the kernel (kernel/kernel.hpp).
//
// One kernel per cluster, run by the cluster's master core (core 0): it
// boots the cluster, owns the tables, serves the kernel calls of the other
// cores and runs the spawn server. The other cores each run at most one
// user thread. A kernel call that touches only the calling core's state is
// served on that core; every other call is posted to the master (kcall.cpp)
// and the caller sleeps until it is served. So the process, thread-exit and
// IKC tables are only ever changed by the master.
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/hal.hpp"
#include <tessera/syscall.h>
#include <tessera/trace.h>

namespace kernel {

/// Guards the hand-over of a thread-table entry between the master and the
/// core that runs it (the only table both sides change).
extern hal::Spinlock lock;

/// Guards the state the master serves calls from (the IKC tables, the
/// kernel-resident services, the call slots' results): the master holds it
/// whenever it is awake, and lets go only while it sleeps in block_until; a
/// core that serves a `shared` call itself takes it for that attempt, if it
/// is free (else it posts the call).
extern hal::Spinlock master_lock;

// ---- log ------------------------------------------------------------------

/// printf-like console output (%d %u %x %lx %lu %ld %s %c %p %%), one write.
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/// kprintf's formatting into buf (size bytes): as much as fits, always
/// NUL-terminated when size > 0. Returns the length of the text written.
size_t ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/// Room for thread_name's text.
constexpr size_t thread_name_max = 48;
/// How reports name a thread: "rank R (cluster C thread T)" when it has a
/// tag R >= 0, "cluster C thread T" when not, "cluster C" when core < 0
/// (no particular thread).
void thread_name(char (&buf)[thread_name_max], int cluster, int core, int tag);
[[noreturn]] void panic(const char *what);

// ---- page frames ------------------------------------------------------------

void frames_init();
/// A zeroed 4 KiB frame of the cluster's window, or nullptr. frame_alloc
/// and frame_free may run on any core (a stack grows on the faulting one).
void *frame_alloc();
void frame_free(void *frame);
/// `bytes` of zeroed memory, contiguous and in whole frames, for a table
/// the kernel sizes from the profile at boot; nullptr when the window has
/// no room. Master only, at boot (before any frame is freed).
void *boot_alloc(size_t bytes);
size_t frames_free_count();
size_t frames_total_count();
/// The most frames ever in use at once since boot.
size_t frames_peak_count();

/// The kernel's address space (its window, the fabric, the devices).
extern hal::AddressSpace kernel_space;

// ---- processes and threads ---------------------------------------------------

constexpr uintptr_t user_base = 0x40000000;
/// A heap ends below the cluster's shared page and the stacks: 736 MiB
/// from user_base at most, so that one rank of a 1 GiB compute cluster
/// (mpirun --cluster-memory 1G) can take most of it.
constexpr uintptr_t user_heap_limit = 0x6E000000;
static_assert(TS_PROBE_USER_VA == user_heap_limit, "the isolation probe maps above any heap");
constexpr uintptr_t user_stack_area = 0x70000000;  ///< core k's stack tops out at area - k spans
constexpr uintptr_t user_stack_span = 1 << 20;     ///< per core: the stack, then a guard area below it
/// A thread starts with the manifest's user_stack_size mapped (the
/// profile's user_stack_kb).
/// How far a stack may grow: a fault below its mapped part and above the
/// 64 KiB guard at the bottom of its span maps the pages in between
/// (grow_stack), as a program with large local arrays expects.
constexpr size_t user_stack_max = user_stack_span - 64 * 1024;
static_assert(user_stack_max == TS_USER_STACK_MAX, "the ABI says how far a stack grows");
/// The top of core `core`'s user stack (exclusive).
constexpr uintptr_t stack_top(int core) {
    return user_stack_area - static_cast<uintptr_t>(core) * user_stack_span;
}
/// A process's private memory is [user_base, user_base + hal::alias_area_size).
/// In processes mode the private area of the rank with local index l is
/// also mapped at rank_alias_base + l * hal::alias_area_size in every rank
/// of its cluster (docs/ARCHITECTURE.md, "The ranks of one cluster").
constexpr uintptr_t rank_alias_base = 0x1000000000;
/// The end of the aliases: a slot for each core's rank.
constexpr uintptr_t rank_alias_end = rank_alias_base + TS_MAX_CORES * hal::alias_area_size;
static_assert(user_stack_area <= user_base + hal::alias_area_size);

/// The user range [va, va + len) lies where user memory may be (pages not
/// looked at): the private area below the stacks' top, or the aliases of
/// the private areas of the ranks of a cluster, which a rank may hand to
/// a kernel call as any memory of its own (an IKC window over the memory
/// of a shared MPI window, say).
inline bool in_user_space(uint64_t va, uint64_t len) {
    const auto within = [va, len](uint64_t lo, uint64_t hi) { return va >= lo && va < hi && len <= hi - va; };
    return len == 0 || within(user_base, user_stack_area) || within(rank_alias_base, rank_alias_end);
}
/// In processes mode, the cluster's shared area (ts_job_info.shared_base):
/// a page of the private area of the rank with local index 0, above any
/// heap, which every rank reaches through that rank's alias. At a fixed
/// address, not in a program's .bss: the ranks of one cluster may run
/// different programs (an MPMD launch).
constexpr uintptr_t cluster_shared_va = user_heap_limit;
static_assert(TS_CLUSTER_SHARED_SIZE == hal::page_size);
static_assert(cluster_shared_va + hal::page_size <= stack_top(TS_MAX_CORES) - user_stack_span);
constexpr int status_fault = 139;  ///< exit status of a process killed by a fault
constexpr int status_panic = 126;  ///< machine exit status after a kernel panic

enum class ThreadState { free, ready, running };

struct Process;

struct Thread {
    ThreadState state = ThreadState::free;
    Process *proc = nullptr;  ///< while ready or running
    int tag = -1;             ///< TS_SYS_THREAD_TAG's label (LWMPI: the rank); -1: none
    hal::TrapFrame tf{};
};

struct Process {
    bool used = false;
    bool killed = false;
    bool aliased = false;  ///< its private area is mapped in other spaces too: never unmap a page
    int group = 0;         ///< processes started together (one MPI program's ranks) share it; 0: alone
    int rank = -1;         ///< the MPI rank it runs (processes mode), named in reports; -1: none
    int local = -1;        ///< and that rank's local index on the cluster
    int program = -1;      ///< the boot manifest's program it runs (its argv, MPI_APPNUM); -1: none
    uintptr_t stack_bottom[TS_MAX_CORES] = {};  ///< per core: lowest mapped stack address; 0: none
    /// Per core (a thread's id): its thread of this process has ended with
    /// exit_status[core] and may be joined. Kept here, not with the core,
    /// which another process's thread may run by then.
    bool ended[TS_MAX_CORES] = {};
    int exit_status[TS_MAX_CORES] = {};
    int live_threads = 0;
    int status = 0;           ///< first non-zero thread status
    int status_core = -1;     ///< the core of the thread that status comes from
    int status_tag = -1;      ///< and that thread's tag, for the exit report
    uint64_t status_seq = 0;  ///< when status was set: the first failure of a group is its report
    uintptr_t heap_start = 0;
    uintptr_t heap_end = 0;     ///< the break
    uintptr_t heap_mapped = 0;  ///< heap pages are mapped up to here
    hal::AddressSpace space;
    char name[TS_PROGRAM_NAME] = {};
};

/// Thread table: one entry per core (the thread a core runs).
extern Thread threads[TS_MAX_CORES];

/// An executable of the boot manifest: ELF file, its bytes, and its name
/// and index there (a process keeps the index: its argv, its MPI_APPNUM).
struct Executable {
    const char *name;
    const void *elf;
    size_t size;
    int program;
};

/// Loads an ELF executable and starts its main thread on a free core;
/// `rank` >= 0 makes it that MPI process, alone on its cluster (local
/// index 0; the job's I/O rank), whose threads carry its rank. Returns the
/// process or nullptr (and says why on the console).
Process *process_spawn(const Executable &exe, int rank = -1);
/// Starts the MPI ranks of this cluster as n processes: process l runs
/// rank ranks[l] of executable exes[l] on core l + 1 (the ranks of an MPMD
/// launch run different programs). Processes of one executable share its
/// read-only pages; each has its own writable data, heap and stack, and
/// (when n > 1) sees every rank's private area at its alias
/// (rank_alias_base), and the cluster's shared area (cluster_shared_va).
/// Fills out[0..n-1]; returns n, or 0 (and says why on the console).
int process_spawn_ranks(const Executable *exes, const int *ranks, int n, Process **out);
/// True once every thread of p has ended.
bool process_done(const Process *p);
/// True when a and b are one process or were started together (the ranks
/// of one MPI program on this cluster), so that one may wake the other.
bool same_group(const Process *a, const Process *b);
/// Grows the stack of one of p's threads down to the page of `addr` when
/// addr lies below that stack's mapped part and within user_stack_max of
/// its top: a page fault there or a kernel call's buffer, of the thread
/// itself or of another thread of p (an OpenMP team writes the array its
/// master keeps on its stack). Any core may call it. False otherwise (the
/// page is mapped already, or lies in no stack of p), or when there are no
/// frames for it (the fault then kills as before).
bool grow_stack(Process *p, uintptr_t addr);
/// Starts a user thread of p at pc with a0 = arg (master only). Returns
/// tid, -TS_EAGAIN (no free core) or -TS_ENOMEM (no room for its stack).
long thread_start(Process *p, uintptr_t pc, uint64_t arg);
/// What a thread's end takes with it.
enum class ThreadEnd {
    thread,   ///< the thread alone
    process,  ///< the process's other threads too (exit(): TS_SYS_PROCESS_EXIT)
    group,    ///< the process and its group, with the status (a fault: process_kill)
};
/// Ends the calling user thread with `status` (first ending what `ends`
/// says besides), then runs the core's idle loop.
[[noreturn]] void thread_exit(int status, ThreadEnd ends = ThreadEnd::thread);
/// Kills p, and the processes of its group, with `status`, which it
/// blames on the caller's thread (the calling core, or on the master the
/// core whose call is served) unless p already has a status: their threads
/// end at their next kernel entry.
void process_kill(Process *p, int status);
/// The process of the thread on the calling core; on the master, the
/// process whose kernel call is being served (nullptr: the kernel's own).
Process *current_process();
/// The core of the calling user thread; on the master, the core whose
/// kernel call is being served.
int caller_core();

/// The idle loop of a non-master core: runs the threads given to it.
[[noreturn]] void core_loop(int core);
/// Before the first thread of `core` enters user mode: when the boot
/// manifest asks to hold the rank that runs there (mpirun --gdb), parks
/// the core until a debugger releases it (debug_hold.cpp).
void debug_hold(int core);

// ---- user memory -------------------------------------------------------------

/// Checks that [va, va+len) is mapped user memory of the calling thread's
/// process, writable if `write`. 0 or -TS_EFAULT.
long check_user(uintptr_t va, size_t len, bool write);
/// Copies in/out of the calling process after check_user. 0 or -TS_EFAULT.
long copy_from_user(void *dst, uintptr_t src, size_t len);
long copy_to_user(uintptr_t dst, const void *src, size_t len);
/// The address at which the kernel touches user address va of the calling
/// process (a range check_user passed): va itself, except on the master for
/// a rank whose private area has aliases, where it is va's alias. The
/// aliases are the same in the space of every rank of the cluster, so the
/// master, serving the calls of one rank after another's, keeps reaching
/// their memory through what it has mapped already (linux64 drops the
/// mirrors of a space's private area when it activates another). Only
/// for touching the memory: a user address that names something (a futex
/// word, a window's base) stays as the process gave it.
uintptr_t kernel_view(uintptr_t va);
/// kernel_view of a decoded user pointer.
template <class T>
T *kernel_view(T *p) {
    return reinterpret_cast<T *>(kernel_view(reinterpret_cast<uintptr_t>(p)));
}

// ---- kernel calls -------------------------------------------------------------

/// What a call handler returns while the call has to wait: the master tries
/// it again on a later event (it never blocks on behalf of one caller).
constexpr long pending = LONG_MIN;

/// What an operation written as attempts keeps between them (zero at the
/// first attempt).
struct Progress {
    uint64_t step = 0;   ///< operation-defined stage
    uint64_t done = 0;   ///< operation-defined count (e.g. bytes moved)
    uint64_t start = 0;  ///< time() of the first attempt, where the operation records it
};

/// One kernel call being served: its arguments and its progress.
struct Call {
    /// The user's argument registers a0..a3: read only by the decoders of
    /// kcall_args.hpp, which hand the handlers typed arguments.
    uint64_t regs[4];
    Progress p;
    uint64_t deadline = 0;  ///< time() at which to try again (0: none)
    /// A call the kernel makes itself (call_on_master, run_as): its
    /// arguments, which kernel_work<> hands its function.
    const void *own = nullptr;
};

using Handler = long (*)(Call &c);

/// The kernel's own work as a handler: F on the arguments c.own points to
/// (an Args of the caller's, alive until the call returns).
template <class Args, long (*F)(const Args &, Call &)>
long kernel_work(Call &c) {
    return F(*static_cast<const Args *>(c.own), c);
}

/// The master: runs `handler` on c as if serving a call of process p (p's
/// address space active, current_process() == p; nullptr: the kernel's
/// own). Returns what the handler returns.
long run_as(Process *p, Handler handler, Call &c);
/// run_as for the kernel's own work F(args) (kernel_work).
template <class Args, long (*F)(const Args &, Call &)>
long run_as(Process *p, const Args &args) {
    Call c{};
    c.own = &args;
    return run_as(p, kernel_work<Args, F>, c);
}

/// Where a kernel call is served (<tessera/kcalls.def>): `local` on the
/// calling core (it touches only that core's state); `shared` on the
/// calling core under master_lock, and posted to the master only when it
/// has to wait (the IKC data path); `master` always posted to the master.
enum class Where { local, shared, master };

/// An entry of the kernel call table (syscall.cpp).
struct CallEntry {
    uint64_t number;
    Handler handler;  ///< nullptr: no call has this number
    Where where;
    /// Releases what an unfinished call holds when its process is killed
    /// (run as that process; its result is not used).
    Handler cancel = nullptr;
    /// A shared call's first try without master_lock: it only reads, may
    /// answer when the answer is plain (a poll that finds nothing), and
    /// returns `pending` when the call needs the lock.
    Handler fast = nullptr;
};

/// Serves a kernel call of the calling user thread: runs it here if local,
/// else posts it to the master and sleeps until it is served. Counts it.
long kernel_call(uint64_t number, const uint64_t args[4]);
/// Posts `handler` to the master for the calling core and waits for its
/// result (for the kernel's own use, e.g. thread exit).
long call_on_master(Handler handler, Call c);
/// call_on_master for the kernel's own work F(args) (kernel_work).
template <class Args, long (*F)(const Args &, Call &)>
long call_on_master(const Args &args) {
    Call c{};
    c.own = &args;
    return call_on_master(kernel_work<Args, F>, c);
}
/// The master: serves every posted call once, and again while one makes
/// progress. Arms the timer for the earliest deadline of a waiting call
/// (or of master_wake_at).
void serve_calls();
/// The master: wake by `when` (hal::time() ticks) even if nothing arrives,
/// for kernel code of its own that polls (the job monitor's console
/// input). Once: a later call replaces it.
void master_wake_at(uint64_t when);
/// The master takes master_lock (at start-up, and back after a sleep),
/// ahead of the cores that would take it for a shared call: while it
/// waits, they post theirs.
void master_relock();
/// The master lets go of master_lock (before it sleeps).
void master_unlock();
/// Asks the master for another serving pass (state changed that a waiting
/// call may need); from another core, wakes the master for it.
void serve_again();
/// The caller of the call being served flushes its TLB when the call
/// returns (the call unmapped some of its pages).
void caller_flushes_tlb();
/// Calls of the same process waiting in `number` (master only), oldest
/// first; for futex wake.
int waiting_calls(uint64_t number, Call **out, int max);
/// True while `core` waits for the master to serve its call: it does not
/// run its thread, so it polls for nothing.
bool core_waits_on_master(int core);
/// Under master_lock, on any core: when `core` sleeps in posted call
/// `number`, ends that call with result(core, call) unless it is pending,
/// and wakes the core, without the master's pass. True when it did.
bool finish_posted(int core, uint64_t number, long (*result)(int core, const Call &c));
/// The time() at which `ns` nanoseconds from now have passed (saturating).
uint64_t deadline_in(uint64_t ns);
/// How many times call `number` was made on `core`; -TS_EINVAL if out of range.
long kcall_count(uint64_t number, uint64_t core);

// ---- given by the layers above the core at boot -------------------------------
// The core is built below ikc and the call layer and cannot include their
// headers: kernel_main registers what it needs of them (kernel/syscall.cpp).

/// The layers above, as the core sees them.
struct Upper {
    /// The kernel calls, indexed by number (TS_KCALL_NUMBERS entries; an
    /// entry without a handler: no such call).
    const CallEntry *calls = nullptr;
    /// The master, after each pass over the posted calls: moves what is
    /// not a call (asynchronous IKC transfers and, when `idle`, i.e. the
    /// pass finished no call, the kernel-resident services). True when
    /// something finished that a waiting call may need (a WAIT may go on).
    bool (*poll)(bool idle) = nullptr;
    /// The master, when p's last thread has ended: frees what the layers
    /// above hold for p (its mailboxes, portals, syncs, windows, files).
    void (*release)(Process *p) = nullptr;
    /// The master, before it sleeps: says which arrivals must wake it. True
    /// when it must look at the IKC once more first (an arrival may have
    /// come unseen while it decided).
    bool (*before_sleep)() = nullptr;
};
/// Registers the layers above: kernel_main, before any other core starts
/// and before the first call. The core keeps a copy.
void register_upper(const Upper &u);
/// What was registered.
extern Upper upper;

// ---- waiting ------------------------------------------------------------------

/// Sleeps until `attempt` returns true. On the master, serves the other
/// cores' calls meanwhile, and lets go of master_lock only while it sleeps;
/// a user thread whose process is killed ends.
template <class F>
void block_until(F attempt) {
    const bool master = hal::core_id() == 0;
    for (;;) {
        hal::clear_event();
        if (master) serve_calls();
        if (attempt()) return;
        if (!master) {
            Process *p = current_process();
            if (p && p->killed) thread_exit(0);
            hal::wait_event();
            continue;
        }
        if (upper.before_sleep()) continue;
        master_unlock();
        hal::wait_event();
        master_relock();
    }
}

/// The master's own blocking form of an operation written as attempts
/// (returning `pending` until done): its result.
template <class F>
long wait_for(F attempt) {
    long r = pending;
    block_until([&] { return (r = attempt()) != pending; });
    return r;
}

// ---- the job's trace (trace.cpp, <tessera/trace.h>) ----------------------------

/// The job is traced (TS_MANIFEST_TRACE): set once at boot, before any
/// other core starts. Everything below is called only when it is set.
extern bool tracing;
/// Allocates the rings when the manifest asks for a trace (master, at boot).
void trace_init();
/// Records a kernel event (TS_TRACE_IKC_*) of the calling core, now.
void trace_kernel(uint16_t kind, int32_t a, int64_t b, uint64_t c, uint64_t d);
/// Records kernel call `number`, made at `start` ticks, which returned `result`.
void trace_kcall(uint64_t start, uint64_t number, long result);

}  // namespace kernel
