/*
 * km_ikc [--verify] [N [D [K [SEED]]]]: CAP Bench K-Means on raw IKC, the
 * baseline of km.c with the same decomposition and output.
 *
 * The global master generates the points; its cluster keeps its share in
 * place and sends every other cluster its share through that cluster's
 * portal. Each iteration every rank accumulates the sums of its part of
 * the cluster's points; the local master adds its cluster's and sends them
 * to the global master, which moves the centroids and sends them with a
 * go-on flag back to every local master.
 *
 * Inside a cluster, in threads mode (mpirun --ranks threads), the ranks
 * are threads that share its memory: each works on its part of the
 * cluster's points in place and accumulates into its own slot of a shared
 * array; local barriers hand the centroids to the threads and the slots to
 * the local master. In processes mode the local master sends each other
 * rank its part of the points once, then each iteration the centroids,
 * and receives its sums, all over IKC. userland/apps/README.md has the
 * spec.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ikcapp.h"
#include "km_kernel.h"

/* The cluster's arrays, set up by the local master; in threads mode its
 * rank threads share them (a cluster's globals belong to all its threads,
 * and each cluster has its own) and reach them, one phase at a time
 * between barriers, after the barrier that follows the set-up. In
 * processes mode every other rank has arrays of its own: its part of the
 * points, the centroids, and one accumulator. */
static struct {
    int32_t *points; /* from point `first` on: the cluster's share (at the global master: all
                        points, its share first), or a rank's own part */
    long first;
    int32_t *msg;   /* the centroids (k * dims), then the go-on flag */
    int64_t *slots; /* one accumulator (km_acc_len) per rank, by local rank (in processes mode, at
                       ranks other than the local master: its own only) */
} cluster;

/* Local masters: the cluster's points, the global master sending every
 * other cluster its share (`all` is its array, NULL elsewhere). */
static void cluster_points(struct ikcapp *app, const struct km_params *p, int32_t *all) {
    long first, count;
    if (app->rank == 0) {
        for (int c = 1; c < app->nclusters; ++c) {
            capb_cluster_share(&app->units, p->points, c, &first, &count);
            ikcapp_send(app, c, all + first * p->dims, (size_t)(count * p->dims) * sizeof *all);
        }
        cluster.points = all;
        cluster.first = 0;
        return;
    }
    capb_cluster_share(&app->units, p->points, app->cluster, &first, &count);
    const size_t bytes = (size_t)(count * p->dims) * sizeof *cluster.points;
    cluster.points = ikcapp_alloc(bytes, "the cluster's points");
    cluster.first = first;
    ikcapp_recv(app, 0, cluster.points, bytes);
}

/* Processes mode: the local master sends each other rank its part of the
 * cluster's points, which that rank receives into an array of its own. */
static void deal_points(struct ikcapp *app, const struct km_params *p) {
    long first, count;
    if (app->local_rank != 0) {
        capb_rank_share(&app->units, p->points, app->cluster, app->local_rank, &first, &count);
        const size_t bytes = (size_t)(count * p->dims) * sizeof *cluster.points;
        cluster.points = ikcapp_alloc(bytes, "my points");
        cluster.first = first;
        ikcapp_local_recv(app, 0, cluster.points, bytes);
        return;
    }
    for (int i = 1; i < app->local_size; ++i) {
        capb_rank_share(&app->units, p->points, app->cluster, i, &first, &count);
        ikcapp_local_send(app, i, cluster.points + (first - cluster.first) * p->dims,
                          (size_t)(count * p->dims) * sizeof *cluster.points);
    }
}

/* Local masters, and in processes mode every rank: the points, and the
 * centroids' and sums' arrays (room for every rank's sums at a local
 * master, for its own elsewhere). */
static void setup_cluster(struct ikcapp *app, const struct km_params *p, int32_t *all) {
    const long kd = (long)p->centroids * p->dims;
    if (app->local_rank == 0) cluster_points(app, p, all);
    if (!app->shared) deal_points(app, p);
    cluster.msg = ikcapp_alloc((unsigned long)(kd + 1) * sizeof *cluster.msg, "the centroids");
    const int slots = app->local_rank == 0 ? app->local_size : 1;
    cluster.slots = ikcapp_alloc(
        (unsigned long)slots * km_acc_len(p->centroids, p->dims) * sizeof *cluster.slots, "the sums");
    if (app->rank == 0) {
        km_first_centroids(cluster.msg, all, p->centroids, p->dims);
        cluster.msg[kd] = 1;
    }
}

/* Every rank, at the start of an iteration: the centroids and the flag in
 * cluster.msg. The global master sends them to every other local master;
 * in its cluster, a local barrier hands them to the threads (threads mode)
 * or the local master sends them to each other rank (processes mode). */
static void share_centroids(struct ikcapp *app, const struct km_params *p) {
    const size_t bytes = ((size_t)p->centroids * p->dims + 1) * sizeof *cluster.msg;
    if (app->rank == 0)
        for (int c = 1; c < app->nclusters; ++c)
            ikcapp_send(app, c, cluster.msg, bytes);
    else if (app->local_rank == 0)
        ikcapp_recv(app, 0, cluster.msg, bytes);
    if (app->shared)
        ikcapp_local_barrier(app);
    else if (app->local_rank != 0)
        ikcapp_local_recv(app, 0, cluster.msg, bytes);
    else
        for (int i = 1; i < app->local_size; ++i)
            ikcapp_local_send(app, i, cluster.msg, bytes);
}

