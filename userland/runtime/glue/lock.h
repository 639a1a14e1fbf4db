/* The C library's retargetable lock (<sys/lock.h>'s struct __lock), for
 * glue/lock.c and the library's static locks (libc/<libc>/locks.c). */
#ifndef TS_RUNTIME_LOCK_H
#define TS_RUNTIME_LOCK_H

#include <sys/lock.h>

#include "../internal.h"

/* All zeroes is a free lock, so the static ones need no initialiser. */
struct __lock {
    ts_mutex_t mutex;
    uintptr_t owner; /* ts__self_id() of the holder, 0 when free */
    unsigned depth;  /* recursive acquisitions by the owner */
};

#endif
