/* libc_test: the C library surface an unmodified MPI program expects, the
 * same on both platforms (docs/programs.md, "The C library"): sysconf,
 * posix_memalign,
 * aligned_alloc, getpagesize, clock_gettime, gettimeofday, nanosleep, usleep,
 * sleep, getpid, gethostname, getenv, atexit, strerror and rand_r, with
 * POSIX's errors. Run by tests/target_tests.toml (userland_libc) as
 * `libc_test MODE NPROCS`: MODE is
 * mpirun's --ranks (processes or threads), NPROCS the cores a cluster
 * gives programs' threads (_SC_NPROCESSORS_CONF); a rank's share of them
 * (_SC_NPROCESSORS_ONLN) is its own core plus an equal part of those no
 * rank of its cluster runs on (docs/programs.md, "Threads in MPI
 * programs"). Every rank checks; rank 0 prints "libc_test: OK (np=N)"
 * when all passed, and "libc_test: atexit handler ran" once, from the
 * handler it registered. */
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Per MPI process, also when they are threads of one process. */
static _Thread_local int rank, failures;

static void check(int ok, const char *what) {
    if (!ok) {
        printf("libc_test: rank %d: FAILED: %s (errno %d)\n", rank, what, errno);
        ++failures;
    }
}

static double seconds(clockid_t clock) {
    struct timespec t;
    check(clock_gettime(clock, &t) == 0, "clock_gettime");
    check(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L, "tv_nsec in range");
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double timeofday(void) {
    struct timeval tv;
    check(gettimeofday(&tv, NULL) == 0, "gettimeofday");
    check(tv.tv_usec >= 0 && tv.tv_usec < 1000000L, "tv_usec in range");
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static void test_sysconf(long nprocs) {
    long page = sysconf(_SC_PAGESIZE);
    check(page == 4096, "sysconf(_SC_PAGESIZE) is 4096");
    check(getpagesize() == page, "getpagesize() == sysconf(_SC_PAGESIZE)");
    MPI_Comm cluster;
    int local = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &cluster);
    MPI_Comm_size(cluster, &local);
    MPI_Comm_free(&cluster);
    check(sysconf(_SC_NPROCESSORS_ONLN) == 1 + (nprocs - local) / local,
          "sysconf(_SC_NPROCESSORS_ONLN): the share");
    check(sysconf(_SC_NPROCESSORS_CONF) == nprocs, "sysconf(_SC_NPROCESSORS_CONF)");
    check(sysconf(_SC_CLK_TCK) == CLOCKS_PER_SEC, "sysconf(_SC_CLK_TCK) is clock()'s unit");
    errno = 0;
    check(sysconf(-1) == -1 && errno == EINVAL, "sysconf(-1): EINVAL");
    errno = 0;
    check(sysconf(100000) == -1 && errno == EINVAL, "sysconf(100000): EINVAL");
    errno = 0; /* a valid name with no determinate value: errno unchanged */
    check(sysconf(_SC_CHILD_MAX) == -1 && errno == 0, "sysconf(_SC_CHILD_MAX): no value");
}

static void test_memalign(void) {
    static const size_t aligns[] = {sizeof(void *), 16, 64, 256, 4096, 65536};
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; ++i) {
        void *p = NULL;
        check(posix_memalign(&p, aligns[i], 1000) == 0 && p, "posix_memalign");
        check((uintptr_t)p % aligns[i] == 0, "posix_memalign's alignment");
        memset(p, 0xa5, 1000);
        void *q = aligned_alloc(aligns[i], 2 * aligns[i]);
        check(q && (uintptr_t)q % aligns[i] == 0, "aligned_alloc's alignment");
        memset(q, 0x5a, 2 * aligns[i]);
        check(((unsigned char *)p)[999] == 0xa5, "the blocks do not overlap");
        free(q);
        free(p);
    }
    void *p = (void *)&rank;
    errno = 0;
    check(posix_memalign(&p, 24, 64) == EINVAL, "posix_memalign(24): EINVAL");
    check(posix_memalign(&p, sizeof(void *) / 2, 64) == EINVAL, "posix_memalign(sizeof(void *) / 2): EINVAL");
    check(p == (void *)&rank && errno == 0, "posix_memalign's failure leaves *memptr, errno");
    void *huge = NULL;
    check(posix_memalign(&huge, 64, SIZE_MAX / 2) == ENOMEM && !huge, "posix_memalign: ENOMEM");
    errno = 0;
    check(aligned_alloc(24, 48) == NULL && errno == EINVAL, "aligned_alloc(24): EINVAL");
    errno = 0;
    check(aligned_alloc(64, SIZE_MAX / 2) == NULL && errno == ENOMEM, "aligned_alloc: ENOMEM");
    check(posix_memalign(&p, 64, 0) == 0, "posix_memalign of 0 bytes");
    free(p == (void *)&rank ? NULL : p);
}

