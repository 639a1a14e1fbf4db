// The MPI environment in whole jobs (test_jobs_* share jobs_support.hpp):
// MPI_Init and MPI_Finalize, identities and placement, starting ranks at
// different times, the calls that work outside MPI, and mpi.h from C.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "jobs_support.hpp"
#include "../mpiutil/os.hpp"

extern "C" int lwmpi_c_smoke(void);

using namespace jobs;

// ---- identity and placement ------------------------------------------------

TEST_CASE("init, rank, size and finalize", "[jobs]") {
    for (int policy : {TS_MAP_COMPACT, TS_MAP_SCATTER})
        for (int np : {1, 2, 3, 4, 5, 8, 16}) {
            INFO("np=" << np << " policy=" << policy);
            const JobResult r = run_job(shape(np, policy), [np](int rank) {
                int flag = -1;
                EXPECT_OK(MPI_Initialized(&flag));
                EXPECT(flag == 0);
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                EXPECT_OK(MPI_Initialized(&flag));
                EXPECT(flag == 1);
                int me = -1, size = -1;
                EXPECT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
                EXPECT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
                EXPECT(me == rank && size == np);
                EXPECT_OK(MPI_Comm_rank(MPI_COMM_SELF, &me));
                EXPECT_OK(MPI_Comm_size(MPI_COMM_SELF, &size));
                EXPECT(me == 0 && size == 1);
                char name[MPI_MAX_PROCESSOR_NAME];
                int len = 0;
                EXPECT_OK(MPI_Get_processor_name(name, &len));
                EXPECT(len > 7 && std::strncmp(name, "cluster", 7) == 0);
                EXPECT_OK(MPI_Finalize());
                EXPECT_OK(MPI_Finalized(&flag));
                EXPECT(flag == 1);
                return 0;
            });
            CHECK_CLEAN(r);
        }
}

TEST_CASE("MPI_APPNUM is each rank's application of an MPMD launch", "[jobs]") {
    // MPI 3.1 section 10.5.3: mpirun -np 1 a : -np 2 b : -np 1 c, in
    // threads mode too, where one process holds ranks of two applications.
    for (bool processes : {false, true}) {
        INFO("processes=" << processes);
        JobConfig config = shape(4, TS_MAP_COMPACT);
        config.processes = processes;
        config.appnum = {0, 1, 1, 2};
        const JobResult r = run_job(config, [](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            int *value = nullptr, flag = 0;
            EXPECT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &value, &flag));
            EXPECT(flag && value && *value == (rank + 1) / 2);
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

TEST_CASE("the mapping decides which ranks share a cluster and the path between them", "[jobs]") {
    // Rank 1 stays out of MPI until rank 0's message was sent, and rank 0
    // waits for rank 1's look before it goes on (its MPI_Finalize sends
    // barrier messages): on the local path rank 1's mailbox sees no
    // message at all; over IKC the message is one mailbox message.
    for (const Placement &p : placements) {
        INFO(p.name);
        Signal sent, looked;
        const JobResult r = run_job(config(2, p), [&](int rank) {
            EXPECT_OK(MPI_Init(nullptr, nullptr));
            char name[MPI_MAX_PROCESSOR_NAME];
            int len = 0;
            EXPECT_OK(MPI_Get_processor_name(name, &len));
            // "cluster<C>", or "cluster<C>.core<K>" as mpi.h has it.
            const std::string cluster = "cluster" + std::to_string(p.policy == TS_MAP_COMPACT ? 1 : 1 + rank);
            EXPECT(name == cluster || std::string(name).rfind(cluster + ".", 0) == 0);
            if (const int line = send_one_and_count(rank, over_ikc(p) ? 1 : 0, sent, looked)) return line;
            EXPECT_OK(MPI_Finalize());
            return 0;
        });
        CHECK_CLEAN(r);
    }
}

// ---- MPI_Init --------------------------------------------------------------

TEST_CASE("MPI_Init refuses a rank whose name is already registered", "[jobs]") {
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT(lwmpi::os::name_register("mpi:0", TS_PORT_MPI_BASE) == 0);
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_INTERN);
        EXPECT(lwmpi::os::name_unregister("mpi:0") == 0);
        return 0;
    });
    CHECK_CLEAN(r);  // mailbox and portal given back too
}

