/*
 * The Tessera user runtime: what user programs, services and LWMPI's MPIUtil
 * tier may call. Thin, checked wrappers over the kernel calls of
 * <tessera/syscall.h> (same arguments, same negative error codes), plus the
 * MPI process identity that crt0 sets up for each thread.
 */
#ifndef TESSERA_RUNTIME_H
#define TESSERA_RUNTIME_H

#include <tessera/syscall.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plain kernel-call wrappers: for every call of <tessera/kcalls.def>
 * marked `plain`, `ret ts_<name>(params)` makes the call and returns its
 * result as it is (>= 0, or -TS_E*): ts_thread_join, ts_thread_yield,
 * ts_thread_tag, ts_thread_core, ts_futex_wait, ts_futex_wake,
 * ts_kcall_count, ts_mem_info and the IKC calls (ts_mailbox_create, ...,
 * ts_sync_ioctl). kcalls.def says what each does. */
#define TS_KCALL_WRAPPER_plain(ret, name, params) ret ts_##name params;
#define TS_KCALL_WRAPPER_own(ret, name, params)
#define TS_KCALL(NAME, name, number, layer, where, fast, cancel, wrapper, ret, params, shapes, ...) \
    TS_KCALL_WRAPPER_##wrapper(ret, name, params)
#include <tessera/kcalls.def>
#undef TS_KCALL
#undef TS_KCALL_WRAPPER_plain
#undef TS_KCALL_WRAPPER_own

/* The job and cluster this program runs in (read once, then cached). */
const struct ts_job_info *ts_job(void);

/* This thread's MPI rank in MPI_COMM_WORLD, or -1 in a non-MPI program
 * (with --ranks processes, that of its process, whichever thread asks). */
int ts_rank(void);
/* This thread's index among the MPI processes of its cluster, or -1. */
int ts_local_index(void);
/* Where rank `rank` of this job runs (mpirun's mapping, as
 * --report-bindings prints it): *cluster gets its cluster id, *local its
 * local index there. 0, or -TS_EINVAL when rank is not in 0..np-1. */
int ts_rank_place(int rank, int *cluster, int *local);

/* Writes len bytes to the console as one piece (TS_SYS_WRITE), bypassing
 * stdio's per-thread line buffer. */
void ts_console_write(const char *buf, unsigned long len);
/* Writes out what the calling thread's stdout and stderr hold in their
 * shared line buffer, a partial line included. Returns 1 when the thread's
 * stdio output so far ends in the middle of a line, else 0 (so that a
 * report can start on a line of its own). */
int ts_console_flush(void);

/* Time since the machine started, in ticks of ts_job()->timebase_hz (the
 * `time` CSR on qemu-riscv64, CLOCK_MONOTONIC ns on linux64; see
 * <tessera/arch.h>). sleep(3) and usleep(3) of <unistd.h> sleep with
 * ts_sleep_ns too. */
unsigned long ts_time(void);
int ts_sleep_ns(unsigned long ns);

/* Threads. ts_thread_create runs fn(arg) on a free core with its own TLS
 * block; returning from fn ends the thread with status 0. */
int ts_thread_create(void (*fn)(void *), void *arg);
int ts_thread_self(void);
/* ts_thread_core(): the ranks of a cluster run on cores 1, 2, ... in the
 * order of their local index (ts_local_index() + 1), as mpirun
 * --report-bindings shows. */
void ts_thread_exit(int status) __attribute__((noreturn));
/* Ends the whole job with exit status `code` (MPI_Abort). */
void ts_job_abort(int code) __attribute__((noreturn));
/* ts_thread_tag(tag): LWMPI labels each rank with its world rank at
 * MPI_Init. With mpirun --tag-output the console starts each of the
 * thread's lines with "[rank TAG] " ("[cluster C] " without a label), and
 * the kernel's fault reports and the job's end name the thread by it. A
 * new thread starts without a label. */

/* Runs fn() when the calling thread ends (exit, _exit, return from main or
 * from its thread function, ts_thread_exit), the latest registered first.
 * At most TS_THREAD_AT_EXIT_MAX per thread, else -TS_ENFILE. */
#define TS_THREAD_AT_EXIT_MAX 4
int ts_thread_at_exit(void (*fn)(void));

/* Defined by LWMPI (weak: absent from non-MPI programs). The runtime calls
 * it first when a thread ends, with the thread's exit status; LWMPI ends
 * the job there if the thread is an MPI process that called MPI_Init but
 * not MPI_Finalize, so that the other ranks do not wait for it forever.
 * Returns non-zero when the thread is a rank that called MPI_Init; for the
 * others, the runtime ends the job itself on a non-zero status. */
int ts_rank_exit_hook(int status) __attribute__((weak));

/* ts_futex_wait(addr, expected, timeout_ns), ts_futex_wake(addr, n):
 * between the threads of a process. A wake-up may be spurious: check *addr
 * again. */

/* Synchronisation between the threads of a process, over the futex calls.
 * A blocked thread sleeps in the kernel; it spins only briefly first.
 * Timeouts are relative, in nanoseconds; 0 means no timeout (as for
 * ts_futex_wait). The fields are private. */

