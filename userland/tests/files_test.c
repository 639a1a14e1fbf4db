/* Files in every rank (driven by test_files.py): the staged input.txt
 * ("values N" then N integers) and data/more.txt, read with fopen/fscanf
 * and with open/read/lseek; each rank writes out_R.txt (fprintf), raw_R.bin
 * (write), log_R.txt (O_APPEND), final_R.txt (rename), data/rank_R.txt
 * and unclosed_R.txt (left open at exit), pos_R.bin (pread, pwrite,
 * ftruncate, fsync), and all together one range of atomic.bin (each
 * request atomic), which rank 0 then removes; rank 0 writes big.bin (1 MiB)
 * and reads it back. Errors: ENOENT, EBADF, EACCES, EEXIST, EMFILE, set in
 * errno. With the argument "write-only" (a job with nothing staged) each
 * rank only writes out_R.txt. Prints "files_test: OK (np=N)" from rank 0. */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tessera/file_protocol.h>
#include <tessera/runtime.h>
#include <unistd.h>

#define BIG (1024 * 1024)

/* Per rank, also with --ranks threads. */
static _Thread_local int rank, failures;

#define CHECK(cond)                                                                                        \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            printf("files_test: rank %d: %s:%d: %s (errno %d)\n", rank, __FILE__, __LINE__, #cond, errno); \
            ++failures;                                                                                    \
        }                                                                                                  \
    } while (0)

/* input.txt by stdio: the sum of its values. */
static long sum_by_stdio(int *count) {
    FILE *f = fopen("input.txt", "r");
    CHECK(f != NULL);
    if (!f) return -1;
    long sum = 0;
    CHECK(fscanf(f, "values %d", count) == 1);
    for (int i = 0; i < *count; ++i) {
        long v = 0;
        CHECK(fscanf(f, "%ld", &v) == 1);
        sum += v;
    }
    long extra;
    CHECK(fscanf(f, "%ld", &extra) == EOF); /* nothing more */
    CHECK(fclose(f) == 0);
    return sum;
}

