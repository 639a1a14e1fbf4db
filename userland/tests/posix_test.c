/* posix_test: the POSIX surface beyond stdio, the same on both platforms
 * (docs/programs.md, "The C library"): uname, getrusage and times,
 * anonymous mmap and munmap, and folders through the file server (mkdir,
 * rmdir, stat of a folder, getcwd and chdir with relative paths,
 * opendir/readdir/rewinddir/closedir), each with its errors, then a
 * stress of many folders and files. Each rank works in a folder of its
 * own, posix_R, and removes it at the end, so the job leaves nothing.
 * Rank 0 prints the uname line and "posix_test: OK (np=N)" when every
 * rank passed. Run by tests/target_tests.toml (userland_posix). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define MANY 60 /* folders, and as many files, of the stress */

static int rank, failures;

#define CHECK(cond)                                                                                        \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            printf("posix_test: rank %d: %s:%d: %s (errno %d)\n", rank, __FILE__, __LINE__, #cond, errno); \
            ++failures;                                                                                    \
        }                                                                                                  \
    } while (0)

/* The call fails with -1 (or NULL, or MAP_FAILED) and errno e. */
#define FAILS(call, bad, e)                     \
    do {                                        \
        errno = 0;                              \
        CHECK((call) == (bad) && errno == (e)); \
    } while (0)

static void test_uname(void) {
    struct utsname u;
    CHECK(uname(&u) == 0);
    char host[64];
    CHECK(gethostname(host, sizeof host) == 0);
    CHECK(strcmp(u.sysname, "Tessera") == 0);
    CHECK(strcmp(u.nodename, host) == 0);
    CHECK(u.release[0] != 0);
    CHECK((strcmp(u.version, "qemu-riscv64") == 0 && strcmp(u.machine, "riscv64") == 0) ||
          (strcmp(u.version, "linux64") == 0 && strcmp(u.machine, "x86_64") == 0));
    if (rank == 0)
        printf("posix_test: uname %s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version, u.machine);
    FAILS(uname(NULL), -1, EFAULT);
}

static long usec(struct timeval t) { return (long)t.tv_sec * 1000000 + (long)t.tv_usec; }

static void test_usage(void) {
    struct rusage before, after, children;
    CHECK(getrusage(RUSAGE_SELF, &before) == 0);
    /* A live block of 128 KiB: the heap's peak holds it. */
    enum { block = 128 * 1024 };
    char *p = malloc(block);
    CHECK(p != NULL);
    if (p) memset(p, 1, block);
    struct timespec nap = {0, 2000000};
    nanosleep(&nap, NULL);
    CHECK(getrusage(RUSAGE_SELF, &after) == 0);
    CHECK(usec(after.ru_utime) > usec(before.ru_utime));
    CHECK(usec(after.ru_stime) == 0);
    CHECK(after.ru_maxrss >= block / 1024);
    CHECK(after.ru_maxrss >= before.ru_maxrss);
    free(p);
    memset(&children, 0xff, sizeof children);
    CHECK(getrusage(RUSAGE_CHILDREN, &children) == 0);
    CHECK(usec(children.ru_utime) == 0 && usec(children.ru_stime) == 0 && children.ru_maxrss == 0);
    FAILS(getrusage(5, &after), -1, EINVAL);
    FAILS(getrusage(RUSAGE_SELF, NULL), -1, EFAULT);

    struct tms t;
    clock_t at = times(&t);
    CHECK(at != (clock_t)-1 && t.tms_utime <= at && t.tms_stime == 0 && t.tms_cutime == 0);
    CHECK(times(NULL) >= at);
}

/* Every byte of p[0..n) is v. */
static int all(const unsigned char *p, size_t n, unsigned char v) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != v) return 0;
    return 1;
}

