/* newlib's stdio over the console's per-thread line buffer
 * (glue/console.c). newlib (built without supplied syscalls) calls the
 * plain POSIX names (write, read, close, lseek, fstat, isatty) for every
 * descriptor; the runtime defines them for the console's three. Every
 * thread's stdout and stderr are unbuffered and write into the line buffer
 * (reent.c sets that up), so their bytes meet there in the order written,
 * and write(2) itself goes out at once after the buffer, as with picolibc.
 * stdin is always at EOF. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../internal.h"

static int is_console(int fd) { return fd >= 0 && fd <= 2; }

/* 0 for the console's fds; -1 with errno EBADF for any other. */
static int console_or_ebadf(int fd) {
    if (is_console(fd)) return 0;
    errno = EBADF;
    return -1;
}

/* A stdout/stderr stream's write function (struct __sFILE's _write). */
static _READ_WRITE_RETURN_TYPE stream_write(struct _reent *r, void *cookie, const char *buf, int len) {
    (void)r;
    (void)cookie;
    ts__console_put(buf, (unsigned long)len);
    return len;
}

void ts__newlib_console_streams(struct _reent *r) {
    setvbuf(r->_stdout, NULL, _IONBF, 0);
    r->_stdout->_write = stream_write;
    r->_stderr->_write = stream_write;
}

_READ_WRITE_RETURN_TYPE write(int fd, const void *buf, size_t len) {
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    ts__console_write_through(buf, len);
    return (_READ_WRITE_RETURN_TYPE)len;
}

_READ_WRITE_RETURN_TYPE read(int fd, void *buf, size_t len) {
    (void)buf;
    (void)len;
    return console_or_ebadf(fd);
}

int close(int fd) { return console_or_ebadf(fd); }

off_t lseek(int fd, off_t offset, int whence) {
    (void)offset;
    (void)whence;
    errno = is_console(fd) ? ESPIPE : EBADF;
    return -1;
}

/* The console is a character device; stdio asks when it sets up buffers. */
int fstat(int fd, struct stat *st) {
    if (console_or_ebadf(fd) < 0) return -1;
    *st = (struct stat){.st_mode = S_IFCHR};
    return 0;
}

int isatty(int fd) { return console_or_ebadf(fd) == 0; }
