// What a rank tells the job monitor of its waits (mpiutil/watch.cpp): a
// blocked rank's call, peer, tag, communicator, message counts and the
// oldest message waiting for a receive, repeated while it stays stuck;
// and its final counts at MPI_Finalize.
#include <catch2/catch.hpp>

#include <mpi.h>
#include <string.h>

#include <string>

#include "jobs_support.hpp"

using namespace jobs;

namespace {

std::string call_of(const ts_mpi_state &st) { return std::string(st.call, strnlen(st.call, sizeof st.call)); }

}  // namespace

TEST_CASE("a deadlocked rank tells what it is blocked in", "[jobs][watch]") {
    for (const bool local : {true, false}) {
        JobConfig c = shape(2);
        c.local_path = local;
        c.timeout_s = 2.5;  // the job is hung: it ends at the timeout, after a few reports
        const JobResult r = run_job(c, [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int v = 1;
            if (rank == 0) EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
            MPI_Recv(&v, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            return 1;  // never: the job times out
        });
        CAPTURE(local);
        REQUIRE(r.timed_out);
        unsigned sent = 0, arrived = 0;
        for (int rank = 0; rank < 2; ++rank) {
            const auto &states = r.mpi_states[static_cast<size_t>(rank)];
            REQUIRE(states.size() >= 2);  // once after 500 ms, again every 500 ms
            const ts_mpi_state &first = states.front(), &last = states.back();
            CHECK(last.state == TS_MPI_STATE_BLOCKED);
            CHECK(call_of(last) == "Recv");
            CHECK(last.peer == 1 - rank);
            CHECK(last.tag == 7);
            CHECK(last.context == 0);
            CHECK(first.age_ms >= 500);
            CHECK(last.age_ms >= first.age_ms + 400);  // one wait, still stuck
            CHECK(last.now > first.now);
            CHECK(last.sent == first.sent);
            CHECK(last.arrived == first.arrived);
            CHECK(last.unexpected == (rank == 1 ? 1u : 0u));
            if (rank == 1) {
                CHECK(last.uq_source == 0);
                CHECK(last.uq_tag == 5);
                CHECK(last.uq_context == 0);
            }
            sent += last.sent;
            arrived += last.arrived;
        }
        CHECK(sent == arrived);  // nothing in flight
    }
}

TEST_CASE("a rank that finalizes gives its final counts", "[jobs][watch]") {
    const JobResult r = run_job(shape(2), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = rank;
        for (int i = 0; i < 100; ++i)
            EXPECT_OK(MPI_Sendrecv_replace(&v, 1, MPI_INT, 1 - rank, 0, 1 - rank, 0, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    REQUIRE(clean(r));
    unsigned sent = 0, arrived = 0;
    for (const auto &states : r.mpi_states) {
        REQUIRE(!states.empty());  // (a wait that stalled 500 ms on a busy host adds a report before)
        const ts_mpi_state &last = states.back();
        CHECK(last.state == TS_MPI_STATE_FINALIZED);
        CHECK(last.sent >= 100);
        sent += last.sent;
        arrived += last.arrived;
    }
    CHECK(sent == arrived);
}