/* input.txt by POSIX calls: its first word, lseek, fstat, stat. */
static void read_by_posix(void) {
    int fd = open("input.txt", O_RDONLY);
    CHECK(fd >= 3);
    char word[8] = {0};
    CHECK(read(fd, word, 6) == 6);
    CHECK(strcmp(word, "values") == 0);
    struct stat st, by_path;
    CHECK(fstat(fd, &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK(stat("input.txt", &by_path) == 0);
    CHECK(by_path.st_size == st.st_size && st.st_size > 6);
    CHECK(lseek(fd, 0, SEEK_END) == st.st_size);
    CHECK(read(fd, word, 1) == 0); /* at the end */
    CHECK(lseek(fd, 1, SEEK_SET) == 1);
    CHECK(lseek(fd, 2, SEEK_CUR) == 3);
    CHECK(read(fd, word, 3) == 3 && memcmp(word, "ues", 3) == 0);
    CHECK(lseek(fd, -1, SEEK_SET) == -1 && errno == EINVAL);
    CHECK(write(fd, "x", 1) == -1 && errno == EBADF); /* opened read-only */
    CHECK(isatty(fd) == 0 && errno == ENOTTY);
    CHECK(close(fd) == 0);
    /* Closed twice: only where the table is this rank's alone; under
     * --ranks threads another rank may open that descriptor meanwhile. */
    if (ts_job()->ranks_mode == TS_RANKS_PROCESSES) CHECK(close(fd) == -1 && errno == EBADF);
    CHECK(close(1000) == -1 && errno == EBADF); /* never a descriptor */

    FILE *more = fopen("data/more.txt", "r");
    CHECK(more != NULL);
    char line[64] = {0};
    if (more) {
        CHECK(fgets(line, sizeof line, more) != NULL);
        CHECK(strcmp(line, "more from a staged folder\n") == 0);
        fclose(more);
    }
}

static void errors(void) {
    errno = 0;
    CHECK(open("missing.txt", O_RDONLY) == -1 && errno == ENOENT);
    errno = 0;
    CHECK(fopen("missing.txt", "r") == NULL && errno == ENOENT);
    CHECK(open("../outside.txt", O_RDONLY) == -1 && errno == EACCES);
    CHECK(open("data/../../outside.txt", O_WRONLY | O_CREAT, 0644) == -1 && errno == EACCES);
    CHECK(open("/etc/passwd", O_RDONLY) == -1 && errno == ENOENT); /* "/" is the job's folder */
    CHECK(stat("missing.txt", &(struct stat){0}) == -1 && errno == ENOENT);
    CHECK(unlink("missing.txt") == -1 && errno == ENOENT);
    char c;
    CHECK(read(99, &c, 1) == -1 && errno == EBADF);
    CHECK(write(42, &c, 1) == -1 && errno == EBADF);
    CHECK(close(77) == -1 && errno == EBADF);
    CHECK(lseek(50, 0, SEEK_SET) == -1 && errno == EBADF);
    CHECK(fstat(60, &(struct stat){0}) == -1 && errno == EBADF);
    CHECK(open("input.txt", O_WRONLY | O_CREAT | O_EXCL, 0644) == -1 && errno == EEXIST);

    /* A process's table of files fills up, and frees (each rank a process
     * of its own: with --ranks threads the ranks share it). */
    if (ts_job()->ranks_mode != TS_RANKS_PROCESSES) return;
    int fds[64], n = 0;
    while (n < 64 && (fds[n] = open("input.txt", O_RDONLY)) >= 0)
        ++n;
    CHECK(n == 32 && errno == EMFILE);
    for (int i = 0; i < n; ++i)
        CHECK(close(fds[i]) == 0);
    CHECK((fds[0] = open("input.txt", O_RDONLY)) == 3 && close(fds[0]) == 0);
}

static void write_outputs(long sum, int count) {
    char name[32];
    snprintf(name, sizeof name, "out_%d.txt", rank);
    FILE *f = fopen(name, "w");
    CHECK(f != NULL);
    if (f) {
        CHECK(fprintf(f, "rank %d count %d sum %ld\n", rank, count, sum) > 0);
        CHECK(fclose(f) == 0);
    }
    if (count < 0) return; /* write-only */

    snprintf(name, sizeof name, "raw_%d.bin", rank);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 3);
    unsigned char bytes[256];
    for (int i = 0; i < 256; ++i)
        bytes[i] = (unsigned char)(i ^ rank);
    CHECK(write(fd, bytes, sizeof bytes) == (ssize_t)sizeof bytes);
    CHECK(read(fd, bytes, 1) == -1 && errno == EBADF); /* opened write-only */
    CHECK(close(fd) == 0);

    snprintf(name, sizeof name, "log_%d.txt", rank);
    for (int k = 0; k < 2; ++k) {
        fd = open(name, O_WRONLY | O_CREAT | O_APPEND, 0644);
        CHECK(fd >= 3);
        CHECK(lseek(fd, 0, SEEK_SET) == 0); /* O_APPEND writes at the end anyway */
        CHECK(write(fd, k ? "second\n" : "first\n", k ? 7 : 6) == (k ? 7 : 6));
        CHECK(close(fd) == 0);
    }

    /* Written under a temporary name, then renamed (over an older one). */
    snprintf(name, sizeof name, "final_%d.txt", rank);
    char tmp[32];
    snprintf(tmp, sizeof tmp, "final_%d.tmp", rank);
    f = fopen(name, "w");
    CHECK(f && fputs("old\n", f) >= 0 && fclose(f) == 0);
    f = fopen(tmp, "w");
    CHECK(f && fputs("final\n", f) >= 0 && fclose(f) == 0);
    CHECK(access(tmp, R_OK | W_OK) == 0);
    CHECK(rename(tmp, name) == 0);
    CHECK(access(tmp, F_OK) == -1 && errno == ENOENT);
    CHECK(rename(tmp, name) == -1 && errno == ENOENT);
    CHECK(rename(name, "../x") == -1 && errno == EACCES);

    /* Into a staged folder. */
    snprintf(name, sizeof name, "data/rank_%d.txt", rank);
    f = fopen(name, "w");
    CHECK(f && fprintf(f, "%d\n", rank) > 0 && fclose(f) == 0);

    /* fflush(NULL) writes out every output stream (C11 7.21.5.2). With
     * --ranks threads it flushes the other ranks' streams too: no rank
     * closes one meanwhile (newlib's fflush(NULL) does not hold off a
     * concurrent fclose). */
    snprintf(name, sizeof name, "flushed_%d.txt", rank);
    f = fopen(name, "w");
    CHECK(f && fputs("out", f) >= 0);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(fflush(NULL) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    char got[4] = {0};
    fd = open(name, O_RDONLY);
    CHECK(fd >= 0 && read(fd, got, 3) == 3 && memcmp(got, "out", 3) == 0 && close(fd) == 0);
    CHECK(f && fclose(f) == 0 && unlink(name) == 0);

    /* Left open: exit() writes out what its stream still buffers. */
    snprintf(name, sizeof name, "unclosed_%d.txt", rank);
    f = fopen(name, "w");
    CHECK(f && fprintf(f, "buffered until exit\n") > 0);

    /* A file that comes and goes: it does not come back. */
    snprintf(name, sizeof name, "tmp_%d.txt", rank);
    fd = open(name, O_RDWR | O_CREAT, 0644);
    CHECK(fd >= 3 && write(fd, "gone", 4) == 4 && close(fd) == 0);
    CHECK(unlink(name) == 0);
    CHECK(open(name, O_RDONLY) == -1 && errno == ENOENT);
}

/* pread and pwrite leave the file position where it is; ftruncate cuts
 * and extends with zeros, also after a rename of the open file; fsync.
 * Leaves pos_R.bin holding "aXY\0!". */
static void positioned(void) {
    char tmp[32], name[32];
    snprintf(tmp, sizeof tmp, "pos_%d.tmp", rank);
    snprintf(name, sizeof name, "pos_%d.bin", rank);
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 3);
    CHECK(write(fd, "abcdef", 6) == 6);
    CHECK(pwrite(fd, "XY", 2, 1) == 2);
    CHECK(lseek(fd, 0, SEEK_CUR) == 6);
    char b[16] = {0};
    CHECK(pread(fd, b, sizeof b, 0) == 6 && memcmp(b, "aXYdef", 6) == 0);
    CHECK(pread(fd, b, 4, 100) == 0); /* past the end */
    CHECK(pwrite(fd, "Z", 1, 9) == 1);
    CHECK(write(fd, "g", 1) == 1); /* at the position, 6 */
    CHECK(pread(fd, b, sizeof b, 0) == 10 && memcmp(b, "aXYdefg\0\0Z", 10) == 0);
    CHECK(lseek(fd, 0, SEEK_CUR) == 7);

    /* More than a request carries, both ways. */
    enum { LARGE = TS_FILE_CHUNK + 1000 };
    unsigned char *large = malloc(LARGE), *back = malloc(LARGE);
    CHECK(large && back);
    if (large && back) {
        for (int i = 0; i < LARGE; ++i)
            large[i] = (unsigned char)(i * 13 + rank);
        CHECK(pwrite(fd, large, LARGE, 16) == LARGE);
        CHECK(pread(fd, back, LARGE, 16) == LARGE && memcmp(large, back, LARGE) == 0);
        CHECK(lseek(fd, 0, SEEK_CUR) == 7);
    }
    free(large);
    free(back);

    struct stat st;
    CHECK(ftruncate(fd, 3) == 0);
    CHECK(fstat(fd, &st) == 0 && st.st_size == 3);
    CHECK(ftruncate(fd, 5) == 0);
    CHECK(pread(fd, b, sizeof b, 0) == 5 && memcmp(b, "aXY\0\0", 5) == 0);
    /* The open file follows its rename. */
    CHECK(rename(tmp, name) == 0);
    CHECK(ftruncate(fd, 4) == 0);
    CHECK(pwrite(fd, "!", 1, 4) == 1);
    CHECK(fsync(fd) == 0 && fdatasync(fd) == 0);
    CHECK(close(fd) == 0);
    CHECK(stat(name, &st) == 0 && st.st_size == 5);

    fd = open(name, O_RDONLY);
    CHECK(fd >= 3);
    CHECK(ftruncate(fd, 0) == -1 && errno == EINVAL); /* not open for writing */
    CHECK(pwrite(fd, "x", 1, 0) == -1 && errno == EBADF);
    CHECK(read(fd, b, 3) == 3 && memcmp(b, "aXY", 3) == 0); /* still at 0 */
    CHECK(fsync(fd) == 0);
    CHECK(pread(fd, b, 1, -1) == -1 && errno == EINVAL);
    CHECK(pread(fd, b, sizeof b, 0) == 5 && memcmp(b, "aXY\0!", 5) == 0);
    CHECK(close(fd) == 0);
    CHECK(ftruncate(fd, 0) == -1 && errno == EBADF);

    CHECK(pread(99, b, 1, 0) == -1 && errno == EBADF);
    CHECK(pwrite(99, b, 1, 0) == -1 && errno == EBADF);
    CHECK(fsync(99) == -1 && errno == EBADF);
    CHECK(pread(0, b, 1, 0) == -1 && errno == ESPIPE); /* the console */
    CHECK(fsync(1) == -1 && errno == EINVAL);
}

/* Every rank at once writes and reads one range of a shared file, each
 * write all one byte of its own: a read, one request like each write,
 * sees one write's bytes, never a mix (the file server's promise that
 * MPI-IO's atomic mode relies on, docs/services.md "Files"). A block is
 * larger than the I/O cluster kernel's bounce buffer, so each request
 * reaches the host in several pieces, none of which may interleave with
 * another request's. */
static void atomic_requests(void) {
    enum { BLOCK = TS_FILE_CHUNK / 2 + 333, AT = 4097, ROUNDS = 4 };
    unsigned char *mine = malloc(BLOCK), *seen = malloc(BLOCK);
    CHECK(mine && seen);
    int fd = open("atomic.bin", O_RDWR | O_CREAT, 0644);
    CHECK(fd >= 3);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank's file open: the writes overlap */
    for (int round = 0; mine && seen && fd >= 0 && round < ROUNDS; ++round) {
        memset(mine, (rank * ROUNDS + round) % 255 + 1, BLOCK);
        CHECK(pwrite(fd, mine, BLOCK, AT) == BLOCK);
        CHECK(pread(fd, seen, BLOCK, AT) == BLOCK);
        int mixed = 0;
        for (int i = 1; i < BLOCK; ++i)
            mixed |= seen[i] != seen[0];
        CHECK(seen[0] != 0 && !mixed);
    }
    CHECK(close(fd) == 0);
    free(mine);
    free(seen);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(unlink("atomic.bin") == 0);
}

/* 1 MiB through stdio, then back with read(2) and fread. */
static void big_file(void) {
    unsigned char *buf = malloc(BIG), *back = malloc(BIG);
    CHECK(buf && back);
    if (!buf || !back) return;
    for (int i = 0; i < BIG; ++i)
        buf[i] = (unsigned char)(i * 7 + (i >> 12));
    FILE *f = fopen("big.bin", "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(buf, 1, BIG, f) == BIG);
    CHECK(fclose(f) == 0);
    struct stat st;
    CHECK(stat("big.bin", &st) == 0 && st.st_size == BIG);
    int fd = open("big.bin", O_RDONLY);
    CHECK(fd >= 3);
    memset(back, 0, BIG);
    CHECK(read(fd, back, BIG) == BIG);
    CHECK(memcmp(buf, back, BIG) == 0);
    CHECK(close(fd) == 0);
    f = fopen("big.bin", "rb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fseek(f, BIG / 2, SEEK_SET) == 0);
        memset(back, 0, BIG);
        CHECK(fread(back, 1, BIG, f) == BIG / 2);
        CHECK(memcmp(buf + BIG / 2, back, BIG / 2) == 0);
        fclose(f);
    }
    free(buf);
    free(back);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const int write_only = argc > 1 && strcmp(argv[1], "write-only") == 0;
    int count = -1;
    long sum = -1;
    if (!write_only) {
        sum = sum_by_stdio(&count);
        read_by_posix();
        errors();
    }
    write_outputs(sum, count);
    if (!write_only) {
        /* One rank at a time: with --ranks threads the ranks share one
         * table of descriptors, and positioned() checks that a descriptor
         * it closed is bad, which another rank's open could reuse. */
        for (int turn = 0; turn < np; ++turn) {
            if (turn == rank) positioned();
            MPI_Barrier(MPI_COMM_WORLD);
        }
        atomic_requests();
    }
    if (rank == 0 && !write_only) big_file();
    int all = 0;
    MPI_Reduce(&failures, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all == 0) printf("files_test: OK (np=%d)\n", np);
    MPI_Finalize();
    return all ? 1 : 0;
}
