/* POSIX unnamed semaphores (<semaphore.h> says what each call does) over
 * the runtime's semaphores. */
#include <errno.h>
#include <semaphore.h>

#include "internal.h"

_Static_assert(sizeof(sem_t) == sizeof(ts_sem_t), "a sem_t is the runtime's semaphore");
_Static_assert(SEM_VALUE_MAX == TS_SEM_VALUE_MAX, "and holds as many units");

static ts_sem_t *as_sem(sem_t *s) { return (ts_sem_t *)s; }

/* The POSIX way to fail: -1 with errno. */
static int fail(int e) {
    errno = e;
    return -1;
}

int sem_init(sem_t *sem, int pshared, unsigned value) {
    if (!sem || value > SEM_VALUE_MAX) return fail(EINVAL);
    if (pshared) return fail(ENOTSUP);
    ts_sem_init(as_sem(sem), value);
    return 0;
}

int sem_destroy(sem_t *sem) {
    if (!sem) return fail(EINVAL);
    return __atomic_load_n(&sem->__waiters, __ATOMIC_SEQ_CST) ? fail(EBUSY) : 0;
}

int sem_trywait(sem_t *sem) {
    if (!sem) return fail(EINVAL);
    return ts_sem_trywait(as_sem(sem)) == 0 ? 0 : fail(EAGAIN);
}

/* Takes a unit: at once if there is one, else until abstime on clock (none:
 * no time limit). */
static int wait_until(sem_t *sem, clockid_t clock, const struct timespec *abstime) {
    if (!sem) return fail(EINVAL);
    if (ts_sem_trywait(as_sem(sem)) == 0) return 0;
    unsigned long deadline = 0;
    if (abstime) {
        const int e = ts__deadline(clock, abstime, &deadline);
        if (e) return fail(e);
    }
    const unsigned long now = ts__time_in(1000000000ul);
    if (deadline && deadline <= now) return fail(ETIMEDOUT);
    const int r = ts_sem_timedwait(as_sem(sem), deadline ? deadline - now : 0);
    return r == 0 ? 0 : fail(r == -TS_ETIMEDOUT ? ETIMEDOUT : EINVAL);
}

int sem_wait(sem_t *sem) { return wait_until(sem, CLOCK_REALTIME, 0); }

int sem_timedwait(sem_t *sem, const struct timespec *abstime) {
    return abstime ? wait_until(sem, CLOCK_REALTIME, abstime) : fail(EINVAL);
}

int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime) {
    return abstime ? wait_until(sem, clock, abstime) : fail(EINVAL);
}

int sem_post(sem_t *sem) {
    if (!sem) return fail(EINVAL);
    return ts_sem_post(as_sem(sem)) == 0 ? 0 : fail(EOVERFLOW);
}

int sem_getvalue(sem_t *sem, int *value) {
    if (!sem || !value) return fail(EINVAL);
    *value = (int)__atomic_load_n(&sem->__value, __ATOMIC_RELAXED);
    return 0;
}
