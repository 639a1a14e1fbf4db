/* What the suite's programs share: per-process state, failure reports and
 * checks. Portable C11 over mpi.h and the C library (the programs run on
 * Open MPI too). Define NAME (the program's name) before including it.
 *
 * A failed check prints "FAIL <NAME>.c:<line>: rank <r>: <phase>: <what>"
 * and ends the job with status 1. */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-process state: thread-local, since an implementation may run its MPI
 * processes as threads of one program (Tessera's LWMPI does). */
static _Thread_local int me = -1, np = 0;
/* What is being checked, for failure reports. */
static _Thread_local const char *phase = "init";

static inline void fail_at(int line, const char *fmt, ...) {
    int init = 0, fin = 0;
    va_list ap;
    printf("FAIL " NAME ".c:%d: rank %d: %s: ", line, me, phase);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define FAIL(...) fail_at(__LINE__, __VA_ARGS__)
#define CHECK(cond)                     \
    do {                                \
        if (!(cond)) FAIL("%s", #cond); \
    } while (0)
#define CHECK_EQ(a, b)                                               \
    do {                                                             \
        long long a_ = (long long)(a), b_ = (long long)(b);          \
        if (a_ != b_) FAIL("%s is %lld, expected %lld", #a, a_, b_); \
    } while (0)
#define MPI_OK(call)                                                \
    do {                                                            \
        int rc_ = (call);                                           \
        if (rc_ != MPI_SUCCESS) FAIL("%s returned %d", #call, rc_); \
    } while (0)

/* `call` (made with MPI_ERRORS_RETURN) fails with an error of class
 * `cls`. */
static inline void check_class_at(int line, const char *text, int rc, int cls) {
    int got = -1;
    if (rc == MPI_SUCCESS) fail_at(line, "%s succeeded; expected error class %d", text, cls);
    if (MPI_Error_class(rc, &got) != MPI_SUCCESS)
        fail_at(line, "%s returned %d, which has no class", text, rc);
    if (got != cls) fail_at(line, "%s returned class %d; expected %d", text, got, cls);
}
#define EXPECT_CLASS(call, cls) check_class_at(__LINE__, #call, (call), cls)

/* True under Open MPI 3 or 4, which departs from MPI 3.1 here and there
 * (the README says where): the suites step around those checks there. */
static inline int open_mpi_3_or_4(void) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    return strstr(lib, "Open MPI v4.") != NULL || strstr(lib, "Open MPI v3.") != NULL;
}

static inline void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) FAIL("out of memory (%lu bytes)", (unsigned long)n);
    return p;
}

/* A barrier on MPI_COMM_WORLD, then the next phase's name. */
static inline void sync_all(const char *next) {
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    phase = next;
}

#endif
