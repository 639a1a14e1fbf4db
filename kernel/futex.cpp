// Futex-like wait and wake: user threads block on a 32-bit word of their
// process's memory. A waiting thread is simply a FUTEX_WAIT call the master
// keeps pending; a wake marks the oldest matching ones woken. The master
// serves calls one at a time, so the check of the word in a wait and the
// wakes of other threads never interleave.
#include "kernel.hpp"

namespace kernel {
namespace {

enum Step : uint64_t { first = 0, waiting = 1, woken = 2 };

}  // namespace

// A waiting call keeps its word's address in p.done, where a wake finds it.
long sys_futex_wait(const futex_wait_args &a, Call &c) {
    switch (c.p.step) {
    case first: {
        if (*static_cast<const volatile unsigned *>(a.addr) != a.expected) return -TS_EAGAIN;
        if (a.timeout_ns) c.deadline = deadline_in(a.timeout_ns);
        c.p.step = waiting;
        c.p.done = reinterpret_cast<uintptr_t>(a.addr);
        return pending;
    }
    case waiting: return c.deadline && hal::time() >= c.deadline ? -TS_ETIMEDOUT : pending;
    default: return 0;
    }
}

long sys_futex_wake(const futex_wake_args &a, Call &) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(a.addr);
    const long n = a.n;
    Call *waiters[TS_MAX_CORES];
    const int count = waiting_calls(TS_SYS_FUTEX_WAIT, waiters, TS_MAX_CORES);
    long done = 0;
    for (int i = 0; i < count && done < n; ++i) {
        if (waiters[i]->p.step != waiting || waiters[i]->p.done != addr) continue;
        waiters[i]->p.step = woken;
        ++done;
    }
    if (done) serve_again();
    return done;
}

}  // namespace kernel
