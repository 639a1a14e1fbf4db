// Processes and threads. A process is an address space plus the threads
// that run in it, one per core; a core that runs no thread sleeps.
#include <string.h>

#include "kernel/elf.hpp"
#include "kernel/kernel.hpp"

namespace kernel {

Thread threads[TS_MAX_CORES];

namespace {

constexpr int max_processes = 2;
Process processes[max_processes];

uintptr_t stack_top(int core) { return user_stack_area - static_cast<uintptr_t>(core) * (1u << 20); }

bool map_stack(Process *p, int core) {
    if (p->stack_mapped[core]) return true;
    const uintptr_t top = stack_top(core);
    for (uintptr_t va = top - user_stack_size; va < top; va += hal::page_size) {
        void *f = frame_alloc();
        if (!f || !p->space.map(va, reinterpret_cast<uintptr_t>(f), hal::perm_r | hal::perm_w | hal::perm_user))
            return false;
    }
    p->stack_mapped[core] = true;
    return true;
}

}  // namespace

Process *current_process() { return threads[hal::core_id()].proc; }

bool process_done(const Process *p) { return p->live_threads == 0; }

// Kernel lock held.
long thread_start(Process *p, uintptr_t pc, uint64_t arg) {
    for (int core = 1; core < hal::ncores(); ++core) {
        Thread &t = threads[core];
        if (t.state != ThreadState::free) continue;
        if (!map_stack(p, core)) return -TS_ENOMEM;
        t.tf = {};
        t.tf.pc = pc;
        t.tf.x[2] = stack_top(core);
        t.tf.x[10] = arg;
        t.proc = t.last_proc = p;
        t.state = ThreadState::ready;
        ++p->live_threads;
        hal::notify_cluster(hal::cluster_id());
        return core;
    }
    return -TS_EAGAIN;
}

// Kernel lock held.
Process *process_spawn(const char *name, const void *elf, size_t size) {
    Process *p = nullptr;
    for (auto &q : processes)
        if (!q.used) p = &q;
    if (!p) {
        kprintf("tessera: cluster %d: no free process slot for %s\n", hal::cluster_id(), name);
        return nullptr;
    }
    *p = Process{};
    p->used = true;
    strncpy(p->name, name, sizeof(p->name) - 1);
    uintptr_t entry = 0, end = 0;
    long err = p->space.init(frame_alloc, &kernel_space) ? elf_load(p->space, elf, size, &entry, &end)
                                                          : -TS_ENOMEM;
    if (err == 0) {
        p->heap_start = p->heap_end = p->heap_mapped = (end + hal::page_size - 1) & ~(hal::page_size - 1);
        err = thread_start(p, entry, 0);
    }
    if (err < 0) {
        kprintf("tessera: cluster %d: cannot start %s (error %ld)\n", hal::cluster_id(), name, -err);
        p->used = false;
        return nullptr;
    }
    return p;
}

void thread_exit(int status) {
    const int core = hal::core_id();
    {
        hal::Guard g(lock);
        Thread &t = threads[core];
        Process *p = t.proc;
        if (status != 0 && p->status == 0) p->status = status;
        --p->live_threads;
        t.exit_status = status;
        t.proc = nullptr;
        t.state = ThreadState::free;
    }
    hal::set_timer(0);  // a sleep cut short by a kill leaves it armed
    kernel_space.activate();
    hal::notify_cluster(hal::cluster_id());  // joiners and the spawn server
    core_loop(core);
}

void process_kill(Process *p, int status) {
    if (!p->killed && p->status == 0) p->status = status;
    p->killed = true;
    hal::notify_cluster(hal::cluster_id());  // running threads trap and end
}

void core_loop(int core) {
    Thread &t = threads[core];
    for (;;) {
        hal::clear_event();
        bool run = false, killed = false;
        {
            hal::Guard g(lock);
            if (t.state == ThreadState::ready) {
                t.state = ThreadState::running;
                run = true;
                killed = t.proc->killed;  // its kill IPI may be the one just cleared
            }
        }
        if (killed) thread_exit(0);
        if (run) hal::enter_user(&t.tf, t.proc->space.token());
        hal::wait_event();
    }
}

long sys_thread_create(uint64_t entry, uint64_t arg, uint64_t, uint64_t) {
    if (check_user(entry, 4, false) < 0) return -TS_EFAULT;
    hal::Guard g(lock);
    return thread_start(current_process(), entry, arg);
}

long sys_thread_join(uint64_t tid, uint64_t status_ptr, uint64_t, uint64_t) {
    Process *p = current_process();
    const int core = hal::core_id();
    if (tid == 0 || tid >= static_cast<uint64_t>(hal::ncores()) || static_cast<int>(tid) == core)
        return -TS_EINVAL;
    if (status_ptr && check_user(status_ptr, sizeof(int), true) < 0) return -TS_EFAULT;
    Thread &t = threads[tid];
    {
        hal::Guard g(lock);
        if (t.last_proc != p) return -TS_EINVAL;
    }
    block_until([&] { return t.proc != p; });
    if (status_ptr) copy_to_user(status_ptr, &t.exit_status, sizeof(int));
    return 0;
}

long sys_thread_self(uint64_t, uint64_t, uint64_t, uint64_t) { return hal::core_id(); }

// The heap's pages stay mapped once mapped: shrinking only moves the break.
// Freeing them would race with the process's other cores, which may still
// hold the translations, and with kernel copies in flight on those pages.
long sys_brk(uint64_t new_end, uint64_t, uint64_t, uint64_t) {
    hal::Guard g(lock);
    Process *p = current_process();
    if (new_end == 0) return static_cast<long>(p->heap_end);
    if (new_end < p->heap_start || new_end > user_heap_limit) return -TS_ENOMEM;
    const uintptr_t top = (new_end + hal::page_size - 1) & ~(hal::page_size - 1);
    for (; p->heap_mapped < top; p->heap_mapped += hal::page_size) {
        void *f = frame_alloc();
        if (!f) return -TS_ENOMEM;
        if (!p->space.map(p->heap_mapped, reinterpret_cast<uintptr_t>(f), hal::perm_r | hal::perm_w | hal::perm_user)) {
            frame_free(f);
            return -TS_ENOMEM;
        }
    }
    p->heap_end = new_end;
    return static_cast<long>(new_end);
}

}  // namespace kernel
