/* Who this process is: getpid, gethostname and uname. Neither C library
 * has them (picolibc's raise() calls getpid). */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../internal.h"

/* Process ids number the processes of the machine: 1000 * (cluster + 1),
 * plus the rank's local index under mpirun --ranks processes (the default),
 * where each MPI process of a cluster is a process of its own. Under
 * --ranks threads the MPI processes of a cluster are threads of one
 * process and share its id. Positive and the same for all threads of a
 * process, as POSIX asks; a cluster holds far fewer than 1000 processes. */
pid_t getpid(void) {
    const struct ts_job_info *job = ts_job();
    int local = job->ranks_mode == TS_RANKS_PROCESSES && job->local_index > 0 ? job->local_index : 0;
    return (pid_t)(1000 * (job->cluster_id + 1) + local);
}

/* The host is the cluster: "cluster<id>", as MPI_Get_processor_name's
 * name starts. 0, or -1 with errno ENAMETOOLONG when the name and its NUL
 * do not fit in len bytes (as Linux does), EFAULT for a null name. */
int gethostname(char *name, size_t len) {
    char host[32] = "cluster";
    char digits[12];
    int n = 0;
    for (unsigned id = (unsigned)ts_job()->cluster_id; n == 0 || id; id /= 10)
        digits[n++] = (char)('0' + id % 10);
    size_t at = strlen(host);
    while (n)
        host[at++] = digits[--n];
    host[at] = 0;
    if (!name) {
        errno = EFAULT;
        return -1;
    }
    if (at + 1 > len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(name, host, at + 1);
    return 0;
}

/* The processor, as Linux's uname -m names it. */
#if defined(__riscv) && __riscv_xlen == 64
#define TS__MACHINE "riscv64"
#elif defined(__x86_64__)
#define TS__MACHINE "x86_64"
#endif

/* TS_RELEASE (the project's version) and TS_PLATFORM come from the build
 * (userland/CMakeLists.txt). */
int uname(struct utsname *name) {
    if (!name) {
        errno = EFAULT;
        return -1;
    }
    memset(name, 0, sizeof *name);
    strcpy(name->sysname, "Tessera");
    gethostname(name->nodename, sizeof name->nodename);
    strncpy(name->release, TS_RELEASE, sizeof name->release - 1);
    strncpy(name->version, TS_PLATFORM, sizeof name->version - 1);
    strcpy(name->machine, TS__MACHINE);
    return 0;
}
