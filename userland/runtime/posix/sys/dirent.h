/* The C libraries' <dirent.h> takes its types from <sys/dirent.h>, which
 * each has only as an #error ("not supported"): these are Tessera's, for
 * folders of the job's folder through the file server (files.c).
 * opendir, readdir, closedir and rewinddir are provided; the rest of
 * <dirent.h> (fdopendir, dirfd, scandir, seekdir, ...) is not: a program
 * that calls it fails to link, naming it. */
#ifndef TESSERA_SYS_DIRENT_H
#define TESSERA_SYS_DIRENT_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* d_type's values (Linux's numbers). readdir gives a folder, a regular
 * file, or DT_UNKNOWN for anything else the host holds; the other types
 * are named for the programs (and libstdc++'s <filesystem>) that test for
 * them. */
#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK     10
#define DT_SOCK    12

#define NAME_MAX_DIRENT 255

struct dirent {
    ino_t d_ino; /* the entry's place in the listing, from 1: the file server
                  * has no inode numbers, and 0 would read as a deleted entry */
    unsigned char d_type;
    char d_name[NAME_MAX_DIRENT + 1];
};

/* An open folder (files.c). */
typedef struct ts_dir DIR;

#ifdef __cplusplus
}
#endif

#endif