/* Mutex: not recursive; any thread may unlock it. */
typedef struct {
    unsigned state;
} ts_mutex_t; /* 0 free, 1 locked, 2 locked with waiters */
/* (clang-format 14 would split a braced initializer in a macro) */
/* clang-format off */
#define TS_MUTEX_INIT {0}
/* clang-format on */
void ts_mutex_init(ts_mutex_t *m);
void ts_mutex_lock(ts_mutex_t *m);
/* ts_mutex_lock for at most timeout_ns: 0, or -TS_ETIMEDOUT when it ran
 * out. */
int ts_mutex_timedlock(ts_mutex_t *m, unsigned long timeout_ns);
/* 0 when it took the mutex, -TS_EBUSY when the mutex is held. */
int ts_mutex_trylock(ts_mutex_t *m);
/* 0, or -TS_EPERM when the mutex was not locked. */
int ts_mutex_unlock(ts_mutex_t *m);

/* Counting semaphore. */
typedef struct {
    unsigned value, waiters;
} ts_sem_t;
void ts_sem_init(ts_sem_t *s, unsigned count);
/* Takes one unit, waiting while there is none: 0, or the -TS_E* error of
 * ts_futex_wait that stopped the wait (e.g. -TS_ENOSYS). */
int ts_sem_wait(ts_sem_t *s);
/* 0 when it took a unit, -TS_EAGAIN when there was none. */
int ts_sem_trywait(ts_sem_t *s);
/* ts_sem_wait for at most timeout_ns: -TS_ETIMEDOUT when it ran out. */
int ts_sem_timedwait(ts_sem_t *s, unsigned long timeout_ns);
/* Adds one unit and wakes a waiter if there is one: 0, or -TS_EAGAIN
 * when the semaphore holds TS_SEM_VALUE_MAX units already. */
#define TS_SEM_VALUE_MAX 0x7fffffffu
int ts_sem_post(ts_sem_t *s);

/* Condition variable: a sequence number that every signal bumps. */
typedef struct {
    unsigned seq;
} ts_cond_t;
/* (clang-format 14 would split a braced initializer in a macro) */
/* clang-format off */
#define TS_COND_INIT {0}
/* clang-format on */
void ts_cond_init(ts_cond_t *c);
/* Unlocks m, sleeps until signalled, locks m again (always, whatever the
 * result). May wake spuriously: wait in a loop on the predicate. 0, or the
 * -TS_E* error of ts_futex_wait (e.g. -TS_ENOSYS). */
int ts_cond_wait(ts_cond_t *c, ts_mutex_t *m);
/* ts_cond_wait for at most timeout_ns: -TS_ETIMEDOUT when it ran out. */
int ts_cond_timedwait(ts_cond_t *c, ts_mutex_t *m, unsigned long timeout_ns);
/* Wakes one waiter (signal) or all of them (broadcast). */
void ts_cond_signal(ts_cond_t *c);
void ts_cond_broadcast(ts_cond_t *c);

/* IKC (what each call does: <tessera/kcalls.def>). The plain wrappers
 * above give ts_mailbox_*, ts_portal_*, ts_sync_*, ts_ikc_wait_any and
 * ts_ikc_wake; the waits of asynchronous operations are wrapped by hand: */
/* The result of the mailbox's AREAD or AWRITE, once it is done (the buffer
 * must live until then): what the synchronous call would have returned. */
long ts_mailbox_wait(int id);
/* As ts_mailbox_wait, but -TS_EAGAIN at once while the operation runs. */
long ts_mailbox_test(int id);
long ts_portal_wait(int id);
long ts_portal_test(int id);
/* As ts_portal_test, but cancels the portal's AWRITE if none of its bytes
 * has left yet: -TS_ECANCELED, and the portal takes a new write (the
 * receiver never saw this one). A write that moves cannot be cancelled:
 * -TS_EAGAIN until it ends. -TS_EINVAL on an AREAD. */
long ts_portal_cancel(int id);

/* IKC windows: each request of TS_SYS_WINDOW_ACCESS (struct ts_window_op
 * in <tessera/syscall.h> says when each is done) as one call, made through
 * the caller's window `key` for window `target` of `cluster`, at address
 * addr of its owner's memory: 0 or -TS_E*. */
long ts_window_write(int key, int cluster, int target, unsigned long addr, const void *buf, unsigned long n);
long ts_window_read(int key, int cluster, int target, unsigned long addr, void *buf, unsigned long n);
long ts_window_flush(int key, int cluster, int target);
/* TS_WINDOW_CAS, _FADD or _SWAP; *old gets the word's old value. */
long ts_window_atomic(int key, int cluster, int target, unsigned long addr, unsigned kind,
                      unsigned long operand, unsigned long compare, unsigned long *old);

/* A barrier between the clusters of a list (clusters[0] first), built from
 * an ALL_TO_ONE and a ONE_TO_ALL sync on one logical port. Every listed
 * cluster creates it with the same list and port, then calls wait. */
typedef struct {
    int gather, release, is_first;
} ts_barrier_t;
/* 0, or the -TS_E* error of the sync calls (e.g. -TS_EINVAL when this
 * cluster is not in the list, -TS_EBUSY when the port is taken). */
int ts_barrier_create(ts_barrier_t *b, const int *clusters, int n, int port);
/* Returns once every listed cluster has called it: 0 or -TS_E*. */
int ts_barrier_wait(ts_barrier_t *b);
int ts_barrier_destroy(ts_barrier_t *b);

#ifdef __cplusplus
}
#endif

#endif
