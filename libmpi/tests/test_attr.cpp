// Host tests of libmpi/mpi/attr: keyvals and the attribute table (MPI 3.1
// section 6.7), with callbacks that record what they see and may call
// back into the table. Runs on the test's own thread (no MPI_Init needed);
// each case ends with attr_finalize, which empties the rank's table.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <stdint.h>

#include <string>

#include "env/attr.hpp"

using namespace lwmpi;

namespace {

constexpr HandleKind comm_kind = HandleKind::comm;
constexpr HandleKind type_kind = HandleKind::datatype;

void *value(intptr_t v) { return reinterpret_cast<void *>(v); }

// What the callbacks of a keyval saw, in order: "c<obj>:<value>" for a
// copy, "d<obj>:<value>" for a delete. `fail` makes them fail.
struct Log {
    std::string events;
    int fail = MPI_SUCCESS;
};

int copy_plus_one(int object, int, void *extra, void *in, void *out, int *flag) {
    Log &log = *static_cast<Log *>(extra);
    log.events += "c" + std::to_string(object) + ":" + std::to_string(reinterpret_cast<intptr_t>(in)) + " ";
    if (log.fail) return log.fail;
    *static_cast<void **>(out) = value(reinterpret_cast<intptr_t>(in) + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

int record_delete(int object, int, void *v, void *extra) {
    Log &log = *static_cast<Log *>(extra);
    log.events += "d" + std::to_string(object) + ":" + std::to_string(reinterpret_cast<intptr_t>(v)) + " ";
    return log.fail;
}

// object's attribute `keyval`, or -1 when it has none.
intptr_t get(HandleKind kind, int object, int keyval) {
    void *v = nullptr;
    int flag = 0;
    attr_get(kind, object, keyval, &v, &flag);
    return flag ? reinterpret_cast<intptr_t>(v) : -1;
}

}  // namespace

TEST_CASE("attributes: set, replace, copy, delete in the orders 6.7 gives", "[attr]") {
    Log log;
    int k = MPI_KEYVAL_INVALID;
    REQUIRE(keyval_create(comm_kind, copy_plus_one, record_delete, &log, &k) == MPI_SUCCESS);
    CHECK(keyval_valid(comm_kind, k));
    CHECK_FALSE(keyval_valid(type_kind, k));  // a keyval serves one kind of object

    CHECK(attr_set(comm_kind, 1, k, value(10)) == MPI_SUCCESS);
    CHECK(attr_set(comm_kind, 2, k, value(20)) == MPI_SUCCESS);
    CHECK(attr_set(type_kind, 1, k, value(30)) == MPI_SUCCESS);  // another object, same handle
    CHECK(get(comm_kind, 1, k) == 10);
    CHECK(get(type_kind, 1, k) == 30);
    CHECK(get(comm_kind, 3, k) == -1);

    CHECK(attr_set(comm_kind, 1, k, value(11)) == MPI_SUCCESS);
    CHECK(log.events == "d1:10 ");

    CHECK(attr_copy_all(comm_kind, 1, 5) == MPI_SUCCESS);
    CHECK(get(comm_kind, 5, k) == 12);
    CHECK(attr_delete(comm_kind, 5, k) == MPI_SUCCESS);
    CHECK(get(comm_kind, 5, k) == -1);
    CHECK(attr_delete(comm_kind, 5, k) == MPI_SUCCESS);  // not set: nothing to do
    CHECK(log.events == "d1:10 c1:11 d5:12 ");
    attr_finalize();
}

TEST_CASE("attributes: delete_all goes last set first and stops at a failure", "[attr]") {
    Log log;
    int k[3];
    for (int &kv : k)
        REQUIRE(keyval_create(comm_kind, nullptr, record_delete, &log, &kv) == MPI_SUCCESS);
    CHECK(attr_set(comm_kind, 1, k[0], value(1)) == MPI_SUCCESS);
    CHECK(attr_set(comm_kind, 1, k[1], value(2)) == MPI_SUCCESS);
    CHECK(attr_set(comm_kind, 1, k[2], value(3)) == MPI_SUCCESS);
    CHECK(attr_set(comm_kind, 1, k[0], value(4)) == MPI_SUCCESS);  // set anew: now last

    log.fail = MPI_ERR_OTHER;
    CHECK(attr_delete_all(comm_kind, 1) == MPI_ERR_OTHER);
    CHECK(get(comm_kind, 1, k[0]) == 4);  // a failed delete keeps the attribute
    log.fail = MPI_SUCCESS;
    log.events.clear();
    CHECK(attr_delete_all(comm_kind, 1) == MPI_SUCCESS);
    CHECK(log.events == "d1:4 d1:3 d1:2 ");
    // A copy callback of nullptr copies nothing.
    CHECK(attr_set(comm_kind, 1, k[0], value(5)) == MPI_SUCCESS);
    CHECK(attr_copy_all(comm_kind, 1, 2) == MPI_SUCCESS);
    CHECK(get(comm_kind, 2, k[0]) == -1);
    attr_finalize();
}

TEST_CASE("attributes: a failed copy undoes the copies made", "[attr]") {
    Log good, bad;
    int k1, k2;
    REQUIRE(keyval_create(comm_kind, copy_plus_one, record_delete, &good, &k1) == MPI_SUCCESS);
    REQUIRE(keyval_create(comm_kind, copy_plus_one, record_delete, &bad, &k2) == MPI_SUCCESS);
    CHECK(attr_set(comm_kind, 1, k1, value(10)) == MPI_SUCCESS);
    CHECK(attr_set(comm_kind, 1, k2, value(20)) == MPI_SUCCESS);
    bad.fail = 99;
    CHECK(attr_copy_all(comm_kind, 1, 2) == 99);
    CHECK(good.events == "c1:10 d2:11 ");
    CHECK(get(comm_kind, 2, k1) == -1);
    CHECK(get(comm_kind, 1, k1) == 10);
    attr_finalize();
}

TEST_CASE("attributes: a freed keyval lives until its last attribute goes", "[attr]") {
    Log log;
    int k;
    REQUIRE(keyval_create(type_kind, copy_plus_one, record_delete, &log, &k) == MPI_SUCCESS);
    CHECK(attr_set(type_kind, 7, k, value(1)) == MPI_SUCCESS);
    CHECK(keyval_free(comm_kind, k) == MPI_ERR_KEYVAL);  // the wrong kind
    CHECK(keyval_free(type_kind, k) == MPI_SUCCESS);
    CHECK_FALSE(keyval_valid(type_kind, k));  // it keys no new attribute
    CHECK(keyval_extant(type_kind, k));       // but its own are read and deleted
    CHECK_FALSE(keyval_extant(comm_kind, k));
    CHECK(keyval_free(type_kind, k) == MPI_SUCCESS);  // still extant: nothing more
    // Its attributes still copy and delete through its callbacks.
    CHECK(attr_copy_all(type_kind, 7, 8) == MPI_SUCCESS);
    CHECK(attr_delete_all(type_kind, 7) == MPI_SUCCESS);
    CHECK(attr_delete_all(type_kind, 8) == MPI_SUCCESS);
    CHECK(log.events == "c7:1 d7:1 d8:2 ");
    CHECK_FALSE(keyval_extant(type_kind, k));  // gone with its last attribute
    CHECK(keyval_free(type_kind, k) == MPI_ERR_KEYVAL);
    // Then its slot is free again: a rank has 63 keyvals.
    int made = 0, kv;
    while (keyval_create(comm_kind, nullptr, nullptr, nullptr, &kv) == MPI_SUCCESS)
        ++made;
    CHECK(made == 63);
    CHECK(keyval_create(comm_kind, nullptr, nullptr, nullptr, &kv) == MPI_ERR_NO_MEM);
    attr_finalize();
}

namespace {
// A copy callback that sets attributes of other objects meanwhile (the
// table grows under attr_copy_all).
int copy_and_set_many(int, int keyval, void *, void *in, void *out, int *flag) {
    for (int object = 100; object < 164; ++object)
        if (attr_set(comm_kind, object, keyval, value(object)) != MPI_SUCCESS) return MPI_ERR_INTERN;
    *static_cast<void **>(out) = in;
    *flag = 1;
    return MPI_SUCCESS;
}
}  // namespace

TEST_CASE("attributes: callbacks may change the table", "[attr]") {
    int k;
    REQUIRE(keyval_create(comm_kind, copy_and_set_many, nullptr, nullptr, &k) == MPI_SUCCESS);
    CHECK(attr_set(comm_kind, 1, k, value(42)) == MPI_SUCCESS);
    CHECK(attr_copy_all(comm_kind, 1, 2) == MPI_SUCCESS);
    CHECK(get(comm_kind, 2, k) == 42);
    CHECK(get(comm_kind, 163, k) == 163);
    attr_finalize();
}
