/*
 * name_daemon_api: the local name daemons' API and their answers to
 * malformed messages, on two compute clusters (run it with -np 2 --map-by
 * scatter: rank 0 and rank 1 alone on a cluster each, so each rank sees its
 * daemon's counters move for its own calls only; MPI_Barrier orders the
 * phases).
 * Prints "name_daemon_api ok rank R", or "name_daemon_api FAIL rank R: ..."
 * for each failed check and exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <tessera/names.h>
#include <tessera/runtime.h>

#include <tessera/name_protocol.h>

#define PORT_BASE 40 /* rank r registers its names on port PORT_BASE + r */
#define MANY      20 /* names rank 0 registers for rank 1 to resolve: more than the cache holds */
#define CACHE     16

static __thread int rank, failures; /* per rank: a cluster's ranks are threads of one process */

static void expect(const char *what, long got, long want) {
    if (got != want) {
        printf("name_daemon_api FAIL rank %d: %s: got %ld, want %ld\n", rank, what, got, want);
        ++failures;
    }
}

/* The daemon's counters once LWMPI's own names and resolutions are done. */
static struct ts_name_daemon_stats base;

static struct ts_name_daemon_stats stats(void) {
    struct ts_name_daemon_stats st;
    memset(&st, 0, sizeof st);
    expect("stats", ts_name_daemon_stats(&st), 0);
    return st;
}

/* The counters moved by exactly (local hits, cache hits, misses) since *before. */
static void expect_moved(const char *what, const struct ts_name_daemon_stats *before, long local, long cached,
                         long missed) {
    struct ts_name_daemon_stats now = stats();
    char label[96];
    snprintf(label, sizeof label, "%s: local hits", what);
    expect(label, (long)(now.local_hits - before->local_hits), local);
    snprintf(label, sizeof label, "%s: cache hits", what);
    expect(label, (long)(now.cache_hits - before->cache_hits), cached);
    snprintf(label, sizeof label, "%s: misses", what);
    expect(label, (long)(now.misses - before->misses), missed);
}

/* Resolves `name`, expecting (cluster, port) and the counters to move by
 * (local, cached, missed). */
static void expect_resolve(const char *name, int cluster, int port, long local, long cached, long missed) {
    struct ts_name_daemon_stats before = stats();
    int c = -1, p = -1;
    char label[96];
    snprintf(label, sizeof label, "resolve %s", name);
    expect(label, ts_name_resolve(name, &c, &p), 0);
    expect(label, c, cluster);
    expect(label, p, port);
    expect_moved(label, &before, local, cached, missed);
}

static void check_errors(void) {
    char too_long[TS_NAME_MAX + 2];
    memset(too_long, 'x', TS_NAME_MAX + 1);
    too_long[TS_NAME_MAX + 1] = '\0';
    int c, p;
    struct ts_name_daemon_stats before = stats();
    expect("register null", ts_name_register(NULL, 9), -TS_EINVAL);
    expect("register empty", ts_name_register("", 9), -TS_EINVAL);
    expect("register too long", ts_name_register(too_long, 9), -TS_ENAMETOOLONG);
    expect("register port 0", ts_name_register("api.port", 0), -TS_EINVAL);
    expect("register port TS_PORTS", ts_name_register("api.port", TS_PORTS), -TS_EINVAL);
    expect("resolve empty", ts_name_resolve("", &c, &p), -TS_EINVAL);
    expect("resolve too long", ts_name_resolve(too_long, &c, &p), -TS_ENAMETOOLONG);
    expect("resolve null cluster", ts_name_resolve("api.port", NULL, &p), -TS_EINVAL);
    expect("unregister empty", ts_name_unregister(""), -TS_EINVAL);
    expect("unregister too long", ts_name_unregister(too_long), -TS_ENAMETOOLONG);
    expect("stats null", ts_name_daemon_stats(NULL), -TS_EINVAL);
    expect_moved("after refused calls", &before, 0, 0, 0);
    expect("names after refused calls", stats().names, before.names);

    char unknown[32];
    snprintf(unknown, sizeof unknown, "api.unknown.r%d", rank);
    before = stats();
    expect("resolve unknown", ts_name_resolve(unknown, &c, &p), -TS_ENOENT);
    expect_moved("resolve unknown", &before, 0, 0, 1);
    expect("unregister unknown", ts_name_unregister(unknown), -TS_ENOENT);
}

