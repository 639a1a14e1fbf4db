/* The C library's clocks (gettimeofday, time, clock) from ts_time():
 * time since the machine started; sleep and usleep over the kernel's
 * sleep. */
#include <errno.h>
#include <sys/time.h>
#include <sys/times.h>
#include <unistd.h>

#include "../internal.h"

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

/* clock() adds these up in CLOCKS_PER_SEC (10^6) units. */
clock_t times(struct tms *t) {
    clock_t us = (clock_t)now_us();
    if (t) {
        t->tms_utime = us;
        t->tms_stime = t->tms_cutime = t->tms_cstime = 0;
    }
    return us;
}

/* Nothing interrupts a sleep here, so no time is ever left over. */
unsigned sleep(unsigned seconds) {
    ts_sleep_ns(seconds * 1000000000ul);
    return 0;
}

int usleep(useconds_t us) {
    if (ts_sleep_ns(us * 1000ul) < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}