TEST_CASE("MPI_Init_thread needs somewhere to put the thread level", "[jobs]") {
    const JobResult r = run_job(shape(2), [](int) {
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, nullptr) == MPI_ERR_ARG);
        int flag = -1;
        EXPECT_OK(MPI_Initialized(&flag));
        EXPECT(flag == 0);
        int provided = -1;
        EXPECT_OK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
        EXPECT(provided == MPI_THREAD_MULTIPLE);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("MPI calls outside MPI_Init..MPI_Finalize are errors", "[jobs]") {
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int n = 0;
        EXPECT(MPI_Comm_size(MPI_COMM_WORLD, &n) == MPI_ERR_OTHER);
        EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_ERR_OTHER);
        EXPECT(MPI_Finalize() == MPI_ERR_OTHER);
        int version = 0, sub = 0;
        EXPECT_OK(MPI_Get_version(&version, &sub));
        EXPECT(version == 3 && sub == 1);
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        EXPECT_OK(MPI_Error_string(MPI_ERR_TAG, text, &len));
        EXPECT(std::string(text) == "invalid tag argument" && len == 20);
        EXPECT(MPI_Error_string(-5, text, &len) == MPI_ERR_ARG);
        int cls = -1;
        EXPECT_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
        EXPECT(cls == MPI_ERR_TRUNCATE);
        EXPECT(MPI_Error_class(MPI_ERR_LASTCODE + 1, &cls) == MPI_ERR_ARG);
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Finalize());
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_OTHER);  // no restart
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("MPI_Init fails cleanly in a non-MPI thread", "[jobs]") {
    // The main test thread has no MPI identity (ts_rank() == -1); run a
    // job of one rank only to have a fabric, and call MPI_Init from a
    // thread without an identity.
    int result = -1;
    const JobResult r = run_job(shape(1), [&](int) {
        std::thread t([&] {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            result = MPI_Init(nullptr, nullptr);
        });
        t.join();
        return 0;
    });
    CHECK_CLEAN(r);
    CHECK(result == MPI_ERR_OTHER);
}

TEST_CASE("Wtime advances in Wtick steps", "[jobs]") {
    const JobResult r = run_job(shape(1), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        const double tick = MPI_Wtick();
        EXPECT(tick > 0 && tick <= 1e-6);
        const double t0 = MPI_Wtime();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const double t1 = MPI_Wtime();
        EXPECT(t1 - t0 >= 0.019 && t1 - t0 < 5);
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("a small mailbox payload is refused at MPI_Init", "[jobs]") {
    JobConfig c = shape(1);
    c.payload = 16;
    const JobResult r = run_job(c, [](int) {
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        EXPECT(MPI_Init(nullptr, nullptr) == MPI_ERR_INTERN);
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("mpi.h works from C", "[jobs]") {
    for (const Placement &p : placements) {
        INFO(p.name);
        const JobResult r = run_job(config(4, p), [](int) { return lwmpi_c_smoke(); });
        CHECK_CLEAN(r);
    }
}

// ---- late starters ---------------------------------------------------------

TEST_CASE("late starters: name resolutions wait for the name", "[jobs]") {
    JobConfig c = shape(3, TS_MAP_SCATTER);
    c.start_delay_ms = {0, 300, 150};
    const JobResult r = run_job(c, [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = rank;
        if (rank == 0) {
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD));
        } else {
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT(v == 0);
        }
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("a send waits for a late destination without a time limit", "[jobs]") {
    // Rank 1 starts 40 s late by the job's clock: longer than any fixed
    // limit on name resolutions would allow.
    JobConfig c = shape(2, TS_MAP_SCATTER);
    c.clock_rate = 100;
    c.start_delay_ms = {0, 400};
    const JobResult r = run_job(c, [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int v = rank;
        if (rank == 0)
            EXPECT_OK(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
        else
            EXPECT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}
