// Host tests of libmpi/mpi/group: the MPI_Group_* calls (MPI 3.1 section
// 6.3), their order rules and their errors. Groups are made with
// group_new from lists of MPI_COMM_WORLD ranks.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <array>
#include <initializer_list>
#include <vector>

#include "fake_job.hpp"
#include "on_ranks.hpp"
#include "comm/group.hpp"

using namespace lwmpi;

namespace {

using Ranks = std::vector<int>;

// A new group of these world ranks (on a rank's thread).
MPI_Group make(std::initializer_list<int> world) {
    GroupData g{};
    for (int w : world)
        g.world[g.size++] = static_cast<int16_t>(w);
    MPI_Group h = MPI_GROUP_NULL;
    group_new(g, &h);
    return h;
}

// The world ranks of group h, or {-1} when h is not a group.
Ranks members(MPI_Group h) {
    const GroupData *g = group_get(h);
    return g ? Ranks(g->world, g->world + g->size) : Ranks{-1};
}

// A group call that makes a group, as its members, or {-code} on error.
template <typename Call>
Ranks made(Call call) {
    MPI_Group out = MPI_GROUP_NULL;
    const int e = call(&out);
    return e ? Ranks{-e} : members(out);
}

}  // namespace

TEST_CASE("group_new, group_get and group_rank_of", "[group]") {
    const auto r = on_a_rank([] {
        const MPI_Group g = make({4, 2, 9});
        const GroupData *d = group_get(g);
        return Ranks{d->size,
                     group_rank_of(*d, 9),
                     group_rank_of(*d, 4),
                     group_rank_of(*d, 3),
                     group_get(MPI_GROUP_EMPTY)->size,
                     group_get(MPI_GROUP_NULL) == nullptr,
                     group_get(MPI_COMM_WORLD) == nullptr};
    });
    CHECK(r == Ranks{3, 2, 0, MPI_UNDEFINED, 0, 1, 1});
}

TEST_CASE("union, intersection and difference keep the order of 6.3.2", "[group]") {
    struct Out {
        Ranks ab_union, ba_union, ab_inter, ba_inter, ab_diff, ba_diff, with_empty;
        bool empty_inter, empty_diff, empty_union;
    };
    const Out o = on_a_rank([] {
        const MPI_Group a = make({5, 1, 3, 7});
        const MPI_Group b = make({7, 2, 5, 9});
        const MPI_Group c = make({0});
        Out r{};
        r.ab_union = made([&](MPI_Group *g) { return MPI_Group_union(a, b, g); });
        r.ba_union = made([&](MPI_Group *g) { return MPI_Group_union(b, a, g); });
        r.ab_inter = made([&](MPI_Group *g) { return MPI_Group_intersection(a, b, g); });
        r.ba_inter = made([&](MPI_Group *g) { return MPI_Group_intersection(b, a, g); });
        r.ab_diff = made([&](MPI_Group *g) { return MPI_Group_difference(a, b, g); });
        r.ba_diff = made([&](MPI_Group *g) { return MPI_Group_difference(b, a, g); });
        r.with_empty = made([&](MPI_Group *g) { return MPI_Group_union(MPI_GROUP_EMPTY, a, g); });
        MPI_Group g;
        r.empty_inter = MPI_Group_intersection(a, c, &g) == MPI_SUCCESS && g == MPI_GROUP_EMPTY;
        r.empty_diff = MPI_Group_difference(a, a, &g) == MPI_SUCCESS && g == MPI_GROUP_EMPTY;
        r.empty_union =
            MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &g) == MPI_SUCCESS && g == MPI_GROUP_EMPTY;
        return r;
    });
    CHECK(o.ab_union == Ranks{5, 1, 3, 7, 2, 9});
    CHECK(o.ba_union == Ranks{7, 2, 5, 9, 1, 3});
    CHECK(o.ab_inter == Ranks{5, 7});
    CHECK(o.ba_inter == Ranks{7, 5});
    CHECK(o.ab_diff == Ranks{1, 3});
    CHECK(o.ba_diff == Ranks{2, 9});
    CHECK(o.with_empty == Ranks{5, 1, 3, 7});
    CHECK(o.empty_inter);
    CHECK(o.empty_diff);
    CHECK(o.empty_union);
}

