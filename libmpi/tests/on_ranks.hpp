// Runs MPI code on the ranks of a fake job and hands each rank's result
// back to the test's thread, where Catch2's assertions run (they are not
// thread-safe).
#pragma once

#include <catch2/catch.hpp>

#include <mpi.h>

#include <vector>

#include "fake_job.hpp"

/// body(rank) on np ranks, between MPI_Init and MPI_Finalize, with
/// MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF; the job must end
/// clean. Returns what each rank's body returned.
template <typename F>
auto on_ranks(int np, F body) {
    std::vector<decltype(body(0))> seen(np);  // one slot per rank: no two threads share one
    fake::JobConfig config;
    config.np = np;
    const fake::JobResult r = fake::run_job(config, [&](int rank) {
        if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS ||
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
            MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) != MPI_SUCCESS)
            return 1;
        seen[rank] = body(rank);
        return MPI_Finalize();
    });
    INFO(r.console);
    REQUIRE(fake::clean(r));
    return seen;
}

/// f() on the only rank of a job, as on_ranks.
template <typename F>
auto on_a_rank(F f) {
    return on_ranks(1, [&](int) { return f(); })[0];
}
