/*
 * Private interfaces of the user runtime (not for programs or LWMPI).
 * Names start with ts__ so they never clash with user code.
 */
#ifndef TS_RUNTIME_INTERNAL_H
#define TS_RUNTIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <tessera/arch.h>
#include <time.h>
#include <tessera/runtime.h>

#include "arch.h" /* arch/<platform>/arch.h: ts__thread_pointer */

#ifdef __cplusplus
extern "C" {
#endif

/* The one kernel call of the runtime: number, up to four arguments; the
 * result (negative: -TS_E*). <tessera/arch.h> says how on each platform. */
static inline long ts__syscall(long n, long a, long b, long c, long d) {
    return ts_arch_kcall(n, a, b, c, d);
}

/* TS__SC(number, args...): a kernel call with 0 to 4 arguments, the
 * missing ones 0. */
#define TS__SC(...)                    TS__SC_PAD(__VA_ARGS__, 0, 0, 0, 0)
#define TS__SC_PAD(n, a, b, c, d, ...) ts__syscall((n), (long)(a), (long)(b), (long)(c), (long)(d))

/* Spinlock (atomic swap), for sbrk's break only: it is taken under malloc's
 * lock, so it is never contended and need not sleep. Everything else uses
 * ts_mutex_t, which sleeps in the kernel. */
typedef struct {
    volatile int locked;
} ts__spinlock;
void ts__spin_lock(ts__spinlock *l);
void ts__spin_unlock(ts__spinlock *l);

/* The calling thread's identity for recursive locks: its TLS pointer (unique
 * per live thread), never 0. */
static inline uintptr_t ts__self_id(void) { return ts__thread_pointer() | 1; }

/* The size of a page of user memory (the kernel maps and breaks in pages):
 * sysconf(_SC_PAGESIZE) and getpagesize() return it. */
#define TS__PAGE_SIZE 4096ul

/* The time since the machine started in units of 1/per_second s (10^6:
 * microseconds), exact and without overflow for any timebase up to 18 GHz;
 * raw ticks when the timebase is unknown. */
static inline unsigned long ts__time_in(unsigned long per_second) {
    unsigned long t = ts_time(), hz = ts_job()->timebase_hz;
    if (!hz) return t;
    return t / hz * per_second + t % hz * per_second / hz;
}

/* The calling rank's share of its cluster's cores, its own included: the
 * cores that neither the master nor a rank runs on, divided among the
 * ranks the cluster holds, plus one (docs/programs.md, "Threads in MPI
 * programs"). At least 1. sysconf(_SC_NPROCESSORS_ONLN) says it;
 * pthread_create starts no more threads than it leaves room for. */
int ts__core_share(void);

/* The time a timed wait ends: abstime on `clock` (CLOCK_REALTIME or
 * CLOCK_MONOTONIC, which count alike from the machine's start), as
 * ts__time_in(10^9) would say it. 0, EINVAL for another clock or tv_nsec
 * outside [0, 10^9), ETIMEDOUT when it has passed. */
int ts__deadline(clockid_t clock, const struct timespec *abstime, unsigned long *deadline_ns);

/* Says once per process, on stderr, that its heap of `heap` bytes could
 * not grow by `more` bytes, and what gives more memory (glue/oom.c). */
void ts__out_of_memory(unsigned long heap, unsigned long more);

/* The most heap the process has held at once, in bytes: the kernel's
 * break at its highest, less where the heap begins (glue/sbrk.c). */
unsigned long ts__heap_peak(void);

/* How a thread ends: ts_thread_exit (and pthread_exit) end the thread
 * alone; exit() and _exit() in the last thread running main end the
 * process, with the threads it left running (an OpenMP thread pool), as
 * POSIX says; _exit without the exit handlers. */
enum ts__end { TS__END_THREAD, TS__END_EXIT, TS__END_QUICK_EXIT };

/* Ends the calling thread as `how` says: calls ts_rank_exit_hook, runs
 * the exit handlers when it ends the process or is its last thread
 * (unless TS__END_QUICK_EXIT), then the thread's own at-exit functions,
 * flushes its output, frees its TLS. */
void ts__thread_finish(int status, enum ts__end how) __attribute__((noreturn));

/* Main runs in `count` threads of the process (its one main, or each of
 * its MPI processes'): start.c says so before the first starts, so that
 * exit() in one of them sees the others even if they have not begun. */
void ts__mains_expected(int count);
/* The calling thread runs main (start.c). */
void ts__main_begins(void);

/* Per-thread MPI identity (set by crt0's rank start-up). */
extern __thread int ts__rank;
/* 1 on the thread that runs a rank's main() (not on threads it creates). */
extern __thread int ts__rank_main;
extern __thread int ts__local;

/* Points the C library's `environ` at a private copy of the job's
 * environment (TS_SYS_JOB_ENV, mpirun -x), once per process, before any
 * other thread exists (environ.c). */
void ts__environ_init(void);

/* Called by crt0 on the main thread (with gp set on RISC-V); never
 * returns. */
void ts__start(void) __attribute__((noreturn));
/* Entered by new threads from crt0's trampoline, the thread pointer
 * already set. */
struct ts__thread_start;
void ts__thread_main(struct ts__thread_start *s) __attribute__((noreturn));
/* crt0's trampoline: the entry given to TS_SYS_THREAD_CREATE. */
void ts__thread_entry(void *start);

/* The main thread's static TLS area (user.ld). */
extern char __ts_main_tls[];

/* Thread-local storage (arch/<platform>/tls.c). A thread's TLS area is
 * ts__tls_area_size() bytes aligned to ts__tls_area_align(); ts__tls_init
 * fills one from the program's template and returns the thread pointer
 * for it; ts__tls_set makes that the calling thread's (crt0 does it for
 * new threads, ts__start for the main thread). */
size_t ts__tls_area_size(void);
size_t ts__tls_area_align(void);
void *ts__tls_init(void *area);
void ts__tls_set(void *tp);

/* The C library's per-thread state (libc/<libc>/): ts__libc_thread_end
 * releases what the calling thread's C library state holds, as the thread
 * ends (after its last use of stdio). */
void ts__libc_thread_end(void);

/* The console's per-thread line buffer (glue/console.c): appends len
 * bytes, writing out every completed line (and any line reaching the
 * buffer's size) with one TS_SYS_WRITE. */
void ts__console_put(const char *buf, unsigned long len);
/* write(2) to the console: writes out the line buffer, then len bytes as
 * they are. */
void ts__console_write_through(const char *buf, unsigned long len);

/* The file client (files.c): the POSIX calls for descriptors 3 and up,
 * which glue/fd.c hands it; -1 with errno on errors, as POSIX's. */
struct stat;
long ts__file_read(int fd, void *buf, size_t len);
long ts__file_write(int fd, const void *buf, size_t len);
/* pread and pwrite: at offset (>= 0, else EINVAL), the file position
 * left where it is. */
long ts__file_pread(int fd, void *buf, size_t len, int64_t offset);
long ts__file_pwrite(int fd, const void *buf, size_t len, int64_t offset);
/* ftruncate (size >= 0, else EINVAL; EINVAL too for a file not open for
 * writing, as Linux answers) and fsync. */
int ts__file_truncate(int fd, int64_t size);
int ts__file_sync(int fd);
int ts__file_close(int fd);
long ts__file_lseek(int fd, long offset, int whence);
int ts__file_fstat(int fd, struct stat *st);
int ts__file_isatty(int fd);
/* The stdio stream of an open file descriptor (picolibc's fopen notes it),
 * forgotten when the descriptor closes; ts__file_streams calls fn on each
 * stream noted now (outside the client's lock: fn may write). */
void ts__file_set_stream(int fd, void *stream);
void ts__file_streams(void (*fn)(void *stream));
/* The C library's (libc/<libc>/): writes out what the open streams still
 * buffer. The file client makes it an exit handler at the first open, so
 * that exit() flushes files as the C standard says. */
void ts__libc_flush_files(void);

#ifdef __cplusplus
}
#endif

#endif
