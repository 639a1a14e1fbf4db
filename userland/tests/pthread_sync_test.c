/* On-target test of <pthread.h>'s synchronisation objects and of
 * <semaphore.h> (tests/target_tests.toml: userland_pthread), one process
 * with its rank's share of cores (mpirun -np 1: every core of the cluster
 * but the master's).
 *
 * For each of mutexes (the four types, timed locks), condition variables
 * (clocks, recursive mutexes), read-write locks, barriers, spin locks,
 * semaphores, thread attributes and keys:
 *   api:    what each call returns when used right, and its effect;
 *   faults: the errno value each bad argument or misuse gets;
 *   stress: the threads hammer it together, and its invariant holds
 *           (counts under mutexes and spin locks, a pair that a write lock
 *           keeps equal for readers, rounds of a barrier, items through
 *           semaphores).
 * Prints "FAIL pthread_sync_test.c:LINE: ..." for each failed check and
 * "pthread_sync_test: OK (N threads)" at the end if none failed; exits
 * with 1 on a failure. Timed waits that must run out wait 20 ms. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <tessera/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16
#define ROUNDS      300 /* per thread, in each stress */

static int nthreads, failures; /* nthreads: besides the main thread */

#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("FAIL pthread_sync_test.c:%d: %s\n", __LINE__, #cond); \
            __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);           \
        }                                                                 \
    } while (0)

/* ms from now on `clock` (negative: in the past). */
static struct timespec in_ms(clockid_t clock, long ms) {
    struct timespec t;
    clock_gettime(clock, &t);
    long ns = t.tv_nsec + ms * 1000000L;
    t.tv_sec += ns / 1000000000L;
    t.tv_nsec = ns % 1000000000L;
    if (t.tv_nsec < 0) {
        t.tv_nsec += 1000000000L;
        t.tv_sec -= 1;
    }
    return t;
}

static const struct timespec bad_nsec = {0, 1000000000L};

/* Runs fn(i) on nthreads threads and on the main thread (i = nthreads),
 * and joins them. */
static void run_all(void *(*fn)(void *)) {
    pthread_t t[MAX_THREADS];
    for (long i = 0; i < nthreads; ++i)
        CHECK(pthread_create(&t[i], 0, fn, (void *)i) == 0);
    fn((void *)(long)nthreads);
    for (int i = 0; i < nthreads; ++i)
        CHECK(pthread_join(t[i], 0) == 0);
}

/* Runs fn(arg) on one thread and joins it (nothing without a thread). */
static void on_a_thread(void *(*fn)(void *), void *arg) {
    pthread_t t;
    if (nthreads == 0) return;
    CHECK(pthread_create(&t, 0, fn, arg) == 0);
    CHECK(pthread_join(t, 0) == 0);
}

/* ---- mutexes ---- */

static void *unlock_held(void *arg) {
    pthread_mutex_t *m = arg;
    CHECK(pthread_mutex_unlock(m) == EPERM); /* the holder is another thread */
    CHECK(pthread_mutex_trylock(m) == EBUSY);
    struct timespec soon = in_ms(CLOCK_REALTIME, 20);
    CHECK(pthread_mutex_timedlock(m, &soon) == ETIMEDOUT);
    return 0;
}

static pthread_mutex_t counted = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static long count;

static void *add_nested(void *arg) {
    (void)arg;
    for (int i = 0; i < ROUNDS; ++i) {
        pthread_mutex_lock(&counted);
        pthread_mutex_lock(&counted); /* recursive: the holder again */
        long c = count;
        if (i % 32 == 0) sched_yield();
        count = c + 1;
        pthread_mutex_unlock(&counted);
        pthread_mutex_unlock(&counted);
    }
    return 0;
}