static void test_mmap(void) {
    unsigned char *m = mmap(NULL, 3 * PAGE - 100, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    if (m == MAP_FAILED) return;
    CHECK((uintptr_t)m % PAGE == 0);
    CHECK(all(m, 3 * PAGE, 0)); /* zeroed, the last page whole */
    memset(m, 0xab, 3 * PAGE);
    CHECK(munmap(m + PAGE, PAGE) == 0); /* a hole in the middle */
    CHECK(all(m, PAGE, 0xab) && all(m + 2 * PAGE, PAGE, 0xab));
    CHECK(munmap(m + PAGE, PAGE) == 0); /* nothing mapped there any more: fine */
    CHECK(munmap(m, 3 * PAGE) == 0);
    unsigned char *s = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANON, -1, 0);
    CHECK(s != MAP_FAILED && all(s, PAGE, 0));
    if (s != MAP_FAILED) CHECK(munmap(s, PAGE) == 0);

    const int anon = MAP_PRIVATE | MAP_ANONYMOUS, rw = PROT_READ | PROT_WRITE;
    FAILS(mmap(NULL, 0, rw, anon, -1, 0), MAP_FAILED, EINVAL);
    FAILS(mmap(NULL, PAGE, rw, MAP_ANONYMOUS, -1, 0), MAP_FAILED, EINVAL);
    FAILS(mmap(NULL, PAGE, rw, anon | MAP_SHARED, -1, 0), MAP_FAILED, EINVAL);
    FAILS(mmap(NULL, PAGE, rw, anon | 0x100000, -1, 0), MAP_FAILED, EINVAL);
    FAILS(mmap(NULL, PAGE, rw, anon, -1, 100), MAP_FAILED, EINVAL);
    FAILS(mmap(NULL, PAGE, rw, MAP_PRIVATE, 3, 0), MAP_FAILED, ENODEV);
    FAILS(mmap((void *)0x100000, PAGE, rw, anon | MAP_FIXED, -1, 0), MAP_FAILED, ENOTSUP);
    FAILS(mmap(NULL, PAGE, PROT_NONE, anon, -1, 0), MAP_FAILED, ENOTSUP);
    FAILS(mmap(NULL, PAGE, rw | PROT_EXEC, anon, -1, 0), MAP_FAILED, ENOTSUP);
    FAILS(mmap(NULL, SIZE_MAX / 2, rw, anon, -1, 0), MAP_FAILED, ENOMEM);
    FAILS(munmap((void *)(uintptr_t)(PAGE + 1), PAGE), -1, EINVAL);
    FAILS(munmap((void *)(uintptr_t)PAGE, 0), -1, EINVAL);
    FAILS(munmap((void *)(uintptr_t)PAGE, SIZE_MAX), -1, EINVAL);

    /* Many mappings at once, each with its own contents, unmapped in
     * another order, some in pieces; then as many again, which fit only
     * if the first ones were given back. */
    enum { n = 24 };
    for (int round = 0; round < 4; ++round) {
        unsigned char *maps[n];
        for (int i = 0; i < n; ++i) {
            maps[i] = mmap(NULL, (size_t)(i % 4 + 1) * PAGE, rw, anon, -1, 0);
            CHECK(maps[i] != MAP_FAILED);
            if (maps[i] == MAP_FAILED) return;
            CHECK(all(maps[i], (size_t)(i % 4 + 1) * PAGE, 0));
            memset(maps[i], i + 1, (size_t)(i % 4 + 1) * PAGE);
        }
        for (int k = 0; k < n; ++k) {
            const int i = (k * 7) % n; /* 7 and 24 are coprime: each once */
            const size_t len = (size_t)(i % 4 + 1) * PAGE;
            CHECK(all(maps[i], len, (unsigned char)(i + 1)));
            if (len > PAGE) CHECK(munmap(maps[i] + len - PAGE, PAGE) == 0);
            CHECK(munmap(maps[i], len) == 0);
        }
    }
}

/* The entries of folder `path`: how many, and whether each of names[0..n)
 * (with its d_type) was seen exactly once; "." and ".." must not be. */
