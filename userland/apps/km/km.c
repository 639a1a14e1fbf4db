/*
 * km [--verify] [N [D [K [SEED]]]]: CAP Bench K-Means, in MPI.
 *
 * The global master generates the N points and sends each local master its
 * cluster's share in one message; the local master sends each rank of its
 * cluster its part, where the part stays. Each iteration every rank assigns
 * its points and accumulates per-centroid sums (km_kernel.c); the sums are
 * reduced over the cluster, then over the local masters; the global master
 * moves the centroids and broadcasts them with a go-on flag over the local
 * masters, then over each cluster. userland/apps/README.md has the spec.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capb_mpi.h"
#include "km_kernel.h"

#define TAG_POINTS 1

/* One rank's part: `count` points from `points`, and the centroid each
 * is assigned to. */
struct km_part {
    long count;
    int32_t *points;
    int32_t *assign;
};

/* The points of my cluster: at the global master, a view of all of them;
 * at another local master, the cluster's share received from the global
 * master. `all` is the global master's array (NULL elsewhere). */
static int32_t *cluster_points(const struct capb_layout *l, const struct km_params *p, int32_t *all) {
    long first, count;
    if (l->rank == 0) {
        for (int c = 1; c < l->nclusters; ++c) {
            capb_cluster_share(&l->units, p->points, c, &first, &count);
            MPI_Send(all + first * p->dims, (int)(count * p->dims), MPI_INT32_T, c, TAG_POINTS, l->leaders);
        }
        return all;
    }
    capb_cluster_share(&l->units, p->points, l->cluster, &first, &count);
    int32_t *mine = capb_alloc((unsigned long)(count * p->dims) * sizeof *mine, "the cluster's points");
    MPI_Recv(mine, (int)(count * p->dims), MPI_INT32_T, 0, TAG_POINTS, l->leaders, MPI_STATUS_IGNORE);
    return mine;
}

/* Hands out the points down to the ranks: returns my part. The local
 * master keeps the cluster's array, whose first part is its own. */
static struct km_part distribute(const struct capb_layout *l, const struct km_params *p, int32_t *all) {
    struct km_part part;
    long first, count;
    capb_rank_share(&l->units, p->points, l->cluster, l->local_rank, &first, &part.count);
    if (l->local_rank == 0) {
        long cluster_first, cluster_count;
        capb_cluster_share(&l->units, p->points, l->cluster, &cluster_first, &cluster_count);
        part.points = cluster_points(l, p, all);
        for (int i = 1; i < l->local_size; ++i) {
            capb_rank_share(&l->units, p->points, l->cluster, i, &first, &count);
            MPI_Send(part.points + (first - cluster_first) * p->dims, (int)(count * p->dims), MPI_INT32_T, i,
                     TAG_POINTS, l->local);
        }
    } else {
        part.points = capb_alloc((unsigned long)(part.count * p->dims) * sizeof *part.points, "my points");
        MPI_Recv(part.points, (int)(part.count * p->dims), MPI_INT32_T, 0, TAG_POINTS, l->local,
                 MPI_STATUS_IGNORE);
    }
    part.assign = capb_alloc((unsigned long)part.count * sizeof *part.assign, "the assignments");
    km_unassigned(part.assign, part.count);
    return part;
}

/* The iterations, on every rank. msg holds the k * dims centroids then the
 * go-on flag; the global master fills it with the initial centroids and
 * gets the final ones in it. Returns the number of iterations (meaningful
 * at the global master only). */
static int iterate(const struct capb_layout *l, const struct km_params *p, const struct km_part *part,
                   int32_t *msg) {
    const int k = p->centroids, dims = p->dims;
    const int msg_len = k * dims + 1;
    const long len = km_acc_len(k, dims);
    int64_t *acc = capb_alloc(3 * (unsigned long)len * sizeof *acc, "the sums");
    int64_t *cluster_sums = acc + len, *total = cluster_sums + len;
    int iterations = 0;
    for (;;) {
        if (l->local_rank == 0) MPI_Bcast(msg, msg_len, MPI_INT32_T, 0, l->leaders);
        MPI_Bcast(msg, msg_len, MPI_INT32_T, 0, l->local);
        if (!msg[k * dims]) break;
        memset(acc, 0, (size_t)len * sizeof *acc);
        km_assign(part->points, part->count, dims, msg, k, part->assign, acc);
        MPI_Reduce(acc, cluster_sums, (int)len, MPI_INT64_T, MPI_SUM, 0, l->local);
        if (l->local_rank == 0)
            MPI_Reduce(cluster_sums, total, (int)len, MPI_INT64_T, MPI_SUM, 0, l->leaders);
        if (l->rank == 0) msg[k * dims] = km_update(msg, k, dims, total, ++iterations);
    }
    free(acc);
    return iterations;
}

/* The global master's whole run: generation, the reference for --verify
 * (computed before the clock starts, so the time leaves it out), the
 * parallel run and the output lines. Returns the exit status. */
static int master(const struct capb_layout *l, const struct km_params *p, int verify) {
    const long kd = (long)p->centroids * p->dims;
    int32_t *all = capb_alloc((unsigned long)(p->points * p->dims) * sizeof *all, "the points");
    int32_t *msg = capb_alloc((unsigned long)(kd + 1) * sizeof *msg, "the centroids");
    int32_t *ref = capb_alloc((unsigned long)kd * sizeof *ref, "the reference centroids");
    int ref_iterations = 0, status = 0;
    km_generate(all, p->points, p->dims, p->seed);
    if (verify && (ref_iterations = km_sequential(all, p->points, p->dims, p->centroids, ref)) < 0) {
        fprintf(stderr, "km: out of memory for the reference run\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    struct capb_clock start = capb_clock_now();
    struct km_part part = distribute(l, p, all);
    km_first_centroids(msg, all, p->centroids, p->dims);
    msg[kd] = 1;
    const int iterations = iterate(l, p, &part, msg);

    km_print_result(p, iterations, msg);
    if (verify) status = km_compare(p, iterations, msg, ref_iterations, ref);
    capb_print_since(start);
    free(part.assign);
    free(ref);
    free(msg);
    free(all);
    return status;
}

/* Every other rank: its part of the points, then the iterations. */
static void worker(const struct capb_layout *l, const struct km_params *p) {
    int32_t *msg = capb_alloc(((unsigned long)p->centroids * p->dims + 1) * sizeof *msg, "the centroids");
    struct km_part part = distribute(l, p, NULL);
    iterate(l, p, &part, msg);
    free(part.assign);
    free(part.points);
    free(msg);
}

int main(int argc, char **argv) {
    struct capb_layout l;
    struct km_params p;
    int status = 0;
    MPI_Init(&argc, &argv);
    capb_layout_init(&l);
    const int verify = capb_take_verify(&argc, argv);
    /* Every rank sees the same arguments, so all agree on failing. */
    if (km_parse(argc, argv, &p)) {
        if (l.rank == 0) km_usage(argv[0]);
        status = 2;
    } else if (l.rank == 0) {
        status = master(&l, &p, verify);
    } else {
        worker(&l, &p);
    }
    capb_layout_free(&l);
    MPI_Finalize();
    return status;
}
