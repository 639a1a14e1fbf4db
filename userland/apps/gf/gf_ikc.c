/*
 * gf_ikc [--verify] [N [S [K]]]: Gaussian Filter on raw IKC, the baseline
 * of gf.c with the same decomposition and output (userland/apps/README.md;
 * the arithmetic is in gf_kernel.h).
 *
 * The global master generates the N input images. Every other cluster
 * gets its rows of all images plus the halo the mask reaches, packed into
 * one portal message, and its output rows go back the same way, unpacked
 * into the images. Inside a cluster, in threads mode (mpirun --ranks
 * threads), the rank threads convolve their rows straight from the
 * cluster's input (at the global master, the images) into its output; in
 * processes mode the local master hands each other rank its rows plus
 * halo the same way the global master hands them to the clusters, and
 * takes its output rows back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gf_kernel.h"
#include "ikcapp.h"

/* The cluster's input rows plus halo and its output rows (at the global
 * master, the whole images); at a rank other than the local master in
 * processes mode, its own rows. In threads mode the rank threads of a
 * cluster share them (a cluster's globals belong to all its threads, and
 * each cluster has its own): the local master sets them before a local
 * barrier. */
static struct { struct gf_band in, out; } cluster;

/* Rows [first, first + rows) of every image, from one band to another. */
static void copy_rows(const struct gf_params *p, const struct gf_band *from, const struct gf_band *to,
                      long first, long rows) {
    for (long n = 0; n < p->images; ++n)
        memcpy(gf_row(p, to, n, first), gf_row(p, from, n, first), (size_t)(rows * p->size));
}

/* Rows [first, first + rows) of every image, in a buffer of their own. */
static struct gf_band alloc_band(const struct gf_params *p, long first, long rows, const char *what) {
    return gf_packed(p, ikcapp_alloc((unsigned long)(p->images * rows * p->size), what), first, rows);
}

/* The peers a local master hands rows to and takes them back from: the
 * other clusters (the global master), or the other ranks of its cluster
 * (processes mode). */
enum peers { CLUSTERS, RANKS };

static int peer_count(const struct ikcapp *app, enum peers who) {
    return who == CLUSTERS ? app->nclusters : app->local_size;
}

/* Peer j's output rows [*first, *first + *rows), and the rows plus halo
 * it convolves them from [*hfirst, *hfirst + *hrows). */
static void peer_rows(const struct ikcapp *app, const struct gf_params *p, enum peers who, int j, long *first,
                      long *rows, long *hfirst, long *hrows) {
    if (who == CLUSTERS)
        capb_cluster_share(&app->units, p->size, j, first, rows);
    else
        capb_rank_share(&app->units, p->size, app->cluster, j, first, rows);
    gf_halo(p->size, p->mask, *first, *rows, hfirst, hrows);
}

static void peer_send(struct ikcapp *app, enum peers who, int j, const void *data, size_t size) {
    if (who == CLUSTERS)
        ikcapp_send(app, j, data, size);
    else
        ikcapp_local_send(app, j, data, size);
}

static void peer_recv(struct ikcapp *app, enum peers who, int j, void *data, size_t size) {
    if (who == CLUSTERS)
        ikcapp_recv(app, j, data, size);
    else
        ikcapp_local_recv(app, j, data, size);
}

/* The most rows plus halo any peer gets. */
static long most_rows(const struct ikcapp *app, const struct gf_params *p, enum peers who) {
    long first, rows, hfirst, hrows, most = 0;
    for (int j = 1; j < peer_count(app, who); ++j) {
        peer_rows(app, p, who, j, &first, &rows, &hfirst, &hrows);
        if (hrows > most) most = hrows;
    }
    return most;
}

/* A local master: room to pack the rows of the largest band it sends (the
 * output bands are smaller): to the other clusters from the global master,
 * to the other ranks of the cluster in processes mode. */
static uint8_t *alloc_pack(const struct ikcapp *app, const struct gf_params *p) {
    long most = app->rank == 0 ? most_rows(app, p, CLUSTERS) : 0;
    if (!app->shared && most_rows(app, p, RANKS) > most) most = most_rows(app, p, RANKS);
    return ikcapp_alloc((unsigned long)(p->images * most * p->size), "the packed rows");
}

/* A local master: each peer's rows plus halo, from cluster.in, packed at
 * `pack`. */
static void send_bands(struct ikcapp *app, const struct gf_params *p, enum peers who, uint8_t *pack) {
    long first, rows, hfirst, hrows;
    for (int j = 1; j < peer_count(app, who); ++j) {
        peer_rows(app, p, who, j, &first, &rows, &hfirst, &hrows);
        const struct gf_band packed = gf_packed(p, pack, hfirst, hrows);
        copy_rows(p, &cluster.in, &packed, hfirst, hrows);
        peer_send(app, who, j, pack, (size_t)(p->images * hrows * p->size));
    }
}

/* A local master: each peer's output rows, through `pack` into
 * cluster.out. */
static void receive_bands(struct ikcapp *app, const struct gf_params *p, enum peers who, uint8_t *pack) {
    long first, rows, hfirst, hrows;
    for (int j = 1; j < peer_count(app, who); ++j) {
        peer_rows(app, p, who, j, &first, &rows, &hfirst, &hrows);
        const struct gf_band packed = gf_packed(p, pack, first, rows);
        peer_recv(app, who, j, pack, (size_t)(p->images * rows * p->size));
        copy_rows(p, &packed, &cluster.out, first, rows);
    }
}

