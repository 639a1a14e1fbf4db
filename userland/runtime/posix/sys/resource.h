/* POSIX <sys/resource.h> (POSIX.1-2017, sys/resource.h) with Linux's
 * struct rusage, in place of the C libraries' (two fields only), so that
 * programs that read ru_maxrss build. docs/programs.md says which fields
 * getrusage fills with what the system knows; the others are 0.
 * getrlimit, setrlimit, getpriority and setpriority are declared as POSIX
 * says but not provided: a program that calls them fails to link, naming
 * them. */
#ifndef TESSERA_SYS_RESOURCE_H
#define TESSERA_SYS_RESOURCE_H

#include <sys/time.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RUSAGE_SELF     0
#define RUSAGE_CHILDREN (-1)

#define PRIO_PROCESS 0
#define PRIO_PGRP    1
#define PRIO_USER    2

#define RLIMIT_CPU    0
#define RLIMIT_FSIZE  1
#define RLIMIT_DATA   2
#define RLIMIT_STACK  3
#define RLIMIT_CORE   4
#define RLIMIT_NOFILE 7
#define RLIMIT_AS     9

typedef unsigned long rlim_t;
#define RLIM_INFINITY  (~(rlim_t)0)
#define RLIM_SAVED_MAX RLIM_INFINITY
#define RLIM_SAVED_CUR RLIM_INFINITY

struct rlimit {
    rlim_t rlim_cur;
    rlim_t rlim_max;
};

struct rusage {
    struct timeval ru_utime; /* user time used */
    struct timeval ru_stime; /* system time used */
    long ru_maxrss;          /* most memory held at once, KiB */
    long ru_ixrss;
    long ru_idrss;
    long ru_isrss;
    long ru_minflt;
    long ru_majflt;
    long ru_nswap;
    long ru_inblock;
    long ru_oublock;
    long ru_msgsnd;
    long ru_msgrcv;
    long ru_nsignals;
    long ru_nvcsw;
    long ru_nivcsw;
};

/* What the caller (RUSAGE_SELF) or its ended children (RUSAGE_CHILDREN:
 * none, ever) used: 0, or -1 with errno EINVAL (who), EFAULT (null usage). */
int getrusage(int who, struct rusage *usage);
int getrlimit(int resource, struct rlimit *rlp);
int setrlimit(int resource, const struct rlimit *rlp);
int getpriority(int which, id_t who);
int setpriority(int which, id_t who, int value);

#ifdef __cplusplus
}
#endif

#endif
