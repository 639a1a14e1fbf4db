// Host tests of the IKC tables that hold no hardware state: the active
// table (virtual abstractions N:1 onto hardware connections, with a limit
// and a lock per connection) and the buffers table (parked messages).
#include <catch2/catch.hpp>
#include <vector>

#include "active.hpp"
#include "buffers.hpp"

using kernel::ikc::ActiveKey;
using kernel::ikc::ActiveTable;
using kernel::ikc::BuffersTable;

namespace {

constexpr ActiveKey input_mailbox{0, true, 3, 0};
constexpr ActiveKey output_mailbox{0, false, 1, 0};
constexpr ActiveKey input_portal{1, true, 3, 0};

}  // namespace

TEST_CASE("active table: virtual abstractions share one entry per connection", "[ikc][active]") {
    ActiveTable<4> t;
    const int a = t.attach(input_mailbox, 8);
    REQUIRE(a >= 0);
    CHECK(t.attach(input_mailbox, 8) == a);
    CHECK(t.refs(a) == 2);
    const int b = t.attach(output_mailbox, 8);
    const int c = t.attach(input_portal, 8);
    CHECK(b != a);
    CHECK(c != a);
    CHECK(c != b);
    CHECK(t.in_use() == 3);
}

TEST_CASE("active table: a connection carries at most `limit` virtual abstractions", "[ikc][active]") {
    ActiveTable<4> t;
    int a = -1;
    for (int i = 0; i < 3; ++i)
        a = t.attach(input_mailbox, 3);
    CHECK(t.attach(input_mailbox, 3) == -TS_ENFILE);
    t.detach(a);
    CHECK(t.attach(input_mailbox, 3) == a);
}

TEST_CASE("active table: full table, and an entry freed by its last detach", "[ikc][active]") {
    ActiveTable<2> t;
    const int a = t.attach(ActiveKey{0, false, 1, 0}, 4);
    const int b = t.attach(ActiveKey{0, false, 2, 0}, 4);
    REQUIRE(a >= 0);
    REQUIRE(b >= 0);
    CHECK(t.attach(ActiveKey{0, false, 3, 0}, 4) == -TS_ENFILE);
    t.detach(b);
    CHECK(t.in_use() == 1);
    CHECK(t.attach(ActiveKey{0, false, 3, 0}, 4) == b);
}

TEST_CASE("active table: one holder of the lock at a time", "[ikc][active]") {
    ActiveTable<2> t;
    const int a = t.attach(input_portal, 4);
    CHECK(t.lock(a, 1));
    CHECK(t.lock(a, 1));  // the holder again
    CHECK_FALSE(t.lock(a, 2));
    CHECK_FALSE(t.unlock(a, 2));  // not the holder: no effect
    CHECK_FALSE(t.lock(a, 2));
    CHECK(t.unlock(a, 1));  // 2 was refused meanwhile: it may retry now
    CHECK(t.lock(a, 2));
}

TEST_CASE("active table: an unlock says whether anybody waited for the lock", "[ikc][active]") {
    ActiveTable<2> t;
    const int a = t.attach(input_portal, 4);
    REQUIRE(t.lock(a, 1));
    CHECK_FALSE(t.unlock(a, 1));  // nobody asked: nobody to wake
    REQUIRE(t.lock(a, 1));
    CHECK_FALSE(t.lock(a, 3));
    CHECK(t.unlock(a, 1));
    REQUIRE(t.lock(a, 3));
    CHECK_FALSE(t.unlock(a, 3));  // the refusal was answered by the last unlock
}

TEST_CASE("active table: the lock goes with the entry's last virtual abstraction", "[ikc][active]") {
    ActiveTable<2> t;
    const int a = t.attach(input_portal, 4);
    REQUIRE(t.lock(a, 7));
    t.detach(a);
    const int again = t.attach(input_portal, 4);
    CHECK(t.lock(again, 1));
}

namespace {

struct Msg {
    int src;
    int seq;
};

}  // namespace

// A buffers table with n slots of its own.
struct Buffers : BuffersTable<Msg> {
    explicit Buffers(int n) : slots(static_cast<size_t>(n)) { attach(slots.data(), n); }
    std::vector<Slot> slots;
};

TEST_CASE("buffers table: per port, oldest first", "[ikc][buffers]") {
    Buffers b(8);
    REQUIRE(b.park(5, Msg{1, 0}));
    REQUIRE(b.park(6, Msg{1, 1}));
    REQUIRE(b.park(5, Msg{2, 0}));
    REQUIRE(b.park(5, Msg{1, 2}));
    Msg m{};
    REQUIRE(b.take(5, m));
    CHECK((m.src == 1 && m.seq == 0));
    REQUIRE(b.take(5, m));
    CHECK((m.src == 2 && m.seq == 0));
    REQUIRE(b.take(5, m));
    CHECK((m.src == 1 && m.seq == 2));
    CHECK_FALSE(b.take(5, m));
    REQUIRE(b.take(6, m));
    CHECK(m.seq == 1);
    CHECK(b.count() == 0);
}

TEST_CASE("buffers table: filled to its limit, refused, then drained in order", "[ikc][buffers]") {
    Buffers b(10);
    CHECK(b.limit() == 10);
    for (int i = 0; i < 10; ++i)
        REQUIRE(b.park(i % 2, Msg{0, i}));
    CHECK(b.full());
    CHECK((b.count(0) == 5 && b.count(1) == 5 && b.count(2) == 0));
    CHECK_FALSE(b.park(0, Msg{0, 99}));
    CHECK(b.count() == 10);
    Msg m{};
    for (int i = 0; i < 10; i += 2) {
        REQUIRE(b.take(0, m));
        CHECK(m.seq == i);
    }
    CHECK_FALSE(b.full());
    REQUIRE(b.park(0, Msg{0, 100}));  // freed slots are used again, after the older ones
    for (int i = 1; i < 10; i += 2) {
        REQUIRE(b.take(1, m));
        CHECK(m.seq == i);
    }
    REQUIRE(b.take(0, m));
    CHECK(m.seq == 100);
    CHECK(b.count() == 0);
}

TEST_CASE("buffers table: parks nothing until it has slots", "[ikc][buffers]") {
    BuffersTable<Msg> b;
    CHECK(b.full());
    CHECK_FALSE(b.park(1, Msg{}));
    std::vector<BuffersTable<Msg>::Slot> slots(2);
    b.attach(slots.data(), 2);
    REQUIRE(b.park(1, Msg{}));
    REQUIRE(b.park(1, Msg{}));
    CHECK_FALSE(b.park(1, Msg{}));
}
