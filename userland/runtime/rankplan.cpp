// crt0's placement of MPI ranks on this cluster, by the process manager's
// own mapping code, so the two can never disagree.
#include "rankplan.h"

#include <tessera/mapping.hpp>

using tessera::pm::JobShape;

namespace {

// The job's shape from its info; false when it does not fit the platform.
bool job_shape(const struct ts_job_info *job, JobShape *shape) {
    return tessera::pm::make_shape(job->np, job->nclusters - job->nio_clusters, job->slots_per_cluster,
                                   job->map_policy, shape) &&
           shape->fits();
}

}  // namespace

extern "C" int ts__local_ranks(const struct ts_job_info *job, int *ranks, int max) {
    if (job->np <= 0) return 0;
    JobShape shape{};
    if (!job_shape(job, &shape)) return -TS_EINVAL;
    const int cluster = job->cluster_id - job->nio_clusters;
    if (cluster < 0 || cluster >= shape.ncompute) return 0;
    const int n = shape.ranks_on(cluster);
    if (n > max) return -TS_EINVAL;
    // Both policies fill a cluster's local indices from 0 without holes.
    for (int local = 0; local < n; ++local)
        ranks[local] = shape.rank_at(cluster, local);
    return n;
}

extern "C" int ts__rank_place(const struct ts_job_info *job, int rank, int *cluster, int *local) {
    JobShape shape{};
    if (job->np <= 0 || rank < 0 || rank >= job->np || !job_shape(job, &shape)) return -TS_EINVAL;
    const tessera::pm::Placement p = shape.place(rank);
    *cluster = job->nio_clusters + p.cluster;
    *local = p.local;
    return 0;
}
