/* The console as the C library sees it, whichever library: output is
 * buffered per thread and written a whole line at a time with one
 * TS_SYS_WRITE, so lines of different ranks never mix. stdout and stderr
 * share the buffer to keep their order. libc/<libc>/stdio.c connects the
 * library's streams (and stdin, always at EOF) to it. */
#include "../internal.h"

#define LINE_MAX_BYTES 512 /* a longer line goes out in pieces */

static __thread unsigned line_len;
static __thread char line[LINE_MAX_BYTES];
static __thread int mid_line; /* the last byte written out was not '\n' */

void ts_console_write(const char *buf, unsigned long len) {
    while (len > 0) {
        long n = TS__SC(TS_SYS_WRITE, buf, len);
        if (n <= 0) return; /* nowhere else to report it */
        buf += n;
        len -= (unsigned long)n;
    }
}

int ts_console_flush(void) {
    if (line_len) {
        ts_console_write(line, line_len);
        mid_line = line[line_len - 1] != '\n';
        line_len = 0;
    }
    return mid_line;
}

void ts__console_put(const char *buf, unsigned long len) {
    for (unsigned long i = 0; i < len; ++i) {
        line[line_len++] = buf[i];
        if (buf[i] == '\n' || line_len == sizeof line) ts_console_flush();
    }
}

void ts__console_write_through(const char *buf, unsigned long len) {
    ts_console_flush();
    ts_console_write(buf, len);
    if (len) mid_line = buf[len - 1] != '\n';
}
