// Host unit tests of the growing request tables (mpiutil/pool.hpp).
#include <catch2/catch.hpp>

#include <vector>

#include "../mpiutil/pool.hpp"

using lwmpi::util::SlabPool;

namespace {

struct Entry {
    bool used;
    int value;
};

// Static storage: all-zero, as the rank state is.
SlabPool<Entry, 4, 12> pool;

int take(int first = 0) {
    const int i = pool.find_free(first, [](const Entry &e) { return !e.used; });
    if (i >= 0) pool[i].used = true;
    return i;
}

}  // namespace

TEST_CASE("a slab pool grows by slabs up to its limit, and entries never move", "[pool]") {
    REQUIRE(pool.size() == 4);
    std::vector<Entry *> where;
    for (int k = 0; k < 12; ++k) {
        const int i = take();
        REQUIRE(i == k);  // fresh entries in order, the first slab first
        pool[i].value = 100 + i;
        where.push_back(&pool[i]);
    }
    CHECK(pool.size() == 12);
    CHECK(take() == -1);  // at the limit: no more
    for (int i = 0; i < 12; ++i) {
        CHECK(&pool[i] == where[i]);
        CHECK(pool[i].value == 100 + i);
    }
    // A freed entry is found again, from where the last search ended.
    pool[2].used = false;
    pool[9].used = false;
    CHECK(take() == 2);
    CHECK(take() == 9);
    CHECK(take() == -1);
    // Entries below `first` are never given out (LibMPI's null handle).
    pool[0].used = false;
    CHECK(take(1) == -1);
    CHECK(take(0) == 0);
}
