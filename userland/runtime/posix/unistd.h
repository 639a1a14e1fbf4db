/* <unistd.h>: the C library's, plus the POSIX options of threads that
 * Tessera's runtime provides (<pthread.h>, <semaphore.h>), which neither
 * C library announces for a system of its own (newlib and picolibc define
 * them for RTEMS and Cygwin only). Configuration checks read them here:
 * libstdc++'s, for timed mutexes and semaphores. */
#include_next <unistd.h>

#ifndef TESSERA_UNISTD_H
#define TESSERA_UNISTD_H

#ifndef _POSIX_THREADS
#define _POSIX_THREADS 200809L
#endif
#ifndef _POSIX_THREAD_ATTR_STACKSIZE
#define _POSIX_THREAD_ATTR_STACKSIZE 200809L
#endif
#ifndef _POSIX_TIMEOUTS
#define _POSIX_TIMEOUTS 200809L
#endif
#ifndef _POSIX_SEMAPHORES
#define _POSIX_SEMAPHORES 200809L
#endif
#ifndef _POSIX_READER_WRITER_LOCKS
#define _POSIX_READER_WRITER_LOCKS 200809L
#endif
#ifndef _POSIX_BARRIERS
#define _POSIX_BARRIERS 200809L
#endif
#ifndef _POSIX_SPIN_LOCKS
#define _POSIX_SPIN_LOCKS 200809L
#endif

#endif /* TESSERA_UNISTD_H */
