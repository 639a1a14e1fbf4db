// Message matching and the unexpected queue (MPI 3.1 section 3.5).
#include <catch2/catch.hpp>

#include "../mpiutil/match.hpp"

using namespace lwmpi::util;

namespace {

PendingSend msg(int source, int tag, uint32_t context, uint32_t seq = 0) {
    return PendingSend{{source, tag, context}, 8, seq, 1, 8};
}

}  // namespace

TEST_CASE("an envelope matches a pattern on context, source and tag", "[match]") {
    const Envelope e{3, 7, 0};
    CHECK(matches({3, 7, 0}, e));
    CHECK(matches({kAnySource, 7, 0}, e));
    CHECK(matches({3, kAnyTag, 0}, e));
    CHECK(matches({kAnySource, kAnyTag, 0}, e));
    CHECK_FALSE(matches({2, 7, 0}, e));
    CHECK_FALSE(matches({3, 8, 0}, e));
    CHECK_FALSE(matches({kAnySource, kAnyTag, 1}, e));  // other communicator
    CHECK_FALSE(matches({3, 7, 2}, e));
}

TEST_CASE("wildcards never cross communicators", "[match]") {
    // Collective traffic (context 1) must not match a user ANY/ANY receive.
    CHECK_FALSE(matches({kAnySource, kAnyTag, 0}, Envelope{0, 0, 1}));
    CHECK(matches({kAnySource, kAnyTag, 1}, Envelope{0, 0, 1}));
}

TEST_CASE("an empty queue matches nothing", "[match]") {
    UnexpectedQueue<4> q{};
    PendingSend out{};
    CHECK(q.size() == 0);
    CHECK(q.find({kAnySource, kAnyTag, 0}) == -1);
    CHECK_FALSE(q.take({kAnySource, kAnyTag, 0}, &out));
}

TEST_CASE("the queue returns the oldest matching message first", "[match]") {
    UnexpectedQueue<8> q{};
    REQUIRE(q.push(msg(1, 5, 0, 10)));
    REQUIRE(q.push(msg(2, 5, 0, 20)));
    REQUIRE(q.push(msg(1, 6, 0, 11)));
    REQUIRE(q.push(msg(1, 5, 0, 12)));
    PendingSend out{};

    SECTION("ANY_SOURCE, ANY_TAG: strict arrival order") {
        for (uint32_t seq : {10u, 20u, 11u, 12u}) {
            REQUIRE(q.take({kAnySource, kAnyTag, 0}, &out));
            CHECK(out.seq == seq);
        }
        CHECK(q.size() == 0);
    }
    SECTION("one source: that sender's messages in the order sent (non-overtaking)") {
        REQUIRE(q.take({1, kAnyTag, 0}, &out));
        CHECK(out.seq == 10);
        REQUIRE(q.take({1, kAnyTag, 0}, &out));
        CHECK(out.seq == 11);
        REQUIRE(q.take({1, kAnyTag, 0}, &out));
        CHECK(out.seq == 12);
        CHECK_FALSE(q.take({1, kAnyTag, 0}, &out));
        CHECK(q.size() == 1);
    }
    SECTION("a tag selects past older messages, which keep their order") {
        REQUIRE(q.take({kAnySource, 6, 0}, &out));
        CHECK(out.seq == 11);
        REQUIRE(q.take({1, 5, 0}, &out));
        CHECK(out.seq == 10);
        REQUIRE(q.take({kAnySource, kAnyTag, 0}, &out));
        CHECK(out.seq == 20);
        REQUIRE(q.take({kAnySource, kAnyTag, 0}, &out));
        CHECK(out.seq == 12);
    }
    SECTION("no match leaves the queue unchanged") {
        CHECK_FALSE(q.take({3, kAnyTag, 0}, &out));
        CHECK_FALSE(q.take({kAnySource, kAnyTag, 2}, &out));
        CHECK(q.size() == 4);
    }
}

TEST_CASE("the queue keeps what it was given", "[match]") {
    UnexpectedQueue<2> q{};
    const PendingSend in{{4, 99, 2}, 123456789012ull, 77, 3, 11};
    REQUIRE(q.push(in));
    PendingSend out{};
    REQUIRE(q.take({4, 99, 2}, &out));
    CHECK(out.env.source == 4);
    CHECK(out.env.tag == 99);
    CHECK(out.env.context == 2);
    CHECK(out.bytes == 123456789012ull);
    CHECK(out.seq == 77);
    CHECK(out.cluster == 3);
    CHECK(out.port == 11);
}

TEST_CASE("a full queue refuses more and recovers after a take", "[match]") {
    UnexpectedQueue<3> q{};
    REQUIRE(q.push(msg(0, 0, 0, 1)));
    REQUIRE(q.push(msg(1, 0, 0, 2)));
    REQUIRE(q.push(msg(2, 0, 0, 3)));
    CHECK(q.full());
    CHECK_FALSE(q.push(msg(3, 0, 0, 4)));
    PendingSend out{};
    REQUIRE(q.take({1, kAnyTag, 0}, &out));
    CHECK(q.push(msg(3, 0, 0, 4)));
    for (uint32_t seq : {1u, 3u, 4u}) {
        REQUIRE(q.take({kAnySource, kAnyTag, 0}, &out));
        CHECK(out.seq == seq);
    }
}

TEST_CASE("the queue knows whose requests wait, in any context", "[match]") {
    UnexpectedQueue<4> q{};
    CHECK_FALSE(q.has_source(0));
    REQUIRE(q.push(msg(2, 0, 0)));
    REQUIRE(q.push(msg(3, 0, 1)));  // collective context
    CHECK(q.has_source(2));
    CHECK(q.has_source(3));
    CHECK_FALSE(q.has_source(1));
    PendingSend out{};
    REQUIRE(q.take({2, kAnyTag, 0}, &out));
    CHECK_FALSE(q.has_source(2));
}

TEST_CASE("interleaved pushes and takes preserve per-sender order", "[match]") {
    UnexpectedQueue<64> q{};
    uint32_t next_seq[4] = {};
    uint32_t expect[4] = {};
    PendingSend out{};
    // A fixed pseudo-random schedule of arrivals and receives.
    uint32_t x = 12345;
    for (int step = 0; step < 2000; ++step) {
        x = x * 1103515245u + 12345u;
        const int src = (x >> 8) % 4;
        if ((x >> 16) % 3 != 0 && !q.full()) {
            q.push(msg(src, (x >> 20) % 2, 0, next_seq[src]++));
        } else {
            const bool any = (x >> 24) % 2;
            if (q.take({any ? kAnySource : src, kAnyTag, 0}, &out)) {
                REQUIRE(out.seq == expect[out.env.source]);
                ++expect[out.env.source];
            }
        }
    }
}
