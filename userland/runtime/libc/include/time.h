/* <time.h>: the C library's, plus the POSIX clocks Tessera has. picolibc
 * and newlib declare clock_gettime, clock_getres and nanosleep, and define
 * CLOCK_MONOTONIC, only where the system defines _POSIX_TIMERS and
 * _POSIX_MONOTONIC_CLOCK (RTEMS, Cygwin); Tessera has those calls
 * (userland/runtime/glue/time.c) but not the rest of _POSIX_TIMERS (no
 * timer_create), so it declares just these. Neither has C11's
 * timespec_get, which libstdc++'s <ctime> names in C++17. This folder
 * comes before the C library's in every user program's include path. */
#include_next <time.h>

#ifndef TS_RUNTIME_TIME_H
#define TS_RUNTIME_TIME_H

#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC ((clockid_t)4)
#endif

#ifndef TIME_UTC
#define TIME_UTC 1
#endif

#ifdef __cplusplus
extern "C" {
#endif
int timespec_get(struct timespec *ts, int base);
#ifdef __cplusplus
}
#endif

#if !defined(_POSIX_TIMERS)
#ifdef __cplusplus
extern "C" {
#endif
int clock_gettime(clockid_t clock_id, struct timespec *tp);
int clock_getres(clockid_t clock_id, struct timespec *res);
int nanosleep(const struct timespec *rqtp, struct timespec *rmtp);
#ifdef __cplusplus
}
#endif
#endif

#endif
