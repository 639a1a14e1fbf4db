/* Mutexes, semaphores and condition variables for the threads of a
 * process, over the kernel's futexes (TS_SYS_FUTEX_WAIT/WAKE): a thread
 * that has to wait sleeps in the kernel instead of spinning on its core. */
#include <limits.h>

#include "internal.h"

#define NS_PER_S 1000000000ul

/* Tries before a contended lock goes to sleep: every thread has a core of
 * its own and critical sections are short, while a futex call costs a trap
 * (and maybe a trip to the master core). */
#define MUTEX_SPINS 100

/* ---- mutex: 0 free, 1 locked, 2 locked and maybe waiters (Drepper,
 * "Futexes are tricky", mutex 3). */

void ts_mutex_init(ts_mutex_t *m) { __atomic_store_n(&m->state, 0, __ATOMIC_RELAXED); }

int ts_mutex_trylock(ts_mutex_t *m) {
    unsigned unlocked = 0;
    if (__atomic_compare_exchange_n(&m->state, &unlocked, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 0;
    return -TS_EBUSY;
}

/* Waits on addr for what is left of timeout_ns (0: none) since `start`. */
static int futex_wait_rest(const unsigned *addr, unsigned expected, unsigned long start,
                           unsigned long timeout_ns) {
    unsigned long left = 0;
    if (timeout_ns) {
        unsigned long spent = ts__time_in(NS_PER_S) - start;
        if (spent >= timeout_ns) return -TS_ETIMEDOUT;
        left = timeout_ns - spent;
    }
    return ts_futex_wait(addr, expected, left);
}

int ts_mutex_timedlock(ts_mutex_t *m, unsigned long timeout_ns) {
    for (int i = 0; i < MUTEX_SPINS; ++i)
        if (__atomic_load_n(&m->state, __ATOMIC_RELAXED) == 0 && ts_mutex_trylock(m) == 0) return 0;
    /* Whoever finds it free here takes it as 2, not 1: we cannot know
     * whether others sleep on it, and a needless wake-up at unlock is
     * cheaper than a lost one. Any other result of the wait (woken,
     * -TS_EAGAIN, an error) means: look again. */
    const unsigned long start = timeout_ns ? ts__time_in(NS_PER_S) : 0;
    while (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) != 0)
        if (futex_wait_rest(&m->state, 2, start, timeout_ns) == -TS_ETIMEDOUT) return -TS_ETIMEDOUT;
    return 0;
}

void ts_mutex_lock(ts_mutex_t *m) { ts_mutex_timedlock(m, 0); }

int ts_mutex_unlock(ts_mutex_t *m) {
    unsigned old = __atomic_exchange_n(&m->state, 0, __ATOMIC_RELEASE);
    if (old == 2) ts_futex_wake(&m->state, 1);
    return old == 0 ? -TS_EPERM : 0;
}

/* ---- semaphore: value counts the units; waiters counts the threads that
 * may sleep on value, so that a post wakes only when someone may sleep.
 * Both sides use sequentially consistent order: a poster raises value and
 * then reads waiters, a waiter raises waiters and then (in the kernel)
 * reads value, so at least one of them sees the other. */

void ts_sem_init(ts_sem_t *s, unsigned count) {
    __atomic_store_n(&s->value, count, __ATOMIC_RELAXED);
    __atomic_store_n(&s->waiters, 0, __ATOMIC_RELAXED);
}

int ts_sem_trywait(ts_sem_t *s) {
    unsigned v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
    while (v > 0) /* a failed exchange reloads v */
        if (__atomic_compare_exchange_n(&s->value, &v, v - 1, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 0;
    return -TS_EAGAIN;
}

int ts_sem_timedwait(ts_sem_t *s, unsigned long timeout_ns) {
    unsigned long start = timeout_ns ? ts__time_in(NS_PER_S) : 0;
    while (ts_sem_trywait(s) != 0) {
        __atomic_add_fetch(&s->waiters, 1, __ATOMIC_SEQ_CST);
        int r = futex_wait_rest(&s->value, 0, start, timeout_ns);
        __atomic_sub_fetch(&s->waiters, 1, __ATOMIC_SEQ_CST);
        /* Woken or -TS_EAGAIN: a unit came, but another thread may take it
         * first; try again. */
        if (r < 0 && r != -TS_EAGAIN) return r;
    }
    return 0;
}

int ts_sem_wait(ts_sem_t *s) { return ts_sem_timedwait(s, 0); }

int ts_sem_post(ts_sem_t *s) {
    unsigned v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
    do /* a failed exchange reloads v */
        if (v >= TS_SEM_VALUE_MAX) return -TS_EAGAIN;
    while (!__atomic_compare_exchange_n(&s->value, &v, v + 1, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    if (__atomic_load_n(&s->waiters, __ATOMIC_SEQ_CST) > 0) ts_futex_wake(&s->value, 1);
    return 0;
}

/* ---- condition variable: a waiter reads seq under the mutex and sleeps
 * while it is unchanged; every signal bumps it first. A signal between the
 * unlock and the sleep changes seq, so the kernel refuses the sleep
 * (-TS_EAGAIN) and no wake-up is lost. (Only exactly 2^32 signals in that
 * window could fool it.) */

void ts_cond_init(ts_cond_t *c) { __atomic_store_n(&c->seq, 0, __ATOMIC_RELAXED); }

int ts_cond_timedwait(ts_cond_t *c, ts_mutex_t *m, unsigned long timeout_ns) {
    unsigned seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
    ts_mutex_unlock(m);
    int r = ts_futex_wait(&c->seq, seq, timeout_ns);
    ts_mutex_lock(m);
    return r == -TS_EAGAIN ? 0 : r;
}

int ts_cond_wait(ts_cond_t *c, ts_mutex_t *m) { return ts_cond_timedwait(c, m, 0); }

static void cond_wake(ts_cond_t *c, int n) {
    __atomic_add_fetch(&c->seq, 1, __ATOMIC_SEQ_CST);
    ts_futex_wake(&c->seq, n);
}

void ts_cond_signal(ts_cond_t *c) { cond_wake(c, 1); }
void ts_cond_broadcast(ts_cond_t *c) { cond_wake(c, INT_MAX); }
