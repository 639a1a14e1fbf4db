// Schedules (libmpi/mpi/schedule.hpp) on their own, and non-blocking
// collectives in whole jobs (jobs_support.hpp).
#include <catch2/catch.hpp>

#include <mpi.h>

#include "jobs_support.hpp"
#include "comm/comm.hpp"
#include "pt2pt/schedule.hpp"

using namespace jobs;
using lwmpi::Schedule;
using lwmpi::StepKind;

TEST_CASE("A schedule keeps its steps in rounds, and skips empty rounds", "[nbc][schedule]") {
    lwmpi::Comm c{};
    Schedule *s = Schedule::create(c, lwmpi::first_schedule_tag);
    REQUIRE(s);
    int a[2] = {1, 2}, b[2] = {0, 0};
    s->round();  // nothing yet: no round
    CHECK(s->rounds() == 0);
    s->recv(1, b, 2, MPI_INT);
    s->send(2, a, 2, MPI_INT);
    s->reduce(a, b, 2, MPI_INT, MPI_SUM);
    s->round();
    s->round();  // empty
    s->copy(a, 2, MPI_INT, b, 2, MPI_INT);
    CHECK(s->steps() == 4);
    CHECK(s->rounds() == 2);  // the last one still open
    CHECK(s->step(0).kind == StepKind::recv);
    CHECK(s->step(0).peer == 1);
    CHECK(s->step(1).kind == StepKind::send);
    CHECK(s->step(2).kind == StepKind::reduce);
    CHECK(s->step(3).kind == StepKind::copy);
    CHECK(s->error() == MPI_SUCCESS);
    Schedule::destroy(s);
}

TEST_CASE("A schedule's messages travel where it was told when they were added", "[nbc][schedule]") {
    // An intercommunicator's schedule moves to its local group and back.
    lwmpi::Comm inter{}, local{};
    inter.handle = 7;
    local.handle = 8;
    Schedule *s = Schedule::create(inter, lwmpi::first_schedule_tag);
    REQUIRE(s);
    int a = 1, b = 0;
    s->send(0, &a, 1, MPI_INT);
    s->messages_on(local);
    s->recv(1, &b, 1, MPI_INT);
    s->copy(&a, 1, MPI_INT, &b, 1, MPI_INT);
    s->messages_on(inter);
    s->recv(0, &b, 1, MPI_INT);
    CHECK(s->step(0).comm == 7);
    CHECK(s->step(1).comm == 8);
    CHECK(s->step(2).comm == MPI_COMM_NULL);  // a local step goes nowhere
    CHECK(s->step(3).comm == 7);
    Schedule::destroy(s);
}

TEST_CASE("A schedule of local steps runs them round after round", "[nbc][schedule]") {
    // x = a; x = b + x; y = x; y = y + y: each round sees the one before.
    lwmpi::Comm c{};
    Schedule *s = Schedule::create(c, lwmpi::first_schedule_tag);
    REQUIRE(s);
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, y[3] = {0, 0, 0};
    auto *x = static_cast<int *>(s->temp(3, MPI_INT));
    REQUIRE(x);
    s->copy(a, 3, MPI_INT, x, 3, MPI_INT);
    s->reduce(b, x, 3, MPI_INT, MPI_SUM);
    s->round();
    s->copy(x, 3, MPI_INT, y, 3, MPI_INT);
    s->round();
    s->reduce(y, y, 3, MPI_INT, MPI_SUM);
    CHECK(s->start() == MPI_SUCCESS);
    CHECK(s->advance());  // nothing to wait for: over when it started
    CHECK(s->error() == MPI_SUCCESS);
    CHECK((y[0] == 22 && y[1] == 44 && y[2] == 66));
    Schedule::destroy(s);
}

TEST_CASE("A schedule fails at the first local step that fails, and runs no more", "[nbc][schedule]") {
    lwmpi::Comm c{};
    Schedule *s = Schedule::create(c, lwmpi::first_schedule_tag);
    REQUIRE(s);
    int a[4] = {1, 2, 3, 4}, b[2] = {0, 0}, d[1] = {0};
    s->copy(a, 4, MPI_INT, b, 2, MPI_INT);  // 16 bytes into 8
    s->round();
    s->copy(a, 1, MPI_INT, d, 1, MPI_INT);
    CHECK(s->start() == MPI_SUCCESS);
    CHECK(s->advance());
    CHECK(s->error() == MPI_ERR_TRUNCATE);
    CHECK(d[0] == 0);
    Schedule::destroy(s);
}

TEST_CASE("Non-blocking collectives outstanding together, moved on by other waits", "[jobs][nbc]") {
    for (const Placement &p : placements) {
        INFO(p.name);
        const JobResult r = run_job(config(4, p), [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int sum = rank, root_val = rank == 3 ? 99 : -1, token = -1;
            MPI_Request req[3];
            EXPECT_OK(MPI_Iallreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]));
            EXPECT_OK(MPI_Ibcast(&root_val, 1, MPI_INT, 3, MPI_COMM_WORLD, &req[1]));
            EXPECT_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[2]));
            // Rank 0 waits for a message that rank 3 sends only once its
            // Ibcast is over, which needs every rank's part: rank 0's
            // receive must move the collectives on.
            if (rank == 3) {
                EXPECT_OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
                EXPECT_OK(MPI_Send(&root_val, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
            }
            if (rank == 0) EXPECT_OK(MPI_Recv(&token, 1, MPI_INT, 3, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT_OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
            EXPECT(sum == 6);
            EXPECT(root_val == 99);
            EXPECT(rank != 0 || token == 99);
            // A freed one still runs to its end (section 3.7.3).
            int x = rank == 0 ? 5 : 0;
            MPI_Request f;
            EXPECT_OK(MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &f));
            EXPECT_OK(MPI_Request_free(&f));
            EXPECT(f == MPI_REQUEST_NULL);
            EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
            EXPECT_OK(MPI_Finalize());
            EXPECT(x == 5);
            return 0;
        });
        CHECK_CLEAN(r);
    }
}
