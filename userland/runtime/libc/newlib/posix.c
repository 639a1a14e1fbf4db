/* What picolibc has and newlib lacks or has otherwise, so that programs
 * see the same C library on both platforms: posix_memalign, aligned_alloc
 * (newlib's sets no errno), getpagesize, system, and fabsl, which newlib
 * lacks where long double is not double (x86-64). */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../internal.h"

/* POSIX posix_memalign: 0 and *memptr, or EINVAL when alignment is not a
 * power of two multiple of sizeof(void *), ENOMEM when there is no memory
 * (*memptr untouched, errno unchanged either way). */
int posix_memalign(void **memptr, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1))) return EINVAL;
    int saved = errno;
    void *p = memalign(alignment, size ? size : 1);
    errno = saved;
    if (!p) return ENOMEM;
    *memptr = p;
    return 0;
}

/* C17 aligned_alloc, with POSIX's errors: NULL and errno EINVAL or ENOMEM
 * as for posix_memalign. */
void *aligned_alloc(size_t alignment, size_t size) {
    void *p;
    int err = posix_memalign(&p, alignment, size);
    if (err) {
        errno = err;
        return NULL;
    }
    return p;
}

int getpagesize(void) { return (int)TS__PAGE_SIZE; }

/* C11 7.22.4.8 system in an environment with no command processor, as
 * picolibc's: system(NULL) is 0 (there is none), and a command is not run:
 * -1 with errno ENOSYS. newlib's would need fork, execve and wait. */
int system(const char *command) {
    if (!command) return 0;
    errno = ENOSYS;
    return -1;
}

long double fabsl(long double x) { return __builtin_fabsl(x); }
