// The linux64 HAL's per-core state, stacks and small helpers.
#include "linux.hpp"

#include <asm/prctl.h>
#include <signal.h>

namespace hal::host {
namespace {

// Every core has a kernel stack (user threads enter the kernel on it) and
// a signal stack (where a fault is taken before it becomes a trap).
constexpr size_t kernel_stack_size = 64 * 1024;
constexpr size_t signal_stack_size = 32 * 1024;

alignas(16) char kernel_stacks[TS_MAX_CORES][kernel_stack_size];
alignas(16) char signal_stacks[TS_MAX_CORES][2][signal_stack_size];
CoreState cores[TS_MAX_CORES];

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

}  // namespace

void become_core(int core) {
    CoreState &c = cores[core];
    if (sys(SYS_arch_prctl, ARCH_SET_GS, reinterpret_cast<long>(&c)) != 0) fail("cannot set %gs");
    use_signal_stack(c, 0);
    __atomic_store_n(&c.tid, static_cast<int>(sys(SYS_gettid)), __ATOMIC_RELEASE);
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

bool write_all(int fd, const char *s, size_t n) {
    while (n > 0) {
        const long w = sys(SYS_write, fd, reinterpret_cast<long>(s), static_cast<long>(n));
        if (w == -EINTR) continue;
        if (w <= 0) return false;
        s += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

void fail(const char *what) {
    static const char prefix[] = "tessera_cluster: ";
    size_t n = 0;
    while (what[n])
        ++n;
    write_all(2, prefix, sizeof(prefix) - 1);
    write_all(2, what, n);
    write_all(2, "\n", 1);
    sys(SYS_exit_group, 125);
    __builtin_unreachable();
}

}  // namespace hal::host