/* Before any other rank does anything: names of this cluster only. */
static void check_local(int me, const char *mine) {
    expect("register", ts_name_register(mine, PORT_BASE + rank), 0);
    expect("register again", ts_name_register(mine, PORT_BASE + rank), -TS_EEXIST);
    expect("names", stats().names, base.names + 1);
    expect_resolve(mine, me, PORT_BASE + rank, 1, 0, 0);
    expect("linked at the name server", ts_name_lookup(mine), me);

    char longest[TS_NAME_MAX + 1];
    memset(longest, 'a' + rank, TS_NAME_MAX);
    longest[TS_NAME_MAX] = '\0';
    expect("register longest", ts_name_register(longest, 5), 0);
    expect_resolve(longest, me, 5, 1, 0, 0);
    expect("unregister longest", ts_name_unregister(longest), 0);

    if (rank == 0) {
        for (int i = 0; i < MANY; ++i) {
            char name[32];
            snprintf(name, sizeof name, "api.many.%d", i);
            expect(name, ts_name_register(name, 1 + i), 0);
        }
    }
}

/* After both ranks registered: the peer's names, through the name server
 * and the peer's daemon, then from the cache. */
static void check_remote(int peer_cluster, const char *peers) {
    expect("register a name of the other cluster", ts_name_register(peers, 9), -TS_EEXIST);
    expect("unregister a name of the other cluster", ts_name_unregister(peers), -TS_ENOENT);
    expect_resolve(peers, peer_cluster, PORT_BASE + 1 - rank, 0, 0, 1);
    expect_resolve(peers, peer_cluster, PORT_BASE + 1 - rank, 0, 1, 0);
    expect("cached", stats().cached, base.cached + 1);
    if (rank == 0) return;
    /* More names than the cache holds: the least recently used go first. */
    for (int i = 0; i < MANY; ++i) {
        char name[32];
        snprintf(name, sizeof name, "api.many.%d", i);
        expect_resolve(name, peer_cluster, 1 + i, 0, 0, 1);
    }
    expect("cached when full", stats().cached, CACHE);
    expect_resolve("api.many.19", peer_cluster, 20, 0, 1, 0);
    expect_resolve("api.many.0", peer_cluster, 1, 0, 0, 1);
}

/* After both ranks resolved: the port queries each daemon answered. */
static void check_queries(void) {
    /* rank 1 asked rank 0's daemon for its name, MANY names and one of them again. */
    expect("port queries answered", stats().queries - base.queries, rank == 0 ? 1 + MANY + 1 : 1);
}

static void check_unregister(int me, const char *mine) {
    int c, p;
    expect("unregister", ts_name_unregister(mine), 0);
    expect("names after unregister", stats().names, base.names + (rank == 0 ? MANY : 0));
    expect("lookup after unregister", ts_name_lookup(mine), -TS_ENOENT);
    struct ts_name_daemon_stats before = stats();
    expect("resolve after unregister", ts_name_resolve(mine, &c, &p), -TS_ENOENT);
    expect_moved("resolve after unregister", &before, 0, 0, 1);
    expect("unregister again", ts_name_unregister(mine), -TS_ENOENT);
    expect("register after unregister", ts_name_register(mine, 7), 0);
    expect_resolve(mine, me, 7, 1, 0, 0);
    expect("final unregister", ts_name_unregister(mine), 0);
}

/* ---- malformed messages, written straight to the daemon's mailbox ------------ */

