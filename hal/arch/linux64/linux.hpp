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

/// What a core's thread keeps; %gs points at its core's entry. entry.S
/// knows the offsets of the first five fields.
struct CoreState {
    TrapFrame *tf;        ///< 0: the user thread this core runs (its frame)
    uint64_t kernel_sp;   ///< 8: top of this core's kernel stack
    uint64_t in_user;     ///< 16: 1 while the core runs user code
    CoreState *self_ptr;  ///< 24: this entry (self() reads it through %gs)
    uint32_t *event;      ///< 32: its event word (core.cpp), set before it first runs user code
    int id;               ///< this core's index in its cluster
    int tid;              ///< its thread's Linux id (0 until it runs)
    int signal_stack;     ///< which of its two signal stacks is in use
    uint64_t deadline;    ///< the armed timer (time() units), 0: none
    int host_cpu;         ///< the host CPU its thread is bound to, -1: none
    uint32_t relaxes;     ///< relax() calls (every few yield)
};

/// Host CPUs a core can be bound to (CPU numbers 0..max_host_cpus-1).
constexpr int max_host_cpus = 1024;

static_assert(offsetof(CoreState, event) == 32, "entry.S reads the event word at %gs:32");

/// The signal that interrupts a core running user code (trap.cpp).
constexpr int interrupt_signal = SIGUSR1;

/// The virtual addresses user pages may have: the MMU (mmu.cpp) mirrors
/// them there, so nothing else of the process may use this range.
constexpr uintptr_t user_area_base = 0x40000000;
constexpr uintptr_t user_area_end = 0x80000000;

/// The calling core's state.
CoreState &self();
/// Sets up every core's state (ids, kernel stacks), before any runs.
void cores_init();
/// Makes the calling thread core `core`: %gs, its thread id, its signal
/// stack, and its host CPU if it has one (host_cpu).
void become_core(int core);
/// The state of core `core` of this cluster.
CoreState &core_state(int core);
/// Moves the calling core to its other signal stack (the current one
/// holds an interrupted user context until it resumes).
void next_signal_stack();

/// Writes a whole buffer to fd (retrying short writes); false on error.
bool write_all(int fd, const char *s, size_t n);
/// Ends the process at once with a message on stderr (before the console
/// works): status 125.
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
/// entry.S: starts a thread of this process on `stack` (its top) running
/// fn(arg) (clone(2) flags for a thread); the new thread's id, or -errno.
extern "C" long hal_clone_thread(void *stack, void (*fn)(int), int arg);
