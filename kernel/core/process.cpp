// Processes and threads. A process is an address space plus the threads
// that run in it, one per core; a core that runs no thread sleeps.
#include <string.h>

#include "elf.hpp"
#include "kernel/kcall_args.hpp"

namespace kernel {

Thread threads[TS_MAX_CORES];

namespace {

/// A cluster's services, or one MPI program as a process per rank (one
/// per core), and one more process.
constexpr int max_processes = TS_MAX_CORES + 1;
Process processes[max_processes];
int groups;         // master only: the last group number given
uint64_t statuses;  // master only: status_seq of the last status noted

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
    p->status_seq = ++statuses;
}

// The profile's initial stack, whole pages, at most user_stack_max.
uintptr_t initial_stack() {
    const uintptr_t size = (hal::manifest().user_stack_size + hal::page_size - 1) & ~(hal::page_size - 1);
    return size < hal::page_size ? hal::page_size : size > user_stack_max ? user_stack_max : size;
}

bool map_stack(Process *p, int core) {
    if (p->stack_bottom[core]) return true;
    const uintptr_t top = stack_top(core), bottom = top - initial_stack();
    if (!map_fresh(p, bottom, top)) return false;
    p->stack_bottom[core] = bottom;
    return true;
}

}  // namespace

bool grow_stack(Process *p, uintptr_t addr) {
    // The threads of p may fault on one stack at once; one of them grows
    // it, the others find their page mapped (a stale fault, retried).
    static hal::Spinlock stacks_lock;
    if (addr >= user_stack_area || user_stack_area - addr > TS_MAX_CORES * user_stack_span) return false;
    const int core = static_cast<int>((user_stack_area - 1 - addr) / user_stack_span);
    const uintptr_t top = stack_top(core), from = addr & ~(hal::page_size - 1);
    hal::Guard g(stacks_lock);
    const uintptr_t bottom = p->stack_bottom[core];
    if (!bottom || addr >= bottom || addr < top - user_stack_max) return false;
    if (!map_fresh(p, from, bottom)) return false;
    p->stack_bottom[core] = from;
    return true;
}

bool process_done(const Process *p) { return p->live_threads == 0; }

bool same_group(const Process *a, const Process *b) {
    return a == b || (a && b && a->group && a->group == b->group);
}

namespace {

// Starts a thread of p at pc on `core` if the core is free (master only):
// the tid, -TS_EAGAIN (the core runs a thread) or -TS_ENOMEM (no room for
// its stack). A rank's threads are named by its rank, which the kernel keeps.
long start_on(int core, Process *p, uintptr_t pc, uint64_t arg) {
    Thread &t = threads[core];
    {
        hal::Guard g(lock);
        if (t.state != ThreadState::free) return -TS_EAGAIN;
    }
    if (!map_stack(p, core)) return -TS_ENOMEM;
    hal::Guard g(lock);
    hal::new_thread_frame(t.tf, pc, stack_top(core), arg);
    t.proc = p;
    p->ended[core] = false;
    t.tag = p->rank;
    t.state = ThreadState::ready;
    ++p->live_threads;
    hal::notify_core(hal::cluster_id(), core);
    return core;
}

// A free process slot, reset and named, or nullptr (said on the console).
Process *process_new(const char *name) {
    for (auto &q : processes)
        if (!q.used) {
            q = Process{};
            q.used = true;
            strncpy(q.name, name, sizeof(q.name) - 1);
            return &q;
        }
    kprintf("tessera: cluster %d: no free process slot for %s\n", hal::cluster_id(), name);
    return nullptr;
}

// Loads the executable into p's new space, sharing the read-only pages of
// text_from if given: its entry point, or an error.
long process_load(Process *p, const void *elf, size_t size, const Process *text_from) {
    uintptr_t entry = 0, end = 0;
    if (!p->space.init(frame_alloc, &kernel_space)) return -TS_ENOMEM;
    if (long err = elf_load(p->space, elf, size, &entry, &end, text_from ? &text_from->space : nullptr))
        return err;
    p->heap_start = p->heap_end = p->heap_mapped = (end + hal::page_size - 1) & ~(hal::page_size - 1);
    return static_cast<long>(entry);
}

// Gives up a spawn of ps[0..n-1]: says why and frees their slots (their
// frames stay lost, but so is the cluster's job).
void spawn_failed(const char *name, long err, Process **ps, int n) {
    kprintf("tessera: cluster %d: cannot start %s (error %ld)\n", hal::cluster_id(), name, -err);
    for (int i = 0; i < n; ++i)
        ps[i]->used = false;
}

}  // namespace

// Master only.
long thread_start(Process *p, uintptr_t pc, uint64_t arg) {
    for (int core = 1; core < hal::ncores(); ++core)
        if (const long tid = start_on(core, p, pc, arg); tid != -TS_EAGAIN) return tid;
    return -TS_EAGAIN;
}

// Master only.
Process *process_spawn(const Executable &exe, int rank) {
    Process *p = process_new(exe.name);
    if (!p) return nullptr;
    p->program = exe.program;
    p->rank = rank;
    p->local = rank >= 0 ? 0 : -1;
    long r = process_load(p, exe.elf, exe.size, nullptr);
    if (r >= 0) r = thread_start(p, static_cast<uintptr_t>(r), 0);
    if (r >= 0) return p;
    spawn_failed(exe.name, r, &p, 1);
    return nullptr;
}

namespace {

// The first of out[0..l-1] that runs exes[l]'s program, whose read-only
// pages it shares; nullptr if none does.
const Process *text_owner(const Executable *exes, Process *const *out, int l) {
    for (int k = 0; k < l; ++k)
        if (exes[k].elf == exes[l].elf) return out[k];
    return nullptr;
}

}  // namespace

