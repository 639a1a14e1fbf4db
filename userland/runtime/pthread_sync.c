/* POSIX threads' synchronisation objects (<pthread.h> says what each call
 * does): mutexes and condition variables over the runtime's (sync.c),
 * read-write locks and barriers over the kernel's futexes, spin locks as
 * runtime mutex words. A waiting thread sleeps in the kernel. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>

#include "internal.h"

#define NS_PER_S 1000000000ul

_Static_assert(sizeof(ts_mutex_t) == sizeof(unsigned) && sizeof(ts_cond_t) == sizeof(unsigned),
               "the runtime's mutex and condition variable are one word each");

/* The calling thread as the owner fields hold it (0: none). */
static unsigned self_tag(void) { return (unsigned)pthread_self() + 1; }

static unsigned long now_ns(void) { return ts__time_in(NS_PER_S); }

int ts__deadline(clockid_t clock, const struct timespec *abstime, unsigned long *deadline_ns) {
    if ((clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) || !abstime || abstime->tv_nsec < 0 ||
        abstime->tv_nsec >= (long)NS_PER_S)
        return EINVAL;
    if (abstime->tv_sec < 0) return ETIMEDOUT;
    const unsigned long at = (unsigned long)abstime->tv_sec * NS_PER_S + (unsigned long)abstime->tv_nsec;
    if (at <= now_ns()) return ETIMEDOUT;
    *deadline_ns = at;
    return 0;
}

/* What is left until deadline (0: none) as a futex timeout, at least 1 ns
 * (0 there means none); 0 once it has passed. */
static unsigned long left_until(unsigned long deadline) {
    if (!deadline) return 0;
    const unsigned long now = now_ns();
    return deadline > now ? deadline - now : 0;
}

/* ---- mutexes ---- */

static ts_mutex_t *word_of(pthread_mutex_t *m) { return (ts_mutex_t *)&m->__lock; }

/* Recursive and error-checking mutexes know their owner. */
static int has_owner(const pthread_mutex_t *m) {
    return m->__type == PTHREAD_MUTEX_RECURSIVE || m->__type == PTHREAD_MUTEX_ERRORCHECK;
}

static int known_type(int type) {
    return type == PTHREAD_MUTEX_NORMAL || type == PTHREAD_MUTEX_RECURSIVE ||
           type == PTHREAD_MUTEX_ERRORCHECK || type == PTHREAD_MUTEX_DEFAULT;
}

static unsigned owner_of(const pthread_mutex_t *m) { return __atomic_load_n(&m->__owner, __ATOMIC_RELAXED); }

/* The caller holds m now: it becomes its owner. */
static void take(pthread_mutex_t *m) {
    if (!has_owner(m)) return;
    __atomic_store_n(&m->__owner, self_tag(), __ATOMIC_RELAXED);
    m->__count = 1;
}

/* Locks m: at once (try), until abstime on clock, or for as long as it
 * takes (no abstime). */
static int lock_mutex(pthread_mutex_t *m, int try, clockid_t clock, const struct timespec *abstime) {
    if (!m || !known_type(m->__type)) return EINVAL;
    if (has_owner(m) && owner_of(m) == self_tag()) {
        if (m->__type == PTHREAD_MUTEX_ERRORCHECK) return try ? EBUSY : EDEADLK;
        if (m->__count == UINT_MAX) return EAGAIN;
        ++m->__count;
        return 0;
    }
    if (ts_mutex_trylock(word_of(m)) != 0) {
        if (try) return EBUSY;
        unsigned long deadline = 0;
        if (abstime) {
            const int e = ts__deadline(clock, abstime, &deadline);
            if (e) return e;
        }
        const unsigned long left = left_until(deadline);
        if ((deadline && !left) || ts_mutex_timedlock(word_of(m), left) != 0) return ETIMEDOUT;
    }
    take(m);
    return 0;
}

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr) {
    if (!mutex || (attr && !attr->__initialized)) return EINVAL;
    *mutex = (pthread_mutex_t){0, attr ? attr->__type : PTHREAD_MUTEX_DEFAULT, 0, 0};
    return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *mutex) {
    if (!mutex) return EINVAL;
    return __atomic_load_n(&mutex->__lock, __ATOMIC_RELAXED) ? EBUSY : 0;
}

