// Host tests of the anonymous mappings' bookkeeping (runtime/ranges.c):
// which pages stay mapped after each munmap, and when a block goes back.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <set>
#include <string>
#include <vector>

#include "ranges.h"

namespace {

std::vector<void *> released;  // blocks given back, in order
void release(void *block) { released.push_back(block); }

constexpr uintptr_t page = 4096;

// A list of mappings, each its own block at a fake address (never
// dereferenced), `pages` pages long.
struct Mappings {
    ts__range *list = nullptr;
    Mappings() { released.clear(); }
    ~Mappings() {
        while (list) {
            ts__range *next = list->next;
            free(list);
            list = next;
        }
    }
    void *map(uintptr_t at, uintptr_t pages) {
        void *block = reinterpret_cast<void *>(at);
        ts__ranges_add(&list, static_cast<ts__range *>(malloc(sizeof(ts__range))), block, at,
                       at + pages * page);
        return block;
    }
    int unmap(uintptr_t start, uintptr_t end, bool with_spare = true) {
        ts__range *spare = with_spare ? static_cast<ts__range *>(malloc(sizeof(ts__range))) : nullptr;
        const int r = ts__ranges_remove(&list, start, end, &spare, release);
        free(spare);
        return r;
    }
    // The mapped ranges as "start-end" in pages, sorted.
    std::set<std::string> mapped() const {
        std::set<std::string> out;
        for (const ts__range *r = list; r; r = r->next)
            out.insert(std::to_string(r->start / page) + "-" + std::to_string(r->end / page));
        return out;
    }
};

}  // namespace

TEST_CASE("a whole mapping goes, and its block with it") {
    Mappings m;
    void *a = m.map(10 * page, 3);
    void *b = m.map(20 * page, 2);
    CHECK(m.unmap(10 * page, 13 * page) == 0);
    CHECK(m.mapped() == std::set<std::string>{"20-22"});
    CHECK(released == std::vector<void *>{a});
    CHECK(m.unmap(20 * page, 22 * page) == 0);
    CHECK(m.mapped().empty());
    CHECK(released == std::vector<void *>{a, b});
}

TEST_CASE("parts: the block stays until its last page goes") {
    Mappings m;
    void *a = m.map(10 * page, 4);
    CHECK(m.unmap(10 * page, 11 * page) == 0);  // the head
    CHECK(m.mapped() == std::set<std::string>{"11-14"});
    CHECK(m.unmap(13 * page, 14 * page) == 0);  // the tail
    CHECK(m.mapped() == std::set<std::string>{"11-13"});
    CHECK(released.empty());
    CHECK(m.unmap(11 * page, 13 * page) == 0);
    CHECK(released == std::vector<void *>{a});
}

TEST_CASE("a hole splits a mapping in two") {
    Mappings m;
    void *a = m.map(10 * page, 5);
    CHECK(m.unmap(12 * page, 13 * page) == 0);
    CHECK(m.mapped() == std::set<std::string>{"10-12", "13-15"});
    CHECK(m.unmap(10 * page, 12 * page) == 0);
    CHECK(released.empty());  // 13-15 still holds the block
    CHECK(m.unmap(13 * page, 15 * page) == 0);
    CHECK(released == std::vector<void *>{a});
}

TEST_CASE("a hole without a spare node changes nothing") {
    Mappings m;
    m.map(10 * page, 5);
    CHECK(m.unmap(12 * page, 13 * page, false) == -1);
    CHECK(m.mapped() == std::set<std::string>{"10-15"});
    // Cutting an end needs no node.
    CHECK(m.unmap(14 * page, 15 * page, false) == 0);
    CHECK(m.mapped() == std::set<std::string>{"10-14"});
}

TEST_CASE("one munmap across several mappings and the gaps between them") {
    Mappings m;
    void *a = m.map(10 * page, 2);
    void *b = m.map(14 * page, 2);
    void *c = m.map(18 * page, 4);
    CHECK(m.unmap(11 * page, 19 * page) == 0);  // a's tail, all of b, c's head
    CHECK(m.mapped() == std::set<std::string>{"10-11", "19-22"});
    CHECK(released == std::vector<void *>{b});
    CHECK(m.unmap(0, 100 * page) == 0);  // everything, and more
    CHECK(m.mapped().empty());
    CHECK(std::set<void *>(released.begin(), released.end()) == std::set<void *>{a, b, c});
    CHECK(released.size() == 3);  // each once
}

TEST_CASE("pages that are not mapped: nothing happens") {
    Mappings m;
    m.map(10 * page, 2);
    CHECK(m.unmap(0, 10 * page) == 0);
    CHECK(m.unmap(12 * page, 20 * page) == 0);
    CHECK(m.mapped() == std::set<std::string>{"10-12"});
    CHECK(released.empty());
}
