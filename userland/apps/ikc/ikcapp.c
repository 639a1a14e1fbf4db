/* The raw-IKC baselines' runtime (ikcapp.h).
 *
 * In threads mode the rank threads of a cluster share this file's
 * globals: `local` (the cluster's barrier between its threads) and `net`
 * (the cluster's IKC objects, which only the local master touches). In
 * processes mode each rank has its own copy of both, `local` unused and
 * `net` its own IKC objects. Each rank's view of the job lives in the
 * caller's struct ikcapp. */
#include "ikcapp.h"

#include <stdio.h>
#include <stdlib.h>

#include <tessera/runtime.h>

/* Logical ports no service uses on a compute cluster in a program without
 * LWMPI (<tessera/syscall.h>: 1 and 2 for names, 32.. for name replies):
 * the rank of local index l has its input mailbox and portal on port
 * RANK_PORT(l), as LWMPI's ranks do (in threads mode only the local
 * master has them), and its outputs use that port as their local port, so
 * a receiver allows (sender's cluster, RANK_PORT(sender's local index)).
 * The job barrier's syncs use RANK_PORT(0); in processes mode the local
 * master reads the arrivals at a local barrier on mailbox ARRIVALS_PORT. */
#define RANK_PORT(l)  (TS_PORT_MPI_BASE + (l))
#define ARRIVALS_PORT (TS_PORT_MPI_BASE - 1)
#define MAX_LOCAL     (TS_PORT_NAME_REPLY_BASE - TS_PORT_MPI_BASE)

/* The threads of one cluster meet here (threads mode): the last to arrive
 * starts a new round. All zeros is a free mutex and a fresh condition
 * (TS_MUTEX_INIT, TS_COND_INIT), so no thread has to set it up first. */
static struct {
    ts_mutex_t lock;
    ts_cond_t next;
    int arrived;
    unsigned round;
} local;

/* The IKC objects of the cluster's local master (threads mode) or of this
 * rank (processes mode). Outputs are opened on first use, per cluster
 * number or local rank; 0 means not open (ids are stored + 1). */
static struct {
    int mailbox, portal; /* inputs */
    int arrivals;        /* processes mode, local master: the local barrier's arrivals */
    ts_barrier_t barrier;
    int has_barrier; /* only with more than one cluster */
    int mail_out[CAPB_MAX_CLUSTERS];
    int portal_out[CAPB_MAX_CLUSTERS];
    int local_mail_out[MAX_LOCAL]; /* processes mode: to the ranks of my cluster, by local rank */
    int local_portal_out[MAX_LOCAL];
    int arrivals_out; /* processes mode, other ranks: to the local master's arrivals */
} net;

void ikcapp_fail(const char *what, long err) {
    fprintf(stderr, "ikcapp: cluster %d rank %d: %s: %ld\n", ts_job()->cluster_id, ts_rank(), what, err);
    ts_console_flush();
    ts_sleep_ns(100000000); /* let the line reach the console before the job ends */
    ts_job_abort(1);
}

static long check(long r, const char *what) {
    if (r < 0) ikcapp_fail(what, r);
    return r;
}

/* A transfer must move exactly what was asked. */
static void expect(long r, size_t want, const char *what) {
    if (check(r, what) != (long)want) ikcapp_fail(what, r);
}

static void need_master(const struct ikcapp *app, const char *what) {
    if (app->local_rank != 0) ikcapp_fail(what, app->rank);
}

static void need_cluster(const struct ikcapp *app, int c, const char *what) {
    if (c < 0 || c >= app->nclusters || c == app->cluster) ikcapp_fail(what, c);
}

/* Clusters numbered by their lowest rank, from the process manager's
 * mapping (ts_rank_place): every rank of the job computes the same. */
