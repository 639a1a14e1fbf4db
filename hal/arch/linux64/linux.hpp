// The linux64 HAL's "hardware": Linux system calls, made directly (the
// cluster executable has no C library), and the state every core keeps.
#pragma once

#include <stddef.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "hal/hal.hpp"

namespace hal::host {

/// A raw Linux system call: the result, or -errno.
inline long sys(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

/// Where a core's process may map user pages now: [lo, hi), empty if hi is
/// 0. Dropping only that span is much cheaper than a whole area (Linux
/// walks what it unmaps).
struct MirrorSpan {
    uintptr_t lo, hi;
    bool empty() const { return hi == 0; }
    void add(uintptr_t from, uintptr_t to) {
        if (empty() || from < lo) lo = from;
        if (to > hi) hi = to;
    }
    bool holds(uintptr_t va) const { return va >= lo && va < hi; }
};

/// What a core keeps; %gs points at its core's entry. entry.S knows the
/// offsets of the first five fields. The array of them is kernel memory,
/// shared by every core's process (boot.cpp); what only one core's process
/// may see (its mirrors of user pages) is described here, per core.
struct CoreState {
    TrapFrame *tf;        ///< 0: the user thread this core runs (its frame)
    uint64_t kernel_sp;   ///< 8: top of this core's kernel stack
    uint64_t in_user;     ///< 16: 1 while the core runs user code
    CoreState *self_ptr;  ///< 24: this entry (self() reads it through %gs)
    uint32_t *event;      ///< 32: its event word (core.cpp), set before it first runs user code
    int id;               ///< this core's index in its cluster
    int pid;              ///< its Linux process (the master's for core 0), 0 until it runs
    int tid;              ///< its thread's Linux id (0 until it runs)
    int signal_stack;     ///< which of its two signal stacks is in use
    uint64_t deadline;    ///< the armed timer (time() units), 0: none
    int host_cpu;         ///< the host CPU its process is bound to, -1: none
    uint32_t relaxes;     ///< relax() calls (every few yield)
    // The software TLB (mmu.cpp): the page table this core translates user
    // addresses by, and what its process mirrors now.
    const uint64_t *space;  ///< the active space's root table (its token); nullptr: none yet
    MirrorSpan mirrored;    ///< the user area's pages it mirrors lie in this span
    MirrorSpan aliased;     ///< and the alias slots' pages in this one
    uintptr_t last_miss;    ///< the page of the last miss since the last drop (a retry guard)
    uint32_t miss_repeats;  ///< misses in a row at last_miss
    uint64_t misses;        ///< misses served (statistics)
};

/// Host CPUs a core can be bound to (CPU numbers 0..max_host_cpus-1).
constexpr int max_host_cpus = 1024;

static_assert(offsetof(CoreState, event) == 32, "entry.S reads the event word at %gs:32");

/// The causes a linux64 trap reports (TrapInfo::cause).
namespace causes {
enum Cause : uint64_t {
    illegal_instruction,
    fetch_page_fault,
    load_page_fault,
    store_page_fault,
    protection_fault,
    bus_error,
    arithmetic_error,
    breakpoint,
};
}  // namespace causes

/// The signal that interrupts a core running user code (trap.cpp).
constexpr int interrupt_signal = SIGUSR1;

/// The virtual addresses user pages may have: each core's process
/// mirrors them there (mmu.cpp), so nothing else may use this range.
constexpr uintptr_t user_area_base = 0x40000000;
constexpr uintptr_t user_area_end = 0x80000000;
/// Where AddressSpace::alias_area may show another space's area: one slot
/// of alias_area_size per core (the kernel's rank_alias_base is the
/// first), mirrored as the user area is and reserved in every core's
/// process as it is.
constexpr uintptr_t alias_slots_base = 0x1000000000;
constexpr uintptr_t alias_slots_end = alias_slots_base + TS_MAX_CORES * alias_area_size;

/// Drops every user page the calling core's process mirrors (its "TLB").
void drop_mirrors();
/// Mirrors the page at addr if the calling core's active space grants the
/// access (a "TLB miss": the access can be retried): `write`, `fetch` say
/// which (x86 page-fault error code). False when it is a real fault.
bool mirror_miss(uintptr_t addr, bool write, bool fetch);
/// Makes `root` the calling core's active space (dropping its mirrors of
/// another one; those of the alias slots stay when both spaces share their
/// tables).
void use_space(const uint64_t *root);

/// The calling core's state.
CoreState &self();
/// Sets up every core's state (ids, kernel stacks), before any runs.
void cores_init();
/// Makes the calling process core `core`: %gs, its process and thread ids,
/// its signal stack, and its host CPU if it has one (host_cpu).
void become_core(int core);
/// The state of core `core` of this cluster.
CoreState &core_state(int core);
/// Moves the calling core to its other signal stack (the current one
/// holds an interrupted user context until it resumes).
void next_signal_stack();
/// Makes the signal context uc (about to be resumed by rt_sigreturn, which
/// restores the signal stack it names) name the core's current signal stack.
void keep_signal_stack(uint64_t uc);
/// The master's Linux process id (the parent of every core's process).
int master_pid();
/// True once end_cluster has begun.
bool cluster_ending();
/// Ends the whole cluster at once: every core's process, the master last
/// but the caller, which exits with `status`, or dies of `signal` if not 0.
[[noreturn]] void end_cluster(int status, int signal = 0);

/// Writes a whole buffer to fd (retrying short writes); false on error. The
/// buffer may be user memory the calling core does not mirror yet.
bool write_all(int fd, const char *s, size_t n);
/// Writes the NUL-terminated s on stderr (before and after the console
/// works); false on error.
bool say(const char *s);
/// v in decimal, written backwards from `end` (where a NUL goes): where
/// the digits start. end needs 20 bytes before it.
char *decimal(char *end, unsigned long v);
/// Ends the calling process at once with a message on stderr (before the
/// console works): status 125. (In a core's process the master sees it end
/// and ends the cluster: trap.cpp.)
[[noreturn]] void fail(const char *what);
/// The status pipe's fd (the launcher reads `poweroff STATUS` lines there).
int status_fd();
/// The window's memfd and base: the MMU mirrors user pages from it.
int window_fd();
uintptr_t window_base();
/// Installs the trap handlers (signals of user faults).
void trap_init();

}  // namespace hal::host

/// entry.S: into user code with the registers of tf.
extern "C" [[noreturn]] void hal_user_return(hal::TrapFrame *tf);
/// entry.S: back into interrupted user code from its signal context.
extern "C" [[noreturn]] void hal_resume_interrupted(uint64_t uc);
/// Into the kernel with an interrupt that came while the core ran kernel
/// code and sent no signal (trap.cpp; entry.S calls it on the kernel stack).
extern "C" [[noreturn]] void hal_pending_interrupt(hal::TrapFrame *tf);
/// entry.S: runs fn(arg) on the stack whose top is sp; never returns.
extern "C" [[noreturn]] void hal_call_on_stack(uint64_t sp, void (*fn)(void *), void *arg);
/// entry.S: starts a child process of the caller (clone(2) without
/// CLONE_VM: a memory of its own, the shared mappings shared) on `stack`
/// (its top) running fn(arg); the parent gets SIGCHLD when it ends. The
/// child's pid, or -errno.
extern "C" long hal_clone_process(void *stack, void (*fn)(int), int arg);
