// linux64 core-level HAL: time, events, timer, locks, the console, power.
//
// Events are futex words in the fabric's first page (after the console
// lock), one per (cluster, core): notify sets the word and wakes a sleeper;
// clear_event/wait_event sleep on it, so an idle core costs no host CPU.
// The fabric is one memfd shared by every cluster process, so these are
// shared (not process-private) futexes.
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <time.h>

#include "linux.hpp"

namespace hal {
namespace {

using host::sys;

constexpr size_t events_offset = 64;  // the console lock is at offset 0
static_assert(events_offset + TS_MAX_CLUSTERS * TS_MAX_CORES * sizeof(uint32_t) <= 4096,
              "event words must fit in the fabric's first page (hal/common/noc.cpp)");

uint32_t *event_word(int cluster, int core) {
    return reinterpret_cast<uint32_t *>(manifest().fabric_base + events_offset) + cluster * TS_MAX_CORES +
           core;
}

[[noreturn]] void take_pending_interrupt(void *tf) { hal_pending_interrupt(static_cast<TrapFrame *>(tf)); }

long futex(uint32_t *word, int op, uint32_t value, const timespec *timeout) {
    return sys(SYS_futex, reinterpret_cast<long>(word), op, value, reinterpret_cast<long>(timeout));
}

}  // namespace

int core_id() { return host::self().id; }

uint64_t time() {
    timespec ts{};
    sys(SYS_clock_gettime, CLOCK_MONOTONIC, reinterpret_cast<long>(&ts));
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t timebase() { return 1000000000ull; }

void clear_event() { __atomic_store_n(event_word(cluster_id(), core_id()), 0u, __ATOMIC_SEQ_CST); }

// A yield is a system call, and a core bound to a host CPU (mpirun binds
// ranks when they are no more than the CPUs) has hardly anybody to give
// it to: such a core yields on every relaxes_per_yield-th call only. An
// unbound one shares its CPU with other busy ones: it yields every time.
void relax() {
    constexpr uint32_t relaxes_per_yield = 8;
    host::CoreState &c = host::self();
    if (c.host_cpu < 0 || ++c.relaxes % relaxes_per_yield == 0)
        sys(SYS_sched_yield);
    else
        spin_hint();
}

void spin_hint() { __builtin_ia32_pause(); }

bool master_takes_arrivals() { return false; }

void wait_event() {
    uint32_t *word = event_word(cluster_id(), core_id());
    timespec rel{}, *timeout = nullptr;
    if (const uint64_t deadline = host::self().deadline) {
        const uint64_t now = time();
        if (now >= deadline) return;  // the timer has fired: an event
        rel.tv_sec = static_cast<time_t>((deadline - now) / 1000000000ull);
        rel.tv_nsec = static_cast<long>((deadline - now) % 1000000000ull);
        timeout = &rel;
    }
    futex(word, FUTEX_WAIT, 0, timeout);  // returns at once if an event came
}

void set_timer(uint64_t deadline) { host::self().deadline = deadline; }

void notify_core(int cluster, int core) {
    uint32_t *word = event_word(cluster, core);
    // A core sleeps only on a word it cleared: if the word was already set,
    // nobody sleeps on it.
    if (__atomic_exchange_n(word, 1u, __ATOMIC_SEQ_CST) == 0) futex(word, FUTEX_WAKE, 1, nullptr);
    // A core of ours that runs user code learns of it only from a signal,
    // as a RISC-V hart in U-mode takes the IPI as an interrupt.
    if (cluster != cluster_id()) return;
    const host::CoreState &c = host::core_state(core);
    const int tid = __atomic_load_n(&c.tid, __ATOMIC_ACQUIRE);
    if (tid && __atomic_load_n(&c.in_user, __ATOMIC_SEQ_CST))
        sys(SYS_tgkill, c.pid, tid, host::interrupt_signal);  // c.pid is set before c.tid
}

void notify_cluster(int cluster) {
    for (unsigned core = 0; core < manifest().clusters[cluster].ncores; ++core)
        notify_core(cluster, static_cast<int>(core));
}

// Many more cores than host CPUs: a waiter that finds the lock taken for
// long gives its CPU away, so the holder can run.
void Spinlock::lock() {
    for (unsigned spins = 0; __atomic_exchange_n(&word_, 1u, __ATOMIC_ACQUIRE) != 0;) {
        while (__atomic_load_n(&word_, __ATOMIC_RELAXED) != 0) {
            if (++spins % 64 == 0)
                sys(SYS_sched_yield);
            else
                spin_hint();
        }
    }
}

void Spinlock::unlock() { __atomic_store_n(&word_, 0u, __ATOMIC_RELEASE); }

// The console lock sits at the start of the fabric, as on QEMU; the
// console is the process's stdout, which the launcher reads.
void console_write(const char *s, size_t n) {
    auto *lock = reinterpret_cast<Spinlock *>(manifest().fabric_base);
    Guard g(*lock);
    host::write_all(1, s, n);
}

// stdin: a pipe from the launcher on cluster 0, /dev/null elsewhere. poll
// first, so that the read never waits.
int console_read() {
    pollfd in{0, POLLIN, 0};
    if (sys(SYS_poll, reinterpret_cast<long>(&in), 1, 0) != 1 || !(in.revents & POLLIN)) return -1;
    unsigned char c = 0;
    return sys(SYS_read, 0, reinterpret_cast<long>(&c), 1) == 1 ? c : -1;
}

// The launcher learns the machine's status from the status pipe, then
// ends every other cluster process. This cluster's processes (any core
// may power off) end at once, the master last but the caller.
void poweroff(int status) {
    char line[32] = "poweroff ";
    char digits[24];
    size_t len = 9;
    for (const char *d = host::decimal(digits + sizeof digits - 1, static_cast<unsigned>(status & 0xff)); *d;)
        line[len++] = *d++;
    line[len++] = '\n';
    host::write_all(host::status_fd(), line, len);
    host::end_cluster(status & 0xff);
}

void halt() {
    for (;;)
        sys(SYS_pause);
}

void enter_user(TrapFrame *tf, uint64_t space) {
    host::CoreState &c = host::self();
    host::use_space(reinterpret_cast<const uint64_t *>(space));
    c.tf = tf;
    c.event = event_word(cluster_id(), core_id());
    if (const uint64_t uc = tf->resume_uc) {
        // Back from an interrupt or a fault: the signal context has every
        // register.
        // The interrupt signal stays blocked until rt_sigreturn restores
        // the interrupted mask, so none can find in_user set while this
        // core still runs kernel code.
        const uint64_t block = 1ull << (host::interrupt_signal - 1);
        sys(SYS_rt_sigprocmask, SIG_BLOCK, reinterpret_cast<long>(&block), 0, sizeof(block));
        __atomic_store_n(&c.in_user, 1, __ATOMIC_SEQ_CST);
        if (__atomic_exchange_n(c.event, 0u, __ATOMIC_SEQ_CST)) {
            // An event that sent no signal (as in hal_user_return): into
            // the kernel again; the context stays for the next return.
            c.in_user = 0;
            sys(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&block), 0, sizeof(block));
            hal_call_on_stack(c.kernel_sp, take_pending_interrupt, tf);
        }
        tf->resume_uc = 0;
        host::keep_signal_stack(uc);
        hal_resume_interrupted(uc);
    }
    hal_user_return(tf);
}

}  // namespace hal