TEST_CASE("incl takes the order given, excl the group's", "[group]") {
    const auto r = on_a_rank([] {
        const MPI_Group a = make({10, 11, 12, 13, 14});
        const int some[] = {3, 0, 4};
        const int all[] = {4, 3, 2, 1, 0};
        MPI_Group none, everything;
        std::vector<Ranks> out{made([&](MPI_Group *g) { return MPI_Group_incl(a, 3, some, g); }),
                               made([&](MPI_Group *g) { return MPI_Group_excl(a, 3, some, g); }),
                               made([&](MPI_Group *g) { return MPI_Group_incl(a, 5, all, g); }),
                               made([&](MPI_Group *g) { return MPI_Group_excl(a, 0, nullptr, g); })};
        MPI_Group_incl(a, 0, nullptr, &none);
        MPI_Group_excl(a, 5, all, &everything);
        out.push_back({none == MPI_GROUP_EMPTY, everything == MPI_GROUP_EMPTY});
        return out;
    });
    CHECK(r[0] == Ranks{13, 10, 14});
    CHECK(r[1] == Ranks{11, 12});
    CHECK(r[2] == Ranks{14, 13, 12, 11, 10});
    CHECK(r[3] == Ranks{10, 11, 12, 13, 14});
    CHECK(r[4] == Ranks{1, 1});
}

TEST_CASE("range_incl and range_excl follow their triplets", "[group]") {
    const auto r = on_a_rank([] {
        const MPI_Group a = make({100, 101, 102, 103, 104, 105, 106, 107, 108, 109});
        // MPI_Group_range_incl or _excl of a on these triplets.
        const auto ranged = [&](auto call, std::initializer_list<std::array<int, 3>> list) {
            int ranges[4][3];
            int n = 0;
            for (const auto &t : list) {
                for (int k = 0; k < 3; ++k)
                    ranges[n][k] = t[k];
                ++n;
            }
            return made([&](MPI_Group *g) { return call(a, n, ranges, g); });
        };
        const auto incl = [&](std::initializer_list<std::array<int, 3>> list) {
            return ranged(MPI_Group_range_incl, list);
        };
        const auto excl = [&](std::initializer_list<std::array<int, 3>> list) {
            return ranged(MPI_Group_range_excl, list);
        };
        return std::vector<Ranks>{
            incl({{0, 9, 3}}),
            incl({{8, 2, -3}}),
            incl({{1, 1, 1}, {4, 2, -1}}),
            incl({{0, 10, 3}}),  // last is no rank, but 0, 3, 6, 9 are
            excl({{0, 9, 2}}),
            excl({{9, 0, -1}}),
            incl({{0, 9, 0}}),
            incl({{5, 2, 1}}),
            incl({{2, 5, -1}}),
            incl({{0, 10, 1}}),
            incl({{0, 4, 1}, {6, 4, -1}}),
            excl({{-1, 3, 1}}),
            made([&](MPI_Group *g) { return MPI_Group_range_incl(a, -1, nullptr, g); }),
        };
    });
    CHECK(r[0] == Ranks{100, 103, 106, 109});
    CHECK(r[1] == Ranks{108, 105, 102});
    CHECK(r[2] == Ranks{101, 104, 103, 102});
    CHECK(r[3] == Ranks{100, 103, 106, 109});
    CHECK(r[4] == Ranks{101, 103, 105, 107, 109});
    CHECK(r[5] == Ranks{});
    CHECK(r[6] == Ranks{-MPI_ERR_ARG});  // zero stride
    CHECK(r[7] == Ranks{-MPI_ERR_ARG});  // moving away from last
    CHECK(r[8] == Ranks{-MPI_ERR_ARG});
    CHECK(r[9] == Ranks{-MPI_ERR_RANK});   // reaches rank 10
    CHECK(r[10] == Ranks{-MPI_ERR_RANK});  // rank 4 twice
    CHECK(r[11] == Ranks{-MPI_ERR_RANK});
    CHECK(r[12] == Ranks{-MPI_ERR_ARG});
}

