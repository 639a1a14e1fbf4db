/*
 * The name service (docs/services.md, "Names").
 *
 * - The name server on cluster 0 links names to clusters: ts_name_link,
 *   ts_name_lookup, ts_name_unlink.
 * - The local name daemon of every compute cluster (it runs in the kernel
 *   on the cluster's master core) gives names logical addresses (cluster,
 *   port): ts_name_register adds a name of this cluster to its table and
 *   links it at the name server; ts_name_resolve answers from the local
 *   table, then from a small cache of remote resolutions, then asks the
 *   name server for the cluster and that cluster's daemon for the port.
 *   These calls return -TS_ENOSYS on an I/O cluster, which has no daemon.
 *
 * Every call is one request and one reply; a thread has at most one request
 * in flight (replies come back to its own mailbox, port
 * TS_PORT_NAME_REPLY_BASE + its core), so any thread may call these at any
 * time.
 *
 * A name is 1..TS_NAME_MAX characters. Every call also returns
 * -TS_ENAMETOOLONG for a longer name (checked before anything is sent) and
 * -TS_EINVAL for an empty or null one, and a negative kernel error when the
 * server or the daemon cannot be reached. TS_NAME_MAX and struct
 * ts_name_daemon_stats are in <tessera/name_protocol.h>.
 */
#ifndef TESSERA_NAMES_H
#define TESSERA_NAMES_H

#include <tessera/name_protocol.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the name server: name -> cluster --------------------------------------- */

/* 0 | -TS_EEXIST | -TS_ENAMETOOLONG | -TS_EINVAL (bad cluster or name)
 *   | -TS_ENFILE (the table is full) */
int ts_name_link(const char *name, int cluster);
/* the cluster the name is linked to | -TS_ENOENT */
int ts_name_lookup(const char *name);
/* 0 | -TS_ENOENT */
int ts_name_unlink(const char *name);

/* ---- the local name daemon: name -> (cluster, port) ------------------------- */

/* Registers `name` as (this cluster, port) for the calling process, and
 * links it to this cluster at the name server; returns once the name
 * server has answered.
 * 0 | -TS_EEXIST (registered on this cluster, or linked at the name server)
 *   | -TS_EINVAL (port not in 1..TS_PORTS-1) | -TS_ENFILE (the daemon's
 *   table, 32 names, or the name server's is full) */
int ts_name_register(const char *name, int port);
/* The logical address of `name`, in *cluster and *port (both non-null).
 * A cached resolution is not checked again: it outlives an unregister on
 * another cluster until the cache evicts it (least recently used first).
 * 0 | -TS_ENOENT (not registered through a daemon, or linked to a cluster
 *   without one) | -TS_EINVAL (a null pointer) */
int ts_name_resolve(const char *name, int *cluster, int *port);
/* ts_name_resolve in two steps, for a thread that must go on with other
 * work (an MPI rank taking its messages) while the daemon answers: start
 * sends the request; test gives -TS_EAGAIN until the reply is in, then
 * what ts_name_resolve would have returned (and nothing is in flight any
 * more). The request's write and the reply's read are asynchronous IKC
 * operations of the thread, so their ends are events of
 * ts_ikc_wait_any. A thread has one request in flight: start gives
 * -TS_EBUSY while one is (and so does every other call here); test gives
 * -TS_EINVAL when none is. Test until the end before the thread ends. */
int ts_name_resolve_start(const char *name);
int ts_name_resolve_test(int *cluster, int *port);
/* Removes a name the calling process registered on this cluster, here and
 * at the name server.
 * 0 | -TS_ENOENT (not registered on this cluster) | -TS_EPERM (registered
 *   by another process) */
int ts_name_unregister(const char *name);
/* 0, and the daemon's counters in *stats | -TS_EINVAL (null) */
int ts_name_daemon_stats(struct ts_name_daemon_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
