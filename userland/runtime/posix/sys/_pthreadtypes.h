/* The POSIX threads types (IEEE Std 1003.1-2017, <sys/types.h>), Tessera's
 * on both platforms. newlib's <sys/types.h> includes this header by this
 * name; this folder comes before the C library's in every user program's
 * search path, so these types replace newlib's (which hold a mutex in one
 * word, too small for a recursive one). picolibc declares none: <pthread.h>
 * includes this header.
 *
 * C++ libraries are compiled against these layouts: keep them as they
 * are. The fields are private (userland/runtime/pthread_sync.c says what
 * they hold); every static initializer is a constant initializer in C and
 * in C++. */
#ifndef _SYS__PTHREADTYPES_H_ /* newlib's guard: only one of the two */
#define _SYS__PTHREADTYPES_H_
#define TESSERA_PTHREADTYPES_H 1 /* <pthread.h> checks that this one came */

#include <stddef.h>

/* A thread: the kernel's thread id (the core it runs on). */
typedef unsigned pthread_t;
/* Thread-specific data: an index in the process's table of keys. */
typedef unsigned pthread_key_t;

typedef struct {
    int __initialized;
    int __detachstate;
    size_t __stacksize;
} pthread_attr_t;

typedef struct {
    unsigned __state; /* 0 not run, 1 running, 2 done */
} pthread_once_t;

/* Mutex: __lock is the runtime's mutex word (0 free, 1 locked, 2 locked
 * with waiters); __owner (its thread + 1) and __count only for the
 * recursive and error-checking types. */
typedef struct {
    unsigned __lock;
    int __type;
    unsigned __owner;
    unsigned __count;
} pthread_mutex_t;

typedef struct {
    int __initialized;
    int __type;
} pthread_mutexattr_t;

/* Condition variable: a sequence number every signal bumps; the clock of
 * its timed waits (0: CLOCK_REALTIME). */
typedef struct {
    unsigned __seq;
    int __clock;
} pthread_cond_t;

typedef struct {
    int __initialized;
    int __clock;
} pthread_condattr_t;

/* Read-write lock: __state counts the readers, or is __TS_RWLOCK_WRITER
 * while a writer holds it (__writer: its thread + 1); __sleepers counts
 * the threads that may sleep on __state. */
typedef struct {
    unsigned __state;
    unsigned __sleepers;
    unsigned __writer;
    unsigned __reserved;
} pthread_rwlock_t;

typedef struct {
    int __initialized;
} pthread_rwlockattr_t;

/* Barrier: __count threads; __arrived of them so far in round
 * __generation. */
typedef struct {
    unsigned __count;
    unsigned __arrived;
    unsigned __generation;
    unsigned __reserved;
} pthread_barrier_t;

typedef struct {
    int __initialized;
} pthread_barrierattr_t;

/* Spin lock: a mutex word, as pthread_mutex_t's __lock. */
typedef unsigned pthread_spinlock_t;

#endif /* _SYS__PTHREADTYPES_H_ */
