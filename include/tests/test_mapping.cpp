// Host unit tests of the process manager's mapping policies (mapping.hpp).
#include <catch2/catch.hpp>

#include <tessera/mapping.hpp>

using tessera::pm::JobShape;
using tessera::pm::MapPolicy;
using tessera::pm::Placement;

namespace {

// Compile-time checks: the header is constexpr.
constexpr JobShape compact{10, 4, 4, MapPolicy::compact};
static_assert(compact.place(5).cluster == 1 && compact.place(5).local == 1);
static_assert(compact.rank_at(2, 1) == 9 && compact.rank_at(2, 2) == -1);
static_assert(JobShape{10, 4, 4, MapPolicy::scatter}.place(5).cluster == 1);

}  // namespace

TEST_CASE("compact fills a cluster before the next", "[mapping]") {
    const JobShape s{10, 4, 4, MapPolicy::compact};
    const Placement expect[] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0},
                                {1, 1}, {1, 2}, {1, 3}, {2, 0}, {2, 1}};
    for (int r = 0; r < s.np; ++r) {
        INFO("rank " << r);
        CHECK(s.place(r).cluster == expect[r].cluster);
        CHECK(s.place(r).local == expect[r].local);
    }
    CHECK(s.ranks_on(0) == 4);
    CHECK(s.ranks_on(1) == 4);
    CHECK(s.ranks_on(2) == 2);
    CHECK(s.ranks_on(3) == 0);
}

TEST_CASE("scatter deals ranks round-robin over clusters", "[mapping]") {
    const JobShape s{10, 4, 4, MapPolicy::scatter};
    const Placement expect[] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1},
                                {1, 1}, {2, 1}, {3, 1}, {0, 2}, {1, 2}};
    for (int r = 0; r < s.np; ++r) {
        INFO("rank " << r);
        CHECK(s.place(r).cluster == expect[r].cluster);
        CHECK(s.place(r).local == expect[r].local);
    }
    CHECK(s.ranks_on(0) == 3);
    CHECK(s.ranks_on(1) == 3);
    CHECK(s.ranks_on(2) == 2);
    CHECK(s.ranks_on(3) == 2);
}

TEST_CASE("rank_at is the inverse of place, and -1 on empty slots", "[mapping]") {
    for (MapPolicy policy : {MapPolicy::compact, MapPolicy::scatter})
        for (int nc = 1; nc <= 5; ++nc)
            for (int slots = 1; slots <= 5; ++slots)
                for (int np = 1; np <= nc * slots; ++np) {
                    const JobShape s{np, nc, slots, policy};
                    INFO("np=" << np << " nc=" << nc << " slots=" << slots
                               << " policy=" << static_cast<int>(policy));
                    REQUIRE(s.fits());
                    int hosted = 0;
                    for (int r = 0; r < np; ++r) {
                        const Placement p = s.place(r);
                        REQUIRE(p.cluster >= 0);
                        REQUIRE(p.cluster < nc);
                        REQUIRE(p.local >= 0);
                        REQUIRE(p.local < slots);
                        REQUIRE(s.rank_at(p.cluster, p.local) == r);
                    }
                    for (int c = 0; c < nc; ++c) {
                        for (int l = 0; l < slots; ++l) {
                            const int r = s.rank_at(c, l);
                            if (r >= 0) {
                                REQUIRE(r < np);
                                REQUIRE(s.place(r).cluster == c);
                                REQUIRE(s.place(r).local == l);
                            }
                        }
                        // A cluster's ranks occupy local indices 0..n-1.
                        const int n = s.ranks_on(c);
                        for (int l = 0; l < slots; ++l)
                            REQUIRE((s.rank_at(c, l) >= 0) == (l < n));
                        hosted += n;
                    }
                    REQUIRE(hosted == np);
                }
}

TEST_CASE("rank_at rejects slots outside the platform", "[mapping]") {
    const JobShape s{4, 2, 2, MapPolicy::compact};
    CHECK(s.rank_at(-1, 0) == -1);
    CHECK(s.rank_at(2, 0) == -1);
    CHECK(s.rank_at(0, -1) == -1);
    CHECK(s.rank_at(0, 2) == -1);
    CHECK(s.ranks_on(5) == 0);
}

TEST_CASE("fits needs at least one process and enough slots", "[mapping]") {
    CHECK(JobShape{16, 4, 4, MapPolicy::compact}.fits());
    CHECK(JobShape{1, 1, 1, MapPolicy::scatter}.fits());
    CHECK_FALSE(JobShape{17, 4, 4, MapPolicy::compact}.fits());
    CHECK_FALSE(JobShape{0, 4, 4, MapPolicy::compact}.fits());
    CHECK_FALSE(JobShape{-1, 4, 4, MapPolicy::compact}.fits());
    CHECK_FALSE(JobShape{1, 0, 4, MapPolicy::compact}.fits());
    CHECK_FALSE(JobShape{1, 4, 0, MapPolicy::compact}.fits());
}
