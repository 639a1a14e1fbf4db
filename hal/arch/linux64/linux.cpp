// The linux64 HAL's per-core state, stacks and small helpers. All of it is
// kernel memory (the cluster executable's writable segment), which boot.cpp
// shares between the cores' processes.
#include "linux.hpp"

#include <asm/prctl.h>
#include <sys/prctl.h>
#include <signal.h>
#include <ucontext.h>

namespace hal::host {
namespace {

// Every core has a kernel stack (user threads enter the kernel on it) and
// a signal stack (where a fault is taken before it becomes a trap).
constexpr size_t kernel_stack_size = 64 * 1024;
constexpr size_t signal_stack_size = 32 * 1024;

alignas(16) char kernel_stacks[TS_MAX_CORES][kernel_stack_size];
alignas(16) char signal_stacks[TS_MAX_CORES][2][signal_stack_size];
CoreState cores[TS_MAX_CORES];
int the_master_pid;
/// Set once the cluster ends on purpose (end_cluster): the master takes
/// its cores' ends for granted then (trap.cpp).
bool ending;

}  // namespace

CoreState &self() {
    CoreState *c;
    __asm__("movq %%gs:%c1, %0" : "=r"(c) : "i"(offsetof(CoreState, self_ptr)));
    return *c;
}

CoreState &core_state(int core) { return cores[core]; }

void cores_init() {
    for (int core = 0; core < TS_MAX_CORES; ++core) {
        CoreState &c = cores[core];
        c.id = core;
        c.self_ptr = &c;
        c.kernel_sp = reinterpret_cast<uint64_t>(kernel_stacks[core] + kernel_stack_size);
        c.host_cpu = -1;
    }
}

namespace {

void use_signal_stack(CoreState &c, int which) {
    stack_t ss{};
    ss.ss_sp = signal_stacks[c.id][which];
    ss.ss_size = signal_stack_size;
    if (sys(SYS_sigaltstack, reinterpret_cast<long>(&ss), 0) != 0) fail("cannot set a signal stack");
    c.signal_stack = which;
}

// Names the calling process "tessera-cC-kK" (cluster C, core K: at most
// 15 characters, as Linux keeps), as ps and /proc/PID/comm show it:
// mpirun --gdb finds the process of the core that holds a rank by it.
void name_process(int core) {
    char name[16] = "tessera-c";
    char digits[24];
    size_t n = 9;
    for (const char *d = decimal(digits + 20, static_cast<unsigned long>(cluster_id())); *d;)
        name[n++] = *d++;
    name[n++] = '-';
    name[n++] = 'k';
    for (const char *d = decimal(digits + 20, static_cast<unsigned long>(core)); *d;)
        name[n++] = *d++;
    name[n] = 0;
    sys(SYS_prctl, PR_SET_NAME, reinterpret_cast<long>(name));
}

}  // namespace

void become_core(int core) {
    CoreState &c = cores[core];
    if (sys(SYS_arch_prctl, ARCH_SET_GS, reinterpret_cast<long>(&c)) != 0) fail("cannot set %gs");
    use_signal_stack(c, 0);
    if (core == 0) the_master_pid = static_cast<int>(sys(SYS_getpid));
    c.pid = static_cast<int>(sys(SYS_getpid));
    __atomic_store_n(&c.tid, static_cast<int>(sys(SYS_gettid)), __ATOMIC_RELEASE);
    name_process(core);
    if (c.host_cpu >= 0) {
        // Best effort: a CPU the launcher may not use leaves the core unbound.
        uint64_t mask[max_host_cpus / 64] = {};
        mask[c.host_cpu / 64] = 1ull << (c.host_cpu % 64);
        sys(SYS_sched_setaffinity, 0, sizeof mask, reinterpret_cast<long>(mask));
    }
}

void next_signal_stack() {
    CoreState &c = self();
    use_signal_stack(c, 1 - c.signal_stack);
}

// rt_sigreturn restores the signal stack the context names: the one in
// use when the interrupt came, which held the context and which
// next_signal_stack has left since. Without this the core would be back on
// it while it thinks it is on the other; at the next interrupt it would
// "move" to the stack that holds that interrupt's context, where a miss
// taken in the kernel would put its frame over the context.
void keep_signal_stack(uint64_t ucv) {
    CoreState &c = self();
    auto *uc = reinterpret_cast<ucontext_t *>(ucv);
    uc->uc_stack.ss_sp = signal_stacks[c.id][c.signal_stack];
    uc->uc_stack.ss_size = signal_stack_size;
    uc->uc_stack.ss_flags = 0;
}

int master_pid() { return the_master_pid; }

// Every other core's process first (the master ignores their ends now),
// then the master (whose end the launcher watches), then the caller.
void end_cluster(int status, int signal) {
    __atomic_store_n(&ending, true, __ATOMIC_SEQ_CST);
    const int me = static_cast<int>(sys(SYS_getpid));
    for (const CoreState &c : cores) {
        const int pid = __atomic_load_n(&c.pid, __ATOMIC_ACQUIRE);
        if (pid > 0 && pid != me && pid != the_master_pid) sys(SYS_kill, pid, SIGKILL);
    }
    if (the_master_pid > 0 && the_master_pid != me) sys(SYS_kill, the_master_pid, SIGKILL);
    if (signal > 0 && signal < 64 && signal != SIGKILL && signal != SIGSTOP) {
        // The kernel's struct sigaction, all zero: SIG_DFL.
        struct {
            unsigned long handler, flags, restorer, mask;
        } dfl{};
        const uint64_t bit = 1ull << (signal - 1);
        sys(SYS_rt_sigaction, signal, reinterpret_cast<long>(&dfl), 0, sizeof(dfl.mask));
        sys(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&bit), 0, sizeof(bit));
        sys(SYS_tgkill, me, static_cast<long>(sys(SYS_gettid)), signal);
    } else if (signal == SIGKILL) {
        sys(SYS_kill, me, SIGKILL);
    }
    sys(SYS_exit_group, status);  // no signal, or one that does not end a process
    __builtin_unreachable();
}

bool cluster_ending() { return __atomic_load_n(&ending, __ATOMIC_SEQ_CST); }

bool write_all(int fd, const char *s, size_t n) {
    bool touched = false;
    while (n > 0) {
        const long w = sys(SYS_write, fd, reinterpret_cast<long>(s), static_cast<long>(n));
        if (w == -EINTR) continue;
        if (w == -EFAULT && !touched) {
            // User memory this core's process does not mirror yet: Linux
            // says EFAULT where a load would miss. Touch every page (the
            // loads mirror them), then try again once.
            for (size_t off = 0; off < n;
                 off += page_size - (reinterpret_cast<uintptr_t>(s + off) % page_size))
                (void)*static_cast<const volatile char *>(s + off);
            touched = true;
            continue;
        }
        if (w <= 0) return false;
        touched = false;
        s += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

bool say(const char *s) {
    size_t n = 0;
    while (s[n])
        ++n;
    return write_all(2, s, n);
}

char *decimal(char *end, unsigned long v) {
    *end = 0;
    do {
        *--end = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

void fail(const char *what) {
    say("tessera_cluster: ");
    say(what);
    say("\n");
    sys(SYS_exit_group, 125);
    __builtin_unreachable();
}

}  // namespace hal::host

namespace hal {

Stack kernel_stack(int core) { return {host::kernel_stacks[core], host::kernel_stack_size}; }

}  // namespace hal