TEST_CASE("incl and excl refuse bad and repeated ranks", "[group]") {
    const auto r = on_a_rank([] {
        const MPI_Group a = make({3, 4, 5});
        const int out_of_range[] = {0, 3};
        const int negative[] = {-1};
        const int twice[] = {1, 2, 1};
        MPI_Group g = 42;
        Ranks codes{MPI_Group_incl(a, 2, out_of_range, &g), MPI_Group_excl(a, 1, negative, &g),
                    MPI_Group_incl(a, 3, twice, &g),        MPI_Group_excl(a, 3, twice, &g),
                    MPI_Group_incl(a, -1, twice, &g),       MPI_Group_incl(a, 1, nullptr, &g),
                    MPI_Group_incl(a, 1, twice, nullptr),   MPI_Group_incl(MPI_GROUP_NULL, 0, twice, &g),
                    MPI_Group_excl(a + 1, 0, twice, &g)};
        codes.push_back(g);  // untouched by the failures
        return codes;
    });
    CHECK(r == Ranks{MPI_ERR_RANK, MPI_ERR_RANK, MPI_ERR_RANK, MPI_ERR_RANK, MPI_ERR_ARG, MPI_ERR_ARG,
                     MPI_ERR_ARG, MPI_ERR_GROUP, MPI_ERR_GROUP, 42});
}

TEST_CASE("translate_ranks: MPI_PROC_NULL stays, absent ranks are MPI_UNDEFINED", "[group]") {
    const auto r = on_a_rank([] {
        const MPI_Group a = make({5, 1, 3, 7});
        const MPI_Group b = make({7, 2, 5});
        const int ranks1[] = {0, 1, 2, 3, MPI_PROC_NULL};
        Ranks ranks2(5, -9);
        Ranks bad(2, -9);
        const int out_of_range[] = {0, 4};
        std::vector<Ranks> out{{MPI_Group_translate_ranks(a, 5, ranks1, b, ranks2.data())},
                               ranks2,
                               {MPI_Group_translate_ranks(a, 2, out_of_range, b, bad.data())},
                               bad,
                               {MPI_Group_translate_ranks(a, 0, nullptr, MPI_GROUP_EMPTY, nullptr),
                                MPI_Group_translate_ranks(a, -1, ranks1, b, ranks2.data()),
                                MPI_Group_translate_ranks(a, 1, ranks1, MPI_GROUP_NULL, ranks2.data())}};
        return out;
    });
    CHECK(r[0] == Ranks{MPI_SUCCESS});
    CHECK(r[1] == Ranks{2, MPI_UNDEFINED, MPI_UNDEFINED, 0, MPI_PROC_NULL});
    CHECK(r[2] == Ranks{MPI_ERR_RANK});
    CHECK(r[3] == Ranks{-9, -9});  // checked before anything is written
    CHECK(r[4] == Ranks{MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_GROUP});
}

TEST_CASE("compare: IDENT, SIMILAR or UNEQUAL", "[group]") {
    const auto r = on_a_rank([] {
        const MPI_Group a = make({5, 1, 3});
        const MPI_Group same = make({5, 1, 3});
        const MPI_Group shuffled = make({3, 5, 1});
        const MPI_Group fewer = make({5, 1});
        const MPI_Group other = make({5, 1, 4});
        const auto compare = [](MPI_Group x, MPI_Group y) {
            int result = -1;
            const int e = MPI_Group_compare(x, y, &result);
            return e ? -e : result;
        };
        return Ranks{compare(a, a),
                     compare(a, same),
                     compare(a, shuffled),
                     compare(shuffled, a),
                     compare(a, fewer),
                     compare(fewer, a),
                     compare(a, other),
                     compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY),
                     compare(MPI_GROUP_EMPTY, a),
                     compare(a, MPI_GROUP_NULL),
                     -MPI_Group_compare(a, a, nullptr)};
    });
    CHECK(r == Ranks{MPI_IDENT, MPI_IDENT, MPI_SIMILAR, MPI_SIMILAR, MPI_UNEQUAL, MPI_UNEQUAL, MPI_UNEQUAL,
                     MPI_IDENT, MPI_UNEQUAL, -MPI_ERR_GROUP, -MPI_ERR_ARG});
}

