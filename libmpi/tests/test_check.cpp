// LibMPI without the OS: handles, argument checks, error strings and the
// fatal report.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <cstring>
#include <string>

#include "pt2pt/check.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "env/errors.hpp"
#include "common/handles.hpp"
#include <lwmpi/text.hpp>

using namespace lwmpi;

TEST_CASE("handles are small integers tagged with their kind", "[handles]") {
    CHECK(MPI_COMM_NULL == 0);
    CHECK(MPI_DATATYPE_NULL == 0);
    CHECK(MPI_ERRHANDLER_NULL == 0);
    CHECK(handle_is(MPI_COMM_WORLD, HandleKind::comm));
    CHECK(handle_is(MPI_INT, HandleKind::datatype));
    CHECK(handle_is(MPI_ERRORS_RETURN, HandleKind::errhandler));
    CHECK(MPI_LONG_LONG == MPI_LONG_LONG_INT);
}

TEST_CASE("predefined datatypes have their C sizes", "[handles]") {
    struct {
        MPI_Datatype t;
        size_t size;
    } const cases[] = {
        {MPI_CHAR, 1},
        {MPI_SIGNED_CHAR, 1},
        {MPI_UNSIGNED_CHAR, 1},
        {MPI_BYTE, 1},
        {MPI_SHORT, sizeof(short)},
        {MPI_UNSIGNED_SHORT, sizeof(short)},
        {MPI_INT, sizeof(int)},
        {MPI_UNSIGNED, sizeof(unsigned)},
        {MPI_LONG, sizeof(long)},
        {MPI_UNSIGNED_LONG, sizeof(long)},
        {MPI_LONG_LONG_INT, 8},
        {MPI_UNSIGNED_LONG_LONG, 8},
        {MPI_FLOAT, 4},
        {MPI_DOUBLE, 8},
        {MPI_LONG_DOUBLE, sizeof(long double)},
        {MPI_C_BOOL, 1},
        {MPI_INT8_T, 1},
        {MPI_INT16_T, 2},
        {MPI_INT32_T, 4},
        {MPI_INT64_T, 8},
        {MPI_UINT8_T, 1},
        {MPI_UINT16_T, 2},
        {MPI_UINT32_T, 4},
        {MPI_UINT64_T, 8},
        {MPI_WCHAR, sizeof(wchar_t)},
        {MPI_PACKED, 1},
        {MPI_AINT, sizeof(void *)},
        {MPI_OFFSET, 8},
        {MPI_COUNT, 8},
    };
    for (const auto &c : cases) {
        const Datatype *t = datatype_get(c.t);
        REQUIRE(t);
        CHECK(t->basic == c.t);
        CHECK(static_cast<size_t>(t->size) == c.size);
    }
}

TEST_CASE("invalid handles are rejected", "[handles]") {
    CHECK_FALSE(datatype_get(MPI_DATATYPE_NULL));
    CHECK_FALSE(datatype_get(MPI_COMM_WORLD));  // wrong kind
    CHECK_FALSE(datatype_get(0x44000000 | 0xffff));
    CHECK_FALSE(datatype_get(-1));
    CHECK_FALSE(comm_get(MPI_COMM_NULL));
    CHECK_FALSE(comm_get(MPI_INT));
    CHECK_FALSE(comm_get(0x43000004));  // not made yet
    REQUIRE(comm_get(MPI_COMM_WORLD));
    REQUIRE(comm_get(MPI_COMM_SELF));
    CHECK(errhandler_valid(MPI_ERRORS_ARE_FATAL));
    CHECK(errhandler_valid(MPI_ERRORS_RETURN));
    CHECK_FALSE(errhandler_valid(MPI_ERRHANDLER_NULL));
    CHECK_FALSE(errhandler_valid(MPI_COMM_WORLD));
}

TEST_CASE("point-to-point argument checks", "[check]") {
    int x = 0;
    const int size = 4;
    // A valid send and receive.
    CHECK(check_send({&x, 1, MPI_INT, 3, 0}, size) == MPI_SUCCESS);
    CHECK(check_recv({&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG}, size) == MPI_SUCCESS);
    CHECK(check_send({&x, 1, MPI_INT, MPI_PROC_NULL, LWMPI_TAG_UB}, size) == MPI_SUCCESS);
    CHECK(check_send({nullptr, 0, MPI_INT, 0, 0}, size) == MPI_SUCCESS);  // empty message

    CHECK(check_send({&x, -1, MPI_INT, 0, 0}, size) == MPI_ERR_COUNT);
    CHECK(check_send({&x, 1, MPI_DATATYPE_NULL, 0, 0}, size) == MPI_ERR_TYPE);
    CHECK(check_send({&x, 1, MPI_COMM_WORLD, 0, 0}, size) == MPI_ERR_TYPE);
    CHECK(check_send({nullptr, 1, MPI_INT, 0, 0}, size) == MPI_ERR_BUFFER);
    CHECK(check_send({&x, 1, MPI_INT, 4, 0}, size) == MPI_ERR_RANK);
    CHECK(check_send({&x, 1, MPI_INT, -3, 0}, size) == MPI_ERR_RANK);
    CHECK(check_send({&x, 1, MPI_INT, MPI_ANY_SOURCE, 0}, size) == MPI_ERR_RANK);
    CHECK(check_send({&x, 1, MPI_INT, 0, -5}, size) == MPI_ERR_TAG);
    CHECK(check_send({&x, 1, MPI_INT, 0, MPI_ANY_TAG}, size) == MPI_ERR_TAG);
    CHECK(check_send({&x, 1, MPI_INT, 0, LWMPI_TAG_UB + 1}, size) == MPI_ERR_TAG);

    CHECK(check_recv({&x, -1, MPI_INT, 0, 0}, size) == MPI_ERR_COUNT);
    CHECK(check_recv({&x, 1, 12345, 0, 0}, size) == MPI_ERR_TYPE);
    CHECK(check_recv({nullptr, 2, MPI_BYTE, 0, 0}, size) == MPI_ERR_BUFFER);
    CHECK(check_recv({&x, 1, MPI_INT, size, 0}, size) == MPI_ERR_RANK);
    CHECK(check_recv({&x, 1, MPI_INT, MPI_PROC_NULL, 0}, size) == MPI_SUCCESS);
    CHECK(check_recv({&x, 1, MPI_INT, 0, -2}, size) == MPI_ERR_TAG);
}

