// Host tests of a trace ring (kernel/trace_ring.hpp): it keeps events in
// order up to its capacity, counts the rest as lost, and a reader on
// another thread never sees an event before it is complete.
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "kernel/trace_ring.hpp"

using kernel::TraceRing;

namespace {

ts_trace_event at(uint64_t t) { return ts_trace_event{t, t, TS_TRACE_MPI_SEND, 0, 1, 2, 3, t * 7}; }

}  // namespace

TEST_CASE("a ring keeps its events in order and counts what does not fit") {
    std::vector<ts_trace_event> store(4);
    TraceRing r{store.data(), 4};
    for (uint64_t t = 1; t <= 6; ++t)
        r.put(at(t));
    REQUIRE(r.readable(100) == 4);
    REQUIRE(r.lost_now() == 2);
    for (uint64_t i = 0; i < 4; ++i) {
        REQUIRE(store[i].time == i + 1);
        REQUIRE(store[i].d == (i + 1) * 7);
    }
    REQUIRE(r.readable(3) == 3);  // what a smaller buffer takes
}

TEST_CASE("a ring without memory counts every event as lost") {
    TraceRing r;
    r.put(at(1));
    r.put(at(2));
    REQUIRE(r.readable(10) == 0);
    REQUIRE(r.lost_now() == 2);
}

TEST_CASE("a reader on another core sees only complete events") {
    constexpr uint32_t n = 20000;
    std::vector<ts_trace_event> store(n);
    TraceRing r{store.data(), n};
    std::thread writer([&] {
        for (uint64_t t = 1; t <= n + 100; ++t)
            r.put(at(t));
    });
    uint32_t seen = 0;
    bool ok = true;
    while (seen < n) {
        const uint32_t now = r.readable(n);
        for (uint32_t i = seen; i < now; ++i)
            ok = ok && store[i].time == i + 1 && store[i].d == (i + 1) * 7;
        seen = now;
    }
    writer.join();
    REQUIRE(ok);
    REQUIRE(r.lost_now() == 100);
}
