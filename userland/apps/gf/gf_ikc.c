/*
 * gf_ikc [--verify] [N [S [K]]]: Gaussian Filter on raw IKC, the baseline
 * of gf.c with the same decomposition and output (userland/apps/README.md;
 * the arithmetic is in gf_kernel.h).
 *
 * The global master generates the N input images. Its cluster's threads
 * convolve their rows straight from them into the output images; every
 * other cluster gets its rows of all images plus the halo the mask
 * reaches, packed into one portal message, and its threads convolve their
 * rows of that band into the cluster's output band, which its local
 * master sends back in one portal message, unpacked into the images.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gf_kernel.h"
#include "ikcapp.h"

/* What the rank threads of a cluster share (a cluster's globals belong to
 * all its threads, and each cluster has its own): its input rows plus halo
 * and its output rows (at the global master, the whole images). The local
 * master sets them before a local barrier. */
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

/* Cluster c's rows plus halo: [*hfirst, *hfirst + *hrows). */
static void cluster_halo(const struct ikcapp *app, const struct gf_params *p, int c, long *hfirst,
                         long *hrows) {
    long first, rows;
    capb_cluster_share(&app->units, p->size, c, &first, &rows);
    gf_halo(p->size, p->mask, first, rows, hfirst, hrows);
}

/* The global master: room to pack the rows of the largest band it sends
 * (the clusters' output bands are smaller). */
static uint8_t *alloc_pack(const struct ikcapp *app, const struct gf_params *p) {
    long hfirst, hrows, most = 0;
    for (int c = 1; c < app->nclusters; ++c) {
        cluster_halo(app, p, c, &hfirst, &hrows);
        if (hrows > most) most = hrows;
    }
    return ikcapp_alloc((unsigned long)(p->images * most * p->size), "the packed rows");
}

/* The global master: each other cluster's rows plus halo, packed at `pack`. */
static void send_bands(struct ikcapp *app, const struct gf_params *p, uint8_t *pack) {
    long hfirst, hrows;
    for (int c = 1; c < app->nclusters; ++c) {
        cluster_halo(app, p, c, &hfirst, &hrows);
        const struct gf_band packed = gf_packed(p, pack, hfirst, hrows);
        copy_rows(p, &cluster.in, &packed, hfirst, hrows);
        ikcapp_send(app, c, pack, (size_t)(p->images * hrows * p->size));
    }
}

/* The global master: each other cluster's output rows, through `pack`
 * into the output images. */
static void receive_bands(struct ikcapp *app, const struct gf_params *p, uint8_t *pack) {
    long first, rows;
    for (int c = 1; c < app->nclusters; ++c) {
        capb_cluster_share(&app->units, p->size, c, &first, &rows);
        const struct gf_band packed = gf_packed(p, pack, first, rows);
        ikcapp_recv(app, c, pack, (size_t)(p->images * rows * p->size));
        copy_rows(p, &packed, &cluster.out, first, rows);
    }
}

/* Another cluster's local master: room for the cluster's bands, and its
 * rows plus halo from the global master. */
static void receive_cluster(struct ikcapp *app, const struct gf_params *p) {
    long first, rows, hfirst, hrows;
    capb_cluster_share(&app->units, p->size, app->cluster, &first, &rows);
    gf_halo(p->size, p->mask, first, rows, &hfirst, &hrows);
    cluster.in = alloc_band(p, hfirst, hrows, "the cluster's input rows");
    cluster.out = alloc_band(p, first, rows, "the cluster's output rows");
    ikcapp_recv(app, 0, cluster.in.base, (size_t)(p->images * hrows * p->size));
}

/* Another cluster's local master, once its threads are done: the output
 * rows to the global master. */
static void send_cluster(struct ikcapp *app, const struct gf_params *p) {
    ikcapp_send(app, 0, cluster.out.base, (size_t)(p->images * cluster.out.rows * p->size));
    free(cluster.out.base);
    free(cluster.in.base);
}

/* Every rank thread: its own rows, from the cluster's input to its output. */
static void convolve_mine(const struct ikcapp *app, const struct gf_params *p) {
    long first, rows;
    capb_rank_share(&app->units, p->size, app->cluster, app->local_rank, &first, &rows);
    gf_convolve(p, &cluster.in, &cluster.out, first, rows);
}

/* The global master, after its threads are done: gathers the output
 * images, prints the lines; returns the exit status (1 on a mismatch). */
static int finish_master(struct ikcapp *app, const struct gf_params *p, uint8_t *pack, uint8_t *ref,
                         struct ikcapp_clock start) {
    receive_bands(app, p, pack);
    gf_print_result(p, cluster.out.base);
    const int status = ref ? gf_compare(p, ref, cluster.out.base) : 0;
    ikcapp_print_since(start);
    free(ref);
    free(pack);
    free(cluster.out.base);
    free(cluster.in.base);
    return status;
}

/* The whole run, on every rank thread; returns the exit status. */
static int run(struct ikcapp *app, const struct gf_params *p, int verify) {
    const int is_master = app->rank == 0;
    uint8_t *pack = NULL, *ref = NULL;
    struct ikcapp_clock start = {0, 0};
    if (is_master) {
        const unsigned long bytes = (unsigned long)(p->images * p->size * p->size);
        cluster.in = gf_images(p, ikcapp_alloc(bytes, "the input images"));
        cluster.out = gf_images(p, ikcapp_alloc(bytes, "the output images"));
        pack = alloc_pack(app, p);
        for (long n = 0; n < p->images; ++n)
            gf_generate(gf_row(p, &cluster.in, n, 0), p->size, n);
        if (verify) { /* before the clock starts: the time leaves it out */
            ref = ikcapp_alloc(bytes, "the reference images");
            const struct gf_band whole = gf_images(p, ref);
            gf_convolve(p, &cluster.in, &whole, 0, p->size);
        }
        start = ikcapp_clock_now();
    } else if (app->local_rank == 0) {
        receive_cluster(app, p);
    }
    ikcapp_local_barrier(app);
    /* The master's threads convolve while it sends the other clusters theirs. */
    if (is_master) send_bands(app, p, pack);
    convolve_mine(app, p);
    ikcapp_local_barrier(app);
    if (is_master) return finish_master(app, p, pack, ref, start);
    if (app->local_rank == 0) send_cluster(app, p);
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
