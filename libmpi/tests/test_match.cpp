// Message matching (MPI 3.1 section 3.5).
#include <catch2/catch.hpp>

#include "../mpiutil/match.hpp"

using namespace lwmpi::util;

TEST_CASE("an envelope matches a pattern on context, source and tag", "[match]") {
    const Envelope e{3, 7, 0};
    CHECK(matches({3, 7, 0}, e));
    CHECK(matches({any_source, 7, 0}, e));
    CHECK(matches({3, any_tag, 0}, e));
    CHECK(matches({any_source, any_tag, 0}, e));
    CHECK_FALSE(matches({2, 7, 0}, e));
    CHECK_FALSE(matches({3, 8, 0}, e));
    CHECK_FALSE(matches({any_source, any_tag, 1}, e));  // other communicator
    CHECK_FALSE(matches({3, 7, 2}, e));
}

TEST_CASE("wildcards never cross communicators", "[match]") {
    // Collective traffic (context 1) must not match a user ANY/ANY receive.
    CHECK_FALSE(matches({any_source, any_tag, 0}, Envelope{0, 0, 1}));
    CHECK(matches({any_source, any_tag, 1}, Envelope{0, 0, 1}));
}
