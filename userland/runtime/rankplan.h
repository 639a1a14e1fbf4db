/*
 * Which MPI ranks a cluster hosts: crt0's view of the process manager's
 * mapping policies (<tessera/mapping.hpp>). Pure, so the host tests can
 * check it.
 */
#ifndef TS_RANKPLAN_H
#define TS_RANKPLAN_H

#include <tessera/syscall.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills ranks[local] with the rank of each MPI process this cluster hosts,
 * local index 0 first, and returns how many (at most max). 0 means no MPI
 * process here: np == 0, an I/O cluster, or a compute cluster the job does
 * not use. -TS_EINVAL: the job does not fit the platform, or more than max. */
int ts__local_ranks(const struct ts_job_info *job, int *ranks, int max);

/* Where MPI rank `rank` of the job runs: its cluster id (I/O clusters
 * counted, as ts_job_info.cluster_id) and its local index there. 0, or
 * -TS_EINVAL for a rank outside 0..np-1 or a job that does not fit. */
int ts__rank_place(const struct ts_job_info *job, int rank, int *cluster, int *local);

#ifdef __cplusplus
}
#endif

#endif
