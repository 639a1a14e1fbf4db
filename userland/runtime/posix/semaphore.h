/* POSIX unnamed semaphores (IEEE Std 1003.1-2017, <semaphore.h>) over
 * the runtime's futex semaphores, between the threads of a process.
 * Neither C library has them.
 *
 * Functions return 0, or -1 with errno set: EINVAL for a null semaphore or
 * value, for a value above SEM_VALUE_MAX and, when the call would wait,
 * for tv_nsec outside [0, 10^9); ENOTSUP from sem_init for a
 * process-shared semaphore (Tessera's processes share no memory at one
 * address); EAGAIN from sem_trywait when the value is 0; ETIMEDOUT once
 * abstime (CLOCK_REALTIME, which Tessera counts from the machine's start
 * as CLOCK_MONOTONIC; sem_clockwait: `clock`) has passed; EOVERFLOW from
 * sem_post at SEM_VALUE_MAX; EBUSY from sem_destroy while a thread waits.
 * Named semaphores (sem_open) are left out: a program that calls them
 * fails to link. */
#ifndef TESSERA_SEMAPHORE_H
#define TESSERA_SEMAPHORE_H

#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's ts_sem_t: units, and threads that may sleep for one. */
typedef struct {
    unsigned __value;
    unsigned __waiters;
} sem_t;

#define SEM_VALUE_MAX 0x7fffffff

int sem_init(sem_t *sem, int pshared, unsigned value);
int sem_destroy(sem_t *sem);
int sem_wait(sem_t *sem);
int sem_trywait(sem_t *sem);
int sem_timedwait(sem_t *sem, const struct timespec *abstime);
int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime);
int sem_post(sem_t *sem);
int sem_getvalue(sem_t *sem, int *value);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_SEMAPHORE_H */
