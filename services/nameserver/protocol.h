/*
 * Messages between the name client and the name server. A request goes to
 * the server's mailbox (cluster TS_NAMESERVER_CLUSTER, port
 * TS_PORT_NAMESERVER); the reply goes to the mailbox the request names.
 * Both fit one mailbox message of the smallest size a profile may give:
 * 96 bytes, 8 of them the kernel's IKC header (tools/tessera_profile.py).
 */
#ifndef TS_NAMES_PROTOCOL_H
#define TS_NAMES_PROTOCOL_H

#include <stdint.h>
#include <tessera/names.h>

#define TS_NAMESERVER_CLUSTER 0

enum ts_name_op { TS_NAME_LINK = 1, TS_NAME_LOOKUP = 2, TS_NAME_UNLINK = 3 };

struct ts_name_request {
    int32_t op;            /* enum ts_name_op */
    uint32_t seq;          /* echoed in the reply */
    int32_t cluster;       /* TS_NAME_LINK: the cluster to link to */
    int32_t reply_cluster; /* where the reply goes */
    int32_t reply_port;
    char name[TS_NAME_MAX + 1]; /* NUL-terminated */
};

struct ts_name_reply {
    uint32_t seq;
    int32_t result; /* >= 0, or -TS_E* */
};

#define TS_NAME_MIN_PAYLOAD (96 - 8)
#ifdef __cplusplus
static_assert(sizeof(struct ts_name_request) <= TS_NAME_MIN_PAYLOAD, "a request fits one mailbox message");
#else
_Static_assert(sizeof(struct ts_name_request) <= TS_NAME_MIN_PAYLOAD, "a request fits one mailbox message");
#endif

#endif
