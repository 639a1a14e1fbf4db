// Host tests of crt0's view of rank placement (rankplan.cpp).
#include <catch2/catch.hpp>

#include <vector>

#include "rankplan.h"

namespace {

// The default profile: 1 I/O cluster, 4 compute clusters of 4 slots.
ts_job_info job(int cluster, int np, int policy) {
    ts_job_info j{};
    j.cluster_id = cluster;
    j.nclusters = 5;
    j.nio_clusters = 1;
    j.ncores = 5;
    j.np = np;
    j.map_policy = policy;
    j.slots_per_cluster = 4;
    return j;
}

std::vector<int> ranks_of(const ts_job_info &j) {
    int r[8];
    const int n = ts__local_ranks(&j, r, 8);
    REQUIRE(n >= 0);
    return std::vector<int>(r, r + n);
}

}  // namespace

TEST_CASE("compact fills a cluster first") {
    CHECK(ranks_of(job(1, 6, TS_MAP_COMPACT)) == std::vector<int>{0, 1, 2, 3});
    CHECK(ranks_of(job(2, 6, TS_MAP_COMPACT)) == std::vector<int>{4, 5});
    CHECK(ranks_of(job(3, 6, TS_MAP_COMPACT)).empty());
}

TEST_CASE("scatter deals ranks round-robin") {
    CHECK(ranks_of(job(1, 6, TS_MAP_SCATTER)) == std::vector<int>{0, 4});
    CHECK(ranks_of(job(2, 6, TS_MAP_SCATTER)) == std::vector<int>{1, 5});
    CHECK(ranks_of(job(4, 6, TS_MAP_SCATTER)) == std::vector<int>{3});
    CHECK(ranks_of(job(4, 16, TS_MAP_SCATTER)) == std::vector<int>{3, 7, 11, 15});
}

TEST_CASE("no MPI process: services, I/O clusters") {
    CHECK(ranks_of(job(1, 0, TS_MAP_COMPACT)).empty());
    CHECK(ranks_of(job(0, 4, TS_MAP_COMPACT)).empty());
}

TEST_CASE("jobs that do not fit") {
    int r[8];
    auto big = job(1, 17, TS_MAP_COMPACT);
    CHECK(ts__local_ranks(&big, r, 8) == -TS_EINVAL);
    auto bad_policy = job(1, 4, 7);
    CHECK(ts__local_ranks(&bad_policy, r, 8) == -TS_EINVAL);
    auto few_slots = job(1, 4, TS_MAP_COMPACT);
    CHECK(ts__local_ranks(&few_slots, r, 2) == -TS_EINVAL);
}

TEST_CASE("a rank's place agrees with the ranks each cluster hosts") {
    for (int policy : {TS_MAP_COMPACT, TS_MAP_SCATTER})
        for (int np : {1, 6, 16}) {
            for (int cluster = 1; cluster <= 4; ++cluster) {
                const ts_job_info j = job(cluster, np, policy);
                const std::vector<int> here = ranks_of(j);
                for (int local = 0; local < static_cast<int>(here.size()); ++local) {
                    int c = -1, l = -1;
                    REQUIRE(ts__rank_place(&j, here[local], &c, &l) == 0);
                    CHECK(c == cluster);
                    CHECK(l == local);
                }
            }
            const ts_job_info j = job(1, np, policy);
            int c, l;
            CHECK(ts__rank_place(&j, -1, &c, &l) == -TS_EINVAL);
            CHECK(ts__rank_place(&j, np, &c, &l) == -TS_EINVAL);
        }
}
