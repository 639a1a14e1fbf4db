/* picolibc's stdin/stdout/stderr (tinystdio: a FILE is a put/get/flush
 * triple). Output is buffered per thread and written a whole line at a time
 * with one TS_SYS_WRITE, so lines of different ranks never mix. stdout and
 * stderr share the buffer to keep their order. stdin is always at EOF. */
#include <stdio.h>
#include <unistd.h>

#include "../internal.h"

#define LINE_MAX_BYTES 512 /* a longer line goes out in pieces */

static __thread unsigned line_len;
static __thread char line[LINE_MAX_BYTES];
static __thread int mid_line; /* the last byte written out was not '\n' */

void ts_console_write(const char *buf, unsigned long len)
{
    while (len > 0) {
        long n = TS__SC2(TS_SYS_WRITE, buf, len);
        if (n <= 0)
            return; /* nowhere else to report it */
        buf += n;
        len -= (unsigned long)n;
    }
}

int ts_console_flush(void)
{
    if (line_len) {
        ts_console_write(line, line_len);
        mid_line = line[line_len - 1] != '\n';
        line_len = 0;
    }
    return mid_line;
}

static int console_put(char c, FILE *f)
{
    (void)f;
    line[line_len++] = c;
    if (c == '\n' || line_len == sizeof line)
        ts_console_flush();
    return (unsigned char)c;
}

static int console_flush(FILE *f)
{
    (void)f;
    ts_console_flush();
    return 0;
}

static int console_get(FILE *f)
{
    (void)f;
    return _FDEV_EOF;
}

static FILE out = FDEV_SETUP_STREAM(console_put, NULL, console_flush, _FDEV_SETUP_WRITE);
static FILE err = FDEV_SETUP_STREAM(console_put, NULL, console_flush, _FDEV_SETUP_WRITE);
static FILE in = FDEV_SETUP_STREAM(NULL, console_get, NULL, _FDEV_SETUP_READ);

FILE *const stdout = &out;
FILE *const stderr = &err;
FILE *const stdin = &in;

/* write(2) for descriptors 1 and 2, after what stdio has buffered. */
ssize_t write(int fd, const void *buf, size_t len)
{
    if (fd != 1 && fd != 2)
        return -1;
    ts_console_flush();
    ts_console_write(buf, len);
    if (len)
        mid_line = ((const char *)buf)[len - 1] != '\n';
    return (ssize_t)len;
}
