/* newlib's per-thread state: errno, the stdio streams and the rest of a
 * struct _reent live in each thread's TLS. newlib is built (and user code
 * compiled) with __DYNAMIC_REENT__, so _REENT, errno and stdout all go
 * through __getreent(). The global reent (_GLOBAL_REENT: atexit handlers,
 * fopen's stream list) stays newlib's own. */
#include <reent.h>
#include <stdio.h>

#include "../../internal.h"

/* stdio.c: makes r's stdout unbuffered and both its stdout and stderr
 * write into the console's line buffer. */
void ts__newlib_console_streams(struct _reent *r);

#ifndef __DYNAMIC_REENT__
#error "newlib's users must be compiled with -D__DYNAMIC_REENT__ (build/tessera.cmake)"
#endif

static __thread struct _reent reent;
static __thread int reent_ready;

/* The calling thread's reent, set up on first use with its stdout and
 * stderr writing into the console's line buffer (stdio.c). */
struct _reent *__getreent(void) {
    if (!reent_ready) {
        reent_ready = 1; /* the set-up below calls back here */
        _REENT_INIT_PTR(&reent);
        ts__newlib_console_streams(&reent);
    }
    return &reent;
}

/* Closes the thread's streams and frees what newlib allocated for it (its
 * stream locks, dtoa's buffers). The reent itself goes with the TLS area. */
void ts__libc_thread_end(void) {
    if (reent_ready) _reclaim_reent(&reent);
}
