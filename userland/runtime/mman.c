/* Anonymous mmap and munmap (<sys/mman.h>) over the C library's heap: a
 * mapping is page-aligned, zeroed memory from memalign. The kernel maps a
 * process's memory whole (its heap grows by break), so there is nothing
 * to map or protect page by page: unmapping part of a mapping keeps its
 * block until every page of it is unmapped, then frees it. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* A range of pages still mapped, [start, end), of the block `block`. A
 * block is freed when no range of it is left. */
struct range {
    uintptr_t start, end;
    void *block;
    struct range *next;
};

static ts_mutex_t lock = TS_MUTEX_INIT;
static struct range *ranges;

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
    struct range *r = malloc(sizeof *r);
    void *block = r ? memalign(TS__PAGE_SIZE, size) : NULL;
    if (!block) {
        free(r);
        return failed(ENOMEM);
    }
    memset(block, 0, size);
    *r = (struct range){(uintptr_t)block, (uintptr_t)block + size, block, NULL};
    ts_mutex_lock(&lock);
    r->next = ranges;
    ranges = r;
    ts_mutex_unlock(&lock);
    return block;
}

/* Under the lock: whether a range of `block` is still mapped. */
static int in_use(const void *block) {
    for (const struct range *r = ranges; r; r = r->next)
        if (r->block == block) return 1;
    return 0;
}

int munmap(void *addr, size_t len) {
    const uintptr_t start = (uintptr_t)addr;
    if (start % TS__PAGE_SIZE || len == 0 || len > UINTPTR_MAX - start - TS__PAGE_SIZE) {
        errno = EINVAL;
        return -1;
    }
    const uintptr_t end = (start + len + TS__PAGE_SIZE - 1) & ~(TS__PAGE_SIZE - 1);
    /* A range that straddles [start, end) keeps its parts outside it: a
     * hole in its middle splits it in two, and the second part needs a
     * node, taken before the lock so that nothing fails half-way. */
    struct range *spare = malloc(sizeof *spare);
    ts_mutex_lock(&lock);
    struct range **link = &ranges;
    int err = 0;
    while (*link) {
        struct range *r = *link;
        if (r->end <= start || r->start >= end) {
            link = &r->next;
            continue;
        }
        if (r->start < start && r->end > end) {
            if (!spare) {
                err = ENOMEM;
                break;
            }
            *spare = (struct range){end, r->end, r->block, r->next};
            r->end = start;
            r->next = spare;
            spare = NULL;
            break; /* nothing else can overlap a range that holds the hole */
        }
        if (r->start < start) {
            r->end = start;
            link = &r->next;
        } else if (r->end > end) {
            r->start = end;
            link = &r->next;
        } else {
            *link = r->next;
            if (!in_use(r->block)) free(r->block);
            free(r);
        }
    }
    ts_mutex_unlock(&lock);
    free(spare);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}
