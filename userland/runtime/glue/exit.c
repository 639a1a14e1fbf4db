/* How a thread ends. With MPI processes as threads of one process, exit()
 * ends the calling MPI process (thread) only: the process ends when its
 * last thread does, with the first non-zero status (the kernel's rule).
 * atexit handlers and static destructors run once, in the last thread. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../internal.h"

void exit(int status) { ts__thread_finish(status, 0); }

void _exit(int status) { ts__thread_finish(status, 1); }

/* abort() ends the whole job, as a crashed MPI process would (128+SIGABRT). */
void abort(void) {
    fprintf(stderr, "tessera: abort() in rank %d on cluster %d\n", ts_rank(), ts_job()->cluster_id);
    ts_job_abort(134);
}
