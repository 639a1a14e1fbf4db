/* The raw-IKC baselines' runtime (ikcapp.h).
 *
 * The rank threads of a cluster share this file's globals: `local` (the
 * cluster's barrier between its threads) and `net` (the cluster's IKC
 * objects, which only the local master touches). Each thread's own view
 * of the job lives in the caller's struct ikcapp. */
#include "ikcapp.h"

#include <stdio.h>
#include <stdlib.h>

#include <tessera/runtime.h>

/* Logical ports no service uses on a compute cluster in a program without
 * LWMPI (<tessera/syscall.h>: 1, 2, 8.. for MPI, 32.. for name replies):
 * each cluster's input mailbox and input portal, and the job barrier's
 * syncs. Output mailboxes and portals use the same number as their local
 * port, so a receiver allows (sender's cluster, IKCAPP_PORT). */
#define IKCAPP_PORT 20

/* The threads of one cluster meet here: the last to arrive starts a new
 * round. All zeros is a free mutex and a fresh condition
 * (TS_MUTEX_INIT, TS_COND_INIT), so no thread has to set it up first. */
static struct {
    ts_mutex_t lock;
    ts_cond_t next;
    int arrived;
    unsigned round;
} local;

/* The cluster's IKC objects, the local master's alone. Outputs are opened
 * on first use, per cluster number; 0 means not open (ids are stored + 1). */
static struct {
    int mailbox, portal; /* inputs */
    ts_barrier_t barrier;
    int has_barrier; /* only with more than one cluster */
    int mail_out[CAPB_MAX_CLUSTERS];
    int portal_out[CAPB_MAX_CLUSTERS];
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
 * mapping (ts_rank_place): every thread of the job computes the same. */
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

/* Inputs first: once every cluster has passed the job barrier, any of
 * them may write to any other's mailbox and portal. */
static void open_cluster(const struct ikcapp *app) {
    net.mailbox = (int)check(ts_mailbox_create(IKCAPP_PORT), "ts_mailbox_create");
    net.portal = (int)check(ts_portal_create(IKCAPP_PORT), "ts_portal_create");
    net.has_barrier = app->nclusters > 1;
    if (net.has_barrier)
        check(ts_barrier_create(&net.barrier, app->cluster_ids, app->nclusters, IKCAPP_PORT),
              "ts_barrier_create");
}

void ikcapp_init(struct ikcapp *app) {
    const struct ts_job_info *job = ts_job();
    app->rank = ts_rank();
    app->np = job->np;
    if (app->np <= 0 || app->rank < 0) ikcapp_fail("not an MPI job (run it with mpirun -np N); np", app->np);
    place_ranks(app);
    if (app->local_rank == 0) open_cluster(app);
    ikcapp_local_barrier(app);
    if (app->local_rank == 0) ikcapp_barrier(app);
    ikcapp_local_barrier(app);
}

void ikcapp_finish(struct ikcapp *app) {
    ikcapp_local_barrier(app);
    if (app->local_rank != 0) return;
    /* Nobody writes to this cluster any more once all have come here. */
    ikcapp_barrier(app);
    for (int c = 0; c < app->nclusters; ++c) {
        if (net.mail_out[c]) check(ts_mailbox_close(net.mail_out[c] - 1), "ts_mailbox_close");
        if (net.portal_out[c]) check(ts_portal_close(net.portal_out[c] - 1), "ts_portal_close");
        net.mail_out[c] = net.portal_out[c] = 0;
    }
    check(ts_mailbox_unlink(net.mailbox), "ts_mailbox_unlink");
    check(ts_portal_unlink(net.portal), "ts_portal_unlink");
    if (net.has_barrier) check(ts_barrier_destroy(&net.barrier), "ts_barrier_destroy");
}

void ikcapp_local_barrier(struct ikcapp *app) {
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

void ikcapp_barrier(struct ikcapp *app) {
    need_master(app, "ikcapp_barrier from a worker, rank");
    if (net.has_barrier) check(ts_barrier_wait(&net.barrier), "ts_barrier_wait");
}

void ikcapp_mail_send(struct ikcapp *app, int to, const void *msg, size_t size) {
    need_master(app, "ikcapp_mail_send from a worker, rank");
    need_cluster(app, to, "ikcapp_mail_send to cluster");
    if (size > (size_t)ts_job()->mailbox_payload)
        ikcapp_fail("ikcapp_mail_send: message larger than the mailbox payload", (long)size);
    if (!net.mail_out[to])
        net.mail_out[to] = 1 + (int)check(ts_mailbox_open(IKCAPP_PORT, app->cluster_ids[to], IKCAPP_PORT),
                                          "ts_mailbox_open");
    expect(ts_mailbox_write(net.mail_out[to] - 1, msg, size), size, "ts_mailbox_write");
}

void ikcapp_mail_recv(struct ikcapp *app, void *msg, size_t size) {
    need_master(app, "ikcapp_mail_recv from a worker, rank");
    expect(ts_mailbox_read(net.mailbox, msg, size), size, "ts_mailbox_read");
}

void ikcapp_send(struct ikcapp *app, int to, const void *data, size_t size) {
    need_master(app, "ikcapp_send from a worker, rank");
    need_cluster(app, to, "ikcapp_send to cluster");
    if (size == 0) return;
    if (!net.portal_out[to])
        net.portal_out[to] =
            1 + (int)check(ts_portal_open(IKCAPP_PORT, app->cluster_ids[to], IKCAPP_PORT), "ts_portal_open");
    expect(ts_portal_write(net.portal_out[to] - 1, data, size, 0), size, "ts_portal_write");
}

void ikcapp_recv(struct ikcapp *app, int from, void *data, size_t size) {
    need_master(app, "ikcapp_recv from a worker, rank");
    need_cluster(app, from, "ikcapp_recv from cluster");
    if (size == 0) return;
    check(ts_portal_allow(net.portal, app->cluster_ids[from], IKCAPP_PORT, 0), "ts_portal_allow");
    expect(ts_portal_read(net.portal, data, size, 0), size, "ts_portal_read");
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
