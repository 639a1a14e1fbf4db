/* POSIX threads (IEEE Std 1003.1-2017, <pthread.h>) over Tessera's threads
 * and futexes: what C and C++ programs, libstdc++'s threads (std::thread,
 * the mutexes, std::shared_mutex, std::condition_variable, std::call_once,
 * thread_local) and libgomp use. The types are in <sys/_pthreadtypes.h>.
 *
 * The kernel runs one user thread per core. A rank's share of its
 * cluster's cores is its own core plus an equal part of the cores that no
 * rank runs on (docs/programs.md, "Threads in MPI programs");
 * sysconf(_SC_NPROCESSORS_ONLN) says how many. pthread_create starts a
 * thread on a free core of the share, and fails with EAGAIN when the
 * rank's threads fill its share. A thread is part of the caller's
 * process: with ranks as processes (the default), the threads of a rank
 * share its globals and its MPI state.
 *
 * Functions return 0 or an errno value, as POSIX says; they never set
 * errno. Timed waits take an absolute time on CLOCK_REALTIME (or the
 * clock given), which Tessera counts from the machine's start, as
 * CLOCK_MONOTONIC: EINVAL for tv_nsec outside [0, 10^9) when the call
 * would wait, ETIMEDOUT once it has passed. Synchronisation objects serve
 * the threads of one process (Tessera's processes share no memory at one
 * address): PTHREAD_PROCESS_SHARED is taken, and acts as private.
 *
 * Left out (a program that calls them fails to link, naming them):
 * cancellation, scheduling parameters and priorities, robust and
 * priority-protocol mutexes, thread stacks of the caller's memory
 * (pthread_attr_setstack), pthread_kill and signal masks, fork handlers. */
#ifndef TESSERA_PTHREAD_H
#define TESSERA_PTHREAD_H

#include <sched.h>
#include <sys/_pthreadtypes.h>
#include <sys/types.h>
#include <time.h>

#ifndef TESSERA_PTHREADTYPES_H
#error \
    "the C library's <sys/_pthreadtypes.h> came first: userland/runtime/posix must precede it in the include path"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* newlib's values. */
#define PTHREAD_CREATE_DETACHED  0
#define PTHREAD_CREATE_JOINABLE  1
#define PTHREAD_MUTEX_NORMAL     0
#define PTHREAD_MUTEX_RECURSIVE  1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_MUTEX_DEFAULT    3 /* as PTHREAD_MUTEX_NORMAL */
#define PTHREAD_PROCESS_PRIVATE  0
#define PTHREAD_PROCESS_SHARED   1
/* What one thread of a barrier's round gets from pthread_barrier_wait. */
#define PTHREAD_BARRIER_SERIAL_THREAD (-1)
#define PTHREAD_KEYS_MAX              32
#define PTHREAD_DESTRUCTOR_ITERATIONS 4
/* A thread's stack: at least this much, at most TS_USER_STACK_MAX (960
 * KiB), which every thread's stack can grow to. */
#define PTHREAD_STACK_MIN 4096

/* Static initializers. */
/* (clang-format would split a braced initializer in a macro) */
/* clang-format off */
#define PTHREAD_MUTEX_INITIALIZER {0, PTHREAD_MUTEX_DEFAULT, 0, 0}
#define PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP {0, PTHREAD_MUTEX_RECURSIVE, 0, 0}
#define PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP {0, PTHREAD_MUTEX_ERRORCHECK, 0, 0}
#define PTHREAD_COND_INITIALIZER {0, 0}
#define PTHREAD_RWLOCK_INITIALIZER {0, 0, 0, 0}
#define PTHREAD_ONCE_INIT {0}
/* clang-format on */

/* Gives the core to another thread of the cluster, if one is ready
 * (<sched.h> declares it only where the C library has POSIX threads). */
int sched_yield(void);

/* ---- threads ---- */

/* pthread_create: EAGAIN when the rank's threads fill its share of cores
 * (or no core of the cluster is free), EINVAL for a bad attribute.
 * pthread_join: ESRCH for a thread that is not joinable (unknown, detached
 * or joined already), EDEADLK for the caller itself. pthread_exit in the
 * main thread ends it; the process ends when its last thread does. */
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int pthread_join(pthread_t thread, void **value);
int pthread_detach(pthread_t thread);
void pthread_exit(void *value) __attribute__((noreturn));
pthread_t pthread_self(void);
int pthread_equal(pthread_t a, pthread_t b);
/* Declared for the headers that name it (libstdc++'s gthr-posix.h), never
 * defined: threads cannot be cancelled, so a program that calls it fails
 * to link, naming it. */
int pthread_cancel(pthread_t thread);

/* Attributes: detach state, stack size. A thread runs on its core's
 * stack, which grows on demand up to TS_USER_STACK_MAX: a size from
 * PTHREAD_STACK_MIN to that is honoured (EINVAL outside), and
 * pthread_attr_getstacksize says TS_USER_STACK_MAX until one is set. */
int pthread_attr_init(pthread_attr_t *attr);
int pthread_attr_destroy(pthread_attr_t *attr);
int pthread_attr_setdetachstate(pthread_attr_t *attr, int state);
int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state);
int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size);
int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size);

/* Runs init once in the process, whichever thread comes first; the others
 * wait for it to finish. */
int pthread_once(pthread_once_t *once, void (*init)(void));

