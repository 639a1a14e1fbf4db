// qemu-riscv64 traps: what a trap from U-mode was (a kernel call, an
// interrupt, a fault), handed to the kernel, and the panic of a trap in
// S-mode. entry.S saves the registers and calls these.
#include "hal/hal.hpp"
#include "riscv.hpp"

namespace hal {

const char *cause_name(uint64_t cause) {
    static const char *const names[] = {"instruction address misaligned",
                                        "instruction access fault",
                                        "illegal instruction",
                                        "breakpoint",
                                        "load address misaligned",
                                        "load access fault",
                                        "store address misaligned",
                                        "store access fault",
                                        "environment call from U-mode",
                                        "environment call from S-mode",
                                        "reserved",
                                        "reserved",
                                        "instruction page fault",
                                        "load page fault",
                                        "reserved",
                                        "store page fault"};
    return cause < sizeof(names) / sizeof(names[0]) ? names[cause] : "unknown trap";
}

bool is_page_fault(uint64_t cause) {
    return cause == rv::cause_fetch_page_fault || cause == rv::cause_load_page_fault ||
           cause == rv::cause_store_page_fault;
}

}  // namespace hal

using namespace hal;

extern "C" [[noreturn]] void hal_user_trap(TrapFrame *tf) {
    const uint64_t cause = HAL_CSR_READ(scause);
    TrapInfo info{TrapKind::fault, cause, HAL_CSR_READ(stval)};
    if (cause & rv::scause_interrupt) {
        info.kind = TrapKind::interrupt;
        clear_event();
        if ((cause & ~rv::scause_interrupt) == rv::irq_supervisor_timer) set_timer(0);
    } else if (cause == rv::cause_ecall_user) {
        info.kind = TrapKind::syscall;
        tf->pc += 4;
    }
    kernel_user_trap(tf, info);
}

// Interrupts are never enabled in S-mode, so only a kernel bug gets here.
extern "C" [[noreturn]] void hal_kernel_trap() {
    kernel_trap_panic(HAL_CSR_READ(scause), HAL_CSR_READ(sepc), HAL_CSR_READ(stval));
}
