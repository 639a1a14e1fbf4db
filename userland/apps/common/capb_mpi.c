/* The MPI applications' two-level layout (capb_mpi.h). */
#include "capb_mpi.h"

#include <stdio.h>
#include <stdlib.h>

void capb_layout_init(struct capb_layout *l) {
    int sizes[CAPB_MAX_CLUSTERS];
    MPI_Comm_rank(MPI_COMM_WORLD, &l->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &l->np);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, l->rank, MPI_INFO_NULL, &l->local);
    MPI_Comm_rank(l->local, &l->local_rank);
    MPI_Comm_size(l->local, &l->local_size);
    MPI_Comm_split(MPI_COMM_WORLD, l->local_rank == 0 ? 0 : MPI_UNDEFINED, l->rank, &l->leaders);
    if (l->local_rank == 0) {
        MPI_Comm_rank(l->leaders, &l->cluster);
        MPI_Comm_size(l->leaders, &l->nclusters);
        if (l->nclusters > CAPB_MAX_CLUSTERS) {
            fprintf(stderr, "capbench: %d clusters, at most %d\n", l->nclusters, CAPB_MAX_CLUSTERS);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Allgather(&l->local_size, 1, MPI_INT, sizes, 1, MPI_INT, l->leaders);
    }
    int head[2] = {l->cluster, l->nclusters};
    MPI_Bcast(head, 2, MPI_INT, 0, l->local);
    l->cluster = head[0];
    l->nclusters = head[1];
    MPI_Bcast(sizes, l->nclusters, MPI_INT, 0, l->local);
    capb_units_set(&l->units, l->nclusters, sizes);
}

void capb_layout_free(struct capb_layout *l) {
    if (l->leaders != MPI_COMM_NULL) MPI_Comm_free(&l->leaders);
    MPI_Comm_free(&l->local);
}

struct capb_clock capb_clock_now(void) {
    struct capb_clock c = {MPI_Wtime(), capb_cycles()};
    return c;
}

void capb_print_since(struct capb_clock start) {
    struct capb_clock end = capb_clock_now();
    capb_print_time((unsigned long long)((end.wall - start.wall) * 1e9), end.cycles - start.cycles);
}

void *capb_alloc(unsigned long bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "capbench: out of memory for %s (%lu bytes)\n", what, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}
