/* POSIX <sys/mman.h> (POSIX.1-2017, sys/mman.h), which neither C library
 * has: anonymous memory only. mmap gives zeroed, page-aligned memory from
 * the process's heap (MAP_ANONYMOUS with MAP_PRIVATE, or MAP_SHARED, which
 * is the same where no process forks); a mapping of a file fails with
 * ENODEV, MAP_FIXED with ENOTSUP. mprotect, msync and mlock are declared
 * as POSIX says but not provided: a program that calls them fails to
 * link, naming them. */
#ifndef TESSERA_SYS_MMAN_H
#define TESSERA_SYS_MMAN_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Linux's numbers. */
#define PROT_NONE  0x0
#define PROT_READ  0x1
#define PROT_WRITE 0x2
#define PROT_EXEC  0x4

#define MAP_SHARED    0x01
#define MAP_PRIVATE   0x02
#define MAP_FIXED     0x10
#define MAP_ANONYMOUS 0x20
#define MAP_ANON      MAP_ANONYMOUS

#define MAP_FAILED ((void *)-1)

#define MS_ASYNC      1
#define MS_INVALIDATE 2
#define MS_SYNC       4

/* len bytes (rounded up to pages) of zeroed memory, page-aligned; addr
 * is a hint, ignored. MAP_FAILED with errno: EINVAL (len 0, neither or
 * both of MAP_PRIVATE and MAP_SHARED, unknown flags, an offset that is not
 * a multiple of the page size), ENODEV (a file: no MAP_ANONYMOUS), ENOTSUP
 * (MAP_FIXED; prot PROT_NONE or with PROT_EXEC: the memory is readable
 * and writable, never executable), ENOMEM. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
/* Unmaps the pages of [addr, addr + len) (any part of any mappings,
 * none at all included): 0, or -1 with errno EINVAL (addr not
 * page-aligned, len 0, or the range wraps), ENOMEM (a hole in the middle
 * of a mapping needs a little memory to keep track of, as on Linux). */
int munmap(void *addr, size_t len);
int mprotect(void *addr, size_t len, int prot);
int msync(void *addr, size_t len, int flags);
int mlock(const void *addr, size_t len);
int munlock(const void *addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif
