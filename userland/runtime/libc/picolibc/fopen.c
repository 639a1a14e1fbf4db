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