/* Every rank, once it has accumulated: the local master's cluster.slots
 * then hold every rank's sums (a local barrier in threads mode; in
 * processes mode each other rank sends its own). */
static void collect_sums(struct ikcapp *app, const struct km_params *p) {
    const long len = km_acc_len(p->centroids, p->dims);
    const size_t bytes = (size_t)len * sizeof *cluster.slots;
    if (app->shared)
        ikcapp_local_barrier(app);
    else if (app->local_rank != 0)
        ikcapp_local_send(app, 0, cluster.slots, bytes);
    else
        for (int i = 1; i < app->local_size; ++i)
            ikcapp_local_recv(app, i, cluster.slots + i * len, bytes);
}

/* Local masters, once every rank's sums are in: the cluster's sums go
 * to the global master, which adds those of every cluster (received into
 * `incoming`) and moves the centroids. */
static void merge_sums(struct ikcapp *app, const struct km_params *p, int64_t *incoming, int *iterations) {
    const long len = km_acc_len(p->centroids, p->dims);
    int64_t *sums = cluster.slots;
    for (int i = 1; i < app->local_size; ++i)
        km_acc_add(sums, cluster.slots + i * len, len);
    if (app->rank != 0) {
        ikcapp_send(app, 0, sums, (size_t)len * sizeof *sums);
        return;
    }
    for (int c = 1; c < app->nclusters; ++c) {
        ikcapp_recv(app, c, incoming, (size_t)len * sizeof *incoming);
        km_acc_add(sums, incoming, len);
    }
    cluster.msg[(long)p->centroids * p->dims] =
        km_update(cluster.msg, p->centroids, p->dims, sums, ++*iterations);
}

/* The iterations, on every rank, from set-up clusters to the final
 * centroids in the global master's cluster.msg. Returns the number of
 * iterations (meaningful at the global master only). */
static int iterate(struct ikcapp *app, const struct km_params *p) {
    const int k = p->centroids, dims = p->dims;
    const long len = km_acc_len(k, dims);
    long first, count;
    capb_rank_share(&app->units, p->points, app->cluster, app->local_rank, &first, &count);
    const int32_t *points = cluster.points + (first - cluster.first) * dims;
    int32_t *assign = ikcapp_alloc((unsigned long)count * sizeof *assign, "the assignments");
    int64_t *slot = cluster.slots + (app->shared ? app->local_rank : 0) * len;
    int64_t *incoming =
        app->rank == 0 ? ikcapp_alloc((unsigned long)len * sizeof *incoming, "the sums") : NULL;
    int iterations = 0;
    km_unassigned(assign, count);
    for (;;) {
        share_centroids(app, p);
        if (!cluster.msg[k * dims]) break;
        memset(slot, 0, (size_t)len * sizeof *slot);
        km_assign(points, count, dims, cluster.msg, k, assign, slot);
        collect_sums(app, p);
        if (app->local_rank == 0) merge_sums(app, p, incoming, &iterations);
    }
    free(incoming);
    free(assign);
    return iterations;
}

/* The global master's rank: generation, the reference for --verify
 * (computed before the clock starts, so the time leaves it out), its part
 * of the run and the output lines. Returns the exit status. */
static int master(struct ikcapp *app, const struct km_params *p, int verify) {
    const long kd = (long)p->centroids * p->dims;
    int32_t *all = ikcapp_alloc((unsigned long)(p->points * p->dims) * sizeof *all, "the points");
    int32_t *ref = ikcapp_alloc((unsigned long)kd * sizeof *ref, "the reference centroids");
    int ref_iterations = 0, status = 0;
    km_generate(all, p->points, p->dims, p->seed);
    if (verify && (ref_iterations = km_sequential(all, p->points, p->dims, p->centroids, ref)) < 0)
        ikcapp_fail("out of memory for the reference run", 0);

    const struct ikcapp_clock start = ikcapp_clock_now();
    setup_cluster(app, p, all);
    if (app->shared) ikcapp_local_barrier(app);
    const int iterations = iterate(app, p);

    km_print_result(p, iterations, cluster.msg);
    if (verify) status = km_compare(p, iterations, cluster.msg, ref_iterations, ref);
    ikcapp_print_since(start);
    free(ref);
    return status;
}

/* Every other rank: the local masters set their cluster up first (in
 * processes mode every rank sets up its own arrays). */
static void worker(struct ikcapp *app, const struct km_params *p) {
    if (app->local_rank == 0 || !app->shared) setup_cluster(app, p, NULL);
    if (app->shared) ikcapp_local_barrier(app);
    iterate(app, p);
}

int main(int argc, char **argv) {
    struct ikcapp app;
    struct km_params p;
    int status = 0;
    ikcapp_init(&app);
    const int verify = capb_take_verify(&argc, argv);
    /* Every rank sees the same arguments, so all agree on failing. */
    if (km_parse(argc, argv, &p)) {
        if (app.rank == 0) km_usage(argv[0]);
        ikcapp_finish(&app);
        return 2;
    }
    if (app.rank == 0)
        status = master(&app, &p, verify);
    else
        worker(&app, &p);
    /* finish starts with a local barrier: past it no thread reads the
     * cluster's arrays any more. */
    ikcapp_finish(&app);
    if (app.local_rank == 0 || !app.shared) {
        free(cluster.slots);
        free(cluster.msg);
        free(cluster.points); /* at the global master, all the points */
    }
    return status;
}