static void test_clocks(void) {
    struct timespec res;
    check(clock_getres(CLOCK_MONOTONIC, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0 &&
              res.tv_nsec <= 1000000,
          "clock_getres(CLOCK_MONOTONIC) at most 1 ms");
    errno = 0;
    check(clock_gettime((clockid_t)12345, &res) == -1 && errno == EINVAL,
          "clock_gettime of an unknown clock: EINVAL");

    double m0 = seconds(CLOCK_MONOTONIC), r0 = seconds(CLOCK_REALTIME), g0 = timeofday();
    clock_t c0 = clock();
    struct timespec nap = {0, 50000000}; /* 50 ms */
    check(nanosleep(&nap, NULL) == 0, "nanosleep");
    double m1 = seconds(CLOCK_MONOTONIC), r1 = seconds(CLOCK_REALTIME), g1 = timeofday();
    clock_t c1 = clock();
    check(m1 - m0 >= 0.05 && m1 - m0 < 5, "CLOCK_MONOTONIC advances across nanosleep(50 ms)");
    check(r1 - r0 >= 0.05 && r1 - r0 < 5, "CLOCK_REALTIME advances across nanosleep(50 ms)");
    check(g1 - g0 >= 0.05 && g1 - g0 < 5, "gettimeofday advances across nanosleep(50 ms)");
    check((double)(c1 - c0) >= 0.05 * CLOCKS_PER_SEC, "clock() advances across nanosleep");
    check(r0 - g0 < 0.01 && g0 - r0 < 0.01 + (r1 - r0), "gettimeofday agrees with CLOCK_REALTIME");

    struct timespec bad = {0, 1000000000L};
    errno = 0;
    check(nanosleep(&bad, NULL) == -1 && errno == EINVAL, "nanosleep(tv_nsec 10^9): EINVAL");
    bad.tv_nsec = -1;
    errno = 0;
    check(nanosleep(&bad, NULL) == -1 && errno == EINVAL, "nanosleep(tv_nsec -1): EINVAL");
    struct timespec zero = {0, 0};
    check(nanosleep(&zero, NULL) == 0, "nanosleep(0)");

    double u0 = seconds(CLOCK_MONOTONIC);
    check(usleep(20000) == 0, "usleep");
    double u1 = seconds(CLOCK_MONOTONIC);
    check(u1 - u0 >= 0.02, "usleep(20 ms) sleeps 20 ms");
    if (rank == 0) {
        check(sleep(1) == 0, "sleep");
        check(seconds(CLOCK_MONOTONIC) - u1 >= 1.0, "sleep(1) sleeps a second");
    }
}

/* Every rank's pid and host name, gathered: hosts are "cluster<id>", equal
 * for the ranks of a cluster; pids differ between clusters, and between
 * the ranks of a cluster unless they are threads of one process. */
static void test_identity(const char *mode, int size) {
    char host[64], processor[MPI_MAX_PROCESSOR_NAME];
    check(gethostname(host, sizeof host) == 0, "gethostname");
    int len;
    MPI_Get_processor_name(processor, &len);
    check(strncmp(processor, host, strlen(host)) == 0 && processor[strlen(host)] == '.',
          "gethostname is the cluster of MPI_Get_processor_name");
    check(strncmp(host, "cluster", 7) == 0, "gethostname: cluster<id>");
    char tiny[4];
    errno = 0;
    check(gethostname(tiny, sizeof tiny) == -1 && errno == ENAMETOOLONG,
          "gethostname in 4 bytes: ENAMETOOLONG");

    struct {
        int pid;
        char host[32];
    } me = {(int)getpid(), {0}}, *all = malloc((size_t)size * sizeof me);
    snprintf(me.host, sizeof me.host, "%.31s", host);
    check(me.pid > 0 && getpid() == getpid(), "getpid positive, stable");
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD);
    int threads = strcmp(mode, "threads") == 0;
    for (int a = 0; a < size; ++a)
        for (int b = a + 1; b < size; ++b) {
            int same_host = strcmp(all[a].host, all[b].host) == 0;
            int same_pid = all[a].pid == all[b].pid;
            check(same_pid == (same_host && threads), "pids equal exactly within a process");
        }
    free(all);
}

static void test_misc(void) {
    check(getenv("TESSERA_NO_SUCH_VARIABLE") == NULL, "getenv of an unset variable");
    if (rank == 0) { /* the environment is the process's: one writer */
        check(setenv("TESSERA_LIBC_TEST", "yes", 1) == 0, "setenv");
        const char *v = getenv("TESSERA_LIBC_TEST");
        check(v && strcmp(v, "yes") == 0, "getenv finds what setenv set");
    }
    const char *einval = strerror(EINVAL), *enomem = strerror(ENOMEM);
    check(einval && enomem && *einval && strcmp(einval, enomem) != 0, "strerror");

    unsigned a = 42, b = 42, c = 7;
    int same = 1, differ = 0;
    for (int i = 0; i < 16; ++i) {
        int x = rand_r(&a), y = rand_r(&b), z = rand_r(&c);
        same = same && x == y && x >= 0 && x <= RAND_MAX;
        differ = differ || x != z;
    }
    check(same && differ, "rand_r: one sequence per seed, in 0..RAND_MAX");
}

static void at_exit(void) { printf("libc_test: atexit handler ran\n"); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0) printf("usage: libc_test processes|threads NPROCS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) check(atexit(at_exit) == 0, "atexit");

    test_sysconf(atol(argv[2]));
    test_memalign();
    test_clocks();
    test_identity(argv[1], size);
    test_misc();

    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf("libc_test: OK (np=%d)\n", size);
        else
            printf("libc_test: %d FAILED checks\n", total);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
