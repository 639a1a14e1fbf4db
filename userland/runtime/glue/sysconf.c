/* POSIX sysconf: the values this system can tell; the others are
 * indeterminate (-1, errno unchanged, as POSIX says for a limit or an
 * option the system does not give). Neither C library has sysconf. */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "../internal.h"

/* The highest _SC_ name both C libraries' <sys/unistd.h> define. */
#define SC_LAST _SC_POSIX_26_VERSION

/* The value of name: -1 with errno EINVAL when name is none of the C
 * library's _SC_ names. _SC_NPROCESSORS_CONF is the cores that run the
 * threads of programs in the caller's cluster: all but the master core,
 * which runs the kernel (16 on an MPPA-256 compute cluster).
 * _SC_NPROCESSORS_ONLN is the calling rank's share of them, its own core
 * included: as many threads as it may run at once (docs/programs.md,
 * "Threads in MPI programs"). _SC_CLK_TCK is the unit of times() and
 * clock() (10^6 a second). */
long sysconf(int name) {
    switch (name) {
    case _SC_PAGESIZE: return (long)TS__PAGE_SIZE;
    case _SC_NPROCESSORS_CONF: return ts_job()->ncores - 1;
    case _SC_NPROCESSORS_ONLN: return ts__core_share();
    case _SC_CLK_TCK: return CLOCKS_PER_SEC;
    default:
        if (name < 0 || name > SC_LAST) errno = EINVAL;
        return -1;
    }
}
