/*
 * Messages of the name service (the ABI between the name client, names.c, the
 * name server, a user program on cluster 0, and the local name daemons,
 * kernel-resident, one per compute cluster).
 *
 * Requests go to the name server's mailbox (cluster TS_NAMESERVER_CLUSTER,
 * port TS_PORT_NAMESERVER) or to a compute cluster's daemon (port
 * TS_PORT_NAME_DAEMON); the reply goes to the mailbox the request names,
 * with the request's seq. Every message starts with its op, so one mailbox
 * can take both requests and replies (the daemon's does). Both fit one
 * mailbox message of the smallest size a profile may give: 96 bytes, 8 of
 * them the kernel's IKC header (tools/tessera/profile.py).
 */
#ifndef TESSERA_NAME_PROTOCOL_H
#define TESSERA_NAME_PROTOCOL_H

#include <stdint.h>
#include <tessera/syscall.h>

#define TS_NAMESERVER_CLUSTER 0

/* A name is 1..TS_NAME_MAX characters. */
#define TS_NAME_MAX 63

/* Counters and sizes of this cluster's daemon, since boot. */
struct ts_name_daemon_stats {
    unsigned long local_hits; /* resolutions answered from the local table */
    unsigned long cache_hits; /* resolutions answered from the cache */
    unsigned long misses;     /* resolutions that asked the name server (unknown names too) */
    unsigned long queries;    /* port queries answered for other clusters' daemons */
    unsigned int names;       /* names registered on this cluster now */
    unsigned int cached;      /* resolutions in the cache now (at most 16) */
};

enum ts_name_op {
    /* To the name server: name -> cluster. */
    TS_NAME_LINK = 1,   /* arg: the cluster -> 0 */
    TS_NAME_LOOKUP = 2, /* -> the cluster */
    TS_NAME_UNLINK = 3, /* -> 0 */
    /* To the local name daemon, from a process of its cluster (the reply
     * port is TS_PORT_NAME_REPLY_BASE + the caller's core). */
    TS_NAME_REGISTER = 4,   /* arg: the port -> 0 */
    TS_NAME_RESOLVE = 5,    /* -> the cluster, and the port */
    TS_NAME_UNREGISTER = 6, /* -> 0 */
    TS_NAME_STATS = 7,      /* -> 0, and the stats */
    /* Daemon to daemon: the port of a name of the receiver's cluster, from
     * its local table only. arg: the slot of the asking daemon's request
     * (the answering daemon keeps one answer per asking slot until it is
     * out). */
    TS_NAME_PORT = 8, /* -> the receiver's cluster, and the port */
    /* Every reply. */
    TS_NAME_REPLY = 9,
};

struct ts_name_request {
    int32_t op;            /* enum ts_name_op */
    uint32_t seq;          /* echoed in the reply */
    int32_t arg;           /* see enum ts_name_op */
    int32_t reply_cluster; /* where the reply goes */
    int32_t reply_port;
    char name[TS_NAME_MAX + 1]; /* NUL-terminated */
};

struct ts_name_reply {
    int32_t op;                        /* TS_NAME_REPLY */
    uint32_t seq;                      /* the request's */
    int32_t result;                    /* >= 0, or -TS_E* */
    int32_t port;                      /* TS_NAME_RESOLVE, TS_NAME_PORT: the port */
    struct ts_name_daemon_stats stats; /* TS_NAME_STATS only */
};

/* 0 for a valid name (1..TS_NAME_MAX characters), else -TS_EINVAL (null
 * or empty) or -TS_ENAMETOOLONG. Reads at most TS_NAME_MAX + 1 bytes, so
 * it also checks a name field off the wire, which need not be terminated.
 * It calls no C library function: the kernel has none. */
static inline int ts_name_check(const char *name) {
    if (!name || !name[0]) return -TS_EINVAL;
    for (int n = 1; n <= TS_NAME_MAX; ++n)
        if (!name[n]) return 0;
    return -TS_ENAMETOOLONG;
}

/* Any message of the protocol: its op says which. */
union ts_name_message {
    int32_t op;
    struct ts_name_request req;
    struct ts_name_reply rep;
};

#define TS_NAME_MIN_PAYLOAD (96 - 8)
#ifdef __cplusplus
static_assert(sizeof(union ts_name_message) <= TS_NAME_MIN_PAYLOAD, "a message fits one mailbox message");
#else
_Static_assert(sizeof(union ts_name_message) <= TS_NAME_MIN_PAYLOAD, "a message fits one mailbox message");
#endif

#endif
