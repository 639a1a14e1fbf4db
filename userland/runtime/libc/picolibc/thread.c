/* picolibc keeps all of a thread's state (errno, stdio's) in TLS, which
 * thread.c frees with the thread's area: nothing else to release. */
#include "../../internal.h"

void ts__libc_thread_end(void) {}
