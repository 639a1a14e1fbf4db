/* Path resolution for the file client (files.c), with no OS calls, so
 * that the host tests check it. The job's folder is the program's root
 * "/": a working folder is a path relative to it (the empty string for
 * the root itself), in the normal form this produces. */
#ifndef TS_RUNTIME_PATH_H
#define TS_RUNTIME_PATH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Resolves path against the working folder cwd: an absolute path from the
 * root, a relative one from cwd; "." and empty components are dropped,
 * ".." takes one back. out (TS_PATH_MAX + 1 bytes) gets the result, NUL
 * terminated, relative to the root with no "." or ".." left ("" for the
 * root). Its length, or -TS_ENOENT (an empty path), -TS_EACCES (a ".."
 * above the root: outside the job's folder), -TS_ENAMETOOLONG (more than
 * TS_PATH_MAX bytes, or a component longer than TS_NAME_MAX). */
int ts__path_resolve(const char *cwd, const char *path, char *out);

#ifdef __cplusplus
}
#endif

#endif
