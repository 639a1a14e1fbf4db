// Traps from user threads: kernel calls, interrupts, faults.
#include "kernel.hpp"

using namespace kernel;

namespace {

// What the address of a page fault was, for the report.
const char *fault_place(const Process *p, uint64_t addr) {
    if (p->aliased && addr >= rank_alias_base && addr < rank_alias_base + TS_MAX_CORES * hal::alias_area_size)
        return " (in the alias area of the cluster's ranks)";
    if (addr >= user_stack_area) return " (outside the user area)";
    if (addr >= user_stack_area - TS_MAX_CORES * user_stack_span &&
        (user_stack_area - addr - 1) % user_stack_span >= user_stack_max)
        return " (stack overflow into the guard area)";
    unsigned perms = 0;
    if (p->space.lookup(addr, &perms))
        return (perms & hal::perm_x) ? " (text)" : " (page without that right)";
    return "";
}

// The one-line report of a fault that kills p, naming the thread (its rank
// when it has a tag), e.g. "tessera: rank 5 (cluster 2 thread 3): process
// app killed: store page fault at pc=0x40000a10 addr=0x10".
void report_fault(const Process *p, uint64_t pc, hal::TrapInfo info) {
    char who[thread_name_max];
    thread_name(who, hal::cluster_id(), hal::core_id(), threads[hal::core_id()].tag);
    kprintf("tessera: %s: process %s killed: %s at pc=0x%lx addr=0x%lx%s\n", who, p->name,
            hal::cause_name(info.cause), pc, info.tval,
            hal::is_page_fault(info.cause) ? fault_place(p, info.tval) : "");
}

}  // namespace

extern "C" bool kernel_user_page_fault(uint64_t addr) {
    Process *p = current_process();
    return p && grow_stack(p, hal::core_id(), addr);
}

extern "C" void kernel_user_trap(hal::TrapFrame *tf, hal::TrapInfo info) {
    Process *p = current_process();
    switch (info.kind) {
    case hal::TrapKind::syscall: {
        if (p->killed) thread_exit(0);
        const uint64_t args[4] = {hal::call_arg(*tf, 0), hal::call_arg(*tf, 1), hal::call_arg(*tf, 2),
                                  hal::call_arg(*tf, 3)};
        hal::set_call_result(*tf, static_cast<uint64_t>(kernel_call(hal::call_number(*tf), args)));
        break;
    }
    case hal::TrapKind::interrupt: break;  // an IPI: someone may have killed the process, checked below
    case hal::TrapKind::fault:
        if (hal::page_fault_is_stale(p->space, info.cause, info.tval)) break;
        if (hal::is_page_fault(info.cause) && kernel_user_page_fault(info.tval)) break;
        report_fault(p, hal::trap_pc(*tf), info);
        thread_exit(status_fault, true);
    }
    if (p->killed) thread_exit(0);
    kstack_check();
    hal::enter_user(tf, p->space.token());
}
