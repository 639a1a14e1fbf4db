// The kernel of one cluster: shared declarations.
//
// One kernel per cluster, run by the cluster's master core (core 0): it
// boots the cluster, owns the tables and runs the spawn server. The other
// cores each run at most one user thread. In this slice a kernel call is
// served on the calling core under the cluster's kernel lock (issue 3 moves
// non-local calls to the master).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "hal/hal.hpp"
#include "tessera/syscall.h"

namespace kernel {

/// The cluster's kernel lock: every table below is guarded by it.
extern hal::Spinlock lock;

// ---- log ------------------------------------------------------------------

/// printf-like console output (%d %u %x %lx %lu %ld %s %c %p %%), one write.
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void panic(const char *what);

// ---- page frames ------------------------------------------------------------

void frames_init();
/// A zeroed 4 KiB frame of the cluster's window, or nullptr.
void *frame_alloc();
void frame_free(void *frame);
size_t frames_free_count();

/// The kernel's address space (its window, the fabric, the devices).
extern hal::AddressSpace kernel_space;

// ---- processes and threads ---------------------------------------------------

constexpr uintptr_t user_base = 0x40000000;
constexpr uintptr_t user_heap_limit = 0x60000000;
constexpr uintptr_t user_stack_area = 0x70000000;  ///< core k's stack tops out at area - k MiB
constexpr size_t user_stack_size = 128 * 1024;
constexpr int status_fault = 139;  ///< exit status of a process killed by a fault
constexpr int status_panic = 126;  ///< machine exit status after a kernel panic

enum class ThreadState { free, ready, running };

struct Process;

struct Thread {
    ThreadState state = ThreadState::free;
    Process *proc = nullptr;       ///< while ready or running
    Process *last_proc = nullptr;  ///< the process of the last thread that ran here
    int exit_status = 0;           ///< of the last thread that ran here
    hal::TrapFrame tf{};
};

struct Process {
    bool used = false;
    bool killed = false;
    bool stack_mapped[TS_MAX_CORES] = {};
    int live_threads = 0;
    int status = 0;           ///< first non-zero thread status
    uintptr_t heap_start = 0;
    uintptr_t heap_end = 0;     ///< the break
    uintptr_t heap_mapped = 0;  ///< heap pages are mapped up to here
    hal::AddressSpace space;
    char name[TS_PROGRAM_NAME] = {};
};

/// Thread table: one entry per core (the thread a core runs).
extern Thread threads[TS_MAX_CORES];

/// Loads an ELF executable and starts its main thread on a free core.
/// Returns the process or nullptr (and says why on the console).
Process *process_spawn(const char *name, const void *elf, size_t size);
/// True once every thread of p has ended.
bool process_done(const Process *p);
/// Starts a user thread of p at pc with a0 = arg. Returns tid or -TS_EAGAIN.
long thread_start(Process *p, uintptr_t pc, uint64_t arg);
/// Ends the calling thread (lock not held) and runs the core's idle loop.
[[noreturn]] void thread_exit(int status);
/// Kills p with `status`: its threads end at their next kernel entry.
void process_kill(Process *p, int status);
/// The process of the thread on the calling core.
Process *current_process();

/// The idle loop of a non-master core: runs the threads given to it.
[[noreturn]] void core_loop(int core);

// ---- user memory -------------------------------------------------------------

/// Checks that [va, va+len) is mapped user memory of the calling thread's
/// process, writable if `write`. 0 or -TS_EFAULT.
long check_user(uintptr_t va, size_t len, bool write);
/// Copies in/out of the calling process after check_user. 0 or -TS_EFAULT.
long copy_from_user(void *dst, uintptr_t src, size_t len);
long copy_to_user(uintptr_t dst, const void *src, size_t len);

// ---- waiting ------------------------------------------------------------------

/// Runs `attempt` under the kernel lock until it returns true, sleeping
/// between attempts. A user thread whose process is killed meanwhile ends.
template <class F>
void block_until(F attempt) {
    for (;;) {
        hal::clear_event();
        {
            hal::Guard g(lock);
            if (attempt()) return;
        }
        if (hal::core_id() != 0) {
            Process *p = current_process();
            if (p && p->killed) thread_exit(0);
        }
        hal::wait_event();
    }
}

// ---- kernel calls -------------------------------------------------------------

using Syscall = long (*)(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3);
/// The kernel call table entry for `number`, or nullptr.
Syscall syscall_lookup(uint64_t number);

// Handlers living in other files (registered in syscall.cpp).
long sys_thread_create(uint64_t, uint64_t, uint64_t, uint64_t);
long sys_thread_join(uint64_t, uint64_t, uint64_t, uint64_t);
long sys_thread_self(uint64_t, uint64_t, uint64_t, uint64_t);
long sys_brk(uint64_t, uint64_t, uint64_t, uint64_t);

/// Ends the job: on cluster 0 powers off; elsewhere reports to cluster 0.
[[noreturn]] void job_abort(int code);

}  // namespace kernel
