/* Program start-up on the main thread, then the MPI start-up. In processes
 * mode (mpirun --ranks processes) the kernel started this process for one
 * MPI process and says which: main() runs once, as that rank. In threads
 * mode the process starts one thread per MPI process this cluster hosts,
 * each running main() with its own rank (the first MPI process of a
 * cluster is the process, the others are threads of it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rankplan.h"

extern int main(int argc, char **argv);
extern void __libc_init_array(void);

/* At most this many MPI processes per cluster (MPPA-256: 16 PEs). */
#define MAX_LOCAL 64

static int local_ranks[MAX_LOCAL];

/* Set once every rank thread of the cluster exists; until then none runs
 * main, so none can end, or start a thread of its own, and take a core out
 * of turn. As the kernel gives a new thread the first free core, and the
 * main thread (local index 0) had the first one, the rank with local index
 * l runs on core l + 1 (core 0 is the master): mpirun --report-bindings
 * says so. */
static unsigned all_started;

/* A private argv for each rank (programs may modify theirs, e.g. getopt),
 * from the job's argc NUL-terminated strings. */
static char **make_argv(int *argc_out) {
    const struct ts_job_info *job = ts_job();
    int argc = job->argc > 0 ? job->argc : 0;
    char **argv = malloc((size_t)(argc + 2) * sizeof(char *) + TS_ARGS_MAX);
    if (!argv) {
        static char *none[] = {"", 0};
        *argc_out = 1;
        return none;
    }
    char *text = (char *)(argv + argc + 2);
    memcpy(text, job->args, TS_ARGS_MAX);
    int n = 0;
    for (char *p = text; n < argc && p < text + TS_ARGS_MAX; p += strlen(p) + 1)
        argv[n++] = p;
    if (n == 0) /* programs print argv[0] in their usage messages */
        argv[n++] = "";
    argv[n] = 0;
    *argc_out = n;
    return argv;
}

static void __attribute__((noreturn)) run_main(void) {
    int argc;
    char **argv = make_argv(&argc);
    ts__main_begins();
    exit(main(argc, argv));
}

static void rank_thread(void *arg) {
    while (!__atomic_load_n(&all_started, __ATOMIC_ACQUIRE))
        ts_futex_wait(&all_started, 0, 0);
    int local = (int)(intptr_t)arg;
    ts__rank = local_ranks[local];
    ts__local = local;
    ts__rank_main = 1;
    ts_thread_tag(ts__rank); /* console lines and reports name the rank from the start */
    run_main();
}

static void __attribute__((noreturn)) fail(const char *what, int err) {
    fprintf(stderr, "tessera: cluster %d: %s (error %d)\n", ts_job()->cluster_id, what, err);
    ts_job_abort(1);
}

void ts__start(void) {
    /* Nothing before this point may touch TLS. */
    ts__tls_set(ts__tls_init(__ts_main_tls));

    const struct ts_job_info *job = ts_job();
    ts__environ_init(); /* constructors may read it */
    __libc_init_array();

    if (job->ranks_mode == TS_RANKS_PROCESSES && job->rank >= 0) {
        /* The kernel names this process's threads by its rank. */
        ts__rank = job->rank;
        ts__local = job->local_index;
        ts__rank_main = 1;
        ts__mains_expected(1);
        run_main();
    }

    int n = ts__local_ranks(job, local_ranks, MAX_LOCAL);
    if (n < 0) fail("the MPI job does not fit this platform", n);
    if (n == 0) { /* a service, or no rank here: main runs once, rank -1 */
        ts__mains_expected(1);
        run_main();
    }
    ts__mains_expected(n);

    /* Every other local rank first, so no rank waits on one not started. */
    for (int local = 1; local < n; ++local) {
        int tid = ts_thread_create(rank_thread, (void *)(intptr_t)local);
        if (tid < 0) fail("cannot start an MPI process thread", tid);
    }
    __atomic_store_n(&all_started, 1, __ATOMIC_RELEASE);
    ts_futex_wake(&all_started, n);
    rank_thread((void *)0);
    for (;;)
        ;
}
