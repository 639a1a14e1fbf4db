// Traps from user threads: kernel calls, interrupts, faults.
#include "kernel.hpp"

using namespace kernel;

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
        // A page of a stack to grow now, or one another core mapped since
        // the fault (a stack another thread grew, maybe while this one
        // waited in grow_stack): the access is retried.
        if (hal::is_page_fault(info.cause) && grow_stack(p, info.tval)) break;
        if (hal::page_fault_is_stale(p->space, info.cause, info.tval)) break;
        report_fault(p, *tf, info);
        thread_exit(status_fault, ThreadEnd::group);
    }
    if (p->killed) thread_exit(0);
    kstack_check();
    hal::enter_user(tf, p->space.token());
}
