// Traps from user threads: kernel calls, interrupts, faults.
#include "kernel/kernel.hpp"

using namespace kernel;

extern "C" void kernel_user_trap(hal::TrapFrame *tf, hal::TrapInfo info) {
    Process *p = current_process();
    switch (info.kind) {
    case hal::TrapKind::syscall: {
        if (p->killed) thread_exit(0);
        const Syscall call = syscall_lookup(tf->x[17]);
        tf->x[10] = static_cast<uint64_t>(call ? call(tf->x[10], tf->x[11], tf->x[12], tf->x[13]) : -TS_ENOSYS);
        break;
    }
    case hal::TrapKind::interrupt:
        break;  // an IPI: someone may have killed the process, checked below
    case hal::TrapKind::fault:
        if (hal::page_fault_is_stale(p->space, info.cause, info.tval)) break;
        kprintf("tessera: cluster %d core %d: process %s killed: %s at pc=0x%lx addr=0x%lx\n",
                hal::cluster_id(), hal::core_id(), p->name, hal::cause_name(info.cause), tf->pc, info.tval);
        {
            hal::Guard g(lock);
            process_kill(p, status_fault);
        }
        thread_exit(status_fault);
    }
    if (p->killed) thread_exit(0);
    hal::enter_user(tf, p->space.token());
}
