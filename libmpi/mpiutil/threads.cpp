// MPIUtil's threads: MPI_THREAD_MULTIPLE (MPI 3.1 section 12.4).
//
// Once a rank is granted MPI_THREAD_MULTIPLE, every MPI call of any of its
// threads holds the rank's lock, one futex word in the rank's state, so
// LibMPI's and MPIUtil's state keeps one writer at a time, as for a
// single thread. A call that waits (MPI_Wait, MPI_Recv, a blocking
// collective) lets the lock go while it gives the CPU away or sleeps, and
// takes it again to make its next progress pass: the other threads call
// MPI meanwhile, and any thread's pass completes any thread's request.
// Each thread issues its calls in its own order, under the lock, so the
// messages of one thread keep the order of section 3.5.
//
// Sleeping: the kernel wakes one core for the rank's arrivals (the one
// that set its ring's "wake me" last) and the local path one core too
// (local_sleep_begin()), so one blocked thread at a time sleeps on the
// rank's events, the *sleeper*; the others sleep on a futex that a pass
// which did anything, and the sleeper when it wakes, bump. A pass that
// did something also wakes the sleeper (os::ikc_wake): its request may be
// done. The kernel tells only the thread that started an asynchronous
// IKC operation that it ended, so every sleep lasts at most
// threads_sleep_max_ns, after which the thread makes a pass of its own.
//
// A program that never asks for MPI_THREAD_MULTIPLE pays one test of a
// flag per call.
#include <mpi.h>

#include <limits.h>

#include "engine.hpp"
#include "os.hpp"

namespace lwmpi::util {

namespace {

// The calling thread's name in Threads (its core + 1: never 0).
int me() { return os::core() + 1; }

void lock(Threads &t) {
    uint32_t seen = 0;
    if (__atomic_compare_exchange_n(&t.lock, &seen, 1u, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    // Held: say that someone waits, and sleep until it is free.
    if (seen != 2) seen = __atomic_exchange_n(&t.lock, 2u, __ATOMIC_ACQUIRE);
    while (seen != 0) {
        os::futex_wait(&t.lock, 2, 0);
        seen = __atomic_exchange_n(&t.lock, 2u, __ATOMIC_ACQUIRE);
    }
}

void unlock(Threads &t) {
    if (__atomic_exchange_n(&t.lock, 0u, __ATOMIC_RELEASE) == 2) os::futex_wake(&t.lock, 1);
}

void take(Threads &t, int depth) {
    lock(t);
    __atomic_store_n(&t.owner, me(), __ATOMIC_RELAXED);
    t.depth = depth;
}

}  // namespace

void allow_threads() { __atomic_store_n(&self().threads.multiple, true, __ATOMIC_RELEASE); }

bool threads_allowed() { return __atomic_load_n(&self().threads.multiple, __ATOMIC_ACQUIRE); }

bool enter_call() {
    Threads &t = self().threads;
    if (!__atomic_load_n(&t.multiple, __ATOMIC_ACQUIRE)) return false;
    // Only the owner itself writes its own name there.
    if (__atomic_load_n(&t.owner, __ATOMIC_RELAXED) == me())
        ++t.depth;
    else
        take(t, 1);
    return true;
}

void leave_call(bool took) {
    if (!took) return;
    Threads &t = self().threads;
    if (--t.depth > 0) return;
    __atomic_store_n(&t.owner, 0, __ATOMIC_RELAXED);
    unlock(t);
}

Unlocked::Unlocked() : depth_(0) {
    Threads &t = self().threads;
    if (!t.multiple || __atomic_load_n(&t.owner, __ATOMIC_RELAXED) != me()) return;
    depth_ = t.depth;
    __atomic_store_n(&t.owner, 0, __ATOMIC_RELAXED);
    unlock(t);
}

Unlocked::~Unlocked() {
    if (depth_) take(self().threads, depth_);
}

void wake_threads() {
    Threads &t = self().threads;
    if (t.sleeper && t.sleeper != me()) os::ikc_wake(t.sleeper - 1);
    if (t.waiters) {
        __atomic_add_fetch(&t.seq, 1u, __ATOMIC_RELEASE);
        os::futex_wake(&t.seq, INT_MAX);
    }
}

void sleep_among_threads(unsigned long timeout_ns, void (*sleep)(unsigned long)) {
    Threads &t = self().threads;
    const unsigned long limit =
        timeout_ns && timeout_ns < threads_sleep_max_ns ? timeout_ns : threads_sleep_max_ns;
    if (!t.sleeper) {
        t.sleeper = me();
        sleep(limit);  // (its kernel wait lets the lock go: sleep_on_events())
        t.sleeper = 0;
        wake_threads();  // one of them sleeps on the rank's events next
        return;
    }
    const uint32_t seq = __atomic_load_n(&t.seq, __ATOMIC_ACQUIRE);
    ++t.waiters;
    {
        Unlocked unlocked;
        os::futex_wait(&t.seq, seq, limit);
    }
    --t.waiters;
}

}  // namespace lwmpi::util
