/* Anonymous mmap and munmap (<sys/mman.h>) over the C library's heap: a
 * mapping is page-aligned, zeroed memory from memalign. The kernel maps a
 * process's memory whole (its heap grows by break), so there is nothing
 * to map or protect page by page: unmapping part of a mapping keeps its
 * block until every page of it is unmapped, then frees it (ranges.c
 * keeps track). */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "ranges.h"

static ts_mutex_t lock = TS_MUTEX_INIT;
static struct ts__range *ranges; /* the pages the process has mapped */

static void *failed(int err) {
    errno = err;
    return MAP_FAILED;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset) {
    (void)addr;
    (void)fd; /* Linux ignores it with MAP_ANONYMOUS; so do we */
    const int known = MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS;
    const int sharing = flags & (MAP_SHARED | MAP_PRIVATE);
    if (len == 0 || (flags & ~known) || sharing == 0 || sharing == (MAP_SHARED | MAP_PRIVATE) ||
        offset % (off_t)TS__PAGE_SIZE != 0)
        return failed(EINVAL);
    if (!(flags & MAP_ANONYMOUS)) return failed(ENODEV);
    if ((flags & MAP_FIXED) || (prot & PROT_EXEC) || !(prot & (PROT_READ | PROT_WRITE)) ||
        (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
        return failed(ENOTSUP);
    if (len > SIZE_MAX - TS__PAGE_SIZE) return failed(ENOMEM);
    const size_t size = (len + TS__PAGE_SIZE - 1) & ~(TS__PAGE_SIZE - 1);
    struct ts__range *r = malloc(sizeof *r);
    void *block = r ? memalign(TS__PAGE_SIZE, size) : NULL;
    if (!block) {
        free(r);
        return failed(ENOMEM);
    }
    memset(block, 0, size);
    ts_mutex_lock(&lock);
    ts__ranges_add(&ranges, r, block, (uintptr_t)block, (uintptr_t)block + size);
    ts_mutex_unlock(&lock);
    return block;
}

int munmap(void *addr, size_t len) {
    const uintptr_t start = (uintptr_t)addr;
    if (start % TS__PAGE_SIZE || len == 0 || len > UINTPTR_MAX - start - TS__PAGE_SIZE) {
        errno = EINVAL;
        return -1;
    }
    const uintptr_t end = (start + len + TS__PAGE_SIZE - 1) & ~(TS__PAGE_SIZE - 1);
    /* A split needs a node, taken before the lock. */
    struct ts__range *spare = malloc(sizeof *spare);
    ts_mutex_lock(&lock);
    int err = ts__ranges_remove(&ranges, start, end, &spare, free);
    ts_mutex_unlock(&lock);
    free(spare);
    if (err) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}
