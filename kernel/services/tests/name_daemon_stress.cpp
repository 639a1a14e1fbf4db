// name_daemon_stress [ROUNDS]: every rank of every compute cluster at once
// (run it with -np 16 --map-by scatter: 4 ranks, threads of one process, on
// each of 4 clusters). Each rank registers names_per_rank names, then, ROUNDS
// times (default 10), resolves every rank's names through its daemon and
// looks them up at the name server, checking every answer against the
// job's mapping: first all names, more than a cache holds, so that remote
// resolutions miss and go to the name server and to another daemon from all
// clusters at once, then one name per rank, which the cache partly holds.
// Then every rank unregisters its names, and the first rank of each cluster
// checks its daemon's counters.
// Prints "name_daemon_stress ok rank R" or "name_daemon_stress FAIL rank
// R: ..." (the first few failures) and exits 1.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera/names.h>
#include <tessera/runtime.h>

#include <tessera/mapping.hpp>

namespace {

constexpr int names_per_rank = 2;
constexpr int reported = 5;  // failures printed per rank

// Per rank: the ranks of a cluster are threads of one process.
thread_local int rank, np, failures;
thread_local tessera::pm::JobShape shape;

void expect(const char *what, int owner, long got, long want) {
    if (got == want) return;
    if (++failures <= reported)
        printf("name_daemon_stress FAIL rank %d: %s (rank %d's name): got %ld, want %ld\n", rank, what, owner,
               got, want);
}

void name_of(char (&buf)[32], int owner, int k) { snprintf(buf, sizeof buf, "stress.r%d.%d", owner, k); }

int port_of(int owner, int k) { return 1 + (owner * names_per_rank + k) % (TS_PORTS - 1); }

int cluster_of(int owner) { return ts_job()->nio_clusters + shape.place(owner).cluster; }

void register_all(bool on) {
    char name[32];
    for (int k = 0; k < names_per_rank; ++k) {
        name_of(name, rank, k);
        if (on)
            expect("register", rank, ts_name_register(name, port_of(rank, k)), 0);
        else
            expect("unregister", rank, ts_name_unregister(name), 0);
    }
}

// The first `per_rank` names of every rank, starting after our own so that
// ranks do not move in step.
void resolve_all(int per_rank) {
    char name[32];
    for (int i = 1; i <= np; ++i) {
        const int owner = (rank + i) % np;
        for (int k = 0; k < per_rank; ++k) {
            name_of(name, owner, k);
            int cluster = -1, port = -1;
            expect("resolve", owner, ts_name_resolve(name, &cluster, &port), 0);
            expect("resolved cluster", owner, cluster, cluster_of(owner));
            expect("resolved port", owner, port, port_of(owner, k));
            expect("lookup", owner, ts_name_lookup(name), cluster_of(owner));
        }
    }
}

// Run by the first rank of each cluster once every rank is done: every
// resolution on this cluster came from its ranks, in the numbers above.
// The daemon's counters once LWMPI's own names and resolutions are done.
struct ts_name_daemon_stats base;

void check_daemon(int rounds) {
    const int here = shape.ranks_on(shape.place(rank).cluster);
    struct ts_name_daemon_stats st = {};
    expect("stats", rank, ts_name_daemon_stats(&st), 0);
    const long per_owner = names_per_rank + 1;  // resolve_all(names_per_rank), then resolve_all(1)
    const long resolutions = static_cast<long>(here) * rounds * np * per_owner;
    expect("local hits", rank, static_cast<long>(st.local_hits - base.local_hits),
           static_cast<long>(here) * rounds * here * per_owner);
    expect("all resolutions counted", rank,
           static_cast<long>(st.local_hits + st.cache_hits + st.misses -
                             (base.local_hits + base.cache_hits + base.misses)),
           resolutions);
    expect("names left", rank, st.names, base.names);
    printf("name_daemon_stress: cluster %d: %lu local hits, %lu cache hits, %lu misses, %lu port queries\n",
           ts_job()->cluster_id, st.local_hits, st.cache_hits, st.misses, st.queries);
}

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const ts_job_info *job = ts_job();
    if (!tessera::pm::make_shape(np, job->nclusters - job->nio_clusters, job->slots_per_cluster,
                                 job->map_policy, &shape)) {
        printf("name_daemon_stress FAIL rank %d: unknown mapping policy\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int rounds = argc > 1 ? atoi(argv[1]) : 10;
    // LWMPI registers each rank's name and resolves the peers a barrier
    // talks to, once: count from after that.
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    expect("stats", rank, ts_name_daemon_stats(&base), 0);
    MPI_Barrier(MPI_COMM_WORLD);

    register_all(true);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < rounds; ++r) {
        resolve_all(names_per_rank);
        resolve_all(1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    register_all(false);
    MPI_Barrier(MPI_COMM_WORLD);
    if (shape.place(rank).local == 0) check_daemon(rounds);

    if (!failures) printf("name_daemon_stress ok rank %d\n", rank);
    MPI_Finalize();
    return failures ? 1 : 0;
}