static void test_mutexes(void) {
    pthread_mutexattr_t attr;
    int type = -1;
    CHECK(pthread_mutexattr_init(&attr) == 0);
    CHECK(pthread_mutexattr_gettype(&attr, &type) == 0 && type == PTHREAD_MUTEX_DEFAULT);
    CHECK(pthread_mutexattr_settype(&attr, 99) == EINVAL);

    /* recursive */
    pthread_mutex_t r;
    CHECK(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) == 0);
    CHECK(pthread_mutexattr_gettype(&attr, &type) == 0 && type == PTHREAD_MUTEX_RECURSIVE);
    CHECK(pthread_mutex_init(&r, &attr) == 0);
    CHECK(pthread_mutex_lock(&r) == 0);
    CHECK(pthread_mutex_lock(&r) == 0);
    CHECK(pthread_mutex_trylock(&r) == 0);
    CHECK(pthread_mutex_destroy(&r) == EBUSY);
    on_a_thread(unlock_held, &r);
    CHECK(pthread_mutex_unlock(&r) == 0);
    CHECK(pthread_mutex_unlock(&r) == 0);
    CHECK(pthread_mutex_unlock(&r) == 0);
    CHECK(pthread_mutex_unlock(&r) == EPERM);
    CHECK(pthread_mutex_destroy(&r) == 0);

    /* error-checking */
    pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    CHECK(pthread_mutex_unlock(&e) == EPERM);
    CHECK(pthread_mutex_lock(&e) == 0);
    CHECK(pthread_mutex_lock(&e) == EDEADLK);
    CHECK(pthread_mutex_trylock(&e) == EBUSY);
    on_a_thread(unlock_held, &e);
    CHECK(pthread_mutex_unlock(&e) == 0);
    CHECK(pthread_mutex_unlock(&e) == EPERM);

    /* normal, timed */
    pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;
    CHECK(pthread_mutex_lock(&n) == 0);
    struct timespec soon = in_ms(CLOCK_REALTIME, 20), past = in_ms(CLOCK_REALTIME, -20);
    struct timespec soon_mono = in_ms(CLOCK_MONOTONIC, 20);
    CHECK(pthread_mutex_timedlock(&n, &soon) == ETIMEDOUT);
    CHECK(pthread_mutex_timedlock(&n, &past) == ETIMEDOUT);
    CHECK(pthread_mutex_timedlock(&n, &bad_nsec) == EINVAL);
    CHECK(pthread_mutex_clocklock(&n, CLOCK_MONOTONIC, &soon_mono) == ETIMEDOUT);
    CHECK(pthread_mutex_clocklock(&n, (clockid_t)12345, &soon_mono) == EINVAL);
    CHECK(pthread_mutex_unlock(&n) == 0);
    CHECK(pthread_mutex_timedlock(&n, &past) == 0); /* free: taken, abstime unread */
    CHECK(pthread_mutex_unlock(&n) == 0);
    CHECK(pthread_mutex_unlock(&n) == EPERM);

    /* faults */
    CHECK(pthread_mutex_init(0, 0) == EINVAL);
    CHECK(pthread_mutex_lock(0) == EINVAL);
    CHECK(pthread_mutex_trylock(0) == EINVAL);
    CHECK(pthread_mutex_unlock(0) == EINVAL);
    CHECK(pthread_mutex_timedlock(&n, 0) == EINVAL);
    CHECK(pthread_mutexattr_destroy(&attr) == 0);
    CHECK(pthread_mutex_init(&n, &attr) == EINVAL); /* a destroyed attribute */
    CHECK(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL) == EINVAL);

    /* stress: a recursive mutex keeps a count right */
    count = 0;
    run_all(add_nested);
    CHECK(count == (long)ROUNDS * (nthreads + 1));
}

/* ---- condition variables ---- */

static pthread_mutex_t box_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_cond_t box_changed = PTHREAD_COND_INITIALIZER;
static int box;

static void *fill_box(void *arg) {
    (void)arg;
    pthread_mutex_lock(&box_lock);
    box = 1;
    pthread_cond_signal(&box_changed);
    pthread_mutex_unlock(&box_lock);
    return 0;
}

