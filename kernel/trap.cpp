// Traps from user threads: kernel calls, interrupts, faults.
#include "kernel.hpp"

using namespace kernel;

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
        report_fault(p, *tf, info);
        thread_exit(status_fault, true);
    }
    if (p->killed) thread_exit(0);
    kstack_check();
    hal::enter_user(tf, p->space.token());
}
