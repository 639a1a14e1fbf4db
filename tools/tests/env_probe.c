/* env_probe: the environment mpirun -x gave the job, for the Env tests of
 * test_target.py (built with tools/mpicc). Each rank prints its whole
 * environment, one line per variable, in order, then what getenv says of
 * each NAME among its arguments:
 *   rank R env NAME=VALUE            (a value over 64 bytes: NAME=(N bytes, sum S),
 *                                     S the sum of its bytes)
 *   rank R getenv NAME=VALUE   or   rank R getenv NAME unset
 * Then, all ranks past that, rank 0 checks that the environment is the
 * program's to change (setenv, unsetenv) and what TS_SYS_JOB_ENV answers,
 * printing "rank 0 env checks: N failed" (exit status N). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/runtime.h>

extern char **environ;

static _Thread_local int failed; /* rank 0's, in any --ranks mode */

static void check(int ok, const char *what) {
    if (!ok) {
        printf("rank 0 FAIL %s\n", what);
        ++failed;
    }
}

static void print_variable(int rank, const char *kind, const char *var) {
    const char *eq = strchr(var, '=');
    size_t len = eq ? strlen(eq + 1) : 0;
    if (!eq || len <= 64) {
        printf("rank %d %s %s\n", rank, kind, var);
        return;
    }
    unsigned long sum = 0;
    for (const char *p = eq + 1; *p; ++p)
        sum += (unsigned char)*p;
    printf("rank %d %s %.*s=(%zu bytes, sum %lu)\n", rank, kind, (int)(eq - var), var, len, sum);
}

/* TS_SYS_JOB_ENV: the block's size whatever the buffer, min(size, bytes)
 * copied, -TS_EFAULT for a buffer it cannot write. */
static void check_job_env(size_t bytes) {
    check(ts_job_env(0, 0) == (long)bytes, "ts_job_env(0, 0) is the block's size");
    if (bytes < 4) return;
    char buf[8];
    memset(buf, '#', sizeof buf);
    check(ts_job_env(buf, 3) == (long)bytes && buf[3] == '#', "ts_job_env copies only size bytes");
    check(memcmp(buf, environ[0], 3) == 0, "ts_job_env's block starts with environ[0]");
    check(ts_job_env((char *)"read-only", 4) == -TS_EFAULT, "ts_job_env into read-only memory");
}

/* The strings and the array are the process's own: setenv over a variable
 * (a shorter value, written in place, then a longer one), unsetenv, and a
 * new variable. */
static void check_changes(void) {
    if (!environ[0]) return;
    char name[64];
    size_t n = (size_t)(strchr(environ[0], '=') - environ[0]);
    if (n >= sizeof name) return;
    memcpy(name, environ[0], n);
    name[n] = 0;
    check(setenv(name, "", 1) == 0 && strcmp(getenv(name), "") == 0, "setenv to a shorter value");
    check(setenv(name, "a much longer value than before", 1) == 0 &&
              strcmp(getenv(name), "a much longer value than before") == 0,
          "setenv to a longer value");
    check(unsetenv(name) == 0 && getenv(name) == NULL, "unsetenv");
    check(setenv("ENV_PROBE_NEW", "new", 0) == 0 && strcmp(getenv("ENV_PROBE_NEW"), "new") == 0,
          "setenv of a new variable");
}

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t bytes = 0;
    for (char **e = environ; *e; ++e) {
        print_variable(rank, "env", *e);
        bytes += strlen(*e) + 1;
    }
    for (int i = 1; i < argc; ++i) {
        const char *value = getenv(argv[i]);
        if (value) {
            char var[1100];
            snprintf(var, sizeof var, "%s=%s", argv[i], value);
            print_variable(rank, "getenv", var);
        } else {
            printf("rank %d getenv %s unset\n", rank, argv[i]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* under --ranks threads the ranks share environ */
    if (rank == 0) {
        check_job_env(bytes);
        check_changes();
        printf("rank 0 env checks: %d failed\n", failed);
    }
    MPI_Finalize();
    return failed;
}
