// Host unit tests of the growing request tables (mpiutil/pool.hpp).
#include <catch2/catch.hpp>

#include <vector>

#include <lwmpi/pool.hpp>

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
    REQUIRE(pool.size() == 0);  // nothing made before the first use
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
    pool.release();
    CHECK(pool.size() == 0);
}

namespace {

// Slabs of 2 up to 64 entries: the slab table (4 pointers at first) is
// doubled three times on the way.
SlabPool<Entry, 2, 64> small;

int take_small(int first) {
    const int i = small.find_free(first, [](const Entry &e) { return !e.used; });
    if (i >= 0) small[i].used = true;
    return i;
}

}  // namespace

TEST_CASE("a slab pool's table of slabs grows as the pool does, and a released pool starts afresh",
          "[pool]") {
    // The first search of an empty pool skips entries below `first`.
    CHECK(take_small(1) == 1);
    CHECK(small.size() == 2);
    CHECK(take_small(1) == 2);  // a second slab
    // Its entries keep their place while the slab table is reallocated.
    std::vector<Entry *> where{nullptr, &small[1], &small[2]};
    small[1].value = 1;
    small[2].value = 2;
    for (int k = 3; k < 64; ++k) {
        REQUIRE(take_small(1) == k);
        small[k].value = k;
        where.push_back(&small[k]);
    }
    CHECK(small.size() == 64);
    CHECK(take_small(1) == -1);
    for (int i = 1; i < 64; ++i) {
        CHECK(&small[i] == where[i]);
        CHECK(small[i].value == i);
    }
    CHECK(take_small(0) == 0);
    small.release();
    CHECK(small.size() == 0);
    // Fresh entries again, as from all-zero memory.
    CHECK(take_small(0) == 0);
    CHECK(small[0].value == 0);
    small.release();
}