/* Writes msg to the daemon through `out` and returns the next reply read from `in`. */
static struct ts_name_reply exchange(int out, int in, const void *msg, unsigned long size) {
    struct ts_name_reply rep;
    memset(&rep, 0, sizeof rep);
    expect("raw write", ts_mailbox_write(out, msg, size), (long)size);
    expect("raw reply size", ts_mailbox_read(in, &rep, sizeof rep), (long)sizeof rep);
    return rep;
}

static void check_malformed(int me) {
    /* The reply port of a core no thread of ours uses. */
    const int core = ts_thread_self() == ts_job()->ncores - 1 ? ts_job()->ncores - 2 : ts_job()->ncores - 1;
    const int port = TS_PORT_NAME_REPLY_BASE + core;
    const int in = ts_mailbox_create(port);
    const int out = ts_mailbox_open(port, me, TS_PORT_NAME_DAEMON);
    expect("raw mailboxes", in >= 0 && out >= 0, 1);
    if (in < 0 || out < 0) return;

    struct ts_name_request req;
    memset(&req, 0, sizeof req);
    req.reply_cluster = me;
    req.reply_port = port;
    strcpy(req.name, "api.raw");
    req.op = TS_NAME_RESOLVE;
    req.seq = 1;
    expect("short write", ts_mailbox_write(out, "abc", 3), 3); /* dropped */
    req.reply_cluster = me == ts_job()->nio_clusters ? me + 1 : me - 1;
    expect("misdirected write", ts_mailbox_write(out, &req, sizeof req), (long)sizeof req); /* dropped */
    req.reply_cluster = me;

    req.op = 99;
    req.seq = 2;
    struct ts_name_reply rep = exchange(out, in, &req, sizeof req);
    expect("unknown op: the first reply", rep.seq, 2);
    expect("unknown op", rep.result, -TS_EINVAL);

    req.op = TS_NAME_REGISTER;
    req.arg = 9;
    req.seq = 3;
    memset(req.name, 'z', sizeof req.name);
    rep = exchange(out, in, &req, sizeof req);
    expect("unterminated name: seq", rep.seq, 3);
    expect("unterminated name", rep.result, -TS_ENAMETOOLONG);

    struct ts_name_reply forged;
    memset(&forged, 0, sizeof forged);
    forged.op = TS_NAME_REPLY;
    forged.seq = (unsigned)core << 24;
    expect("forged reply", ts_mailbox_write(out, &forged, sizeof forged), (long)sizeof forged); /* dropped */
    memset(&req, 0, sizeof req);
    req.op = TS_NAME_STATS;
    req.seq = 4;
    req.reply_cluster = me;
    req.reply_port = port;
    rep = exchange(out, in, &req, sizeof req);
    expect("still serving: seq", rep.seq, 4);
    expect("still serving", rep.result, 0);

    ts_mailbox_close(out);
    ts_mailbox_unlink(in);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const struct ts_job_info *job = ts_job();
    const int me = job->cluster_id;
    if (size != 2 || job->map_policy != TS_MAP_SCATTER) {
        printf("name_daemon_api FAIL rank %d: run it with -np 2 --map-by scatter\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* With scatter, rank r runs on the (r+1)-th compute cluster. */
    const int peer_cluster = job->nio_clusters + 1 - rank;
    char mine[32], peers[32];
    snprintf(mine, sizeof mine, "api.r%d", rank);
    snprintf(peers, sizeof peers, "api.r%d", 1 - rank);

    /* LWMPI registers each rank's name and resolves its peer in the first
     * barrier: the counters below are taken from after that. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    base = stats();
    MPI_Barrier(MPI_COMM_WORLD);
    check_errors();
    check_local(me, mine);
    MPI_Barrier(MPI_COMM_WORLD);
    check_remote(peer_cluster, peers);
    MPI_Barrier(MPI_COMM_WORLD);
    check_queries();
    MPI_Barrier(MPI_COMM_WORLD);
    check_unregister(me, mine);
    check_malformed(me);

    if (!failures) printf("name_daemon_api ok rank %d\n", rank);
    MPI_Finalize();
    return failures ? 1 : 0;
}
