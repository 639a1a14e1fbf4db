// Processes and threads. A process is an address space plus the threads
// that run in it, one per core; a core that runs no thread sleeps.
#include <string.h>

#include "elf.hpp"
#include "kernel/core.hpp"

namespace kernel {

Thread threads[TS_MAX_CORES];

namespace {

constexpr int max_processes = 2;
Process processes[max_processes];

uintptr_t stack_top(int core) { return user_stack_area - static_cast<uintptr_t>(core) * user_stack_span; }

// Unmaps [from, to) of p's space and frees the frames.
void unmap_range(Process *p, uintptr_t from, uintptr_t to) {
    for (uintptr_t va = from; va < to; va += hal::page_size) {
        const uintptr_t frame = p->space.unmap(va);
        if (frame) frame_free(reinterpret_cast<void *>(frame));
    }
}

// Maps fresh zeroed user pages over [from, to): all of them, or none.
bool map_fresh(Process *p, uintptr_t from, uintptr_t to) {
    for (uintptr_t va = from; va < to; va += hal::page_size) {
        void *f = frame_alloc();
        if (f && p->space.map(va, reinterpret_cast<uintptr_t>(f), hal::perm_r | hal::perm_w | hal::perm_user))
            continue;
        if (f) frame_free(f);
        unmap_range(p, from, va);
        return false;
    }
    return true;
}

// Keeps the first non-zero status of p, and which thread it came from.
void note_status(Process *p, int status, int core) {
    if (status == 0 || p->status != 0) return;
    p->status = status;
    p->status_core = core;
    p->status_tag = threads[core].tag;
}

bool map_stack(Process *p, int core) {
    if (p->stack_mapped[core]) return true;
    const uintptr_t top = stack_top(core);
    p->stack_mapped[core] = map_fresh(p, top - user_stack_size, top);
    return p->stack_mapped[core];
}

}  // namespace

bool process_done(const Process *p) { return p->live_threads == 0; }

// Master only.
long thread_start(Process *p, uintptr_t pc, uint64_t arg) {
    for (int core = 1; core < hal::ncores(); ++core) {
        Thread &t = threads[core];
        {
            hal::Guard g(lock);
            if (t.state != ThreadState::free) continue;
        }
        if (!map_stack(p, core)) return -TS_ENOMEM;
        hal::Guard g(lock);
        hal::new_thread_frame(t.tf, pc, stack_top(core), arg);
        t.proc = t.last_proc = p;
        t.tag = -1;
        t.state = ThreadState::ready;
        ++p->live_threads;
        hal::notify_core(hal::cluster_id(), core);
        return core;
    }
    return -TS_EAGAIN;
}

// Master only.
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
    long err =
        p->space.init(frame_alloc, &kernel_space) ? elf_load(p->space, elf, size, &entry, &end) : -TS_ENOMEM;
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

namespace {

// The master's half of a thread's end: a0 = status, a1 = kill the process.
long end_thread(Call &c) {
    Process *p = current_process();
    const int status = static_cast<int>(c.a[0]);
    if (c.a[1]) process_kill(p, status);
    note_status(p, status, caller_core());
    if (--p->live_threads == 0) upper_release(p);  // its mailboxes, portals and syncs
    hal::Guard g(lock);
    Thread &t = threads[caller_core()];
    t.exit_status = status;
    t.proc = nullptr;
    t.state = ThreadState::free;
    return 0;
}

}  // namespace

void thread_exit(int status, bool kill) {
    const int core = hal::core_id();
    Call c{};
    c.a[0] = static_cast<uint64_t>(status);
    c.a[1] = kill;
    call_on_master(end_thread, c);
    hal::set_timer(0);  // a sleep cut short by a kill leaves it armed
    kernel_space.activate();
    core_loop(core);
}

void process_kill(Process *p, int status) {
    if (!p->killed) note_status(p, status, caller_core());
    p->killed = true;
    hal::notify_cluster(hal::cluster_id());  // running threads trap and end
}

void core_loop(int core) {
    Thread &t = threads[core];
    for (;;) {
        hal::clear_event();
        bool run = false;
        {
            hal::Guard g(lock);
            if (t.state == ThreadState::ready) {
                t.state = ThreadState::running;
                run = true;
            }
        }
        // A kill IPI may be the one just cleared: enter the kernel at once.
        if (run && t.proc->killed) thread_exit(0);
        if (run) hal::enter_user(&t.tf, t.proc->space.token());
        hal::wait_event();
    }
}

long sys_thread_create(Call &c) {
    if (check_user(c.a[0], 4, false) < 0) return -TS_EFAULT;
    return thread_start(current_process(), c.a[0], c.a[1]);
}

long sys_thread_join(Call &c) {
    const Process *p = current_process();
    const uint64_t tid = c.a[0];
    if (tid == 0 || tid >= static_cast<uint64_t>(hal::ncores()) ||
        tid == static_cast<uint64_t>(caller_core()))
        return -TS_EINVAL;
    const Thread &t = threads[tid];
    if (t.last_proc != p) return -TS_EINVAL;
    if (c.a[1] && check_user(c.a[1], sizeof(int), true) < 0) return -TS_EFAULT;
    if (t.proc == p) return pending;
    return c.a[1] ? copy_to_user(c.a[1], &t.exit_status, sizeof(int)) : 0;
}

// brk: heap pages are mapped as the break grows. When it shrinks, the pages
// above it are freed only if the caller is its process's only thread: other
// threads' cores may still hold the translations, and the kernel has no TLB
// shoot-down yet. The caller's core flushes its TLB when the call returns;
// the master's own entries go as it unmaps.
long sys_brk(Call &c) {
    Process *p = current_process();
    const uint64_t new_end = c.a[0];
    if (new_end == 0) return static_cast<long>(p->heap_end);
    if (new_end < p->heap_start) return -TS_EINVAL;
    if (new_end > user_heap_limit) return -TS_ENOMEM;
    const uintptr_t top = (new_end + hal::page_size - 1) & ~(hal::page_size - 1);
    if (top > p->heap_mapped) {
        if (!map_fresh(p, p->heap_mapped, top)) return -TS_ENOMEM;
        p->heap_mapped = top;
    }
    if (p->live_threads == 1 && p->heap_mapped > top) {
        caller_flushes_tlb();
        unmap_range(p, top, p->heap_mapped);
        p->heap_mapped = top;
    }
    p->heap_end = new_end;
    return static_cast<long>(new_end);
}

long sys_mem_info(Call &c) {
    const ts_mem_info info{hal::page_size, frames_total_count(), frames_free_count()};
    return copy_to_user(c.a[0], &info, sizeof(info));
}

}  // namespace kernel
