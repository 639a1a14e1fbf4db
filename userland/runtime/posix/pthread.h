/* POSIX threads, the subset MPI programs use (with MPI_THREAD_FUNNELED or
 * MPI_THREAD_SERIALIZED), over Tessera's threads, mutexes and condition
 * variables (<tessera/runtime.h>).
 *
 * The kernel runs one user thread per core: pthread_create starts the
 * thread on a free core of the caller's cluster, and fails with EAGAIN
 * when every core runs a thread (each rank holds one). A thread is part
 * of the caller's process: with ranks as processes (the default), the
 * threads of a rank share its globals and its MPI state.
 *
 * Functions return 0 or an errno value, as POSIX says; they never set
 * errno. Left out: cancellation, scheduling, process-shared and robust
 * mutexes, recursive and error-checking mutexes (pthread_mutexattr_settype
 * takes PTHREAD_MUTEX_NORMAL and PTHREAD_MUTEX_DEFAULT only), read-write
 * locks, barriers, spin locks; a thread's stack size is the kernel's
 * (pthread_attr_setstacksize is recorded, not used). */
#ifndef TESSERA_PTHREAD_H
#define TESSERA_PTHREAD_H

#include <sched.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* newlib (linux64) declares the POSIX thread types in <sys/types.h>;
 * picolibc (QEMU) does not. Ours have newlib's shape, so one
 * implementation serves both. */
#ifndef _SYS__PTHREADTYPES_H_
typedef unsigned pthread_t;
typedef unsigned pthread_mutex_t;
typedef unsigned pthread_cond_t;
typedef unsigned pthread_key_t;
typedef struct {
    int is_initialized;
    int recursive;
} pthread_mutexattr_t;
typedef struct {
    int is_initialized;
} pthread_condattr_t;
typedef struct {
    int is_initialized;
    int init_executed;
} pthread_once_t;
typedef struct {
    int is_initialized;
    int stacksize;
    int detachstate;
} pthread_attr_t;
#endif

/* newlib's values where it has them. */
#ifndef PTHREAD_CREATE_DETACHED
#define PTHREAD_CREATE_DETACHED 0
#define PTHREAD_CREATE_JOINABLE 1
#endif
#ifndef PTHREAD_MUTEX_NORMAL
#define PTHREAD_MUTEX_NORMAL     0
#define PTHREAD_MUTEX_RECURSIVE  1
#define PTHREAD_MUTEX_ERRORCHECK 2
#endif
#ifndef PTHREAD_MUTEX_DEFAULT
#define PTHREAD_MUTEX_DEFAULT 3
#endif

/* Static initializers: a mutex and a condition variable are one word,
 * free or with no waiter at 0. */
#undef PTHREAD_MUTEX_INITIALIZER
#undef PTHREAD_COND_INITIALIZER
#undef PTHREAD_ONCE_INIT
#define PTHREAD_MUTEX_INITIALIZER 0
#define PTHREAD_COND_INITIALIZER  0
/* clang-format off */
#define PTHREAD_ONCE_INIT {1, 0}
/* clang-format on */
#define PTHREAD_KEYS_MAX 32

/* Gives the core to another thread of the cluster, if one is ready
 * (<sched.h> declares it only where the C library has POSIX threads). */
int sched_yield(void);

/* Threads. pthread_create: EAGAIN when no core of the cluster is free,
 * EINVAL for a bad attribute. pthread_join: ESRCH for a thread that is
 * not joinable (unknown, detached or joined already), EDEADLK for the
 * caller itself. pthread_exit in the main thread ends it; the process
 * ends when its last thread does. */
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

int pthread_attr_init(pthread_attr_t *attr);
int pthread_attr_destroy(pthread_attr_t *attr);
int pthread_attr_setdetachstate(pthread_attr_t *attr, int state);
int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state);
int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size);
int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size);

/* Mutexes: not recursive. pthread_mutex_trylock: EBUSY when held;
 * pthread_mutex_unlock: EPERM when not locked. */
int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int pthread_mutex_destroy(pthread_mutex_t *mutex);
int pthread_mutex_lock(pthread_mutex_t *mutex);
int pthread_mutex_trylock(pthread_mutex_t *mutex);
int pthread_mutex_unlock(pthread_mutex_t *mutex);
int pthread_mutexattr_init(pthread_mutexattr_t *attr);
int pthread_mutexattr_destroy(pthread_mutexattr_t *attr);
/* PTHREAD_MUTEX_NORMAL/DEFAULT; the other types: ENOTSUP. */
int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int type);
int pthread_mutexattr_gettype(const pthread_mutexattr_t *attr, int *type);

/* Condition variables. pthread_cond_timedwait: ETIMEDOUT once abstime
 * (CLOCK_REALTIME) has passed. */
int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr);
int pthread_cond_destroy(pthread_cond_t *cond);
int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime);
int pthread_cond_signal(pthread_cond_t *cond);
int pthread_cond_broadcast(pthread_cond_t *cond);
int pthread_condattr_init(pthread_condattr_t *attr);
int pthread_condattr_destroy(pthread_condattr_t *attr);

/* Runs init once in the process, whichever thread comes first; the others
 * wait for it to finish. */
int pthread_once(pthread_once_t *once, void (*init)(void));

/* Thread-specific data: at most PTHREAD_KEYS_MAX keys per process (EAGAIN
 * beyond). A thread's non-null values go to their key's destructor when
 * the thread ends (up to 4 rounds, as POSIX allows). */
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *));
int pthread_key_delete(pthread_key_t key);
void *pthread_getspecific(pthread_key_t key);
int pthread_setspecific(pthread_key_t key, const void *value);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_PTHREAD_H */
