// linux64 traps. A kernel call arrives through the gate (entry.S) as a
// plain call. An interrupt of a core in user code arrives as a signal
// (notify_core's), and resumes through rt_sigreturn. A user fault arrives as a signal (SIGSEGV, SIGBUS,
// SIGILL, SIGFPE, SIGTRAP) on the core's signal stack: the handler turns it into a trap and leaves the signal
// for good, on the core's kernel stack. A fault in kernel code is a kernel bug: it panics, as on QEMU.
#include <signal.h>

#include "linux.hpp"

extern "C" void hal_sigreturn();  // entry.S

namespace hal {
namespace {

using host::sys;

// The causes a linux64 trap reports (TrapInfo::cause).
enum Cause : uint64_t {
    illegal_instruction,
    fetch_page_fault,
    load_page_fault,
    store_page_fault,
    protection_fault,
    bus_error,
    arithmetic_error,
    breakpoint,
};

// The kernel's struct sigaction (not glibc's).
struct KernelSigaction {
    void (*handler)(int, siginfo_t *, void *);
    unsigned long flags;
    void (*restorer)();
    uint64_t mask;
};
constexpr unsigned long sa_restorer = 0x04000000;

// x86-64 page-fault error code bits, and trap numbers (Intel SDM vol. 3, §6.15).
constexpr uint64_t pf_write = 2, pf_fetch = 16;
constexpr uint64_t trap_page_fault = 14;

Cause cause_of(int sig, const ucontext_t &uc) {
    const auto &r = uc.uc_mcontext.gregs;
    switch (sig) {
    case SIGILL: return illegal_instruction;
    case SIGBUS: return bus_error;
    case SIGFPE: return arithmetic_error;
    case SIGTRAP: return breakpoint;
    default:
        if (static_cast<uint64_t>(r[REG_TRAPNO]) != trap_page_fault) return protection_fault;
        if (r[REG_ERR] & pf_fetch) return fetch_page_fault;
        return (r[REG_ERR] & pf_write) ? store_page_fault : load_page_fault;
    }
}

struct FaultTrap {
    TrapFrame *tf;
    TrapInfo info;
};

[[noreturn]] void deliver_fault(void *arg) {
    FaultTrap t = *static_cast<FaultTrap *>(arg);
    kernel_user_trap(t.tf, t.info);
}

// An interrupt (notify_core's signal) taken in user code: into the kernel
// as a RISC-V interrupt trap. The signal frame stays where it is, on the
// core's current signal stack, until enter_user resumes from it; so the
// core moves to its other signal stack before it lets the signal in again.
[[noreturn]] void deliver_interrupt(void *tf) {
    host::next_signal_stack();
    const uint64_t unblock = 1ull << (host::interrupt_signal - 1);
    sys(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&unblock), 0, sizeof(unblock));
    kernel_user_trap(static_cast<TrapFrame *>(tf), TrapInfo{TrapKind::interrupt, 0, 0});
}

void on_interrupt(int, siginfo_t *, void *ucv) {
    host::CoreState &c = host::self();
    if (!c.in_user) return;  // in the kernel: the event word says it all
    c.in_user = 0;
    c.tf->resume_uc = reinterpret_cast<uint64_t>(ucv);
    hal_call_on_stack(c.kernel_sp, deliver_interrupt, c.tf);
}

void on_fault(int sig, siginfo_t *si, void *ucv) {
    const auto &uc = *static_cast<ucontext_t *>(ucv);
    const uint64_t pc = static_cast<uint64_t>(uc.uc_mcontext.gregs[REG_RIP]);
    const uint64_t addr = reinterpret_cast<uint64_t>(si->si_addr);
    host::CoreState &c = host::self();
    if (!c.in_user) kernel_trap_panic(cause_of(sig, uc), pc, addr);
    c.in_user = 0;
    c.tf->pc = pc;
    c.tf->sp = static_cast<uint64_t>(uc.uc_mcontext.gregs[REG_RSP]);
    FaultTrap t{c.tf, {TrapKind::fault, cause_of(sig, uc), addr}};
    // Copied onto the kernel stack's side by deliver_fault before anything
    // else runs there; this signal frame is abandoned (SA_NODEFER keeps the
    // signal unblocked).
    hal_call_on_stack(c.kernel_sp, deliver_fault, &t);
}

}  // namespace

namespace host {

void trap_init() {
    KernelSigaction sa{};
    sa.handler = on_fault;
    sa.flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | sa_restorer;
    sa.restorer = hal_sigreturn;
    static constexpr int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
    for (int sig : faults)
        if (sys(SYS_rt_sigaction, sig, reinterpret_cast<long>(&sa), 0, sizeof(sa.mask)) != 0)
            fail("cannot install the fault handlers");
    // The interrupt stays blocked while its handler runs (no SA_NODEFER).
    sa.handler = on_interrupt;
    sa.flags = SA_SIGINFO | SA_ONSTACK | sa_restorer;
    if (sys(SYS_rt_sigaction, host::interrupt_signal, reinterpret_cast<long>(&sa), 0, sizeof(sa.mask)) != 0)
        fail("cannot install the interrupt handler");
}

}  // namespace host

const char *cause_name(uint64_t cause) {
    static const char *const names[] = {"illegal instruction",      "instruction page fault",
                                        "load page fault",          "store page fault",
                                        "general protection fault", "bus error",
                                        "arithmetic error",         "breakpoint"};
    return cause < sizeof(names) / sizeof(names[0]) ? names[cause] : "unknown trap";
}

bool is_page_fault(uint64_t cause) {
    return cause == fetch_page_fault || cause == load_page_fault || cause == store_page_fault;
}

}  // namespace hal

using namespace hal;

// An event that came while the core ran kernel code, taken as the core
// goes back to user code (entry.S, enter_user): an interrupt.
extern "C" [[noreturn]] void hal_pending_interrupt(TrapFrame *tf) {
    kernel_user_trap(tf, TrapInfo{TrapKind::interrupt, 0, 0});
}

// The gate's way into the kernel (entry.S): a kernel call.
extern "C" [[noreturn]] void hal_gate_trap(TrapFrame *tf) {
    kernel_user_trap(tf, TrapInfo{TrapKind::syscall, 0, 0});
}