static void test_conds(void) {
    pthread_condattr_t attr;
    clockid_t clock = 0;
    CHECK(pthread_condattr_init(&attr) == 0);
    CHECK(pthread_condattr_getclock(&attr, &clock) == 0 && clock == CLOCK_REALTIME);
    CHECK(pthread_condattr_setclock(&attr, (clockid_t)12345) == EINVAL);
    CHECK(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0);
    CHECK(pthread_condattr_getclock(&attr, &clock) == 0 && clock == CLOCK_MONOTONIC);
    pthread_cond_t c;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    CHECK(pthread_cond_init(&c, &attr) == 0);
    CHECK(pthread_condattr_destroy(&attr) == 0);
    pthread_mutex_lock(&m);
    struct timespec soon_mono = in_ms(CLOCK_MONOTONIC, 20), soon = in_ms(CLOCK_REALTIME, 20);
    CHECK(pthread_cond_timedwait(&c, &m, &soon_mono) == ETIMEDOUT); /* the attribute's clock */
    CHECK(pthread_cond_clockwait(&c, &m, CLOCK_REALTIME, &soon) == ETIMEDOUT);
    CHECK(pthread_cond_timedwait(&c, &m, &bad_nsec) == EINVAL);
    CHECK(pthread_cond_clockwait(&c, &m, (clockid_t)12345, &soon) == EINVAL);
    CHECK(pthread_mutex_trylock(&m) == EBUSY); /* still held after each */
    pthread_mutex_unlock(&m);
    CHECK(pthread_cond_destroy(&c) == 0);

    /* A recursive mutex held twice: released whole while waiting. */
    if (nthreads > 0) {
        pthread_t t;
        pthread_mutex_lock(&box_lock);
        pthread_mutex_lock(&box_lock);
        CHECK(pthread_create(&t, 0, fill_box, 0) == 0);
        while (!box)
            CHECK(pthread_cond_wait(&box_changed, &box_lock) == 0);
        CHECK(pthread_mutex_unlock(&box_lock) == 0);
        CHECK(pthread_mutex_unlock(&box_lock) == 0);
        CHECK(pthread_mutex_unlock(&box_lock) == EPERM);
        CHECK(pthread_join(t, 0) == 0);
    }

    /* faults */
    pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    CHECK(pthread_cond_wait(&box_changed, &e) == EPERM); /* not held */
    CHECK(pthread_cond_wait(0, &m) == EINVAL);
    CHECK(pthread_cond_wait(&box_changed, 0) == EINVAL);
    CHECK(pthread_cond_timedwait(&box_changed, &m, 0) == EINVAL);
    CHECK(pthread_cond_signal(0) == EINVAL);
    CHECK(pthread_cond_broadcast(0) == EINVAL);
    CHECK(pthread_cond_init(0, 0) == EINVAL);
}

/* ---- read-write locks ---- */

static pthread_rwlock_t pair_lock = PTHREAD_RWLOCK_INITIALIZER;
static long pair[2], writes;

static void *read_or_write(void *arg) {
    const long id = (long)arg;
    for (int i = 0; i < ROUNDS; ++i) {
        if ((i + id) % 4 == 0) {
            pthread_rwlock_wrlock(&pair_lock);
            long v = pair[0];
            if (i % 16 == 0) sched_yield();
            pair[0] = v + 1;
            pair[1] = v + 1;
            ++writes;
            pthread_rwlock_unlock(&pair_lock);
        } else {
            pthread_rwlock_rdlock(&pair_lock);
            long a = pair[0];
            if (i % 16 == 1) sched_yield();
            CHECK(pair[1] == a); /* no writer in between */
            pthread_rwlock_unlock(&pair_lock);
        }
    }
    return 0;
}

static void *write_locked(void *arg) {
    pthread_rwlock_t *l = arg;
    CHECK(pthread_rwlock_unlock(l) == EPERM); /* another thread's write lock */
    CHECK(pthread_rwlock_tryrdlock(l) == EBUSY);
    struct timespec soon = in_ms(CLOCK_REALTIME, 20);
    CHECK(pthread_rwlock_timedrdlock(l, &soon) == ETIMEDOUT);
    return 0;
}

