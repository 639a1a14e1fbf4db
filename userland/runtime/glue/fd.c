/* The POSIX calls on descriptors (those both C libraries' stdio makes,
 * and the positioned, truncating and syncing ones): 0..2
 * are the console (stdin always at EOF; stdout and stderr write out at
 * once, after what stdio has buffered in the thread's line buffer), 3 and
 * up are files (files.c, the file client). */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../internal.h"

/* What read and write return: newlib says _READ_WRITE_RETURN_TYPE. */
#ifdef _READ_WRITE_RETURN_TYPE
typedef _READ_WRITE_RETURN_TYPE rw_result;
#else
typedef ssize_t rw_result;
#endif

static int is_console(int fd) { return fd >= 0 && fd <= 2; }

rw_result write(int fd, const void *buf, size_t len) {
    if (!is_console(fd)) return (rw_result)ts__file_write(fd, buf, len);
    if (fd == 0) {
        errno = EBADF;
        return -1;
    }
    ts__console_write_through(buf, len);
    return (rw_result)len;
}

rw_result read(int fd, void *buf, size_t len) {
    if (!is_console(fd)) return (rw_result)ts__file_read(fd, buf, len);
    if (fd != 0) {
        errno = EBADF;
        return -1;
    }
    return 0;
}

/* Positioned transfers (POSIX pread, pwrite): the console has no offsets. */
ssize_t pread(int fd, void *buf, size_t len, off_t offset) {
    if (!is_console(fd)) return (ssize_t)ts__file_pread(fd, buf, len, offset);
    errno = ESPIPE;
    return -1;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t offset) {
    if (!is_console(fd)) return (ssize_t)ts__file_pwrite(fd, buf, len, offset);
    errno = ESPIPE;
    return -1;
}

/* POSIX ftruncate, fsync and fdatasync; the console is no file to cut and
 * writes out at once, so it answers EINVAL, as Linux's terminals do.
 * fdatasync is fsync: the size and the data go out together. */
int ftruncate(int fd, off_t size) {
    if (!is_console(fd)) return ts__file_truncate(fd, size);
    errno = EINVAL;
    return -1;
}

int fsync(int fd) {
    if (!is_console(fd)) return ts__file_sync(fd);
    errno = EINVAL;
    return -1;
}

int fdatasync(int fd) { return fsync(fd); }

int close(int fd) { return is_console(fd) ? 0 : ts__file_close(fd); }

off_t lseek(int fd, off_t offset, int whence) {
    if (!is_console(fd)) return ts__file_lseek(fd, offset, whence);
    errno = ESPIPE;
    return -1;
}

/* The console is a character device; stdio asks when it sets up buffers. */
int fstat(int fd, struct stat *st) {
    if (!is_console(fd)) return ts__file_fstat(fd, st);
    *st = (struct stat){.st_mode = S_IFCHR};
    return 0;
}

int isatty(int fd) { return is_console(fd) ? 1 : ts__file_isatty(fd); }