// Master only. Every space is complete, aliases, stacks and the shared
// area included, before any rank runs.
int process_spawn_ranks(const Executable *exes, const int *ranks, int n, Process **out) {
    long err = n >= 1 && n < hal::ncores() ? 0 : -TS_EINVAL;
    const int group = ++groups;
    int made = 0;
    uintptr_t entry[TS_MAX_CORES] = {};
    for (; err == 0 && made < n; ++made) {
        Process *p = out[made] = process_new(exes[made].name);
        if (!p) {
            err = -TS_ENOMEM;
            break;
        }
        p->group = group;
        p->rank = ranks[made];
        p->local = made;
        p->program = exes[made].program;
        p->aliased = n > 1;  // a rank alone needs no alias (and may shrink its heap)
        const long at = process_load(p, exes[made].elf, exes[made].size, text_owner(exes, out, made));
        if (at < 0)
            err = at;
        else if (!map_stack(p, made + 1))
            err = -TS_ENOMEM;
        entry[made] = static_cast<uintptr_t>(at);
    }
    if (err == 0 && n > 1 && !map_fresh(out[0], cluster_shared_va, cluster_shared_va + hal::page_size))
        err = -TS_ENOMEM;
    for (int l = 0; err == 0 && n > 1 && l < n; ++l)
        for (int k = 0; err == 0 && k < n; ++k) {
            const uintptr_t at = rank_alias_base + static_cast<uintptr_t>(k) * hal::alias_area_size;
            if (!out[l]->space.alias_area(out[k]->space, user_base, at)) err = -TS_ENOMEM;
        }
    if (err) {
        spawn_failed(exes[0].name, err, out, made);
        return 0;
    }
    for (int l = 0; l < n; ++l)
        start_on(l + 1, out[l], entry[l], 0);  // free cores, mapped stacks: cannot fail
    return n;
}

namespace {

struct EndArgs {
    int status;
    ThreadEnd ends;
};

// The master's half of a thread's end.
long end_thread(const EndArgs &end, Call &) {
    Process *p = current_process();
    const int status = end.status;
    if (end.ends == ThreadEnd::group) process_kill(p, status);
    if (end.ends == ThreadEnd::process && !p->killed) {
        p->killed = true;                        // its other threads end at
        hal::notify_cluster(hal::cluster_id());  // their next kernel entry
    }
    note_status(p, status, caller_core());
    if (--p->live_threads == 0) upper.release(p);  // its mailboxes, portals, syncs, windows, files
    hal::Guard g(lock);
    Thread &t = threads[caller_core()];
    p->ended[caller_core()] = true;
    p->exit_status[caller_core()] = status;
    t.proc = nullptr;
    t.state = ThreadState::free;
    return 0;
}

}  // namespace

void thread_exit(int status, ThreadEnd ends) {
    const int core = hal::core_id();
    call_on_master<EndArgs, end_thread>(EndArgs{status, ends});
    hal::set_timer(0);  // a sleep cut short by a kill leaves it armed
    kernel_space.activate();
    core_loop(core);
}

void process_kill(Process *p, int status) {
    if (!p->killed) note_status(p, status, caller_core());
    for (auto &q : processes)
        if (q.used && same_group(&q, p)) q.killed = true;
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
        if (run) debug_hold(core);
        // A kill IPI may be the one just cleared: enter the kernel at once.
        if (run && t.proc->killed) thread_exit(0);
        if (run) hal::enter_user(&t.tf, t.proc->space.token());
        hal::wait_event();
    }
}

long sys_thread_create(const thread_create_args &a, Call &) {
    return thread_start(current_process(), a.entry, a.arg);
}

// The status pointer was checked writable by this attempt's decoding.
long sys_thread_join(const thread_join_args &a, Call &) {
    const Process *p = current_process();
    const int tid = a.tid;
    if (tid >= hal::ncores() || tid == caller_core()) return -TS_EINVAL;
    const Thread &t = threads[tid];
    if (t.proc != p && !p->ended[tid]) return -TS_EINVAL;
    if (t.proc == p) return pending;
    if (a.status) *a.status = p->exit_status[tid];
    return 0;
}

// brk: heap pages are mapped as the break grows. When it shrinks, the pages
// above it are freed only if the caller is its process's only thread and
// no other space aliases them: other cores may still hold the
// translations, and the kernel has no TLB shoot-down yet. The caller's
// core flushes its TLB when the call returns; the master's own entries go
// as it unmaps.
long sys_brk(const brk_args &a, Call &) {
    Process *p = current_process();
    const uint64_t new_end = a.new_end;
    if (new_end == 0) return static_cast<long>(p->heap_end);
    if (new_end < p->heap_start) return -TS_EINVAL;
    if (new_end > user_heap_limit) return -TS_ENOMEM;
    const uintptr_t top = (new_end + hal::page_size - 1) & ~(hal::page_size - 1);
    if (top > p->heap_mapped) {
        if (!map_fresh(p, p->heap_mapped, top)) return -TS_ENOMEM;
        p->heap_mapped = top;
    }
    if (p->live_threads == 1 && !p->aliased && p->heap_mapped > top) {
        caller_flushes_tlb();
        unmap_range(p, top, p->heap_mapped);
        p->heap_mapped = top;
    }
    p->heap_end = new_end;
    return static_cast<long>(new_end);
}

long sys_mem_info(const mem_info_args &a, Call &) {
    *a.info = ts_mem_info{hal::page_size, frames_total_count(), frames_free_count()};
    return 0;
}

}  // namespace kernel
