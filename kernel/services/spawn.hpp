// The spawn server of a cluster (kernel-resident in this slice: it runs on
// the master core after boot) and, on cluster 0, the job monitor.
#pragma once

namespace kernel {

/// Starts the cluster's programs from the boot manifest in rings (services
/// first, then user programs, with a barrier between rings), then reports
/// its MPI program's exit to cluster 0; cluster 0 collects the reports and
/// powers the machine off with the job's status. Does not return.
[[noreturn]] void spawn_server();

}  // namespace kernel