static int listed(const char *path, const char *const *names, const unsigned char *types, int n) {
    DIR *d = opendir(path);
    CHECK(d != NULL);
    if (!d) return -1;
    int seen[2 * MANY + 2] = {0}, count = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        ++count;
        CHECK(e->d_ino != 0);
        CHECK(strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0);
        for (int i = 0; i < n; ++i)
            if (strcmp(e->d_name, names[i]) == 0) {
                ++seen[i];
                CHECK(e->d_type == types[i]);
            }
    }
    CHECK(errno == 0); /* the end, no error */
    for (int i = 0; i < n; ++i)
        CHECK(seen[i] == 1);
    CHECK(closedir(d) == 0);
    return count;
}

static void test_folders(void) {
    char top[32], buf[64];
    snprintf(top, sizeof top, "posix_%d", rank);
    struct stat st;

    CHECK(getcwd(buf, sizeof buf) != NULL && strcmp(buf, "/") == 0);
    CHECK(mkdir(top, 0755) == 0);
    FAILS(mkdir(top, 0755), -1, EEXIST);
    CHECK(stat(top, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(stat(".", &st) == 0 && S_ISDIR(st.st_mode));

    /* Relative paths from the working folder. */
    CHECK(chdir(top) == 0);
    char expect[64];
    snprintf(expect, sizeof expect, "/%s", top);
    CHECK(getcwd(buf, sizeof buf) != NULL && strcmp(buf, expect) == 0);
    FILE *f = fopen("a.txt", "w");
    CHECK(f != NULL);
    if (f) {
        fputs("in a folder\n", f);
        CHECK(fclose(f) == 0);
    }
    CHECK(stat("a.txt", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 12);
    char abs[64];
    snprintf(abs, sizeof abs, "/%s/a.txt", top);
    CHECK(stat(abs, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(mkdir("sub", 0755) == 0);
    CHECK(mkdir("sub/deeper", 0755) == 0);
    CHECK(chdir("sub/deeper") == 0);
    CHECK(stat("../../a.txt", &st) == 0 && st.st_size == 12);
    CHECK(chdir("../..") == 0);
    CHECK(chdir("..") == 0);
    CHECK(getcwd(buf, sizeof buf) != NULL && strcmp(buf, "/") == 0);
    char *own = getcwd(NULL, 0);
    CHECK(own != NULL && strcmp(own, "/") == 0);
    free(own);
    char path[96];
    snprintf(path, sizeof path, "%s/a.txt", top);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && read(fd, buf, 12) == 12 && memcmp(buf, "in a folder\n", 12) == 0);
    if (fd >= 0) close(fd);

    /* Listing, twice over with rewinddir. */
    const char *names[] = {"a.txt", "sub"};
    const unsigned char types[] = {DT_REG, DT_DIR};
    CHECK(listed(top, names, types, 2) == 2);
    DIR *d = opendir(top);
    CHECK(d != NULL);
    if (d) {
        int first = 0, again = 0;
        while (readdir(d))
            ++first;
        rewinddir(d);
        while (readdir(d))
            ++again;
        CHECK(first == 2 && again == 2);
        CHECK(closedir(d) == 0);
    }

    /* Errors. */
    snprintf(path, sizeof path, "%s/a.txt/x", top);
    FAILS(mkdir(path, 0755), -1, ENOTDIR);
    FAILS(mkdir("missing/x", 0755), -1, ENOENT);
    FAILS(mkdir("../x", 0755), -1, EACCES);
    FAILS(mkdir("", 0755), -1, ENOENT);
    FAILS(mkdir(NULL, 0755), -1, EFAULT);
    FAILS(rmdir(top), -1, ENOTEMPTY);
    snprintf(path, sizeof path, "%s/a.txt", top);
    FAILS(rmdir(path), -1, ENOTDIR);
    FAILS(rmdir("missing"), -1, ENOENT);
    FAILS(rmdir("/"), -1, EBUSY);
    FAILS(chdir("missing"), -1, ENOENT);
    FAILS(chdir(path), -1, ENOTDIR);
    FAILS(chdir(".."), -1, EACCES);
    FAILS(opendir("missing"), NULL, ENOENT);
    FAILS(opendir(path), NULL, ENOTDIR);
    FAILS(readdir(NULL), NULL, EBADF);
    FAILS(closedir(NULL), -1, EBADF);
    FAILS(getcwd(buf, 1), NULL, ERANGE);
    FAILS(getcwd(buf, 0), NULL, EINVAL);
    FAILS(stat("missing", &st), -1, ENOENT);
    CHECK(getcwd(buf, sizeof buf) != NULL && strcmp(buf, "/") == 0); /* no failure moved it */

    /* Names a shell or a command would take for something else: a quote,
     * a leading '-' (QEMU reaches folders through host commands). */
    CHECK(chdir(top) == 0);
    const char *odd[] = {"it's", "-delete", "a b;*"};
    for (int i = 0; i < 3; ++i)
        CHECK(mkdir(odd[i], 0755) == 0 && stat(odd[i], &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(listed("-delete", NULL, NULL, 0) == 0);
    CHECK(listed("it's", NULL, NULL, 0) == 0);
    CHECK(stat("a.txt", &st) == 0); /* nothing deleted */
    const char *all_names[] = {"a.txt", "sub", "it's", "-delete", "a b;*"};
    const unsigned char all_types[] = {DT_REG, DT_DIR, DT_DIR, DT_DIR, DT_DIR};
    CHECK(listed(".", all_names, all_types, 5) == 5);
    for (int i = 0; i < 3; ++i)
        CHECK(rmdir(odd[i]) == 0);
    CHECK(chdir("/") == 0);

    /* Stress: many folders, each holding a file, and many files. */
    CHECK(chdir(top) == 0);
    CHECK(mkdir("many", 0755) == 0);
    static char name_store[2 * MANY][16];
    const char *many[2 * MANY];
    unsigned char many_types[2 * MANY];
    for (int i = 0; i < MANY; ++i) {
        snprintf(name_store[i], sizeof name_store[i], "dir_%02d", i);
        snprintf(name_store[MANY + i], sizeof name_store[i], "file_%02d", i);
        many[i] = name_store[i];
        many[MANY + i] = name_store[MANY + i];
        many_types[i] = DT_DIR;
        many_types[MANY + i] = DT_REG;
        snprintf(path, sizeof path, "many/%.15s", many[i]);
        CHECK(mkdir(path, 0755) == 0);
        snprintf(path, sizeof path, "many/%.15s/inner", many[i]);
        int in = open(path, O_WRONLY | O_CREAT, 0644);
        CHECK(in >= 0 && write(in, "x", 1) == 1);
        if (in >= 0) close(in);
        snprintf(path, sizeof path, "many/%.15s", many[MANY + i]);
        int out = open(path, O_WRONLY | O_CREAT, 0644);
        CHECK(out >= 0);
        if (out >= 0) close(out);
    }
    CHECK(listed("many", many, many_types, 2 * MANY) == 2 * MANY);
    for (int i = 0; i < MANY; ++i) {
        snprintf(path, sizeof path, "many/%.15s", many[i]);
        FAILS(rmdir(path), -1, ENOTEMPTY);
        snprintf(path, sizeof path, "many/%.15s/inner", many[i]);
        CHECK(unlink(path) == 0);
        snprintf(path, sizeof path, "many/%.15s", many[i]);
        CHECK(rmdir(path) == 0);
        snprintf(path, sizeof path, "many/%.15s", many[MANY + i]);
        CHECK(unlink(path) == 0);
    }
    CHECK(listed("many", NULL, NULL, 0) == 0);
    CHECK(rmdir("many") == 0);

    /* Clean up: the job leaves nothing. */
    CHECK(unlink("a.txt") == 0);
    CHECK(rmdir("sub/deeper") == 0);
    CHECK(rmdir("sub") == 0);
    CHECK(chdir("/") == 0);
    CHECK(rmdir(top) == 0);
    FAILS(stat(top, &st), -1, ENOENT);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    test_uname();
    test_usage();
    test_mmap();
    test_folders();
    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && total == 0) printf("posix_test: OK (np=%d)\n", np);
    MPI_Finalize();
    return total != 0;
}
