/*
 * Private interfaces of the user runtime (not for programs or LWMPI).
 * Names start with ts__ so they never clash with user code.
 */
#ifndef TS_RUNTIME_INTERNAL_H
#define TS_RUNTIME_INTERNAL_H

#include <stdint.h>
#include <tessera/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one ecall of the runtime: a7 = number, a0..a5 = arguments, a0 =
 * result (negative: -TS_E*). The kernel keeps every other register. */
static inline long ts__syscall(long n, long a, long b, long c, long d, long e, long f)
{
    register long a0 __asm__("a0") = a;
    register long a1 __asm__("a1") = b;
    register long a2 __asm__("a2") = c;
    register long a3 __asm__("a3") = d;
    register long a4 __asm__("a4") = e;
    register long a5 __asm__("a5") = f;
    register long a7 __asm__("a7") = n;
    __asm__ volatile("ecall"
                     : "+r"(a0)
                     : "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a7)
                     : "memory");
    return a0;
}

#define TS__SC0(n)                ts__syscall((n), 0, 0, 0, 0, 0, 0)
#define TS__SC1(n, a)             ts__syscall((n), (long)(a), 0, 0, 0, 0, 0)
#define TS__SC2(n, a, b)          ts__syscall((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define TS__SC3(n, a, b, c)       ts__syscall((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define TS__SC4(n, a, b, c, d)    ts__syscall((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* Spinlock (amoswap), for sbrk's break only: it is taken under malloc's
 * lock, so it is never contended and need not sleep. Everything else uses
 * ts_mutex_t, which sleeps in the kernel. */
typedef struct { volatile int locked; } ts__spinlock;
void ts__spin_lock(ts__spinlock *l);
void ts__spin_unlock(ts__spinlock *l);

/* The calling thread's identity for recursive locks: its TLS pointer (unique
 * per live thread), never 0. */
static inline uintptr_t ts__self_id(void)
{
    uintptr_t tp;
    __asm__("mv %0, tp" : "=r"(tp));
    return tp | 1;
}

/* The time since the machine started in units of 1/per_second s (10^6:
 * microseconds), exact and without overflow for any timebase up to 18 GHz;
 * raw ticks when the timebase is unknown. */
static inline unsigned long ts__time_in(unsigned long per_second)
{
    unsigned long t = ts_time(), hz = ts_job()->timebase_hz;
    if (!hz)
        return t;
    return t / hz * per_second + t % hz * per_second / hz;
}

/* Ends the calling thread: calls ts_rank_exit_hook, runs the exit handlers
 * when it is the process's last thread (unless `quick`), then the thread's
 * own at-exit functions, flushes its output, frees its TLS. */
void ts__thread_finish(int status, int quick) __attribute__((noreturn));

/* Per-thread MPI identity (set by crt0's rank start-up). */
extern __thread int ts__rank;
/* 1 on the thread that runs a rank's main() (not on threads it creates). */
extern __thread int ts__rank_main;
extern __thread int ts__local;

/* Called by crt0 on the main thread with gp set; never returns. */
void ts__start(void) __attribute__((noreturn));
/* Entered by new threads from crt0's trampoline, tp already set. */
struct ts__thread_start;
void ts__thread_main(struct ts__thread_start *s) __attribute__((noreturn));
/* crt0's trampoline: the entry given to TS_SYS_THREAD_CREATE. */
void ts__thread_entry(void *start);

/* The main thread's static TLS block (user.ld). */
extern char __ts_main_tls[];

#ifdef __cplusplus
}
#endif

#endif
