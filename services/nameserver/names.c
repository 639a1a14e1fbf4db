/* The name client (<tessera/names.h>). Each thread lazily creates its reply
 * mailbox (port TS_PORT_NAME_REPLY_BASE + its core) and opens its own
 * output mailbox to the name server with that port, so threads never share
 * state and need no lock. Both go back when the thread ends, so that a
 * later thread on the same core can create the reply mailbox again. */
#include <string.h>
#include <tessera/names.h>
#include <tessera/runtime.h>

#include "protocol.h"

static __thread int reply_id = -1;
static __thread int server_id = -1;
static __thread int reply_port;
static __thread uint32_t next_seq;

/* Run by ts_thread_at_exit when the thread ends. */
static void release(void)
{
    if (server_id >= 0)
        ts_mailbox_close(server_id);
    if (reply_id >= 0)
        ts_mailbox_unlink(reply_id);
    server_id = reply_id = -1;
}

static int connect_server(void)
{
    if (reply_id < 0) {
        int self = ts_thread_self();
        if (self < 0)
            return self;
        int id = ts_mailbox_create(TS_PORT_NAME_REPLY_BASE + self);
        if (id < 0)
            return id;
        int err = ts_thread_at_exit(release);
        if (err < 0) {
            ts_mailbox_unlink(id);
            return err;
        }
        reply_port = TS_PORT_NAME_REPLY_BASE + self;
        reply_id = id;
    }
    if (server_id < 0) {
        int id = ts_mailbox_open(reply_port, TS_NAMESERVER_CLUSTER, TS_PORT_NAMESERVER);
        if (id < 0)
            return id;
        server_id = id;
    }
    return 0;
}

static int call(int op, const char *name, int cluster)
{
    if (!name || !*name)
        return -TS_EINVAL;
    size_t len = strnlen(name, TS_NAME_MAX + 1);
    if (len > TS_NAME_MAX)
        return -TS_ENAMETOOLONG;
    int err = connect_server();
    if (err < 0)
        return err;

    struct ts_name_request req;
    memset(&req, 0, sizeof req);
    req.op = op;
    req.seq = ++next_seq;
    req.cluster = cluster;
    req.reply_cluster = ts_job()->cluster_id;
    req.reply_port = reply_port;
    memcpy(req.name, name, len);
    long n = ts_mailbox_write(server_id, &req, sizeof req);
    if (n < 0)
        return (int)n;

    /* Skip anything that is not the answer to this request. */
    for (;;) {
        struct ts_name_reply rep;
        n = ts_mailbox_read(reply_id, &rep, sizeof rep);
        if (n < 0)
            return (int)n;
        if (n == (long)sizeof rep && rep.seq == req.seq)
            return rep.result;
    }
}

int ts_name_link(const char *name, int cluster) { return call(TS_NAME_LINK, name, cluster); }
int ts_name_lookup(const char *name) { return call(TS_NAME_LOOKUP, name, 0); }
int ts_name_unlink(const char *name) { return call(TS_NAME_UNLINK, name, 0); }
