/*
 * gf [--verify] [N [S [K]]]: CAP Bench Gaussian Filter, MPI form
 * (userland/apps/README.md; the arithmetic is in gf_kernel.h).
 *
 * The units split the S rows of every image. The global master generates
 * the N input images and sends each other local master, in one message,
 * its cluster's rows of all of them plus the halo the mask reaches; a
 * local master sends each of its cluster's other ranks their rows plus
 * halo, convolves its own in place, gathers their output rows and sends
 * the cluster's to the global master, which prints the checksum of the N
 * output images. The rows of all N images travel as one message, an MPI
 * vector of N blocks straight from and into the images.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "capb_mpi.h"
#include "gf_kernel.h"

#define TAG_INPUT  1
#define TAG_OUTPUT 2

/* Rows [first, first + rows) of every image, in a buffer of their own. */
static struct gf_band alloc_band(const struct gf_params *p, long first, long rows, const char *what) {
    return gf_packed(p, capb_alloc((unsigned long)(p->images * rows * p->size), what), first, rows);
}

/* Starts sending (send != 0) or receiving rows [first, first + rows) of
 * every image of b to or from `peer`, as one message: plain bytes when
 * they are contiguous in b, else a vector of N blocks. */
static void post_rows(int send, const struct gf_params *p, const struct gf_band *b, long first, long rows,
                      int peer, int tag, MPI_Comm comm, MPI_Request *req) {
    const long block = rows * p->size;
    void *at = gf_row(p, b, 0, first);
    MPI_Datatype type = MPI_BYTE;
    int count = (int)(p->images * block);
    if (p->images > 1 && block != b->stride) {
        MPI_Type_vector((int)p->images, (int)block, (int)b->stride, MPI_BYTE, &type);
        MPI_Type_commit(&type);
        count = 1;
    }
    if (send)
        MPI_Isend(at, count, type, peer, tag, comm, req);
    else
        MPI_Irecv(at, count, type, peer, tag, comm, req);
    if (type != MPI_BYTE) MPI_Type_free(&type); /* the request keeps it until it completes */
}

/* A local master starts sending each other rank of its cluster that
 * rank's rows plus halo, from `in`; returns how many requests it started
 * at reqs (local_size - 1). */
static int deal_rows(const struct capb_layout *l, const struct gf_params *p, const struct gf_band *in,
                     MPI_Request *reqs) {
    long first, rows, hfirst, hrows;
    for (int i = 1; i < l->local_size; ++i) {
        capb_rank_share(&l->units, p->size, l->cluster, i, &first, &rows);
        gf_halo(p->size, p->mask, first, rows, &hfirst, &hrows);
        post_rows(1, p, in, hfirst, hrows, i, TAG_INPUT, l->local, &reqs[i - 1]);
    }
    return l->local_size - 1;
}

/* A local master starts receiving the output rows of each other rank of
 * its cluster into `out`; returns how many requests it started at reqs. */
static int gather_rows(const struct capb_layout *l, const struct gf_params *p, const struct gf_band *out,
                       MPI_Request *reqs) {
    long first, rows;
    for (int i = 1; i < l->local_size; ++i) {
        capb_rank_share(&l->units, p->size, l->cluster, i, &first, &rows);
        post_rows(0, p, out, first, rows, i, TAG_OUTPUT, l->local, &reqs[i - 1]);
    }
    return l->local_size - 1;
}

/* Any rank's own rows: from `in` to `out`. */
static void convolve_mine(const struct capb_layout *l, const struct gf_params *p, const struct gf_band *in,
                          const struct gf_band *out) {
    long first, rows;
    capb_rank_share(&l->units, p->size, l->cluster, l->local_rank, &first, &rows);
    gf_convolve(p, in, out, first, rows);
}

/* The global master, from the first send to the last receive: the images
 * in `in` to `out`. All its sends are done before it convolves its own
 * rows (LWMPI progresses only inside MPI calls). */
static void run_master(const struct capb_layout *l, const struct gf_params *p, const struct gf_band *in,
                       const struct gf_band *out) {
    MPI_Request *reqs =
        capb_alloc(sizeof *reqs * (unsigned long)(l->nclusters + l->local_size), "the requests");
    long first, rows, hfirst, hrows;
    int n = 0;
    for (int c = 1; c < l->nclusters; ++c) {
        capb_cluster_share(&l->units, p->size, c, &first, &rows);
        gf_halo(p->size, p->mask, first, rows, &hfirst, &hrows);
        post_rows(1, p, in, hfirst, hrows, c, TAG_INPUT, l->leaders, &reqs[n++]);
    }
    n += deal_rows(l, p, in, reqs + n);
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    convolve_mine(l, p, in, out);
    n = gather_rows(l, p, out, reqs);
    for (int c = 1; c < l->nclusters; ++c) {
        capb_cluster_share(&l->units, p->size, c, &first, &rows);
        post_rows(0, p, out, first, rows, c, TAG_OUTPUT, l->leaders, &reqs[n++]);
    }
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
}

