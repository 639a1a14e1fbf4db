/*
 * The raw-IKC baselines' runtime: the same master / local master / worker
 * structure as the MPI applications (capb_mpi.h), written straight on
 * Tessera's IKC (mailbox, portal, sync) and threads, without LWMPI.
 *
 * Every rank of the job runs main(). How the ranks of one cluster work
 * together follows mpirun's --ranks, which the program reads from
 * ts_job()->ranks_mode (app->shared says which):
 *
 *   - threads (shared = 1): the ranks of a cluster are threads of one
 *     process and share its memory, so inside a cluster work is handed
 *     over through shared arrays and a barrier, never copied. Only the
 *     local masters (local index 0) have IKC objects.
 *   - processes (shared = 0): each rank is a process of its own (its
 *     globals are its own) and has its own input mailbox and portal, so
 *     everything that moves between the ranks of a cluster moves over
 *     IKC too (ikcapp_local_send/recv), one process per core, as the
 *     ranks of different clusters talk.
 *
 * Between clusters only the local masters talk: small messages in
 * mailboxes, bulk data through portals, and barriers built from syncs.
 * Clusters are numbered as in capb_mpi.h: by their lowest rank, so
 * cluster 0 hosts rank 0, the global master. Any IKC error ends the job
 * (status 1) with a message naming the call: these are benchmarks, not
 * services.
 */
#ifndef IKCAPP_H
#define IKCAPP_H

#include <stddef.h>

#include "capbench.h"

struct ikcapp {
    int rank, np; /* this rank, and the job's size */
    int local_rank, local_size;
    int cluster, nclusters; /* my cluster's number (capb_units), and how many */
    int shared;             /* 1: my cluster's ranks share its memory (--ranks threads); 0: processes */
    struct capb_units units;
    int cluster_ids[CAPB_MAX_CLUSTERS]; /* the Tessera cluster id of each */
};

/* Called by every rank first: fills *app (local_rank is the rank's place
 * among its cluster's ranks in rank order, which is its local index) and
 * creates the rank's IKC objects: the local master's input mailbox and
 * portal, which every rank has in processes mode (port 8 + local index, as
 * LWMPI's ranks), and the job barrier. Returns once every rank is ready (a
 * barrier of the whole job), so any IKC call may follow at once. Aborts the
 * job on a program that is not run by mpirun with -np. */
void ikcapp_init(struct ikcapp *app);
/* Called by every rank last; each closes and unlinks what it opened, after
 * a barrier of the job. */
void ikcapp_finish(struct ikcapp *app);

/* Every rank of my cluster waits for the others (in processes mode, the
 * others tell the local master by mailbox and it answers each). */
void ikcapp_local_barrier(struct ikcapp *app);
/* Local masters only: waits for the local masters of every cluster. */
void ikcapp_barrier(struct ikcapp *app);

/* Local masters only, between different clusters (inside one, see
 * ikcapp_local_send): `to` and `from` are cluster numbers other than
 * app->cluster. Calls in any other case end the job. */

/* A message of at most the mailbox payload (ts_job()->mailbox_payload) to
 * cluster `to`'s mailbox; receive takes the next one, from any cluster,
 * which must be exactly `size` bytes. Messages from one cluster arrive in
 * the order they were sent. */
void ikcapp_mail_send(struct ikcapp *app, int to, const void *msg, size_t size);
void ikcapp_mail_recv(struct ikcapp *app, void *msg, size_t size);

/* Bulk data of any size from my cluster to cluster `to` through its
 * portal: send returns once the data is written (the receiver has allowed
 * it); recv allows cluster `from` and returns once exactly `size` bytes
 * arrived. Both sides must agree on the size; 0 bytes moves nothing. */
void ikcapp_send(struct ikcapp *app, int to, const void *data, size_t size);
void ikcapp_recv(struct ikcapp *app, int from, void *data, size_t size);

/* Processes mode only, between the local master and another rank of its
 * cluster (`to` and `from` are local ranks, one side being 0): data of
 * any size, both sides agreeing on it (0 bytes moves nothing). To a rank
 * other than the local master it goes as one mailbox message when it fits
 * the payload, else as an empty mailbox message and one portal transfer:
 * the rank reads only once the message says the data comes, so that no
 * two ranks of a cluster wait on its one hardware input portal at once (a
 * read holds it until its data came). To the local master it goes as one
 * portal transfer, which the local master reads when it wants it. */
void ikcapp_local_send(struct ikcapp *app, int to, const void *data, size_t size);
void ikcapp_local_recv(struct ikcapp *app, int from, void *data, size_t size);

/* Wall time (the time CSR) and cycles, for capb_print_time. */
struct ikcapp_clock {
    unsigned long ticks;
    unsigned long long cycles;
};
struct ikcapp_clock ikcapp_clock_now(void);
void ikcapp_print_since(struct ikcapp_clock start);

/* malloc, or the job ends with a message naming `what`. */
void *ikcapp_alloc(unsigned long bytes, const char *what);
/* Ends the job with status 1 after printing "<what>: <err>" on stderr,
 * after a prefix naming the cluster and the rank. */
void ikcapp_fail(const char *what, long err) __attribute__((noreturn));

#endif