/* Another cluster's local master, or in processes mode any rank but its
 * cluster's local master: room for my bands, and my rows plus halo from
 * whoever hands them out (the global master, or my local master). */
static void receive_mine(struct ikcapp *app, const struct gf_params *p) {
    const enum peers who = app->local_rank == 0 ? CLUSTERS : RANKS;
    long first, rows, hfirst, hrows;
    peer_rows(app, p, who, who == CLUSTERS ? app->cluster : app->local_rank, &first, &rows, &hfirst, &hrows);
    cluster.in = alloc_band(p, hfirst, hrows, "the input rows");
    cluster.out = alloc_band(p, first, rows, "the output rows");
    peer_recv(app, who, 0, cluster.in.base, (size_t)(p->images * hrows * p->size));
}

/* The same rank, once its rows are done: the output rows back. */
static void send_mine(struct ikcapp *app, const struct gf_params *p) {
    const enum peers who = app->local_rank == 0 ? CLUSTERS : RANKS;
    peer_send(app, who, 0, cluster.out.base, (size_t)(p->images * cluster.out.rows * p->size));
    free(cluster.out.base);
    free(cluster.in.base);
}

/* Every rank: its own rows, from the cluster's input to its output. */
static void convolve_mine(const struct ikcapp *app, const struct gf_params *p) {
    long first, rows;
    capb_rank_share(&app->units, p->size, app->cluster, app->local_rank, &first, &rows);
    gf_convolve(p, &cluster.in, &cluster.out, first, rows);
}

/* A local master, once it holds the cluster's input: its cluster's rows
 * convolved into cluster.out (the global master first hands the other
 * clusters theirs). Threads mode: the master's threads convolve while it
 * sends; processes mode: the local master hands out and takes back the
 * other ranks' rows through `pack`. */
static void run_cluster(struct ikcapp *app, const struct gf_params *p, uint8_t *pack) {
    if (app->shared) {
        ikcapp_local_barrier(app);
        if (app->rank == 0) send_bands(app, p, CLUSTERS, pack);
        convolve_mine(app, p);
        ikcapp_local_barrier(app);
        return;
    }
    if (app->rank == 0) send_bands(app, p, CLUSTERS, pack);
    send_bands(app, p, RANKS, pack);
    convolve_mine(app, p);
    receive_bands(app, p, RANKS, pack);
}

/* The global master, after its cluster is done: gathers the output
 * images, prints the lines; returns the exit status (1 on a mismatch). */
static int finish_master(struct ikcapp *app, const struct gf_params *p, uint8_t *pack, uint8_t *ref,
                         struct ikcapp_clock start) {
    receive_bands(app, p, CLUSTERS, pack);
    gf_print_result(p, cluster.out.base);
    const int status = ref ? gf_compare(p, ref, cluster.out.base) : 0;
    ikcapp_print_since(start);
    free(ref);
    free(pack);
    free(cluster.out.base);
    free(cluster.in.base);
    return status;
}

/* The global master's set-up: the images (input, output, and with
 * --verify the reference, convolved before the clock starts, so that the
 * time leaves it out). */
static uint8_t *generate(const struct gf_params *p, int verify) {
    const unsigned long bytes = (unsigned long)(p->images * p->size * p->size);
    uint8_t *ref = NULL;
    cluster.in = gf_images(p, ikcapp_alloc(bytes, "the input images"));
    cluster.out = gf_images(p, ikcapp_alloc(bytes, "the output images"));
    for (long n = 0; n < p->images; ++n)
        gf_generate(gf_row(p, &cluster.in, n, 0), p->size, n);
    if (verify) {
        ref = ikcapp_alloc(bytes, "the reference images");
        const struct gf_band whole = gf_images(p, ref);
        gf_convolve(p, &cluster.in, &whole, 0, p->size);
    }
    return ref;
}

/* The whole run, on every rank; returns the exit status. */
static int run(struct ikcapp *app, const struct gf_params *p, int verify) {
    if (app->local_rank != 0 && !app->shared) { /* processes mode: a rank of its own */
        receive_mine(app, p);
        convolve_mine(app, p);
        send_mine(app, p);
        return 0;
    }
    if (app->local_rank != 0) { /* threads mode: one of the cluster's threads */
        run_cluster(app, p, NULL);
        return 0;
    }
    uint8_t *pack = NULL, *ref = NULL;
    struct ikcapp_clock start = {0, 0};
    if (app->rank == 0 || !app->shared) pack = alloc_pack(app, p);
    if (app->rank == 0) {
        ref = generate(p, verify);
        start = ikcapp_clock_now();
    } else {
        receive_mine(app, p);
    }
    run_cluster(app, p, pack);
    if (app->rank == 0) return finish_master(app, p, pack, ref, start);
    free(pack);
    send_mine(app, p);
    return 0;
}

int main(int argc, char **argv) {
    struct ikcapp app;
    struct gf_params p;
    int status;
    ikcapp_init(&app);
    const int verify = capb_take_verify(&argc, argv);
    /* Every rank sees the same arguments, so all agree on failing. */
    if (gf_parse(argc, argv, &p)) {
        if (app.rank == 0) gf_usage(argv[0]);
        status = 2;
    } else {
        status = run(&app, &p, verify);
    }
    ikcapp_finish(&app);
    return status;
}
