/*
 * km_ikc [--verify] [N [D [K [SEED]]]]: CAP Bench K-Means on raw IKC, the
 * baseline of km.c with the same decomposition and output.
 *
 * The global master generates the points; its cluster keeps its share in
 * place and sends every other cluster its share through that cluster's
 * portal. The ranks of a cluster are threads that share its memory: each
 * works on its part of the cluster's points, in place. Each iteration every
 * thread accumulates into its own slot of a shared array; after a local
 * barrier the local master sums the slots and sends the cluster's sums to
 * the global master, which moves the centroids and sends them with a go-on
 * flag back to every local master; a local barrier hands them to the
 * threads. userland/apps/README.md has the spec.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ikcapp.h"
#include "km_kernel.h"

/* What the rank threads of a cluster share (a cluster's globals belong to
 * all its threads, and each cluster has its own). The local master sets
 * the pointers up before a local barrier; from then on the threads reach
 * the arrays through them, one phase at a time between barriers. */
static struct {
    int32_t *points; /* the cluster's share (at the global master: all points, its share first) */
    int32_t *msg;    /* the centroids (k * dims), then the go-on flag */
    int64_t *slots;  /* one accumulator (km_acc_len) per thread, by local rank */
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
        return;
    }
    capb_cluster_share(&app->units, p->points, app->cluster, &first, &count);
    const size_t bytes = (size_t)(count * p->dims) * sizeof *cluster.points;
    cluster.points = ikcapp_alloc(bytes, "the cluster's points");
    ikcapp_recv(app, 0, cluster.points, bytes);
}

/* Local masters: the points, and the centroids' and sums' arrays. */
static void setup_cluster(struct ikcapp *app, const struct km_params *p, int32_t *all) {
    const long kd = (long)p->centroids * p->dims;
    cluster_points(app, p, all);
    cluster.msg = ikcapp_alloc((unsigned long)(kd + 1) * sizeof *cluster.msg, "the centroids");
    cluster.slots = ikcapp_alloc(
        (unsigned long)app->local_size * km_acc_len(p->centroids, p->dims) * sizeof *cluster.slots,
        "the sums");
    if (app->rank == 0) {
        km_first_centroids(cluster.msg, all, p->centroids, p->dims);
        cluster.msg[kd] = 1;
    }
}

/* Local masters: the global master sends the centroids and the flag to
 * every other cluster, which takes them into cluster.msg. */
static void share_centroids(struct ikcapp *app, const struct km_params *p) {
    const size_t bytes = ((size_t)p->centroids * p->dims + 1) * sizeof *cluster.msg;
    if (app->rank == 0)
        for (int c = 1; c < app->nclusters; ++c)
            ikcapp_send(app, c, cluster.msg, bytes);
    else
        ikcapp_recv(app, 0, cluster.msg, bytes);
}

/* Local masters, once every thread has accumulated: the cluster's sums go
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

/* The iterations, on every thread, from set-up clusters to the final
 * centroids in the global master's cluster.msg. Returns the number of
 * iterations (meaningful at the global master only). */
static int iterate(struct ikcapp *app, const struct km_params *p) {
    const int k = p->centroids, dims = p->dims;
    const long len = km_acc_len(k, dims);
    long cluster_first, cluster_count, first, count;
    capb_cluster_share(&app->units, p->points, app->cluster, &cluster_first, &cluster_count);
    capb_rank_share(&app->units, p->points, app->cluster, app->local_rank, &first, &count);
    const int32_t *points = cluster.points + (first - cluster_first) * dims;
    int32_t *assign = ikcapp_alloc((unsigned long)count * sizeof *assign, "the assignments");
    int64_t *slot = cluster.slots + app->local_rank * len;
    int64_t *incoming =
        app->rank == 0 ? ikcapp_alloc((unsigned long)len * sizeof *incoming, "the sums") : NULL;
    int iterations = 0;
    km_unassigned(assign, count);
    for (;;) {
        if (app->local_rank == 0) share_centroids(app, p);
        ikcapp_local_barrier(app);
        if (!cluster.msg[k * dims]) break;
        memset(slot, 0, (size_t)len * sizeof *slot);
        km_assign(points, count, dims, cluster.msg, k, assign, slot);
        ikcapp_local_barrier(app);
        if (app->local_rank == 0) merge_sums(app, p, incoming, &iterations);
    }
    free(incoming);
    free(assign);
    return iterations;
}

/* The global master's thread: generation, the reference for --verify
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
    ikcapp_local_barrier(app);
    const int iterations = iterate(app, p);

    km_print_result(p, iterations, cluster.msg);
    if (verify) status = km_compare(p, iterations, cluster.msg, ref_iterations, ref);
    ikcapp_print_since(start);
    free(ref);
    return status;
}

/* Every other thread: the local masters set their cluster up first. */
static void worker(struct ikcapp *app, const struct km_params *p) {
    if (app->local_rank == 0) setup_cluster(app, p, NULL);
    ikcapp_local_barrier(app);
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
    if (app.local_rank == 0) {
        free(cluster.slots);
        free(cluster.msg);
        free(cluster.points); /* at the global master, all the points */
    }
    return status;
}
