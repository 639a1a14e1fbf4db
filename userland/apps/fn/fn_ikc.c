/*
 * fn_ikc [--verify] A B: Friendly Numbers on raw IKC (the baseline of fn,
 * same decomposition and output; userland/apps/README.md).
 *
 * The global master's cluster mails each other local master its cluster's
 * range; the local master holds the cluster's array of fractions. In
 * threads mode (mpirun --ranks threads) the rank threads of a cluster
 * compute their parts straight into it, between two local barriers; in
 * processes mode the local master mails each other rank its part, which
 * computes it in a buffer of its own and sends it back through the local
 * master's portal, where it lands in place. The local master then sends
 * the array through the master cluster's portal, where it lands in place
 * in the master's array of all [A, B]; the master counts the pairs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "capbench.h"
#include "fn_kernel.h"
#include "ikcapp.h"

/* My cluster's range of the n items (numbers A + first ...) and its
 * fractions: the local master's; in threads mode shared by the cluster's
 * rank threads, written by its local master before a local barrier, read
 * by all after it. */
static struct {
    long first, count;
    struct fn_fraction *fractions;
} cluster;

/* The global master: each other cluster's range by mail; its own cluster's
 * fractions are the start of `all` (cluster 0 hosts unit 0). */
static void send_ranges(struct ikcapp *app, long n, struct fn_fraction *all) {
    for (int c = 1; c < app->nclusters; ++c) {
        long range[2];
        capb_cluster_share(&app->units, n, c, &range[0], &range[1]);
        ikcapp_mail_send(app, c, range, sizeof range);
    }
    capb_cluster_share(&app->units, n, 0, &cluster.first, &cluster.count);
    cluster.fractions = all;
}

/* Another cluster's local master: its range, and room for its fractions. */
static void receive_range(struct ikcapp *app) {
    long range[2];
    ikcapp_mail_recv(app, range, sizeof range);
    cluster.first = range[0];
    cluster.count = range[1];
    cluster.fractions =
        ikcapp_alloc((unsigned long)cluster.count * sizeof *cluster.fractions, "the cluster's fractions");
}

/* Every rank, once its local master knows the cluster's range: my part
 * of it. In threads mode a local barrier lets the threads read `cluster`;
 * in processes mode the local master mails each other rank its part. */
static void hand_out(struct ikcapp *app, long n, long part[2]) {
    capb_rank_share(&app->units, n, app->cluster, app->local_rank, &part[0], &part[1]);
    if (app->shared) {
        ikcapp_local_barrier(app);
    } else if (app->local_rank != 0) {
        ikcapp_local_recv(app, 0, part, 2 * sizeof *part);
    } else {
        for (int i = 1; i < app->local_size; ++i) {
            long theirs[2];
            capb_rank_share(&app->units, n, app->cluster, i, &theirs[0], &theirs[1]);
            ikcapp_local_send(app, i, theirs, sizeof theirs);
        }
    }
}

/* Every rank: the fractions of its part (of numbers A + first ...), in
 * place in the cluster's array (threads mode, and the local master), else
 * in a buffer of its own that it sends to the local master. */
static void compute_part(struct ikcapp *app, long a, const long part[2]) {
    if (app->shared || app->local_rank == 0) {
        fn_abundances(a + part[0], part[1], cluster.fractions + (part[0] - cluster.first));
        return;
    }
    struct fn_fraction *mine = ikcapp_alloc((unsigned long)part[1] * sizeof *mine, "my fractions");
    fn_abundances(a + part[0], part[1], mine);
    ikcapp_local_send(app, 0, mine, (size_t)part[1] * sizeof *mine);
    free(mine);
}

/* Every rank, once it computed its part: at the local master, the
 * cluster's fractions are all in place after this (threads mode: a local
 * barrier; processes mode: each other rank's, received in place). */
static void collect_parts(struct ikcapp *app, long n) {
    if (app->shared) {
        ikcapp_local_barrier(app);
        return;
    }
    if (app->local_rank != 0) return;
    for (int i = 1; i < app->local_size; ++i) {
        long first, count;
        capb_rank_share(&app->units, n, app->cluster, i, &first, &count);
        ikcapp_local_recv(app, i, cluster.fractions + (first - cluster.first),
                          (size_t)count * sizeof *cluster.fractions);
    }
}

/* The global master: every other cluster's fractions, in place in `all`. */
static void receive_fractions(struct ikcapp *app, long n, struct fn_fraction *all) {
    for (int c = 1; c < app->nclusters; ++c) {
        long first, count;
        capb_cluster_share(&app->units, n, c, &first, &count);
        ikcapp_recv(app, c, all + first, (size_t)count * sizeof *all);
    }
}

/* The whole run, on every rank; returns the exit status. */
static int run(struct ikcapp *app, long a, long b, int verify) {
    const long n = b - a + 1;
    const int is_master = app->rank == 0;
    struct fn_fraction *all = NULL;
    long expected = 0;
    struct ikcapp_clock start = {0, 0};
    if (is_master) {
        all = ikcapp_alloc((unsigned long)n * sizeof *all, "the fractions");
        if (verify) /* before the clock starts: the time leaves it out */
            expected = fn_sequential(a, b, all);
        start = ikcapp_clock_now();
        send_ranges(app, n, all);
    } else if (app->local_rank == 0) {
        receive_range(app);
    }
    long part[2];
    hand_out(app, n, part);
    compute_part(app, a, part);
    collect_parts(app, n);
    if (!is_master) {
        if (app->local_rank == 0 && app->cluster != 0) {
            ikcapp_send(app, 0, cluster.fractions, (size_t)cluster.count * sizeof *all);
            free(cluster.fractions);
        }
        return 0;
    }
    receive_fractions(app, n, all);
    const long pairs = fn_count_pairs(all, n);
    fn_print_pairs(pairs);
    const int status = verify ? fn_compare(pairs, expected) : 0;
    ikcapp_print_since(start);
    free(all);
    return status;
}

int main(int argc, char **argv) {
    struct ikcapp app;
    long a, b;
    int status;
    ikcapp_init(&app);
    const int verify = capb_take_verify(&argc, argv);
    /* Every rank sees the same arguments, so all agree on failing. */
    if (fn_parse(argc, argv, &a, &b)) {
        if (app.rank == 0) fn_usage(argv[0]);
        status = 2;
    } else {
        status = run(&app, a, b, verify);
    }
    ikcapp_finish(&app);
    return status;
}