static void test_rwlocks(void) {
    pthread_rwlock_t l;
    pthread_rwlockattr_t attr;
    CHECK(pthread_rwlockattr_init(&attr) == 0);
    CHECK(pthread_rwlock_init(&l, &attr) == 0);
    CHECK(pthread_rwlockattr_destroy(&attr) == 0);
    CHECK(pthread_rwlock_rdlock(&l) == 0);
    CHECK(pthread_rwlock_rdlock(&l) == 0); /* a reader again */
    CHECK(pthread_rwlock_tryrdlock(&l) == 0);
    CHECK(pthread_rwlock_trywrlock(&l) == EBUSY);
    struct timespec soon = in_ms(CLOCK_REALTIME, 20), soon_mono = in_ms(CLOCK_MONOTONIC, 20);
    CHECK(pthread_rwlock_timedwrlock(&l, &soon) == ETIMEDOUT);
    CHECK(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &soon_mono) == ETIMEDOUT);
    CHECK(pthread_rwlock_timedwrlock(&l, &bad_nsec) == EINVAL);
    CHECK(pthread_rwlock_destroy(&l) == EBUSY);
    CHECK(pthread_rwlock_unlock(&l) == 0);
    CHECK(pthread_rwlock_unlock(&l) == 0);
    CHECK(pthread_rwlock_unlock(&l) == 0);
    CHECK(pthread_rwlock_unlock(&l) == EPERM);
    CHECK(pthread_rwlock_wrlock(&l) == 0);
    CHECK(pthread_rwlock_rdlock(&l) == EDEADLK);
    CHECK(pthread_rwlock_wrlock(&l) == EDEADLK);
    CHECK(pthread_rwlock_trywrlock(&l) == EBUSY);
    CHECK(pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &soon_mono) == EDEADLK);
    on_a_thread(write_locked, &l);
    CHECK(pthread_rwlock_unlock(&l) == 0);
    CHECK(pthread_rwlock_timedrdlock(&l, &bad_nsec) == 0); /* free: taken, abstime unread */
    CHECK(pthread_rwlock_unlock(&l) == 0);
    CHECK(pthread_rwlock_destroy(&l) == 0);

    /* faults */
    CHECK(pthread_rwlock_init(0, 0) == EINVAL);
    CHECK(pthread_rwlock_rdlock(0) == EINVAL);
    CHECK(pthread_rwlock_wrlock(0) == EINVAL);
    CHECK(pthread_rwlock_unlock(0) == EINVAL);
    CHECK(pthread_rwlock_timedrdlock(&l, 0) == EINVAL);
    CHECK(pthread_rwlock_init(&l, &attr) == EINVAL); /* a destroyed attribute */

    /* stress: readers never see a writer's half-done pair */
    run_all(read_or_write);
    CHECK(pair[0] == writes && pair[1] == writes);
}

/* ---- barriers ---- */

static pthread_barrier_t barrier;
static int arrivals, serials, mismatches;

static void *meet(void *arg) {
    (void)arg;
    for (int round = 1; round <= ROUNDS / 10; ++round) {
        __atomic_add_fetch(&arrivals, 1, __ATOMIC_RELAXED);
        const int r = pthread_barrier_wait(&barrier);
        CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD);
        if (r == PTHREAD_BARRIER_SERIAL_THREAD) __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
        /* Every thread arrived for this round, none yet for the next. */
        if (__atomic_load_n(&arrivals, __ATOMIC_RELAXED) != round * (nthreads + 1))
            __atomic_add_fetch(&mismatches, 1, __ATOMIC_RELAXED);
        pthread_barrier_wait(&barrier);
    }
    return 0;
}

static void test_barriers(void) {
    pthread_barrierattr_t attr;
    CHECK(pthread_barrierattr_init(&attr) == 0);
    CHECK(pthread_barrier_init(&barrier, &attr, 0) == EINVAL);
    CHECK(pthread_barrier_init(&barrier, &attr, 1) == 0);
    CHECK(pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD); /* alone */
    CHECK(pthread_barrier_destroy(&barrier) == 0);
    CHECK(pthread_barrierattr_destroy(&attr) == 0);
    CHECK(pthread_barrier_init(&barrier, &attr, 2) == EINVAL); /* a destroyed attribute */
    CHECK(pthread_barrier_init(0, 0, 2) == EINVAL);
    CHECK(pthread_barrier_wait(0) == EINVAL);

    /* stress: rounds of every thread */
    CHECK(pthread_barrier_init(&barrier, 0, (unsigned)nthreads + 1) == 0);
    run_all(meet);
    CHECK(serials == ROUNDS / 10);
    CHECK(mismatches == 0);
    CHECK(pthread_barrier_destroy(&barrier) == 0);
}

