/* newlib's stdio over the console's per-thread line buffer
 * (glue/console.c). newlib (built without supplied syscalls) calls the
 * plain POSIX names (write, read, close, lseek, fstat, isatty) for every
 * descriptor; glue/fd.c defines them (the console's three, then files).
 * Every thread's stdout and stderr are unbuffered and write into the line
 * buffer (reent.c sets that up), so their bytes meet there in the order
 * written, and write(2) itself goes out at once after the buffer, as with
 * picolibc. stdin is always at EOF. */
#include <stdio.h>

#include "../../internal.h"

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
