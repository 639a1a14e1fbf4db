/* file_stream: the file server's own streaming rate, as one process sees
 * it through the POSIX calls (bench/README.md, "File streaming").
 *
 *   file_stream [MIB [CALL_KIB]]     (default 32 MiB in calls of 1024 KiB)
 *
 * Writes a file of MIB MiB with write(2) in calls of CALL_KIB KiB, then
 * fsync(2), then reads it back with read(2) in calls of the same size and
 * checks every byte; the file is removed at the end. Prints one line per
 * phase, "file_stream: <phase> <bytes> B in <calls> calls: <ns> ns, <MB/s>
 * MB/s" (MB = 10^6 bytes; phases: write, fsync, read), then
 * "file_stream: done". A phase's time is that of its calls alone, by
 * CLOCK_MONOTONIC; filling and checking the buffer are not in it.
 * Portable POSIX C: bench/run_bench.py also builds it with the host's cc,
 * as the host's own rate for reference. Exits with 1 on any error or a
 * byte that differs. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NAME "file_stream.bin"

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The byte at offset i of the file: not periodic within a call. */
static unsigned char byte_at(int64_t i) { return (unsigned char)(i * 131 + (i >> 13)); }

static void fill(unsigned char *buf, size_t n, int64_t at) {
    for (size_t k = 0; k < n; ++k)
        buf[k] = byte_at(at + (int64_t)k);
}

static int fail(const char *what) {
    perror(what);
    unlink(NAME);
    return 1;
}

static void report(const char *phase, int64_t bytes, long calls, int64_t ns) {
    const double mbs = ns > 0 ? (double)bytes * 1e3 / (double)ns : 0;
    printf("file_stream: %s %lld B in %ld calls: %lld ns, %.1f MB/s\n", phase, (long long)bytes, calls,
           (long long)ns, mbs);
}

int main(int argc, char **argv) {
    const long mib = argc > 1 ? atol(argv[1]) : 32;
    const long call_kib = argc > 2 ? atol(argv[2]) : 1024;
    if (mib <= 0 || call_kib <= 0) {
        fprintf(stderr, "usage: file_stream [MIB [CALL_KIB]]\n");
        return 1;
    }
    const int64_t total = (int64_t)mib << 20;
    const size_t call = (size_t)call_kib << 10;
    unsigned char *buf = malloc(call);
    if (!buf) return fail("malloc");

    int fd = open(NAME, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return fail("open for writing");
    int64_t ns = 0;
    long calls = 0;
    for (int64_t at = 0; at < total; at += (int64_t)call, ++calls) {
        const size_t n = total - at < (int64_t)call ? (size_t)(total - at) : call;
        fill(buf, n, at);
        const int64_t t0 = now_ns();
        const ssize_t w = write(fd, buf, n);
        ns += now_ns() - t0;
        if (w != (ssize_t)n) return fail("write");
    }
    report("write", total, calls, ns);
    int64_t t0 = now_ns();
    if (fsync(fd) != 0) return fail("fsync");
    report("fsync", total, 1, now_ns() - t0);
    if (close(fd) != 0) return fail("close");

    fd = open(NAME, O_RDONLY);
    if (fd < 0) return fail("open for reading");
    ns = 0;
    calls = 0;
    for (int64_t at = 0; at < total; at += (int64_t)call, ++calls) {
        const size_t n = total - at < (int64_t)call ? (size_t)(total - at) : call;
        t0 = now_ns();
        const ssize_t r = read(fd, buf, n);
        ns += now_ns() - t0;
        if (r != (ssize_t)n) return fail("read");
        for (size_t k = 0; k < n; ++k)
            if (buf[k] != byte_at(at + (int64_t)k)) {
                fprintf(stderr, "file_stream: byte %lld differs\n", (long long)(at + (int64_t)k));
                unlink(NAME);
                return 1;
            }
    }
    report("read", total, calls, ns);
    close(fd);
    unlink(NAME);
    free(buf);
    printf("file_stream: done\n");
    return 0;
}