/* The global master: generates the images (and with --verify convolves
 * them alone, before the clock starts), runs the job, prints the lines.
 * Returns the exit status (1 on a mismatch). */
static int master(const struct capb_layout *l, const struct gf_params *p, int verify) {
    const unsigned long bytes = (unsigned long)(p->images * p->size * p->size);
    const struct gf_band in = gf_images(p, capb_alloc(bytes, "the input images"));
    const struct gf_band out = gf_images(p, capb_alloc(bytes, "the output images"));
    struct gf_band ref = gf_images(p, NULL);
    for (long n = 0; n < p->images; ++n)
        gf_generate(gf_row(p, &in, n, 0), p->size, n);
    if (verify) {
        ref.base = capb_alloc(bytes, "the reference images");
        gf_convolve(p, &in, &ref, 0, p->size);
    }

    const struct capb_clock start = capb_clock_now();
    run_master(l, p, &in, &out);
    gf_print_result(p, out.base);
    const int status = verify ? gf_compare(p, ref.base, out.base) : 0;
    capb_print_since(start);
    free(ref.base);
    free(out.base);
    free(in.base);
    return status;
}

/* Any other cluster's local master: receives the cluster's rows plus
 * halo, deals them out, convolves its own, gathers the cluster's output
 * rows and sends them to the global master. */
static void local_master(const struct capb_layout *l, const struct gf_params *p) {
    MPI_Request *reqs = capb_alloc(sizeof *reqs * (unsigned long)l->local_size, "the requests");
    long first, rows, hfirst, hrows;
    capb_cluster_share(&l->units, p->size, l->cluster, &first, &rows);
    gf_halo(p->size, p->mask, first, rows, &hfirst, &hrows);
    const struct gf_band in = alloc_band(p, hfirst, hrows, "the cluster's input rows");
    const struct gf_band out = alloc_band(p, first, rows, "the cluster's output rows");
    post_rows(0, p, &in, hfirst, hrows, 0, TAG_INPUT, l->leaders, reqs);
    MPI_Wait(reqs, MPI_STATUS_IGNORE);
    MPI_Waitall(deal_rows(l, p, &in, reqs), reqs, MPI_STATUSES_IGNORE);
    convolve_mine(l, p, &in, &out);
    MPI_Waitall(gather_rows(l, p, &out, reqs), reqs, MPI_STATUSES_IGNORE);
    post_rows(1, p, &out, first, rows, 0, TAG_OUTPUT, l->leaders, reqs);
    MPI_Wait(reqs, MPI_STATUS_IGNORE);
    free(out.base);
    free(in.base);
    free(reqs);
}

/* A rank other than its cluster's local master: its rows plus halo in,
 * its output rows back. */
static void worker(const struct capb_layout *l, const struct gf_params *p) {
    MPI_Request req;
    long first, rows, hfirst, hrows;
    capb_rank_share(&l->units, p->size, l->cluster, l->local_rank, &first, &rows);
    gf_halo(p->size, p->mask, first, rows, &hfirst, &hrows);
    const struct gf_band in = alloc_band(p, hfirst, hrows, "the input rows");
    const struct gf_band out = alloc_band(p, first, rows, "the output rows");
    post_rows(0, p, &in, hfirst, hrows, 0, TAG_INPUT, l->local, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    convolve_mine(l, p, &in, &out);
    post_rows(1, p, &out, first, rows, 0, TAG_OUTPUT, l->local, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(out.base);
    free(in.base);
}

int main(int argc, char **argv) {
    struct capb_layout l;
    struct gf_params p;
    int status = 0;
    MPI_Init(&argc, &argv);
    capb_layout_init(&l);
    const int verify = capb_take_verify(&argc, argv);
    /* Every rank sees the same arguments, so all agree on failing. */
    if (gf_parse(argc, argv, &p)) {
        if (l.rank == 0) gf_usage(argv[0]);
        status = 2;
    } else if (l.rank == 0) {
        status = master(&l, &p, verify);
    } else if (l.local_rank == 0) {
        local_master(&l, &p);
    } else {
        worker(&l, &p);
    }
    capb_layout_free(&l);
    MPI_Finalize();
    return status;
}
