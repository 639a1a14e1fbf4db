/* sbrk for the C library's malloc, over TS_SYS_BRK. The kernel's break may be
 * page-granular, so the runtime keeps its own byte-exact break below it and
 * only asks the kernel when that crosses the kernel's. When the kernel
 * refuses, the process says why, once (oom.c), and sbrk fails as before. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "../internal.h"

static ts__spinlock brk_lock;
static uintptr_t cur;   /* the program's break */
static uintptr_t start; /* where the heap begins */
static uintptr_t top;   /* the kernel's break */
static uintptr_t peak;  /* the kernel's break at its highest */

void *sbrk(ptrdiff_t incr) {
    void *result = (void *)-1;
    unsigned long refused = 0, heap = 0; /* bytes the kernel would not add, to a heap of */
    ts__spin_lock(&brk_lock);
    if (!cur) {
        long r = TS__SC(TS_SYS_BRK, 0);
        if (r <= 0) goto out;
        cur = start = top = (uintptr_t)r;
    }
    uintptr_t want = cur + (uintptr_t)incr;
    if ((incr > 0 && want < cur) || (incr < 0 && (want > cur || want < start))) goto out;
    if (want > top) {
        const uintptr_t end = (want + TS__PAGE_SIZE - 1) & ~(TS__PAGE_SIZE - 1);
        long r = TS__SC(TS_SYS_BRK, end);
        if (r < 0 || (uintptr_t)r < want) {
            refused = end - top;
            heap = top - start;
            goto out;
        }
        top = (uintptr_t)r;
        if (top > peak) peak = top;
    }
    result = (void *)cur;
    cur = want;
out:
    ts__spin_unlock(&brk_lock);
    if (refused) ts__out_of_memory(heap, refused);
    if (result == (void *)-1) errno = ENOMEM;
    return result;
}

unsigned long ts__heap_peak(void) {
    ts__spin_lock(&brk_lock);
    unsigned long bytes = peak ? peak - start : 0;
    ts__spin_unlock(&brk_lock);
    return bytes;
}
