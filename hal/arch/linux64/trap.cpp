// linux64 traps. A kernel call arrives through the gate (entry.S) as a
// plain call. An interrupt of a core in user code arrives as a signal
// (notify_core's), and resumes through rt_sigreturn. A page fault
// (SIGSEGV) at a user or alias address that the core's active space maps
// with the right the access needs is a miss of the core's software TLB
// (mmu.cpp): the page is mirrored and the access retried, in user code as
// in kernel code (which touches user memory after check_user). Any other
// user fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP) arrives on the
// core's signal stack: the handler turns it into a trap on the core's
// kernel stack, and keeps the signal context, as an interrupt's, for the
// kernel to resume the thread from with every register it had (a page
// another core mapped meanwhile, a stack it grows). A fault in kernel code is a
// kernel bug: it panics, as on QEMU. The master also learns here of a
// core's process that ended (SIGCHLD): the cluster ends with it.
#include <signal.h>
#include <sys/wait.h>

#include "linux.hpp"

extern "C" void hal_sigreturn();  // entry.S

namespace hal {
namespace {

using host::sys;

using namespace host::causes;

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

constexpr uint64_t interrupt_bit = 1ull << (host::interrupt_signal - 1);

// The signal frame stays on the core's current signal stack until
// enter_user resumes from it (or the thread ends), as an interrupt's does.
[[noreturn]] void deliver_fault(void *arg) {
    FaultTrap t = *static_cast<FaultTrap *>(arg);
    host::next_signal_stack();
    // The handler blocked the interrupt: let it in again, as rt_sigreturn
    // would have.
    sys(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&interrupt_bit), 0, sizeof(interrupt_bit));
    kernel_user_trap(t.tf, t.info);
}

// An interrupt (notify_core's signal) taken in user code: into the kernel
// as a RISC-V interrupt trap. The signal frame stays where it is, on the
// core's current signal stack, until enter_user resumes from it; so the
// core moves to its other signal stack before it lets the signal in again.
[[noreturn]] void deliver_interrupt(void *tf) {
    host::next_signal_stack();
    sys(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&interrupt_bit), 0, sizeof(interrupt_bit));
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
    // A miss: the interrupt stays blocked until the retry (sa.mask), so
    // that no interrupt finds this frame on the signal stack.
    if (sig == SIGSEGV && si->si_code > 0 /* from a fault, not kill(2) */ &&
        static_cast<uint64_t>(uc.uc_mcontext.gregs[REG_TRAPNO]) == trap_page_fault &&
        host::mirror_miss(addr, uc.uc_mcontext.gregs[REG_ERR] & pf_write,
                          uc.uc_mcontext.gregs[REG_ERR] & pf_fetch))
        return;
    host::CoreState &c = host::self();
    if (!c.in_user) kernel_trap_panic(cause_of(sig, uc), pc, addr);
    c.in_user = 0;
    // The fault's report reads these; a resume restores the whole context.
    c.tf->pc = pc;
    c.tf->sp = static_cast<uint64_t>(uc.uc_mcontext.gregs[REG_RSP]);
    c.tf->rbp = static_cast<uint64_t>(uc.uc_mcontext.gregs[REG_RBP]);  // for the fault's backtrace
    c.tf->resume_uc = reinterpret_cast<uint64_t>(ucv);
    FaultTrap t{c.tf, {TrapKind::fault, cause_of(sig, uc), addr}};
    // Copied onto the kernel stack's side by deliver_fault before anything
    // else runs there (SA_NODEFER keeps the signal unblocked).
    hal_call_on_stack(c.kernel_sp, deliver_fault, &t);
}

// The master: a core's process ended. No core ends but with the cluster
// (end_cluster, which the master ignores), so this one died (a signal, or
// host::fail): say which and how, and end the cluster as it ended, for the
// launcher to report.
void on_child(int, siginfo_t *, void *) {
    if (host::cluster_ending()) return;
    siginfo_t si{};
    if (sys(SYS_waitid, P_ALL, 0, reinterpret_cast<long>(&si), WEXITED | WNOHANG, 0) != 0 || si.si_pid == 0)
        return;
    int core = -1;
    for (int k = 1; k < ncores(); ++k)
        if (host::core_state(k).pid == si.si_pid) core = k;
    char n1[24], n2[24], n3[24], n4[24];
    host::say("tessera_cluster: cluster ");
    host::say(host::decimal(n1 + sizeof n1 - 1, static_cast<unsigned long>(cluster_id())));
    host::say(": core ");
    host::say(core < 0 ? "?" : host::decimal(n2 + sizeof n2 - 1, static_cast<unsigned long>(core)));
    host::say(" (pid ");
    host::say(host::decimal(n3 + sizeof n3 - 1, static_cast<unsigned long>(si.si_pid)));
    const bool signaled = si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED;
    host::say(signaled ? ") died of signal " : ") exited with status ");
    host::say(host::decimal(n4 + sizeof n4 - 1, static_cast<unsigned long>(si.si_status)));
    host::say("; ending the cluster\n");
    // The master ends as the core did, for the launcher to report it.
    host::end_cluster(signaled ? 128 + si.si_status : si.si_status, signaled ? si.si_status : 0);
}

}  // namespace

namespace host {

void trap_init() {
    KernelSigaction sa{};
    sa.handler = on_fault;
    // Faults nest (a fault's handler that faults is a kernel bug, which
    // must panic, not hang); the interrupt waits until a miss is retried.
    sa.flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | sa_restorer;
    sa.mask = interrupt_bit;
    sa.restorer = hal_sigreturn;
    static constexpr int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
    for (int sig : faults)
        if (sys(SYS_rt_sigaction, sig, reinterpret_cast<long>(&sa), 0, sizeof(sa.mask)) != 0)
            fail("cannot install the fault handlers");
    // The interrupt stays blocked while its handler runs (no SA_NODEFER).
    sa.handler = on_interrupt;
    sa.flags = SA_SIGINFO | SA_ONSTACK | sa_restorer;
    sa.mask = 0;
    if (sys(SYS_rt_sigaction, host::interrupt_signal, reinterpret_cast<long>(&sa), 0, sizeof(sa.mask)) != 0)
        fail("cannot install the interrupt handler");
    // The master's, before it starts the cores (they inherit it, and never
    // have children). Stops of a core are no end.
    sa.handler = on_child;
    sa.flags = SA_SIGINFO | SA_ONSTACK | SA_NOCLDSTOP | sa_restorer;
    if (sys(SYS_rt_sigaction, SIGCHLD, reinterpret_cast<long>(&sa), 0, sizeof(sa.mask)) != 0)
        fail("cannot install the handler of the cores' ends");
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
