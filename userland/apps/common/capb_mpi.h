/*
 * The master / local master / worker structure of the CAP Bench MPI
 * applications, in portable MPI: the ranks of each compute cluster (those
 * that share memory, MPI_Comm_split_type with MPI_COMM_TYPE_SHARED) form
 * a `local` communicator whose rank 0 is the cluster's local master; the
 * local masters form `leaders`, whose rank 0 is world rank 0, the global
 * master. On Linux, a node plays the part of a cluster.
 */
#ifndef CAPB_MPI_H
#define CAPB_MPI_H

#include <mpi.h>

#include "capbench.h"

struct capb_layout {
    int rank, np;   /* in MPI_COMM_WORLD */
    MPI_Comm local; /* my cluster's ranks, by world rank */
    int local_rank, local_size;
    MPI_Comm leaders; /* the local masters, by world rank; MPI_COMM_NULL on workers */
    int cluster;      /* my cluster's number (capb_units), 0..nclusters-1 */
    int nclusters;
    struct capb_units units; /* every rank knows them */
};

/* Builds the layout (collective over MPI_COMM_WORLD); aborts the job with
 * a message when there are more than CAPB_MAX_CLUSTERS clusters. */
void capb_layout_init(struct capb_layout *l);
void capb_layout_free(struct capb_layout *l);

/* Wall time in nanoseconds (MPI_Wtime) and cycles, for capb_print_time. */
struct capb_clock {
    double wall;
    unsigned long long cycles;
};
struct capb_clock capb_clock_now(void);
/* Prints the time line for the span since `start`. */
void capb_print_since(struct capb_clock start);

/* malloc, or MPI_Abort with a message naming `what`. */
void *capb_alloc(unsigned long bytes, const char *what);

#endif
