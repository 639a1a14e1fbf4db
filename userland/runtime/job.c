/* What a thread knows of itself and its job: the job info (asked once),
 * its MPI identity and the time. */
#include "internal.h"
#include "rankplan.h"

__thread int ts__rank = -1;
__thread int ts__local = -1;
__thread int ts__rank_main;

static struct ts_job_info job_info;
static volatile int job_loaded;

/* crt0 calls this before any other thread exists, so no lock is needed;
 * a failed call leaves a zeroed info (np 0: runs as a plain program). */
const struct ts_job_info *ts_job(void) {
    if (!job_loaded) {
        if (TS__SC(TS_SYS_JOB_INFO, &job_info) < 0) {
            struct ts_job_info none = {0};
            none.rank = none.local_index = -1;
            job_info = none;
        }
        job_info.args[TS_ARGS_MAX - 1] = '\0'; /* never trust a length */
        job_loaded = 1;
    }
    return &job_info;
}

/* The cores of the cluster but the master's, less one per rank it holds,
 * shared out among the ranks, plus the rank's own (a program that is no
 * rank here counts as one). The job never changes: computed once. */
int ts__core_share(void) {
    static int share;
    int s = __atomic_load_n(&share, __ATOMIC_RELAXED);
    if (!s) {
        const struct ts_job_info *job = ts_job();
        int ranks[64];
        int n = ts__local_ranks(job, ranks, (int)(sizeof ranks / sizeof ranks[0]));
        if (n < 1) n = 1;
        const int free_cores = job->ncores - 1 - n;
        s = 1 + (free_cores > 0 ? free_cores / n : 0);
        __atomic_store_n(&share, s, __ATOMIC_RELAXED);
    }
    return s;
}

/* In processes mode every thread of the process belongs to its rank. */
int ts_rank(void) { return ts__rank >= 0 ? ts__rank : ts_job()->rank; }
int ts_local_index(void) { return ts__local >= 0 ? ts__local : ts_job()->local_index; }

int ts_rank_place(int rank, int *cluster, int *local) {
    int c, l;
    int err = ts__rank_place(ts_job(), rank, &c, &l);
    if (err < 0) return err;
    *cluster = c;
    *local = l;
    return 0;
}

unsigned long ts_time(void) { return ts_arch_time(); }
