/*
 * fn [--verify] A B: CAP Bench Friendly Numbers, in MPI
 * (userland/apps/README.md).
 *
 * The numbers [A, B] are split into np units. The global master sends each
 * local master its cluster's range; each local master sends each of its
 * cluster's ranks its part (keeping its own), gathers their fractions and
 * sends the cluster's fractions to the global master in one message; the
 * global master sorts all of them and counts the pairs.
 */
#include <mpi.h>
#include <stdlib.h>

#include "capb_mpi.h"
#include "fn_kernel.h"

#define TAG_RANGE  1
#define TAG_RESULT 2

/* A range of the n items (numbers A + first ...), sent as two MPI_LONGs. */
struct range {
    long first, count;
};

static void send_range(struct range r, int dest, MPI_Comm comm) {
    MPI_Send(&r, 2, MPI_LONG, dest, TAG_RANGE, comm);
}

static struct range recv_range(MPI_Comm comm) {
    struct range r;
    MPI_Recv(&r, 2, MPI_LONG, 0, TAG_RANGE, comm, MPI_STATUS_IGNORE);
    return r;
}

/* Fractions move as pairs of MPI_LONGs: 2 * count <= 2 * FN_MAX fits an int. */
static void post_fractions(struct fn_fraction *f, long count, int src, MPI_Comm comm, MPI_Request *req) {
    MPI_Irecv(f, (int)(2 * count), MPI_LONG, src, TAG_RESULT, comm, req);
}

static void send_fractions(const struct fn_fraction *f, long count, MPI_Comm comm) {
    MPI_Send(f, (int)(2 * count), MPI_LONG, 0, TAG_RESULT, comm);
}

/* A local master, whose cluster's range starts at item `first` and whose
 * fractions go to f: sends each other local rank its part and posts the
 * receive of its fractions into place, computes its own part, then waits
 * for those receives and the `posted` ones already in reqs[] (room for
 * local_size - 1 more). */
static void lead_cluster(const struct capb_layout *l, long a, long n, long first, struct fn_fraction *f,
                         MPI_Request *reqs, int posted) {
    struct range r;
    for (int i = 1; i < l->local_size; ++i) {
        capb_rank_share(&l->units, n, l->cluster, i, &r.first, &r.count);
        send_range(r, i, l->local);
        post_fractions(f + (r.first - first), r.count, i, l->local, &reqs[posted++]);
    }
    capb_rank_share(&l->units, n, l->cluster, 0, &r.first, &r.count);
    fn_abundances(a + r.first, r.count, f + (r.first - first));
    MPI_Waitall(posted, reqs, MPI_STATUSES_IGNORE);
}

/* The global master's whole run: the reference for --verify (before the
 * clock starts, so the time leaves it out), the distribution, its own
 * cluster's work, the count and the output lines. Returns the exit status. */
static int master(const struct capb_layout *l, long a, long b, int verify) {
    const long n = b - a + 1;
    struct fn_fraction *all = capb_alloc((unsigned long)n * sizeof *all, "the fractions");
    MPI_Request *reqs =
        capb_alloc((unsigned long)(l->nclusters + l->local_size) * sizeof *reqs, "the requests");
    const long expected = verify ? fn_sequential(a, b, all) : 0;

    struct capb_clock start = capb_clock_now();
    struct range r;
    for (int c = 1; c < l->nclusters; ++c) {
        capb_cluster_share(&l->units, n, c, &r.first, &r.count);
        send_range(r, c, l->leaders);
    }
    for (int c = 1; c < l->nclusters; ++c) {
        capb_cluster_share(&l->units, n, c, &r.first, &r.count);
        post_fractions(all + r.first, r.count, c, l->leaders, &reqs[c - 1]);
    }
    lead_cluster(l, a, n, 0, all, reqs, l->nclusters - 1); /* cluster 0 starts at item 0 */
    const long pairs = fn_count_pairs(all, n);

    fn_print_pairs(pairs);
    const int status = verify ? fn_compare(pairs, expected) : 0;
    capb_print_since(start);
    free(reqs);
    free(all);
    return status;
}

/* Another cluster's local master. */
static void leader(const struct capb_layout *l, long a, long n) {
    const struct range r = recv_range(l->leaders);
    struct fn_fraction *f = capb_alloc((unsigned long)r.count * sizeof *f, "the cluster's fractions");
    MPI_Request *reqs = capb_alloc((unsigned long)l->local_size * sizeof *reqs, "the requests");
    lead_cluster(l, a, n, r.first, f, reqs, 0);
    send_fractions(f, r.count, l->leaders);
    free(reqs);
    free(f);
}

/* Any other rank: its part, from and back to its local master. */
static void worker(const struct capb_layout *l, long a) {
    const struct range r = recv_range(l->local);
    struct fn_fraction *f = capb_alloc((unsigned long)r.count * sizeof *f, "the fractions");
    fn_abundances(a + r.first, r.count, f);
    send_fractions(f, r.count, l->local);
    free(f);
}

int main(int argc, char **argv) {
    struct capb_layout l;
    long a, b;
    int status = 0;
    MPI_Init(&argc, &argv);
    capb_layout_init(&l);
    const int verify = capb_take_verify(&argc, argv);
    /* Every rank sees the same arguments, so all agree on failing. */
    if (fn_parse(argc, argv, &a, &b)) {
        if (l.rank == 0) fn_usage(argv[0]);
        status = 2;
    } else if (l.rank == 0) {
        status = master(&l, a, b, verify);
    } else if (l.local_rank == 0) {
        leader(&l, a, b - a + 1);
    } else {
        worker(&l, a);
    }
    capb_layout_free(&l);
    MPI_Finalize();
    return status;
}