/* Thread-specific data: at most PTHREAD_KEYS_MAX keys at once per process
 * (EAGAIN beyond); a new key holds NULL in every thread. A thread's
 * non-null values go to their key's destructor when the thread ends (up to
 * PTHREAD_DESTRUCTOR_ITERATIONS rounds). EINVAL for a key not created. */
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *));
int pthread_key_delete(pthread_key_t key);
void *pthread_getspecific(pthread_key_t key);
int pthread_setspecific(pthread_key_t key, const void *value);

/* ---- mutexes ----
 * NORMAL and DEFAULT: a second lock by the holder deadlocks; unlock of a
 * free mutex: EPERM. ERRORCHECK: EDEADLK for a second lock by the holder,
 * EPERM for an unlock by another thread. RECURSIVE: the holder may lock it
 * again (EAGAIN after 2^32 - 1 locks), and unlocks it as many times; EPERM
 * for an unlock by another thread. trylock: EBUSY when another thread
 * holds it (or an ERRORCHECK one is the caller's). destroy: EBUSY while
 * locked. Timed locks: ETIMEDOUT. */
int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int pthread_mutex_destroy(pthread_mutex_t *mutex);
int pthread_mutex_lock(pthread_mutex_t *mutex);
int pthread_mutex_trylock(pthread_mutex_t *mutex);
int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime);
int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime);
int pthread_mutex_unlock(pthread_mutex_t *mutex);
int pthread_mutexattr_init(pthread_mutexattr_t *attr);
int pthread_mutexattr_destroy(pthread_mutexattr_t *attr);
/* The four PTHREAD_MUTEX_* types; EINVAL for another. */
int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int type);
int pthread_mutexattr_gettype(const pthread_mutexattr_t *attr, int *type);

/* ---- condition variables ----
 * A waiter must hold the mutex (EPERM for an ERRORCHECK or RECURSIVE one
 * it does not hold; a RECURSIVE one is released and taken back whole).
 * pthread_cond_timedwait waits until abstime on the clock of the condition
 * variable's attribute (CLOCK_REALTIME by default); pthread_cond_clockwait
 * on `clock`. */
int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr);
int pthread_cond_destroy(pthread_cond_t *cond);
int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime);
int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *abstime);
int pthread_cond_signal(pthread_cond_t *cond);
int pthread_cond_broadcast(pthread_cond_t *cond);
int pthread_condattr_init(pthread_condattr_t *attr);
int pthread_condattr_destroy(pthread_condattr_t *attr);
/* CLOCK_REALTIME or CLOCK_MONOTONIC; EINVAL for another. */
int pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock);
int pthread_condattr_getclock(const pthread_condattr_t *attr, clockid_t *clock);

/* ---- read-write locks ----
 * Readers share it, a writer holds it alone. A reader gets in whenever no
 * writer holds it, so a thread may take a read lock it holds again (a
 * steady stream of readers can keep a writer out). EDEADLK when the caller
 * holds the write lock; EAGAIN past 2^31 - 1 readers; EBUSY from the
 * try forms; EPERM for an unlock of a lock not held, or of the write lock
 * by another thread; destroy: EBUSY while held. */
int pthread_rwlock_init(pthread_rwlock_t *lock, const pthread_rwlockattr_t *attr);
int pthread_rwlock_destroy(pthread_rwlock_t *lock);
int pthread_rwlock_rdlock(pthread_rwlock_t *lock);
int pthread_rwlock_tryrdlock(pthread_rwlock_t *lock);
int pthread_rwlock_timedrdlock(pthread_rwlock_t *lock, const struct timespec *abstime);
int pthread_rwlock_clockrdlock(pthread_rwlock_t *lock, clockid_t clock, const struct timespec *abstime);
int pthread_rwlock_wrlock(pthread_rwlock_t *lock);
int pthread_rwlock_trywrlock(pthread_rwlock_t *lock);
int pthread_rwlock_timedwrlock(pthread_rwlock_t *lock, const struct timespec *abstime);
int pthread_rwlock_clockwrlock(pthread_rwlock_t *lock, clockid_t clock, const struct timespec *abstime);
int pthread_rwlock_unlock(pthread_rwlock_t *lock);
int pthread_rwlockattr_init(pthread_rwlockattr_t *attr);
int pthread_rwlockattr_destroy(pthread_rwlockattr_t *attr);

/* ---- barriers ----
 * count threads meet (EINVAL for 0); one of each round gets
 * PTHREAD_BARRIER_SERIAL_THREAD, the others 0. destroy: EBUSY while a
 * round has begun. */
int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr, unsigned count);
int pthread_barrier_destroy(pthread_barrier_t *barrier);
int pthread_barrier_wait(pthread_barrier_t *barrier);
int pthread_barrierattr_init(pthread_barrierattr_t *attr);
int pthread_barrierattr_destroy(pthread_barrierattr_t *attr);

/* ---- spin locks ----
 * A waiter spins briefly, then sleeps in the kernel until the lock is free
 * (a spinning core would hold a host CPU, or QEMU's one TCG thread).
 * pshared: PTHREAD_PROCESS_PRIVATE or _SHARED (EINVAL for another);
 * trylock: EBUSY; unlock of a free lock: EPERM; destroy: EBUSY while held. */
int pthread_spin_init(pthread_spinlock_t *lock, int pshared);
int pthread_spin_destroy(pthread_spinlock_t *lock);
int pthread_spin_lock(pthread_spinlock_t *lock);
int pthread_spin_trylock(pthread_spinlock_t *lock);
int pthread_spin_unlock(pthread_spinlock_t *lock);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_PTHREAD_H */