/* ---- spin locks ---- */

static pthread_spinlock_t spin;
static long spun;

static void *add_spinning(void *arg) {
    (void)arg;
    for (int i = 0; i < ROUNDS; ++i) {
        pthread_spin_lock(&spin);
        long c = spun;
        if (i % 32 == 0) sched_yield();
        spun = c + 1;
        pthread_spin_unlock(&spin);
    }
    return 0;
}

static void test_spins(void) {
    CHECK(pthread_spin_init(&spin, 7) == EINVAL);
    CHECK(pthread_spin_init(0, PTHREAD_PROCESS_PRIVATE) == EINVAL);
    CHECK(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
    CHECK(pthread_spin_lock(&spin) == 0);
    CHECK(pthread_spin_trylock(&spin) == EBUSY);
    CHECK(pthread_spin_destroy(&spin) == EBUSY);
    CHECK(pthread_spin_unlock(&spin) == 0);
    CHECK(pthread_spin_unlock(&spin) == EPERM);
    CHECK(pthread_spin_lock(0) == EINVAL);
    run_all(add_spinning);
    CHECK(spun == (long)ROUNDS * (nthreads + 1));
    CHECK(pthread_spin_destroy(&spin) == 0);
}

/* ---- semaphores ---- */

#define SLOTS 4
static sem_t empty, full;
static long ring[SLOTS], produced, consumed;

static void *produce(void *arg) {
    const long id = (long)arg;
    for (int i = 0; i < ROUNDS; ++i) {
        CHECK(sem_wait(&empty) == 0);
        const long slot = __atomic_fetch_add(&produced, 1, __ATOMIC_RELAXED) % SLOTS;
        __atomic_store_n(&ring[slot], id + 1, __ATOMIC_RELEASE);
        CHECK(sem_post(&full) == 0);
    }
    return 0;
}

static void test_semaphores(void) {
    sem_t s;
    int v = -1;
    errno = 0;
    CHECK(sem_init(0, 0, 1) == -1 && errno == EINVAL);
    CHECK(sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1u) == -1 && errno == EINVAL);
    CHECK(sem_init(&s, 1, 0) == -1 && errno == ENOTSUP);
    CHECK(sem_init(&s, 0, 2) == 0);
    CHECK(sem_getvalue(&s, &v) == 0 && v == 2);
    CHECK(sem_trywait(&s) == 0);
    CHECK(sem_wait(&s) == 0);
    CHECK(sem_trywait(&s) == -1 && errno == EAGAIN);
    struct timespec soon = in_ms(CLOCK_REALTIME, 20), soon_mono = in_ms(CLOCK_MONOTONIC, 20);
    CHECK(sem_timedwait(&s, &soon) == -1 && errno == ETIMEDOUT);
    CHECK(sem_clockwait(&s, CLOCK_MONOTONIC, &soon_mono) == -1 && errno == ETIMEDOUT);
    CHECK(sem_timedwait(&s, &bad_nsec) == -1 && errno == EINVAL);
    CHECK(sem_clockwait(&s, (clockid_t)12345, &soon) == -1 && errno == EINVAL);
    CHECK(sem_post(&s) == 0);
    CHECK(sem_timedwait(&s, &bad_nsec) == 0); /* a unit: taken, abstime unread */
    CHECK(sem_destroy(&s) == 0);
    CHECK(sem_init(&s, 0, SEM_VALUE_MAX) == 0);
    CHECK(sem_post(&s) == -1 && errno == EOVERFLOW);
    CHECK(sem_getvalue(&s, &v) == 0 && v == SEM_VALUE_MAX);
    CHECK(sem_wait(0) == -1 && errno == EINVAL);
    CHECK(sem_post(0) == -1 && errno == EINVAL);
    CHECK(sem_getvalue(&s, 0) == -1 && errno == EINVAL);

    /* stress: the threads produce, the main thread consumes every item */
    if (nthreads == 0) return;
    CHECK(sem_init(&empty, 0, SLOTS) == 0);
    CHECK(sem_init(&full, 0, 0) == 0);
    pthread_t t[MAX_THREADS];
    for (long i = 0; i < nthreads; ++i)
        CHECK(pthread_create(&t[i], 0, produce, (void *)i) == 0);
    long per_producer[MAX_THREADS] = {0};
    for (long n = 0; n < (long)ROUNDS * nthreads; ++n) {
        CHECK(sem_wait(&full) == 0);
        const long id = __atomic_load_n(&ring[consumed++ % SLOTS], __ATOMIC_ACQUIRE) - 1;
        if (id >= 0 && id < nthreads) ++per_producer[id];
        CHECK(sem_post(&empty) == 0);
    }
    for (int i = 0; i < nthreads; ++i) {
        CHECK(pthread_join(t[i], 0) == 0);
        CHECK(per_producer[i] == ROUNDS);
    }
    CHECK(sem_getvalue(&empty, &v) == 0 && v == SLOTS);
    CHECK(sem_destroy(&empty) == 0 && sem_destroy(&full) == 0);
}

