// Host tests of the name server's table and request handling.
#include <catch2/catch.hpp>

#include <string.h>

#include <string>

#include "name_table.hpp"

using tessera::names::handle_request;
using tessera::names::NameTable;

TEST_CASE("link, lookup, unlink") {
    NameTable t(5);
    CHECK(t.link("rank0", 1) == 0);
    CHECK(t.link("rank1", 4) == 0);
    CHECK(t.lookup("rank0") == 1);
    CHECK(t.lookup("rank1") == 4);
    CHECK(t.size() == 2);
    CHECK(t.unlink("rank0") == 0);
    CHECK(t.lookup("rank0") == -TS_ENOENT);
    CHECK(t.unlink("rank0") == -TS_ENOENT);
    CHECK(t.size() == 1);
    CHECK(t.link("rank0", 0) == 0);  // a name can come back
    CHECK(t.lookup("rank0") == 0);
}

TEST_CASE("errors") {
    NameTable t(5);
    REQUIRE(t.link("a", 2) == 0);
    CHECK(t.link("a", 3) == -TS_EEXIST);
    CHECK(t.lookup("a") == 2);  // the first link stays
    CHECK(t.lookup("b") == -TS_ENOENT);
    CHECK(t.link("", 1) == -TS_EINVAL);
    CHECK(t.link(nullptr, 1) == -TS_EINVAL);
    CHECK(t.link("c", -1) == -TS_EINVAL);
    CHECK(t.link("c", 5) == -TS_EINVAL);
    CHECK(t.lookup("") == -TS_EINVAL);
    CHECK(t.unlink("") == -TS_EINVAL);
}

TEST_CASE("name length limit") {
    NameTable t(2);
    const std::string longest(TS_NAME_MAX, 'x');
    const std::string too_long(TS_NAME_MAX + 1, 'x');
    CHECK(t.link(longest.c_str(), 1) == 0);
    CHECK(t.lookup(longest.c_str()) == 1);
    CHECK(t.link(too_long.c_str(), 1) == -TS_ENAMETOOLONG);
    CHECK(t.lookup(too_long.c_str()) == -TS_ENAMETOOLONG);
    CHECK(t.unlink(too_long.c_str()) == -TS_ENAMETOOLONG);
    // Names differing only after the limit are not confused.
    CHECK(t.lookup((longest + "y").c_str()) == -TS_ENAMETOOLONG);
}

TEST_CASE("the table fills up, then frees slots") {
    NameTable t(3);
    for (int i = 0; i < NameTable::capacity; ++i)
        REQUIRE(t.link(("n" + std::to_string(i)).c_str(), i % 3) == 0);
    CHECK(t.link("one-more", 0) == -TS_ENFILE);
    CHECK(t.lookup("n77") == 77 % 3);
    REQUIRE(t.unlink("n5") == 0);
    CHECK(t.link("one-more", 0) == 0);
    CHECK(t.lookup("one-more") == 0);
}

TEST_CASE("requests off the wire") {
    NameTable t(4);
    ts_name_request req{};
    req.op = TS_NAME_LINK;
    req.arg = 3;
    strcpy(req.name, "svc");
    CHECK(handle_request(t, req) == 0);
    CHECK(handle_request(t, req) == -TS_EEXIST);
    req.op = TS_NAME_LOOKUP;
    CHECK(handle_request(t, req) == 3);
    req.op = TS_NAME_UNLINK;
    CHECK(handle_request(t, req) == 0);
    req.op = TS_NAME_LOOKUP;
    CHECK(handle_request(t, req) == -TS_ENOENT);
    req.op = 99;
    CHECK(handle_request(t, req) == -TS_EINVAL);

    // A name that fills the field with no NUL is too long, not read past.
    memset(req.name, 'z', sizeof req.name);
    req.op = TS_NAME_LINK;
    CHECK(handle_request(t, req) == -TS_ENAMETOOLONG);
    CHECK(t.size() == 0);
}