int pthread_mutex_lock(pthread_mutex_t *mutex) { return lock_mutex(mutex, 0, 0, 0); }
int pthread_mutex_trylock(pthread_mutex_t *mutex) { return lock_mutex(mutex, 1, 0, 0); }

int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime) {
    return pthread_mutex_clocklock(mutex, CLOCK_REALTIME, abstime);
}

int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime) {
    if (!abstime) return EINVAL;
    return lock_mutex(mutex, 0, clock, abstime);
}

int pthread_mutex_unlock(pthread_mutex_t *mutex) {
    if (!mutex) return EINVAL;
    if (has_owner(mutex)) {
        if (owner_of(mutex) != self_tag()) return EPERM;
        if (--mutex->__count > 0) return 0;
        __atomic_store_n(&mutex->__owner, 0, __ATOMIC_RELAXED);
    }
    return ts_mutex_unlock(word_of(mutex)) == 0 ? 0 : EPERM;
}

int pthread_mutexattr_init(pthread_mutexattr_t *attr) {
    if (!attr) return EINVAL;
    *attr = (pthread_mutexattr_t){1, PTHREAD_MUTEX_DEFAULT};
    return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *attr) {
    if (!attr || !attr->__initialized) return EINVAL;
    attr->__initialized = 0;
    return 0;
}

int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int type) {
    if (!attr || !attr->__initialized || !known_type(type)) return EINVAL;
    attr->__type = type;
    return 0;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *attr, int *type) {
    if (!attr || !attr->__initialized || !type) return EINVAL;
    *type = attr->__type;
    return 0;
}

/* ---- condition variables ---- */

static ts_cond_t *cond_word(pthread_cond_t *c) { return (ts_cond_t *)&c->__seq; }

static int known_clock(clockid_t clock) { return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC; }

/* Waits on cond until abstime on clock (none: no time limit). A mutex that knows its owner
 * has none while the caller waits, and gets it back whole. */
static int wait_cond(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                     const struct timespec *abstime) {
    if (!cond || !mutex) return EINVAL;
    unsigned long deadline = 0;
    if (abstime) {
        const int e = ts__deadline(clock, abstime, &deadline);
        if (e) return e;
    }
    const unsigned count = mutex->__count;
    if (has_owner(mutex)) {
        if (owner_of(mutex) != self_tag()) return EPERM;
        __atomic_store_n(&mutex->__owner, 0, __ATOMIC_RELAXED);
    }
    const unsigned long left = left_until(deadline);
    const int r =
        deadline && !left ? -TS_ETIMEDOUT : ts_cond_timedwait(cond_word(cond), word_of(mutex), left);
    if (has_owner(mutex)) {
        __atomic_store_n(&mutex->__owner, self_tag(), __ATOMIC_RELAXED);
        mutex->__count = count;
    }
    return r == 0 ? 0 : r == -TS_ETIMEDOUT ? ETIMEDOUT : EINVAL;
}

int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr) {
    if (!cond || (attr && !attr->__initialized)) return EINVAL;
    *cond = (pthread_cond_t){0, attr ? attr->__clock : 0};
    return 0;
}

int pthread_cond_destroy(pthread_cond_t *cond) { return cond ? 0 : EINVAL; }

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex) { return wait_cond(cond, mutex, 0, 0); }

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime) {
    if (!cond || !abstime) return EINVAL;
    return wait_cond(cond, mutex, cond->__clock ? (clockid_t)cond->__clock : CLOCK_REALTIME, abstime);
}

int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *abstime) {
    if (!abstime) return EINVAL;
    return wait_cond(cond, mutex, clock, abstime);
}

int pthread_cond_signal(pthread_cond_t *cond) {
    if (!cond) return EINVAL;
    ts_cond_signal(cond_word(cond));
    return 0;
}

int pthread_cond_broadcast(pthread_cond_t *cond) {
    if (!cond) return EINVAL;
    ts_cond_broadcast(cond_word(cond));
    return 0;
}

int pthread_condattr_init(pthread_condattr_t *attr) {
    if (!attr) return EINVAL;
    *attr = (pthread_condattr_t){1, 0};
    return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *attr) {
    if (!attr || !attr->__initialized) return EINVAL;
    attr->__initialized = 0;
    return 0;
}

int pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock) {
    if (!attr || !attr->__initialized || !known_clock(clock)) return EINVAL;
    attr->__clock = (int)clock;
    return 0;
}

