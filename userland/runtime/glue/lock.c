/* picolibc's retargetable locks (malloc, atexit, ...) as spinlocks, since
 * the threads of a process run truly in parallel. Defining every
 * __retarget_lock_* here keeps picolibc's no-op versions out of the link. */
#include <stdlib.h>
#include <sys/lock.h>

#include "../internal.h"

void ts__spin_lock(ts__spinlock *l)
{
    /* Test-and-test-and-set: spin on a plain load, swap only when free. */
    while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
            ;
}

void ts__spin_unlock(ts__spinlock *l) { __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE); }

struct __lock {
    ts__spinlock spin;
    uintptr_t owner; /* ts__self_id() of the holder, 0 when free */
    unsigned depth;  /* recursive acquisitions by the owner */
};

struct __lock __lock___libc_recursive_mutex;
struct __lock ts__guard_mutex; /* C++ static initialisation (cxx.cpp) */

void __retarget_lock_init(_LOCK_T *lock) { *lock = calloc(1, sizeof(struct __lock)); }
void __retarget_lock_init_recursive(_LOCK_T *lock) { __retarget_lock_init(lock); }
void __retarget_lock_close(_LOCK_T lock) { free(lock); }
void __retarget_lock_close_recursive(_LOCK_T lock) { free(lock); }

void __retarget_lock_acquire(_LOCK_T lock) { ts__spin_lock(&lock->spin); }

int __retarget_lock_try_acquire(_LOCK_T lock)
{
    return !__atomic_exchange_n(&lock->spin.locked, 1, __ATOMIC_ACQUIRE);
}

void __retarget_lock_release(_LOCK_T lock) { ts__spin_unlock(&lock->spin); }

/* Only the holder ever stores its own id in owner, so reading owner == me
 * without the lock is safe. */
void __retarget_lock_acquire_recursive(_LOCK_T lock)
{
    uintptr_t me = ts__self_id();
    if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != me) {
        ts__spin_lock(&lock->spin);
        __atomic_store_n(&lock->owner, me, __ATOMIC_RELAXED);
    }
    lock->depth++;
}

int __retarget_lock_try_acquire_recursive(_LOCK_T lock)
{
    uintptr_t me = ts__self_id();
    if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != me) {
        if (!__retarget_lock_try_acquire(lock))
            return 0;
        __atomic_store_n(&lock->owner, me, __ATOMIC_RELAXED);
    }
    lock->depth++;
    return 1;
}

void __retarget_lock_release_recursive(_LOCK_T lock)
{
    if (--lock->depth == 0) {
        __atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
        ts__spin_unlock(&lock->spin);
    }
}