static void place_ranks(struct ikcapp *app) {
    int sizes[CAPB_MAX_CLUSTERS];
    const int mine = ts_job()->cluster_id;
    app->nclusters = 0;
    app->local_rank = -1;
    for (int r = 0; r < app->np; ++r) {
        int id, index, c = 0;
        check(ts_rank_place(r, &id, &index), "ts_rank_place");
        while (c < app->nclusters && app->cluster_ids[c] != id)
            ++c;
        if (c == app->nclusters) {
            if (c == CAPB_MAX_CLUSTERS) ikcapp_fail("more clusters than CAPB_MAX_CLUSTERS", c + 1);
            app->cluster_ids[c] = id;
            sizes[c] = 0;
            ++app->nclusters;
        }
        if (id == mine) {
            app->cluster = c;
            if (r == app->rank) app->local_rank = sizes[c]; /* the ranks of a cluster in order */
        }
        ++sizes[c];
    }
    if (app->local_rank < 0 || app->local_rank != ts_local_index())
        ikcapp_fail("this rank is not where the mapping puts it", app->rank);
    app->local_size = sizes[app->cluster];
    capb_units_set(&app->units, app->nclusters, sizes);
}

/* Inputs first: once every rank has passed the job barrier, any of them
 * may write to any other's mailbox and portal. */
static void open_inputs(const struct ikcapp *app) {
    const int port = RANK_PORT(app->local_rank);
    net.mailbox = (int)check(ts_mailbox_create(port), "ts_mailbox_create");
    net.portal = (int)check(ts_portal_create(port), "ts_portal_create");
    if (app->local_rank != 0) return;
    if (!app->shared && app->local_size > 1)
        net.arrivals = (int)check(ts_mailbox_create(ARRIVALS_PORT), "ts_mailbox_create arrivals");
    net.has_barrier = app->nclusters > 1;
    if (net.has_barrier)
        check(ts_barrier_create(&net.barrier, app->cluster_ids, app->nclusters, RANK_PORT(0)),
              "ts_barrier_create");
}

void ikcapp_init(struct ikcapp *app) {
    const struct ts_job_info *job = ts_job();
    app->rank = ts_rank();
    app->np = job->np;
    app->shared = job->ranks_mode != TS_RANKS_PROCESSES;
    if (app->np <= 0 || app->rank < 0) ikcapp_fail("not an MPI job (run it with mpirun -np N); np", app->np);
    place_ranks(app);
    if (app->local_size > MAX_LOCAL)
        ikcapp_fail("more ranks on a cluster than ports for them", app->local_size);
    if (app->local_rank == 0 || !app->shared) open_inputs(app);
    ikcapp_local_barrier(app);
    if (app->local_rank == 0) ikcapp_barrier(app);
    ikcapp_local_barrier(app);
}

/* Closes what open_inputs and the first sends opened. */
static void close_all(const struct ikcapp *app) {
    for (int c = 0; c < app->nclusters; ++c) {
        if (net.mail_out[c]) check(ts_mailbox_close(net.mail_out[c] - 1), "ts_mailbox_close");
        if (net.portal_out[c]) check(ts_portal_close(net.portal_out[c] - 1), "ts_portal_close");
        net.mail_out[c] = net.portal_out[c] = 0;
    }
    for (int i = 0; i < app->local_size; ++i) {
        if (net.local_mail_out[i]) check(ts_mailbox_close(net.local_mail_out[i] - 1), "ts_mailbox_close");
        if (net.local_portal_out[i]) check(ts_portal_close(net.local_portal_out[i] - 1), "ts_portal_close");
        net.local_mail_out[i] = net.local_portal_out[i] = 0;
    }
    if (net.arrivals_out) check(ts_mailbox_close(net.arrivals_out - 1), "ts_mailbox_close arrivals");
    net.arrivals_out = 0;
    check(ts_mailbox_unlink(net.mailbox), "ts_mailbox_unlink");
    check(ts_portal_unlink(net.portal), "ts_portal_unlink");
    if (app->local_rank != 0) return;
    if (!app->shared && app->local_size > 1)
        check(ts_mailbox_unlink(net.arrivals), "ts_mailbox_unlink arrivals");
    if (net.has_barrier) check(ts_barrier_destroy(&net.barrier), "ts_barrier_destroy");
}

