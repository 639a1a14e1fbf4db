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

/* The job and cluster this program runs in (read once, then cached). */
const struct ts_job_info *ts_job(void);

/* This thread's MPI rank in MPI_COMM_WORLD, or -1 in a non-MPI program. */
int ts_rank(void);
/* This thread's index among the MPI processes of its cluster, or -1. */
int ts_local_index(void);

/* Writes len bytes to the console as one piece (TS_SYS_WRITE), bypassing
 * stdio's per-thread line buffer. */
void ts_console_write(const char *buf, unsigned long len);
/* Writes out what the calling thread's stdout and stderr hold in their
 * shared line buffer, a partial line included. Returns 1 when the thread's
 * stdio output so far ends in the middle of a line, else 0 (so that a
 * report can start on a line of its own). */
int ts_console_flush(void);

/* Time: the `time` CSR (ticks of ts_job()->timebase_hz). sleep(3) and
 * usleep(3) of <unistd.h> sleep with ts_sleep_ns too. */
unsigned long ts_time(void);
int ts_sleep_ns(unsigned long ns);

/* Threads. ts_thread_create runs fn(arg) on a free core with its own TLS
 * block; returning from fn ends the thread with status 0. */
int ts_thread_create(void (*fn)(void *), void *arg);
int ts_thread_join(int tid, int *status);
int ts_thread_self(void);
void ts_thread_exit(int status) __attribute__((noreturn));
/* Ends the whole job with exit status `code` (MPI_Abort). */
void ts_job_abort(int code) __attribute__((noreturn));

/* Runs fn() when the calling thread ends (exit, _exit, return from main or
 * from its thread function, ts_thread_exit), the latest registered first.
 * At most TS_THREAD_AT_EXIT_MAX per thread, else -TS_ENFILE. */
#define TS_THREAD_AT_EXIT_MAX 4
int ts_thread_at_exit(void (*fn)(void));

/* Defined by LWMPI (weak: absent from non-MPI programs). The runtime calls
 * it first when a thread ends, with the thread's exit status; LWMPI ends
 * the job there if the thread is an MPI process that called MPI_Init but
 * not MPI_Finalize, so that the other ranks do not wait for it forever. */
void ts_rank_exit_hook(int status) __attribute__((weak));

/* IKC: see <tessera/syscall.h> for the semantics of each call. */
int  ts_mailbox_create(int port);
int  ts_mailbox_open(int local_port, int cluster, int port);
long ts_mailbox_read(int id, void *buf, unsigned long size);
long ts_mailbox_write(int id, const void *buf, unsigned long size);
int  ts_mailbox_close(int id);
int  ts_mailbox_unlink(int id);

int  ts_portal_create(int port);
int  ts_portal_allow(int id, int cluster, int port);
int  ts_portal_open(int local_port, int cluster, int port);
long ts_portal_read(int id, void *buf, unsigned long size);
long ts_portal_write(int id, const void *buf, unsigned long size);
int  ts_portal_close(int id);
int  ts_portal_unlink(int id);

int ts_sync_create(const int *clusters, int n, int type, int port);
int ts_sync_open(const int *clusters, int n, int type, int port);
int ts_sync_wait(int id);
int ts_sync_signal(int id);
int ts_sync_close(int id);
int ts_sync_unlink(int id);

#ifdef __cplusplus
}
#endif

#endif
