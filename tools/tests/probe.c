/* probe: each rank prints where it runs and the job's LWMPI parameters, one
 * line, for the Bindings tests of test_target.py (built with tools/mpicc):
 *   rank R cluster C core K local L mpi_flags F mpi_eager_max E mpi_wait_policy W
 *   ranks_mode M map_policy P slots_per_cluster S */
#include <stdio.h>
#include <tessera/runtime.h>

int main(void) {
    const struct ts_job_info *job = ts_job();
    printf(
        "rank %d cluster %d core %d local %d mpi_flags %u mpi_eager_max %d mpi_wait_policy %d "
        "ranks_mode %d map_policy %d slots_per_cluster %d\n",
        ts_rank(), job->cluster_id, ts_thread_core(), ts_local_index(), job->mpi_flags, job->mpi_eager_max,
        job->mpi_wait_policy, job->ranks_mode, job->map_policy, job->slots_per_cluster);
    return 0;
}
