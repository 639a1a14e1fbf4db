/*
 * The name client: names -> clusters, kept by the name server on cluster 0
 * (DESIGN section 3, services). Every call is one request and one reply;
 * a thread has at most one request in flight (replies come back to its own
 * mailbox, port TS_PORT_NAME_REPLY_BASE + its core), so any thread may call
 * these at any time.
 *
 * A name is 1..TS_NAME_MAX characters. Every call also returns
 * -TS_ENAMETOOLONG for a longer name and -TS_EINVAL for an empty or null
 * one, and a negative kernel error when the name server cannot be reached.
 */
#ifndef TESSERA_NAMES_H
#define TESSERA_NAMES_H

#include <tessera/syscall.h>

#define TS_NAME_MAX 63

#ifdef __cplusplus
extern "C" {
#endif

/* 0 | -TS_EEXIST | -TS_ENAMETOOLONG | -TS_EINVAL (bad cluster or name)
 *   | -TS_ENFILE (the table is full) */
int ts_name_link(const char *name, int cluster);
/* the cluster the name is linked to | -TS_ENOENT */
int ts_name_lookup(const char *name);
/* 0 | -TS_ENOENT */
int ts_name_unlink(const char *name);

#ifdef __cplusplus
}
#endif

#endif
