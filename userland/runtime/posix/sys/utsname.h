/* POSIX <sys/utsname.h> (POSIX.1-2017, sys/utsname.h), which neither C
 * library has: uname() names the system Tessera, the node the cluster the
 * caller runs on (as gethostname does), the release the project's version,
 * the version the platform (qemu-riscv64 or linux64) and the machine the
 * processor (riscv64 or x86_64). */
#ifndef TESSERA_SYS_UTSNAME_H
#define TESSERA_SYS_UTSNAME_H

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of each field, its NUL included: Linux's. */
#define _UTSNAME_LENGTH 65

struct utsname {
    char sysname[_UTSNAME_LENGTH];
    char nodename[_UTSNAME_LENGTH];
    char release[_UTSNAME_LENGTH];
    char version[_UTSNAME_LENGTH];
    char machine[_UTSNAME_LENGTH];
};

/* Fills *name: 0, or -1 with errno EFAULT for a null name. */
int uname(struct utsname *name);

#ifdef __cplusplus
}
#endif

#endif