void ikcapp_finish(struct ikcapp *app) {
    /* Nobody writes to a rank any more once all have come here. */
    ikcapp_local_barrier(app);
    if (app->local_rank == 0) ikcapp_barrier(app);
    if (app->local_rank == 0 || !app->shared) close_all(app);
}

/* Threads mode: the cluster's threads meet in memory. */
static void shared_barrier(const struct ikcapp *app) {
    ts_mutex_lock(&local.lock);
    const unsigned round = local.round;
    if (++local.arrived == app->local_size) {
        local.arrived = 0;
        ++local.round;
        ts_cond_broadcast(&local.next);
    } else {
        while (local.round == round)
            ts_cond_wait(&local.next, &local.lock);
    }
    ts_mutex_unlock(&local.lock);
}

/* The id of an output opened on first use (*slot: 0, or the id + 1). */
static int output(int *slot, int (*open)(int, int, int), int local_port, int cluster, int port,
                  const char *what) {
    if (!*slot) *slot = 1 + (int)check(open(local_port, cluster, port), what);
    return *slot - 1;
}

static int local_mail_out(const struct ikcapp *app, int to) {
    return output(&net.local_mail_out[to], ts_mailbox_open, RANK_PORT(app->local_rank), ts_job()->cluster_id,
                  RANK_PORT(to), "ts_mailbox_open");
}

/* Processes mode: each other rank tells the local master it has come, in
 * an empty message on its arrivals mailbox; once all have, the local master
 * answers each with an empty message on its mailbox. */
static void ikc_barrier(const struct ikcapp *app) {
    char none[1];
    if (app->local_size == 1) return;
    if (app->local_rank != 0) {
        const int out = output(&net.arrivals_out, ts_mailbox_open, RANK_PORT(app->local_rank),
                               ts_job()->cluster_id, ARRIVALS_PORT, "ts_mailbox_open arrivals");
        expect(ts_mailbox_write(out, none, 0), 0, "ts_mailbox_write arrival");
        expect(ts_mailbox_read(net.mailbox, none, sizeof none), 0, "ts_mailbox_read release");
        return;
    }
    for (int i = 1; i < app->local_size; ++i)
        expect(ts_mailbox_read(net.arrivals, none, sizeof none), 0, "ts_mailbox_read arrival");
    for (int i = 1; i < app->local_size; ++i)
        expect(ts_mailbox_write(local_mail_out(app, i), none, 0), 0, "ts_mailbox_write release");
}

void ikcapp_local_barrier(struct ikcapp *app) {
    if (app->shared)
        shared_barrier(app);
    else
        ikc_barrier(app);
}

void ikcapp_barrier(struct ikcapp *app) {
    need_master(app, "ikcapp_barrier from a worker, rank");
    if (net.has_barrier) check(ts_barrier_wait(&net.barrier), "ts_barrier_wait");
}

void ikcapp_mail_send(struct ikcapp *app, int to, const void *msg, size_t size) {
    need_master(app, "ikcapp_mail_send from a worker, rank");
    need_cluster(app, to, "ikcapp_mail_send to cluster");
    if (size > (size_t)ts_job()->mailbox_payload)
        ikcapp_fail("ikcapp_mail_send: message larger than the mailbox payload", (long)size);
    const int out = output(&net.mail_out[to], ts_mailbox_open, RANK_PORT(0), app->cluster_ids[to],
                           RANK_PORT(0), "ts_mailbox_open");
    expect(ts_mailbox_write(out, msg, size), size, "ts_mailbox_write");
}

void ikcapp_mail_recv(struct ikcapp *app, void *msg, size_t size) {
    need_master(app, "ikcapp_mail_recv from a worker, rank");
    expect(ts_mailbox_read(net.mailbox, msg, size), size, "ts_mailbox_read");
}

