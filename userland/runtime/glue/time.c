/* The C library's clocks (gettimeofday, clock_gettime, time, clock) from
 * ts_time(): time since the machine started; sleep, usleep and nanosleep
 * over the kernel's sleep; times and getrusage. There is no wall clock: CLOCK_REALTIME and
 * gettimeofday count from the machine's start too, like CLOCK_MONOTONIC
 * (nothing can set them). */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "../internal.h"

#define NS_PER_S 1000000000ul

static unsigned long now_us(void) { return ts__time_in(1000000ul); }

int gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    unsigned long us = now_us();
    if (tv) {
        tv->tv_sec = (time_t)(us / 1000000);
        tv->tv_usec = (suseconds_t)(us % 1000000);
    }
    return 0;
}

/* POSIX clock_gettime (CLOCK_REALTIME, CLOCK_MONOTONIC): 0, or -1 with
 * errno EINVAL for another clock, EFAULT for a null tp. */
int clock_gettime(clockid_t clock_id, struct timespec *tp) {
    if (clock_id != CLOCK_REALTIME && clock_id != CLOCK_MONOTONIC) {
        errno = EINVAL;
        return -1;
    }
    if (!tp) {
        errno = EFAULT;
        return -1;
    }
    unsigned long ns = ts__time_in(NS_PER_S);
    tp->tv_sec = (time_t)(ns / NS_PER_S);
    tp->tv_nsec = (long)(ns % NS_PER_S);
    return 0;
}

/* C11 timespec_get: CLOCK_REALTIME's time, and base; 0 (nothing
 * written) when base is not TIME_UTC. */
int timespec_get(struct timespec *ts, int base) {
    if (base != TIME_UTC || clock_gettime(CLOCK_REALTIME, ts) != 0) return 0;
    return base;
}

/* One tick of ts_time() (at least 1 ns), for both clocks; errors as for
 * clock_gettime, a null res allowed. */
int clock_getres(clockid_t clock_id, struct timespec *res) {
    if (clock_id != CLOCK_REALTIME && clock_id != CLOCK_MONOTONIC) {
        errno = EINVAL;
        return -1;
    }
    if (res) {
        unsigned long hz = ts_job()->timebase_hz;
        res->tv_sec = 0;
        res->tv_nsec = (long)(hz && hz < NS_PER_S ? (NS_PER_S + hz - 1) / hz : 1);
    }
    return 0;
}

/* A process's CPU time, as far as the system knows it: the kernel keeps no
 * count of it, but a process's thread owns its core from the machine's
 * start (when spawn starts the programs) and is never preempted, so the
 * time since then bounds it from above. None of it is the kernel's: it
 * serves a call on the caller's core or on the master, and counts neither.
 *
 * clock() adds times()'s up in CLOCKS_PER_SEC (10^6) units, which are
 * also sysconf(_SC_CLK_TCK)'s. Children: none, ever (no fork). */
clock_t times(struct tms *t) {
    clock_t us = (clock_t)now_us();
    if (t) {
        t->tms_utime = us;
        t->tms_stime = t->tms_cutime = t->tms_cstime = 0;
    }
    return us;
}

/* POSIX getrusage: RUSAGE_SELF's ru_utime is times()'s (above), ru_maxrss
 * the heap's peak in KiB (the memory the process asked the kernel for,
 * beyond its image and stack); RUSAGE_CHILDREN's are all 0, there being
 * none. Every other field is 0. 0, or -1 with errno EINVAL (who), EFAULT
 * (null usage). */
int getrusage(int who, struct rusage *usage) {
    if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN) {
        errno = EINVAL;
        return -1;
    }
    if (!usage) {
        errno = EFAULT;
        return -1;
    }
    memset(usage, 0, sizeof *usage);
    if (who == RUSAGE_SELF) {
        unsigned long us = now_us();
        usage->ru_utime.tv_sec = (time_t)(us / 1000000);
        usage->ru_utime.tv_usec = (suseconds_t)(us % 1000000);
        usage->ru_maxrss = (long)(ts__heap_peak() / 1024);
    }
    return 0;
}

/* Sleeps ns nanoseconds: 0, or -1 with errno EINVAL when the kernel
 * refuses. Nothing interrupts a sleep here, so no time is ever left over. */
static int sleep_ns(unsigned long ns) {
    if (ts_sleep_ns(ns) < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

unsigned sleep(unsigned seconds) {
    sleep_ns(seconds * NS_PER_S);
    return 0;
}

int usleep(useconds_t us) { return sleep_ns(us * 1000ul); }

/* POSIX nanosleep: -1 with errno EINVAL when tv_nsec is outside
 * 0..999999999 or tv_sec is negative, EFAULT for a null rqtp. A sleep
 * longer than ULONG_MAX ns (584 years) is cut to that. *rmtp (if given)
 * is left as it is: it is only written when a signal interrupts the
 * sleep, which cannot happen here. */
int nanosleep(const struct timespec *rqtp, struct timespec *rmtp) {
    (void)rmtp;
    if (!rqtp) {
        errno = EFAULT;
        return -1;
    }
    if (rqtp->tv_sec < 0 || rqtp->tv_nsec < 0 || rqtp->tv_nsec >= (long)NS_PER_S) {
        errno = EINVAL;
        return -1;
    }
    unsigned long sec = (unsigned long)rqtp->tv_sec, nsec = (unsigned long)rqtp->tv_nsec;
    unsigned long ns = sec > (ULONG_MAX - nsec) / NS_PER_S ? ULONG_MAX : sec * NS_PER_S + nsec;
    return sleep_ns(ns);
}
