// The rendezvous control message format.
#include <catch2/catch.hpp>

#include <cstring>

#include <stddef.h>

#include "../mpiutil/control.hpp"
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi::util;

TEST_CASE("control messages have a fixed 32-byte layout", "[control]") {
    CHECK(offsetof(ControlMsg, kind) == 0);
    CHECK(offsetof(ControlMsg, version) == 1);
    CHECK(offsetof(ControlMsg, context) == 4);
    CHECK(offsetof(ControlMsg, source) == 8);
    CHECK(offsetof(ControlMsg, tag) == 12);
    CHECK(offsetof(ControlMsg, seq) == 16);
    CHECK(offsetof(ControlMsg, cluster) == 20);
    CHECK(offsetof(ControlMsg, port) == 22);
    CHECK(offsetof(ControlMsg, bytes) == 24);
}

TEST_CASE("make_control fills in the writer", "[control]") {
    const ControlMsg m = make_control(ControlKind::cts, 5, 3, 9, 42);
    CHECK(m.kind == static_cast<uint8_t>(ControlKind::cts));
    CHECK(m.version == control_version);
    CHECK(m.source == 5);
    CHECK(m.cluster == 3);
    CHECK(m.port == 9);
    CHECK(m.seq == 42);
    CHECK(m.bytes == 0);
    CHECK(m.tag == 0);
    CHECK(m.context == 0);
}

TEST_CASE("control_valid rejects what is not ours", "[control]") {
    ControlMsg m = make_control(ControlKind::rts, 1, 2, 8, 0);
    m.tag = 3;
    CHECK(control_valid(&m, sizeof m, 4));
    CHECK_FALSE(control_valid(&m, sizeof m - 1, 4));  // short read
    CHECK_FALSE(control_valid(&m, -22, 4));           // read error
    CHECK_FALSE(control_valid(&m, sizeof m, 1));      // source outside the job
    m.context = 1000;                                 // any context (not a source)
    CHECK(control_valid(&m, sizeof m, 4));

    ControlMsg bad = m;
    bad.version = control_version + 1;
    CHECK_FALSE(control_valid(&bad, sizeof bad, 4));
    bad = m;
    bad.kind = 0;
    CHECK_FALSE(control_valid(&bad, sizeof bad, 4));
    bad.kind = 10;
    CHECK_FALSE(control_valid(&bad, sizeof bad, 4));
    bad.kind = static_cast<uint8_t>(ControlKind::withdraw);  // a cancel is a bare header
    CHECK(control_valid(&bad, sizeof bad, 4));
    CHECK_FALSE(control_valid(&bad, sizeof bad + 8, 4));
    bad.kind = static_cast<uint8_t>(ControlKind::withdrawn);
    CHECK(control_valid(&bad, sizeof bad, 4));
    bad = m;
    bad.tag = -1;  // an RTS carries a real tag
    CHECK_FALSE(control_valid(&bad, sizeof bad, 4));
    bad.kind = static_cast<uint8_t>(ControlKind::rts_cts);  // and so does an RTS_CTS
    CHECK_FALSE(control_valid(&bad, sizeof bad, 4));
    bad.tag = 3;
    CHECK(control_valid(&bad, sizeof bad, 4));
    bad = m;
    bad.port = -1;
    CHECK_FALSE(control_valid(&bad, sizeof bad, 4));
}

TEST_CASE("control_valid checks eager messages and fragments", "[control]") {
    alignas(8) char buf[120] = {};
    ControlMsg m = make_control(ControlKind::eager, 1, 2, 8, 0);
    m.bytes = 100;
    std::memcpy(buf, &m, sizeof m);
    CHECK(control_valid(buf, sizeof buf, 4));  // 88 of 100 bytes
    CHECK(control_valid(buf, sizeof m, 4));    // no data yet is fine
    m.bytes = 10;
    std::memcpy(buf, &m, sizeof m);
    CHECK_FALSE(control_valid(buf, sizeof buf, 4));  // more data than the message
    const FragmentHeader f{static_cast<uint8_t>(ControlKind::eager_more), control_version, 0, 3};
    std::memcpy(buf, &f, sizeof f);
    CHECK(control_valid(buf, sizeof buf, 4));
    CHECK_FALSE(control_valid(buf, sizeof f, 4));    // a fragment carries data
    CHECK_FALSE(control_valid(buf, sizeof buf, 3));  // source outside the job
    CHECK(eager_first_bytes(120) == 88);
    CHECK(eager_more_bytes(120) == 112);
}

TEST_CASE("control_valid checks the writer's rank, whatever the communicator", "[control]") {
    // The source of a control message follows its context (a communicator
    // of any id); only a fragment has it right after the version.
    for (ControlKind k : {ControlKind::rts, ControlKind::rts_cts, ControlKind::eager, ControlKind::cts,
                          ControlKind::credit, ControlKind::kick}) {
        INFO("kind " << static_cast<int>(k));
        ControlMsg m = make_control(k, 1, 2, 8, 0);
        m.context = 9;  // more than the job has ranks
        CHECK(control_valid(&m, sizeof m, 4));
        m.context = 0;
        m.source = 4;
        CHECK_FALSE(control_valid(&m, sizeof m, 4));
        m.source = -1;
        CHECK_FALSE(control_valid(&m, sizeof m, 4));
    }
}

TEST_CASE("replies, credit and kicks are exactly one header", "[control]") {
    alignas(8) char buf[64] = {};
    for (ControlKind k : {ControlKind::cts, ControlKind::credit, ControlKind::kick}) {
        INFO("kind " << static_cast<int>(k));
        const ControlMsg m = make_control(k, 1, 2, 8, 0);
        std::memcpy(buf, &m, sizeof m);
        CHECK(control_valid(buf, sizeof m, 4));
        CHECK_FALSE(control_valid(buf, sizeof m + 1, 4));
    }
    ControlMsg eager = make_control(ControlKind::eager, 1, 2, 8, 0);
    eager.tag = -1;  // an eager message carries a real tag
    CHECK_FALSE(control_valid(&eager, sizeof eager, 4));
}

TEST_CASE("eager credits: many for few ranks, within the budget, never fewer than the floor", "[control]") {
    using namespace lwmpi::util;
    CHECK(eager_credits(1, default_eager_max) == max_eager_credits);
    CHECK(eager_credits(2, default_eager_max) == max_eager_credits);   // 64 KiB / 512 B = 128, capped
    CHECK(eager_credits(5, default_eager_max) == 32);                  // 64 KiB / (4 * 512 B)
    CHECK(eager_credits(16, default_eager_max) == min_eager_credits);  // 8.5: the floor, 8
    CHECK(eager_credits(192, default_eager_max) == min_eager_credits);
    CHECK(eager_credits(2, 65536) == min_eager_credits);  // a 64 KiB threshold: 1, raised to the floor
    for (int np = 2; np <= 64; ++np) {
        const int c = eager_credits(np, default_eager_max);
        CHECK((c == min_eager_credits ||
               static_cast<uint64_t>(c) * (np - 1) * default_eager_max <= eager_budget));
    }
}