/* One portal transfer of `size` bytes to (cluster, RANK_PORT(to_local)),
 * through the output *slot. */
static void portal_send(const struct ikcapp *app, int *slot, int cluster, int to_local, const void *data,
                        size_t size) {
    const int out = output(slot, ts_portal_open, RANK_PORT(app->local_rank), cluster, RANK_PORT(to_local),
                           "ts_portal_open");
    expect(ts_portal_write(out, data, size, 0), size, "ts_portal_write");
}

/* One portal transfer of `size` bytes from (cluster, RANK_PORT(from_local)). */
static void portal_recv(int cluster, int from_local, void *data, size_t size) {
    check(ts_portal_allow(net.portal, cluster, RANK_PORT(from_local), 0), "ts_portal_allow");
    expect(ts_portal_read(net.portal, data, size, 0), size, "ts_portal_read");
}

void ikcapp_send(struct ikcapp *app, int to, const void *data, size_t size) {
    need_master(app, "ikcapp_send from a worker, rank");
    need_cluster(app, to, "ikcapp_send to cluster");
    if (size == 0) return;
    portal_send(app, &net.portal_out[to], app->cluster_ids[to], 0, data, size);
}

void ikcapp_recv(struct ikcapp *app, int from, void *data, size_t size) {
    need_master(app, "ikcapp_recv from a worker, rank");
    need_cluster(app, from, "ikcapp_recv from cluster");
    if (size == 0) return;
    portal_recv(app->cluster_ids[from], 0, data, size);
}

/* ikcapp_local_send/recv's peer: another rank of my cluster, one of the
 * two being the local master, in processes mode. */
static void need_local_peer(const struct ikcapp *app, int peer, const char *what) {
    if (app->shared || peer < 0 || peer >= app->local_size || peer == app->local_rank ||
        (peer != 0 && app->local_rank != 0))
        ikcapp_fail(what, peer);
}

void ikcapp_local_send(struct ikcapp *app, int to, const void *data, size_t size) {
    need_local_peer(app, to, "ikcapp_local_send to local rank");
    if (size == 0) return;
    if (to != 0) {
        const int fits = size <= (size_t)ts_job()->mailbox_payload;
        /* The data itself, or word that it comes by portal. */
        expect(ts_mailbox_write(local_mail_out(app, to), data, fits ? size : 0), fits ? size : 0,
               "ts_mailbox_write");
        if (fits) return;
    }
    portal_send(app, &net.local_portal_out[to], ts_job()->cluster_id, to, data, size);
}

void ikcapp_local_recv(struct ikcapp *app, int from, void *data, size_t size) {
    need_local_peer(app, from, "ikcapp_local_recv from local rank");
    if (size == 0) return;
    if (app->local_rank != 0) {
        const int fits = size <= (size_t)ts_job()->mailbox_payload;
        char none[1];
        expect(ts_mailbox_read(net.mailbox, fits ? data : none, fits ? size : sizeof none), fits ? size : 0,
               "ts_mailbox_read");
        if (fits) return;
    }
    portal_recv(ts_job()->cluster_id, from, data, size);
}

struct ikcapp_clock ikcapp_clock_now(void) {
    struct ikcapp_clock c = {ts_time(), capb_cycles()};
    return c;
}

void ikcapp_print_since(struct ikcapp_clock start) {
    const struct ikcapp_clock end = ikcapp_clock_now();
    const unsigned long hz = ts_job()->timebase_hz, ticks = end.ticks - start.ticks;
    /* In two parts, so that ticks * 10^9 cannot overflow. */
    const unsigned long long ns =
        (unsigned long long)(ticks / hz) * 1000000000ull + (ticks % hz) * 1000000000ull / hz;
    capb_print_time(ns, end.cycles - start.cycles);
}

void *ikcapp_alloc(unsigned long bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        char line[96];
        snprintf(line, sizeof line, "out of memory for %s (bytes)", what);
        ikcapp_fail(line, (long)bytes);
    }
    return p;
}
