/* User threads: each gets its own TLS area (the C library's errno and
 * stdio state, the runtime's rank and output buffer live there), allocated
 * with the start record that crt0's trampoline reads. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* What ts__thread_entry receives. tls (the new thread's thread pointer)
 * must stay first: crt0 loads it. */
struct ts__thread_start {
    void *tls;
    void (*fn)(void *);
    void *arg;
    int rank, local; /* inherited from the creator */
};

/* Threads of this process that have not finished, the main thread
 * included: the last one to finish runs the exit handlers. */
static int live_threads = 1;

/* The threads running main (the process's one main, or each of its MPI
 * processes'), and whether the calling thread is one. */
static int live_mains;
static __thread int runs_main;

void ts__mains_expected(int count) { __atomic_store_n(&live_mains, count, __ATOMIC_RELEASE); }

void ts__main_begins(void) { runs_main = 1; }

/* The block to free when this thread ends (the main thread's is static). */
static __thread struct ts__thread_start *own_block;

/* What ts_thread_at_exit registered, oldest first. */
static __thread void (*at_exit[TS_THREAD_AT_EXIT_MAX])(void);
static __thread int at_exit_count;

int ts_thread_create(void (*fn)(void *), void *arg) {
    size_t align = ts__tls_area_align();
    size_t head = (sizeof(struct ts__thread_start) + align - 1) & ~(align - 1);
    struct ts__thread_start *s = memalign(align, head + ts__tls_area_size());
    if (!s) return -TS_ENOMEM;
    s->tls = ts__tls_init((char *)s + head);
    s->fn = fn;
    s->arg = arg;
    s->rank = ts__rank;
    s->local = ts__local;

    __atomic_add_fetch(&live_threads, 1, __ATOMIC_ACQ_REL);
    long tid = TS__SC(TS_SYS_THREAD_CREATE, ts__thread_entry, s);
    if (tid < 0) {
        __atomic_sub_fetch(&live_threads, 1, __ATOMIC_ACQ_REL);
        free(s);
    }
    return (int)tid;
}

void ts__thread_main(struct ts__thread_start *s) {
    own_block = s;
    ts__rank = s->rank;
    ts__local = s->local;
    s->fn(s->arg);
    ts__thread_finish(0, TS__END_THREAD);
}

void ts_thread_exit(int status) { ts__thread_finish(status, TS__END_THREAD); }

int ts_thread_at_exit(void (*fn)(void)) {
    if (at_exit_count == TS_THREAD_AT_EXIT_MAX) return -TS_ENFILE;
    at_exit[at_exit_count++] = fn;
    return 0;
}

/* The thread's at-exit functions, latest first; each runs once. */
static void run_at_exit(void) {
    while (at_exit_count > 0)
        at_exit[--at_exit_count]();
}

/* From the C library: atexit handlers (weak: absent when nobody registers one)
 * and static destructors. */
extern void __call_exitprocs(int code, void *dso) __attribute__((weak));
extern void __libc_fini_array(void);

/* A rank ended with a failure before MPI_Init (or in a program without
 * MPI): the job's status is already decided, and the other ranks would
 * wait for this one forever, so the job ends now. */
static void end_job_early(int status) {
    fprintf(stderr, "tessera: rank %d on cluster %d exited with status %d%s\n", ts__rank,
            ts_job()->cluster_id, status, ts_rank_exit_hook ? " before MPI_Init" : "");
    ts_console_flush();
    ts_job_abort(status);
}

void ts__thread_finish(int status, enum ts__end how) {
    /* May end the job: an MPI rank left early. */
    const int in_mpi = ts_rank_exit_hook && ts_rank_exit_hook(status);
    if (!in_mpi && status != 0 && ts__rank_main) end_job_early(status);
    const int last = __atomic_sub_fetch(&live_threads, 1, __ATOMIC_ACQ_REL) == 0;
    const int last_main = runs_main && __atomic_sub_fetch(&live_mains, 1, __ATOMIC_ACQ_REL) == 0;
    const int ends_process = last || (last_main && how != TS__END_THREAD);
    if (ends_process && how != TS__END_QUICK_EXIT) {
        if (__call_exitprocs) __call_exitprocs(status, 0);
        __libc_fini_array();
    }
    run_at_exit(); /* after the exit handlers, which may still need them */
    ts_console_flush();
    ts__libc_thread_end();
    /* Nothing below touches TLS, so the area can go back to the heap while
     * the thread pointer still points into it. */
    void *block = own_block;
    if (block) free(block);
    /* Threads left running (a pool's, blocked for good) end with it. */
    TS__SC(ends_process && !last ? TS_SYS_PROCESS_EXIT : TS_SYS_THREAD_EXIT, status);
    for (;;)
        ;
}