int pthread_condattr_getclock(const pthread_condattr_t *attr, clockid_t *clock) {
    if (!attr || !attr->__initialized || !clock) return EINVAL;
    *clock = attr->__clock ? (clockid_t)attr->__clock : CLOCK_REALTIME;
    return 0;
}

/* ---- read-write locks: __state counts the readers, or is RW_WRITER.
 * A waiter counts itself in __sleepers, then sleeps while __state keeps
 * the value that kept it out; an unlock that may let one in changes
 * __state, then wakes every sleeper if there is one (sequentially
 * consistent, as the runtime's semaphore: one of the two sees the
 * other). */

#define RW_WRITER      0x80000000u
#define RW_MAX_READERS (RW_WRITER - 1)

/* One attempt: 0, EBUSY while the lock is held the other way, EAGAIN at
 * RW_MAX_READERS. */
static int try_read(pthread_rwlock_t *l) {
    unsigned s = __atomic_load_n(&l->__state, __ATOMIC_RELAXED);
    while (!(s & RW_WRITER)) { /* a failed exchange reloads s */
        if (s == RW_MAX_READERS) return EAGAIN;
        if (__atomic_compare_exchange_n(&l->__state, &s, s + 1, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 0;
    }
    return EBUSY;
}

static int try_write(pthread_rwlock_t *l) {
    unsigned free_state = 0;
    if (!__atomic_compare_exchange_n(&l->__state, &free_state, RW_WRITER, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return EBUSY;
    __atomic_store_n(&l->__writer, self_tag(), __ATOMIC_RELAXED);
    return 0;
}

/* Takes l with `attempt`: at once (try), until abstime on clock, or for
 * as long as it takes (no abstime). */
static int lock_rw(pthread_rwlock_t *l, int (*attempt)(pthread_rwlock_t *), int try, clockid_t clock,
                   const struct timespec *abstime) {
    if (!l) return EINVAL;
    int e = attempt(l);
    if (e != EBUSY || try) return e;
    if (__atomic_load_n(&l->__writer, __ATOMIC_RELAXED) == self_tag()) return EDEADLK;
    unsigned long deadline = 0;
    if (abstime && (e = ts__deadline(clock, abstime, &deadline)) != 0) return e;
    for (;;) {
        const unsigned seen = __atomic_load_n(&l->__state, __ATOMIC_SEQ_CST);
        if ((e = attempt(l)) != EBUSY) return e;
        const unsigned long left = left_until(deadline);
        if (deadline && !left) return ETIMEDOUT;
        __atomic_add_fetch(&l->__sleepers, 1, __ATOMIC_SEQ_CST);
        const int r = ts_futex_wait(&l->__state, seen, left);
        __atomic_sub_fetch(&l->__sleepers, 1, __ATOMIC_SEQ_CST);
        if (r == -TS_ETIMEDOUT) return attempt(l) == 0 ? 0 : ETIMEDOUT;
    }
}

int pthread_rwlock_init(pthread_rwlock_t *lock, const pthread_rwlockattr_t *attr) {
    if (!lock || (attr && !attr->__initialized)) return EINVAL;
    *lock = (pthread_rwlock_t)PTHREAD_RWLOCK_INITIALIZER;
    return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *lock) {
    if (!lock) return EINVAL;
    return __atomic_load_n(&lock->__state, __ATOMIC_RELAXED) ? EBUSY : 0;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *lock) { return lock_rw(lock, try_read, 0, 0, 0); }
int pthread_rwlock_tryrdlock(pthread_rwlock_t *lock) { return lock_rw(lock, try_read, 1, 0, 0); }
int pthread_rwlock_wrlock(pthread_rwlock_t *lock) { return lock_rw(lock, try_write, 0, 0, 0); }
int pthread_rwlock_trywrlock(pthread_rwlock_t *lock) { return lock_rw(lock, try_write, 1, 0, 0); }

int pthread_rwlock_timedrdlock(pthread_rwlock_t *lock, const struct timespec *abstime) {
    return pthread_rwlock_clockrdlock(lock, CLOCK_REALTIME, abstime);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *lock, clockid_t clock, const struct timespec *abstime) {
    return abstime ? lock_rw(lock, try_read, 0, clock, abstime) : EINVAL;
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *lock, const struct timespec *abstime) {
    return pthread_rwlock_clockwrlock(lock, CLOCK_REALTIME, abstime);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *lock, clockid_t clock, const struct timespec *abstime) {
    return abstime ? lock_rw(lock, try_write, 0, clock, abstime) : EINVAL;
}

int pthread_rwlock_unlock(pthread_rwlock_t *lock) {
    if (!lock) return EINVAL;
    unsigned s = __atomic_load_n(&lock->__state, __ATOMIC_RELAXED);
    unsigned left;
    if (s & RW_WRITER) {
        if (__atomic_load_n(&lock->__writer, __ATOMIC_RELAXED) != self_tag()) return EPERM;
        __atomic_store_n(&lock->__writer, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&lock->__state, 0, __ATOMIC_SEQ_CST);
        left = 0;
    } else {
        do /* a failed exchange reloads s */
            if (s == 0 || (s & RW_WRITER)) return EPERM;
        while (
            !__atomic_compare_exchange_n(&lock->__state, &s, s - 1, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
        left = s - 1;
    }
    /* Only a free lock lets anybody in (readers wait for no reader). */
    if (left == 0 && __atomic_load_n(&lock->__sleepers, __ATOMIC_SEQ_CST) > 0)
        ts_futex_wake(&lock->__state, INT_MAX);
    return 0;
}

int pthread_rwlockattr_init(pthread_rwlockattr_t *attr) {
    if (!attr) return EINVAL;
    attr->__initialized = 1;
    return 0;
}

int pthread_rwlockattr_destroy(pthread_rwlockattr_t *attr) {
    if (!attr || !attr->__initialized) return EINVAL;
    attr->__initialized = 0;
    return 0;
}

/* ---- barriers: the last of a round's threads starts the next round
 * (__arrived back to 0) before it moves __generation on, which the others
 * sleep on; none of them can arrive for the next round before that. */

int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr, unsigned count) {
    if (!barrier || count == 0 || (attr && !attr->__initialized)) return EINVAL;
    *barrier = (pthread_barrier_t){count, 0, 0, 0};
    return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *barrier) {
    if (!barrier) return EINVAL;
    return __atomic_load_n(&barrier->__arrived, __ATOMIC_RELAXED) ? EBUSY : 0;
}

int pthread_barrier_wait(pthread_barrier_t *barrier) {
    if (!barrier || barrier->__count == 0) return EINVAL;
    const unsigned round = __atomic_load_n(&barrier->__generation, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&barrier->__arrived, 1, __ATOMIC_ACQ_REL) == barrier->__count) {
        __atomic_store_n(&barrier->__arrived, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&barrier->__generation, round + 1, __ATOMIC_RELEASE);
        ts_futex_wake(&barrier->__generation, INT_MAX);
        return PTHREAD_BARRIER_SERIAL_THREAD;
    }
    while (__atomic_load_n(&barrier->__generation, __ATOMIC_ACQUIRE) == round)
        ts_futex_wait(&barrier->__generation, round, 0);
    return 0;
}

int pthread_barrierattr_init(pthread_barrierattr_t *attr) {
    if (!attr) return EINVAL;
    attr->__initialized = 1;
    return 0;
}

int pthread_barrierattr_destroy(pthread_barrierattr_t *attr) {
    if (!attr || !attr->__initialized) return EINVAL;
    attr->__initialized = 0;
    return 0;
}

/* ---- spin locks: runtime mutex words ---- */

static ts_mutex_t *spin_word(pthread_spinlock_t *l) { return (ts_mutex_t *)l; }

int pthread_spin_init(pthread_spinlock_t *lock, int pshared) {
    if (!lock || (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)) return EINVAL;
    ts_mutex_init(spin_word(lock));
    return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *lock) {
    if (!lock) return EINVAL;
    return __atomic_load_n(lock, __ATOMIC_RELAXED) ? EBUSY : 0;
}

int pthread_spin_lock(pthread_spinlock_t *lock) {
    if (!lock) return EINVAL;
    ts_mutex_lock(spin_word(lock));
    return 0;
}

int pthread_spin_trylock(pthread_spinlock_t *lock) {
    if (!lock) return EINVAL;
    return ts_mutex_trylock(spin_word(lock)) == 0 ? 0 : EBUSY;
}

int pthread_spin_unlock(pthread_spinlock_t *lock) {
    if (!lock) return EINVAL;
    return ts_mutex_unlock(spin_word(lock)) == 0 ? 0 : EPERM;
}
