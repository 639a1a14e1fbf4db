/* How a thread ends. With MPI processes as threads of one process, exit()
 * ends the calling MPI process (thread) only: the process ends when its
 * last thread does, with the first non-zero status (the kernel's rule).
 * atexit handlers and static destructors run once, in the last thread. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../internal.h"

void exit(int status) { ts__thread_finish(status, TS__END_EXIT); }

void _exit(int status) { ts__thread_finish(status, TS__END_QUICK_EXIT); }

/* Fills pcs with the return addresses of the calling thread's frame
 * records, following its frame pointers (programs, the runtime and
 * libstdc++ keep them), at most max; returns how many. A record must lie
 * above the one before it, within 1 MiB of the first, so that a frame
 * pointer that is none (code built without them) ends the walk. */
static int backtrace_frames(uintptr_t *pcs, int max) {
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    const uintptr_t first = fp + TS__FRAME_RECORD_OFFSET;
    uintptr_t low = first;
    int n = 0;
    while (n < max) {
        const uintptr_t record = fp + TS__FRAME_RECORD_OFFSET;
        if (record % sizeof(uintptr_t) || record < low || record - first > (1u << 20)) break;
        const uintptr_t *link = (const uintptr_t *)record;
        if (link[1] == 0) break;
        pcs[n++] = link[1];
        low = record + 2 * sizeof(uintptr_t);
        fp = link[0];
    }
    return n;
}

/* abort() ends the whole job, as a crashed MPI process would (128+SIGABRT),
 * after a report in the form of the kernel's fault reports
 * (kernel/fault_report.cpp), so that mpirun turns the backtrace into
 * functions, files and lines. An uncaught C++ exception comes here
 * through std::terminate, once libstdc++ has printed its type and what(). */
void abort(void) {
    char who[64];
    const int rank = ts_rank(), cluster = (int)ts_job()->cluster_id, core = ts_thread_core();
    if (rank >= 0)
        snprintf(who, sizeof(who), "rank %d (cluster %d thread %d)", rank, cluster, core);
    else
        snprintf(who, sizeof(who), "cluster %d thread %d", cluster, core);
    /* argv[0], the program's name as the kernel's reports give it. */
    fprintf(stderr, "tessera: %s: process %s killed: abort()\n", who, ts_job()->args);
    uintptr_t pcs[16];
    const int frames = backtrace_frames(pcs + 1, 15) + 1;
here:
    pcs[0] = (uintptr_t) && here;
    fprintf(stderr, "tessera: %s: backtrace:", who);
    for (int i = 0; i < frames; ++i)
        fprintf(stderr, " 0x%lx", (unsigned long)pcs[i]);
    fprintf(stderr, "\n");
    ts_job_abort(134);
}
