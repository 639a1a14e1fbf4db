/* picolibc's fopen as tinystdio makes it (__posix_sflags, open, fdopen),
 * which also notes the stream with its descriptor in the file client's
 * table, so that exit() writes out what the stream still buffers:
 * tinystdio keeps no list of its streams, so its fflush(NULL) cannot. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "../../internal.h"

/* tinystdio's (not in its public headers): fopen's mode as stdio flags (0
 * when bad) and open(2)'s flags in *open_flags. */
int __posix_sflags(const char *mode, int *open_flags);

FILE *fopen(const char *path, const char *mode) {
    int open_flags;
    if (!__posix_sflags(mode, &open_flags)) return NULL;
    int fd = open(path, open_flags, 0666);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, mode);
    if (!f) {
        close(fd);
        return NULL;
    }
    ts__file_set_stream(fd, f);
    return f;
}

static void flush(void *stream) { fflush(stream); }

void ts__libc_flush_files(void) { ts__file_streams(flush); }

/* fflush as C11 7.21.5.2 has it: a null stream flushes every output
 * stream. tinystdio's own dereferences it; programs are linked with
 * --wrap=fflush so that every call comes here first. Returns 0, or EOF
 * when a stream could not be written out. */
int __real_fflush(FILE *stream);
int __wrap_fflush(FILE *stream) {
    if (stream) return __real_fflush(stream);
    const int out = __real_fflush(stdout), err = __real_fflush(stderr);
    ts__libc_flush_files();
    return out == EOF || err == EOF ? EOF : 0;
}
