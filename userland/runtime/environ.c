/* The environment a program starts with: the "NAME=VALUE" strings mpirun
 * -x gave the job (TS_SYS_JOB_ENV; none: the C library's empty one). Both
 * C libraries (picolibc, newlib) keep it in `environ`, which getenv reads
 * and setenv, putenv and unsetenv change; the strings and the array are
 * the process's own copy on the heap, so that they may change them in
 * place. Under --ranks threads the ranks of a cluster share it, as they
 * share the process. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

extern char **environ;

void ts__environ_init(void) {
    if (ts_job_env(0, 0) <= 0) return; /* copies nothing: the size only */
    char *text = malloc(TS_ENV_MAX + 1);
    long bytes = text ? ts_job_env(text, TS_ENV_MAX) : -1;
    if (bytes <= 0) {
        free(text);
        return;
    }
    if (bytes > TS_ENV_MAX) bytes = TS_ENV_MAX;
    text[bytes] = '\0'; /* never trust the block's last NUL */
    size_t n = 0;
    for (char *p = text; p < text + bytes; p += strlen(p) + 1)
        ++n;
    char **env = malloc((n + 1) * sizeof *env);
    if (!env) {
        free(text);
        return;
    }
    n = 0;
    for (char *p = text; p < text + bytes; p += strlen(p) + 1)
        if (strchr(p, '=') && *p != '=') /* only NAME=VALUE forms */
            env[n++] = p;
    env[n] = 0;
    environ = env;
}
