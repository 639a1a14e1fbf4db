// Mapping policies of the process manager (docs/services.md, "Placing the ranks").
//
// An MPI job of np processes is placed on the platform's compute clusters,
// each of which hosts at most `slots` processes:
//   compact  fills compute cluster 0, then 1, ...   rank r -> (r / slots, r % slots)
//   scatter  deals ranks round-robin over clusters  rank r -> (r % nc, r / nc)
// Clusters are counted among compute clusters only (index 0 = the first
// compute cluster). `slots` is the job's: the cores of a compute cluster
// less its master, or N under mpirun's --map-by ppr:N:cluster, which is
// compact with N slots. Shared by the kernel's spawn server, the user
// runtime and the host unit tests; header-only and constexpr.
#pragma once

namespace tessera::pm {

enum class MapPolicy : int { compact = 0, scatter = 1 };

/// Where one MPI process runs: compute cluster index and local index inside it.
struct Placement {
    int cluster;  ///< compute cluster index, 0..ncompute-1
    int local;    ///< index among the MPI processes of that cluster
};

/// The shape of a job: np processes on ncompute clusters of `slots` each.
struct JobShape {
    int np;
    int ncompute;
    int slots;
    MapPolicy policy;

    /// True when every process has a slot (np >= 1).
    constexpr bool fits() const { return np >= 1 && ncompute >= 1 && slots >= 1 && np <= ncompute * slots; }

    /// Placement of `rank` (0 <= rank < np; the job must fit).
    constexpr Placement place(int rank) const {
        if (policy == MapPolicy::compact) return {rank / slots, rank % slots};
        return {rank % ncompute, rank / ncompute};
    }

    /// The rank at (cluster, local), or -1 when that slot hosts no process.
    constexpr int rank_at(int cluster, int local) const {
        if (cluster < 0 || cluster >= ncompute || local < 0 || local >= slots) return -1;
        const int rank = policy == MapPolicy::compact ? cluster * slots + local : local * ncompute + cluster;
        return rank < np ? rank : -1;
    }

    /// How many processes compute cluster `cluster` hosts.
    constexpr int ranks_on(int cluster) const {
        int n = 0;
        for (int local = 0; local < slots; ++local)
            n += rank_at(cluster, local) >= 0 ? 1 : 0;
        return n;
    }
};

/// The shape of a job from the plain numbers the boot manifest and
/// ts_job_info carry (policy: TS_MAP_COMPACT 0 or TS_MAP_SCATTER 1).
/// False, with *out untouched, for an unknown policy.
constexpr bool make_shape(int np, int ncompute, int slots, int policy, JobShape *out) {
    if (policy != static_cast<int>(MapPolicy::compact) && policy != static_cast<int>(MapPolicy::scatter))
        return false;
    *out = {np, ncompute, slots, static_cast<MapPolicy>(policy)};
    return true;
}

}  // namespace tessera::pm
