/* The name client (<tessera/names.h>). Each thread lazily creates its reply
 * mailbox (port TS_PORT_NAME_REPLY_BASE + its core) and opens its own
 * output mailboxes, from that port, to the name server and to its
 * cluster's name daemon, so threads never share state and need no lock.
 * They all go back when the thread ends, so that a later thread on the
 * same core can create the reply mailbox again. */
#include <string.h>
#include <tessera/names.h>
#include <tessera/runtime.h>

#include <tessera/name_protocol.h>

/* Who a request goes to. */
enum server { NAME_SERVER, NAME_DAEMON, NSERVERS };

static __thread int reply_id = -1;
static __thread int server_id[NSERVERS] = {-1, -1};
static __thread int reply_port;
static __thread uint32_t next_seq;

/* Run by ts_thread_at_exit when the thread ends. */
static void release(void) {
    for (int s = 0; s < NSERVERS; ++s) {
        if (server_id[s] >= 0) ts_mailbox_close(server_id[s]);
        server_id[s] = -1;
    }
    if (reply_id >= 0) ts_mailbox_unlink(reply_id);
    reply_id = -1;
}

static int create_reply_mailbox(void) {
    int self = ts_thread_self();
    if (self < 0) return self;
    int id = ts_mailbox_create(TS_PORT_NAME_REPLY_BASE + self);
    if (id < 0) return id;
    int err = ts_thread_at_exit(release);
    if (err < 0) {
        ts_mailbox_unlink(id);
        return err;
    }
    reply_port = TS_PORT_NAME_REPLY_BASE + self;
    reply_id = id;
    return 0;
}

static int connect_to(enum server to) {
    if (reply_id < 0) {
        int err = create_reply_mailbox();
        if (err < 0) return err;
    }
    if (server_id[to] < 0) {
        int id = to == NAME_SERVER ? ts_mailbox_open(reply_port, TS_NAMESERVER_CLUSTER, TS_PORT_NAMESERVER)
                                   : ts_mailbox_open(reply_port, ts_job()->cluster_id, TS_PORT_NAME_DAEMON);
        if (id < 0) return id;
        server_id[to] = id;
    }
    return 0;
}

/* The request in flight and its reply: the kernel reads and writes them
 * until the asynchronous write and read end, so they live as long as the
 * thread. */
static __thread struct ts_name_request out_req;
static __thread struct ts_name_reply in_rep;
static __thread enum { IDLE, WRITING, READING } stage;
static __thread enum server stage_to;

/* Sends one request (name already checked, or empty for TS_NAME_STATS)
 * without waiting: 0, or an error (nothing is in flight then). */
static int start(enum server to, int op, const char *name, int arg) {
    /* I/O clusters run no daemon, but cluster 0 runs one for the job's I/O rank. */
    const struct ts_job_info *job = ts_job();
    if (to == NAME_DAEMON && job->cluster_id < job->nio_clusters &&
        !(job->cluster_id == 0 && job->has_io_rank))
        return -TS_ENOSYS;
    if (stage != IDLE) return -TS_EBUSY;
    int err = connect_to(to);
    if (err < 0) return err;
    memset(&out_req, 0, sizeof out_req);
    out_req.op = op;
    out_req.seq = ++next_seq;
    out_req.arg = arg;
    out_req.reply_cluster = ts_job()->cluster_id;
    out_req.reply_port = reply_port;
    strcpy(out_req.name, name);
    long n = ts_mailbox_awrite(server_id[to], &out_req, sizeof out_req);
    if (n < 0) return (int)n;
    stage = WRITING;
    stage_to = to;
    return 0;
}

/* One step of the request in flight: a WAIT (`wait`) or a TEST of its
 * write, then of its reply. -TS_EAGAIN while it goes on (never when
 * `wait`); else the reply's result (and the reply in *rep) or an error,
 * and nothing is in flight any more. */
static int finish(int wait, struct ts_name_reply *rep) {
    for (;;) {
        const int id = stage == WRITING ? server_id[stage_to] : reply_id;
        long n = wait ? ts_mailbox_wait(id) : ts_mailbox_test(id);
        if (n == -TS_EAGAIN && !wait) return (int)n;
        if (n < 0) {
            stage = IDLE;
            return (int)n;
        }
        /* Skip anything that is not the answer to this request. */
        if (stage == READING && n == (long)sizeof in_rep && in_rep.op == TS_NAME_REPLY &&
            in_rep.seq == out_req.seq) {
            stage = IDLE;
            *rep = in_rep;
            return rep->result;
        }
        n = ts_mailbox_aread(reply_id, &in_rep, sizeof in_rep);
        if (n < 0) {
            stage = IDLE;
            return (int)n;
        }
        stage = READING;
    }
}

/* One request and its reply, waited for: the reply's result. */
static int call(enum server to, int op, const char *name, int arg, struct ts_name_reply *rep) {
    int err = start(to, op, name, arg);
    return err < 0 ? err : finish(1, rep);
}

/* A request about a name: its reply's result. */
static int call_named(enum server to, int op, const char *name, int arg, struct ts_name_reply *rep) {
    int err = ts_name_check(name);
    return err < 0 ? err : call(to, op, name, arg, rep);
}

int ts_name_link(const char *name, int cluster) {
    struct ts_name_reply rep;
    return call_named(NAME_SERVER, TS_NAME_LINK, name, cluster, &rep);
}

int ts_name_lookup(const char *name) {
    struct ts_name_reply rep;
    return call_named(NAME_SERVER, TS_NAME_LOOKUP, name, 0, &rep);
}

int ts_name_unlink(const char *name) {
    struct ts_name_reply rep;
    return call_named(NAME_SERVER, TS_NAME_UNLINK, name, 0, &rep);
}

int ts_name_register(const char *name, int port) {
    struct ts_name_reply rep;
    return call_named(NAME_DAEMON, TS_NAME_REGISTER, name, port, &rep);
}

/* A resolution's result r (a cluster, or an error) as ts_name_resolve
 * gives it. */
static int give_address(int r, const struct ts_name_reply *rep, int *cluster, int *port) {
    if (r < 0) return r;
    *cluster = r;
    *port = rep->port;
    return 0;
}

int ts_name_resolve(const char *name, int *cluster, int *port) {
    if (!cluster || !port) return -TS_EINVAL;
    struct ts_name_reply rep;
    return give_address(call_named(NAME_DAEMON, TS_NAME_RESOLVE, name, 0, &rep), &rep, cluster, port);
}

int ts_name_resolve_start(const char *name) {
    int err = ts_name_check(name);
    return err < 0 ? err : start(NAME_DAEMON, TS_NAME_RESOLVE, name, 0);
}

int ts_name_resolve_test(int *cluster, int *port) {
    if (!cluster || !port || stage == IDLE) return -TS_EINVAL;
    struct ts_name_reply rep;
    return give_address(finish(0, &rep), &rep, cluster, port);
}

int ts_name_unregister(const char *name) {
    struct ts_name_reply rep;
    return call_named(NAME_DAEMON, TS_NAME_UNREGISTER, name, 0, &rep);
}

int ts_name_daemon_stats(struct ts_name_daemon_stats *stats) {
    if (!stats) return -TS_EINVAL;
    struct ts_name_reply rep;
    int r = call(NAME_DAEMON, TS_NAME_STATS, "", 0, &rep);
    if (r < 0) return r;
    *stats = rep.stats;
    return 0;
}