/* ---- thread attributes, keys ---- */

/* Uses 600 KiB of its stack: more than a thread starts with. */
static void *deep(void *arg) {
    volatile char big[600 * 1024];
    memset((char *)big, 1, sizeof big);
    *(int *)arg = big[sizeof big - 1] + big[0];
    return 0;
}

static void test_attrs_keys(void) {
    pthread_attr_t attr;
    size_t size = 0;
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_getstacksize(&attr, &size) == 0 && size == TS_USER_STACK_MAX);
    CHECK(pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN - 1) == EINVAL);
    CHECK(pthread_attr_setstacksize(&attr, TS_USER_STACK_MAX + 1) == EINVAL);
    CHECK(pthread_attr_setstacksize(&attr, 768 * 1024) == 0);
    CHECK(pthread_attr_getstacksize(&attr, &size) == 0 && size == 768 * 1024);
    if (nthreads > 0) {
        pthread_t t;
        int sum = 0;
        CHECK(pthread_create(&t, &attr, deep, &sum) == 0);
        CHECK(pthread_join(t, 0) == 0);
        CHECK(sum == 2);
    }
    CHECK(pthread_attr_destroy(&attr) == 0);
    CHECK(pthread_attr_setstacksize(&attr, 768 * 1024) == EINVAL); /* destroyed */
    pthread_t t;
    CHECK(pthread_create(&t, &attr, deep, 0) == EINVAL);

    pthread_key_t k1, k2;
    static int one;
    CHECK(pthread_key_create(&k1, 0) == 0);
    CHECK(pthread_setspecific(k1, &one) == 0 && pthread_getspecific(k1) == &one);
    CHECK(pthread_key_delete(k1) == 0);
    CHECK(pthread_key_delete(k1) == EINVAL);
    CHECK(pthread_getspecific(k1) == 0);
    CHECK(pthread_key_create(&k2, 0) == 0);
    CHECK(pthread_getspecific(k2) == 0); /* a new key holds NULL, even in k1's slot */
    CHECK(pthread_key_delete(k2) == 0);
    CHECK(pthread_key_create(0, 0) == EINVAL);
    pthread_key_t keys[PTHREAD_KEYS_MAX + 1];
    int made = 0;
    while (made <= PTHREAD_KEYS_MAX && pthread_key_create(&keys[made], 0) == 0)
        ++made;
    CHECK(made <= PTHREAD_KEYS_MAX && pthread_key_create(&k1, 0) == EAGAIN);
    while (made > 0)
        CHECK(pthread_key_delete(keys[--made]) == 0);
}

int main(void) {
    /* The share: the main thread's core and one thread on each other. */
    const long share = sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = share < 1 ? 0 : share - 1 > MAX_THREADS ? MAX_THREADS : (int)share - 1;
    test_mutexes();
    test_conds();
    test_rwlocks();
    test_barriers();
    test_spins();
    test_semaphores();
    test_attrs_keys();
    if (!failures) printf("pthread_sync_test: OK (%d threads)\n", nthreads);
    fflush(stdout);
    return failures ? 1 : 0;
}
