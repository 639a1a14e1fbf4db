/* picolibc's stdin/stdout/stderr (tinystdio: a FILE is a put/get/flush
 * triple) over the console's per-thread line buffer (glue/console.c).
 * stdin is always at EOF. */
#include <stdio.h>

#include "../../internal.h"

static int console_put(char c, FILE *f) {
    (void)f;
    ts__console_put(&c, 1);
    return (unsigned char)c;
}

static int console_flush(FILE *f) {
    (void)f;
    ts_console_flush();
    return 0;
}

static int console_get(FILE *f) {
    (void)f;
    return _FDEV_EOF;
}

static FILE out = FDEV_SETUP_STREAM(console_put, NULL, console_flush, _FDEV_SETUP_WRITE);
static FILE err = FDEV_SETUP_STREAM(console_put, NULL, console_flush, _FDEV_SETUP_WRITE);
static FILE in = FDEV_SETUP_STREAM(NULL, console_get, NULL, _FDEV_SETUP_READ);

FILE *const stdout = &out;
FILE *const stderr = &err;
FILE *const stdin = &in;

/* The POSIX calls on descriptors (write, read, ...) are in glue/fd.c. */
