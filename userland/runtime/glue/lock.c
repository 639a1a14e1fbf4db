/* The C library's retargetable locks (malloc, atexit, stdio) as
 * ts_mutex_t: a thread that finds one held sleeps in the kernel rather
 * than spinning on its core. Defining every __retarget_lock_* here
 * (and the library's static locks in libc/<libc>/locks.c) keeps the
 * library's no-op versions out of the link. */
#include <stdlib.h>

#include "lock.h"

/* Only sbrk uses it (see internal.h). */
void ts__spin_lock(ts__spinlock *l) {
    /* Test-and-test-and-set: spin on a plain load, swap only when free. */
    while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
            ;
}

void ts__spin_unlock(ts__spinlock *l) { __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE); }

void __retarget_lock_init(_LOCK_T *lock) { *lock = calloc(1, sizeof(struct __lock)); }
void __retarget_lock_init_recursive(_LOCK_T *lock) { __retarget_lock_init(lock); }
void __retarget_lock_close(_LOCK_T lock) { free(lock); }
void __retarget_lock_close_recursive(_LOCK_T lock) { free(lock); }

void __retarget_lock_acquire(_LOCK_T lock) { ts_mutex_lock(&lock->mutex); }
int __retarget_lock_try_acquire(_LOCK_T lock) { return ts_mutex_trylock(&lock->mutex) == 0; }
void __retarget_lock_release(_LOCK_T lock) { ts_mutex_unlock(&lock->mutex); }

/* Only the holder ever stores its own id in owner, so reading owner == me
 * without the lock is safe. */
void __retarget_lock_acquire_recursive(_LOCK_T lock) {
    uintptr_t me = ts__self_id();
    if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != me) {
        ts_mutex_lock(&lock->mutex);
        __atomic_store_n(&lock->owner, me, __ATOMIC_RELAXED);
    }
    lock->depth++;
}

int __retarget_lock_try_acquire_recursive(_LOCK_T lock) {
    uintptr_t me = ts__self_id();
    if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != me) {
        if (ts_mutex_trylock(&lock->mutex) != 0) return 0;
        __atomic_store_n(&lock->owner, me, __ATOMIC_RELAXED);
    }
    lock->depth++;
    return 1;
}

void __retarget_lock_release_recursive(_LOCK_T lock) {
    if (--lock->depth == 0) {
        __atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
        ts_mutex_unlock(&lock->mutex);
    }
}