TEST_CASE("size, and the caller's rank in a group", "[group]") {
    constexpr int np = 3;
    std::vector<Ranks> seen(np);  // one slot per rank: no two threads share one
    fake::JobConfig config;
    config.np = np;
    const fake::JobResult r = fake::run_job(config, [&](int rank) {
        if (MPI_Init(nullptr, nullptr) || MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN))
            return 1;
        const MPI_Group g = make({2, 0});
        int size = -1, mine = -1, in_empty = -1;
        seen[rank] = {MPI_Group_size(g, &size),
                      size,
                      MPI_Group_rank(g, &mine),
                      mine,
                      MPI_Group_rank(MPI_GROUP_EMPTY, &in_empty),
                      in_empty,
                      MPI_Group_size(MPI_GROUP_NULL, &size),
                      MPI_Group_rank(g, nullptr)};
        return MPI_Finalize();
    });
    INFO(r.console);
    REQUIRE(fake::clean(r));
    const auto expect = [](int mine) {
        return Ranks{MPI_SUCCESS,   2,          MPI_SUCCESS, mine, MPI_SUCCESS, MPI_UNDEFINED,
                     MPI_ERR_GROUP, MPI_ERR_ARG};
    };
    CHECK(seen[0] == expect(1));
    CHECK(seen[1] == expect(MPI_UNDEFINED));
    CHECK(seen[2] == expect(0));
}

TEST_CASE("free, and the table of 4096 groups", "[group]") {
    const auto r = on_a_rank([] {
        constexpr int table = 4096;  // group.cpp's max_groups (mpi.h says so)
        const MPI_Group first = make({1, 2});
        std::vector<MPI_Group> copies(table);
        int n = 0;  // copies of `first` until the table is full
        while (n < table && MPI_Group_excl(first, 0, nullptr, &copies[n]) == MPI_SUCCESS)
            ++n;
        MPI_Group extra;
        Ranks out{n,         MPI_Group_union(first, first, &extra),     MPI_Group_free(&copies[0]),
                  copies[0], MPI_Group_union(first, first, &copies[0]), members(copies[0]) == Ranks{1, 2}};
        MPI_Group freed = copies[1];
        out.push_back(MPI_Group_free(&copies[1]));
        MPI_Group empty = MPI_GROUP_EMPTY, null = MPI_GROUP_NULL;
        out.insert(out.end(), {MPI_Group_free(&freed), MPI_Group_size(freed, &n), MPI_Group_free(&empty),
                               empty, MPI_Group_free(&null), MPI_Group_free(nullptr)});
        for (int i = 2; i < table - 1; ++i)
            MPI_Group_free(&copies[i]);
        return out;
    });
    // Freeing MPI_GROUP_EMPTY is allowed (an empty result is that handle).
    CHECK(r == Ranks{4095, MPI_ERR_NO_MEM, MPI_SUCCESS, MPI_GROUP_NULL, MPI_SUCCESS, 1, MPI_SUCCESS,
                     MPI_ERR_GROUP, MPI_ERR_GROUP, MPI_SUCCESS, MPI_GROUP_NULL, MPI_ERR_GROUP, MPI_ERR_ARG});
}

TEST_CASE("group calls need MPI to be initialized", "[group]") {
    fake::JobConfig config;
    config.np = 1;
    int code = -1;
    const fake::JobResult r = fake::run_job(config, [&](int) {
        int size;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        code = MPI_Group_size(MPI_GROUP_EMPTY, &size);
        return 0;
    });
    REQUIRE(fake::clean(r));
    CHECK(code == MPI_ERR_OTHER);
}
