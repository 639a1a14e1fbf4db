// Futex-like wait and wake: user threads block on a 32-bit word of their
// process's memory. A waiting thread is simply a FUTEX_WAIT call the master
// keeps pending; a wake marks the oldest matching ones woken. The master
// serves calls one at a time, so the check of the word in a wait and the
// wakes of other threads never interleave.
#include "kernel.hpp"

namespace kernel {
namespace {

enum Step : uint64_t { first = 0, waiting = 1, woken = 2 };

long check_word(uint64_t addr) {
    if (addr & 3) return -TS_EINVAL;
    return check_user(addr, sizeof(uint32_t), false);
}

}  // namespace

long sys_futex_wait(Call &c) {
    const uint64_t addr = c.a[0];
    switch (c.p.step) {
    case first: {
        if (long err = check_word(addr)) return err;
        if (*reinterpret_cast<const volatile uint32_t *>(addr) != static_cast<uint32_t>(c.a[1]))
            return -TS_EAGAIN;
        if (c.a[2]) c.deadline = deadline_in(c.a[2]);
        c.p.step = waiting;
        return pending;
    }
    case waiting: return c.deadline && hal::time() >= c.deadline ? -TS_ETIMEDOUT : pending;
    default: return 0;
    }
}

long sys_futex_wake(Call &c) {
    const uint64_t addr = c.a[0];
    const long n = static_cast<long>(c.a[1]);
    if (long err = check_word(addr)) return err;
    if (n < 1) return -TS_EINVAL;
    Call *waiters[TS_MAX_CORES];
    const int count = waiting_calls(TS_SYS_FUTEX_WAIT, waiters, TS_MAX_CORES);
    long done = 0;
    for (int i = 0; i < count && done < n; ++i) {
        if (waiters[i]->a[0] != addr || waiters[i]->p.step != waiting) continue;
        waiters[i]->p.step = woken;
        ++done;
    }
    if (done) serve_again();
    return done;
}

}  // namespace kernel