TEST_CASE("the first failing check wins: count, type, buffer, rank, tag", "[check]") {
    CHECK(check_send({nullptr, -1, 0, -7, -7}, 2) == MPI_ERR_COUNT);
    CHECK(check_send({nullptr, 1, 0, -7, -7}, 2) == MPI_ERR_TYPE);
    CHECK(check_send({nullptr, 1, MPI_INT, -7, -7}, 2) == MPI_ERR_BUFFER);
    CHECK(check_send({"", 1, MPI_INT, -7, -7}, 2) == MPI_ERR_RANK);
    CHECK(check_send({"", 1, MPI_INT, 1, -7}, 2) == MPI_ERR_TAG);
}

TEST_CASE("every error class has a text", "[errors]") {
    for (int code = 0; code <= MPI_ERR_LASTCODE; ++code) {
        const char *t = error_text(code);
        REQUIRE(t);
        CHECK(std::strlen(t) > 0);
        CHECK(std::strlen(t) < MPI_MAX_ERROR_STRING);
    }
    CHECK_FALSE(error_text(-1));
    CHECK_FALSE(error_text(MPI_ERR_LASTCODE + 1));
    CHECK(std::string(error_text(MPI_ERR_RANK)) == "invalid rank");
    CHECK(std::string(error_text(MPI_ERR_TRUNCATE)) == "message truncated on receive");
}

TEST_CASE("the fatal handler's report", "[errors]") {
    char buf[256];
    format_fatal(buf, sizeof buf, 3, "MPI_Send", MPI_ERR_RANK, nullptr);
    CHECK(std::string(buf) == "MPI error: rank 3: MPI_Send: invalid rank\n");
    format_fatal(buf, sizeof buf, 0, "MPI_Recv", MPI_ERR_OTHER, "name lookup failed (error -2)");
    CHECK(std::string(buf) == "MPI error: rank 0: MPI_Recv: other error (name lookup failed (error -2))\n");
    format_fatal(buf, sizeof buf, -1, "MPI_Init", 999, "");  // rank not known yet
    CHECK(std::string(buf) == "MPI error: MPI_Init: error code 999\n");
    char tiny[12];
    format_fatal(tiny, sizeof tiny, 1, "MPI_Send", MPI_ERR_RANK, nullptr);
    CHECK(std::string(tiny) == "MPI error: ");
}

TEST_CASE("argument errors are explained with the bad value", "[check]") {
    int x = 0;
    const auto explain = [](int code, const P2PArgs &a, int size, const char *peer) {
        char buf[96];
        TextBuilder t(buf, sizeof buf);
        explain_p2p(t, code, a, size, peer);
        return std::string(buf);
    };
    CHECK(explain(MPI_ERR_RANK, {&x, 1, MPI_INT, 7, 0}, 2, "dest") == "dest 7; the communicator has 2 ranks");
    CHECK(explain(MPI_ERR_RANK, {&x, 1, MPI_INT, -5, 0}, 1, "source") ==
          "source -5; the communicator has 1 rank");
    CHECK(explain(MPI_ERR_TAG, {&x, 1, MPI_INT, 0, -1}, 2, "dest") == "tag -1; tags are 0..1073741823");
    CHECK(explain(MPI_ERR_COUNT, {&x, -3, MPI_INT, 0, 0}, 2, "dest") == "count -3");
    CHECK(explain(MPI_ERR_BUFFER, {nullptr, 4, MPI_INT, 0, 0}, 2, "dest") == "NULL buffer for count 4");
    CHECK(explain(MPI_ERR_TYPE, {&x, 1, 0, 0, 0}, 2, "dest").empty());
}

TEST_CASE("TextBuilder formats and truncates safely", "[text]") {
    char buf[16];
    TextBuilder t(buf, sizeof buf);
    t.put("mpi:").put_int(127);
    CHECK(std::string(buf) == "mpi:127");
    TextBuilder(buf, sizeof buf).put_int(-9223372036854775807ll - 1);
    CHECK(std::string(buf) == "-92233720368547");  // 15 chars fit
    TextBuilder(buf, sizeof buf).put_int(0);
    CHECK(std::string(buf) == "0");
    static_assert(text_length("abc") == 3 && text_length(nullptr) == 0);
}
