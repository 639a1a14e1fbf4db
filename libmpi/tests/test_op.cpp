// Host tests of libmpi/mpi/op: the predefined operations on exactly the
// types of MPI 3.1 section 5.9.2, MINLOC and MAXLOC with their ties,
// derived datatypes, and user operations through mpi.h.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "fake_job.hpp"
#include "on_ranks.hpp"
#include "common/handles.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"

using namespace lwmpi;

namespace {

// inout after reduce_local(in, inout) on predefined type `type`.
template <typename T, size_t N>
std::array<T, N> reduced(MPI_Op op, MPI_Datatype type, const std::array<T, N> &in, std::array<T, N> inout) {
    REQUIRE(reduce_local(in.data(), inout.data(), N, type, op) == MPI_SUCCESS);
    return inout;
}

// The type groups of section 5.9.2 (Fortran's integers with C's, and
// Fortran's and C++'s types in theirs), with MPICH's two extensions that
// LWMPI follows: MPI_CHAR is a C integer type, and the logical operations
// take the multi-language types. MPI_CHARACTER is in no group.
const std::vector<MPI_Datatype> c_integer_types = {MPI_CHAR,
                                                   MPI_INT,
                                                   MPI_LONG,
                                                   MPI_SHORT,
                                                   MPI_UNSIGNED_SHORT,
                                                   MPI_UNSIGNED,
                                                   MPI_UNSIGNED_LONG,
                                                   MPI_LONG_LONG_INT,
                                                   MPI_UNSIGNED_LONG_LONG,
                                                   MPI_SIGNED_CHAR,
                                                   MPI_UNSIGNED_CHAR,
                                                   MPI_INT8_T,
                                                   MPI_INT16_T,
                                                   MPI_INT32_T,
                                                   MPI_INT64_T,
                                                   MPI_UINT8_T,
                                                   MPI_UINT16_T,
                                                   MPI_UINT32_T,
                                                   MPI_UINT64_T,
                                                   MPI_INTEGER,
                                                   MPI_INTEGER1,
                                                   MPI_INTEGER2,
                                                   MPI_INTEGER4,
                                                   MPI_INTEGER8,
                                                   MPI_INTEGER16};
const std::vector<MPI_Datatype> multi_language_types = {MPI_AINT, MPI_OFFSET, MPI_COUNT};
const std::vector<MPI_Datatype> floating_types = {
    MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8, MPI_REAL16};
const std::vector<MPI_Datatype> logical_types = {MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL};
const std::vector<MPI_Datatype> complex_types = {MPI_C_FLOAT_COMPLEX,
                                                 MPI_C_DOUBLE_COMPLEX,
                                                 MPI_C_LONG_DOUBLE_COMPLEX,
                                                 MPI_COMPLEX,
                                                 MPI_DOUBLE_COMPLEX,
                                                 MPI_COMPLEX8,
                                                 MPI_COMPLEX16,
                                                 MPI_CXX_FLOAT_COMPLEX,
                                                 MPI_CXX_DOUBLE_COMPLEX,
                                                 MPI_CXX_LONG_DOUBLE_COMPLEX,
                                                 MPI_COMPLEX32};
const std::vector<MPI_Datatype> byte_types = {MPI_BYTE};
const std::vector<MPI_Datatype> pair_types = {MPI_FLOAT_INT, MPI_DOUBLE_INT,        MPI_LONG_INT,
                                              MPI_2INT,      MPI_SHORT_INT,         MPI_LONG_DOUBLE_INT,
                                              MPI_2REAL,     MPI_2DOUBLE_PRECISION, MPI_2INTEGER};

std::vector<MPI_Datatype> allowed_types(MPI_Op op) {
    std::vector<std::vector<MPI_Datatype>> groups;
    switch (op) {
    case MPI_MAX:
    case MPI_MIN: groups = {c_integer_types, multi_language_types, floating_types}; break;
    case MPI_SUM:
    case MPI_PROD: groups = {c_integer_types, multi_language_types, floating_types, complex_types}; break;
    case MPI_LAND:
    case MPI_LOR:
    case MPI_LXOR: groups = {c_integer_types, multi_language_types, logical_types}; break;
    case MPI_BAND:
    case MPI_BOR:
    case MPI_BXOR: groups = {c_integer_types, multi_language_types, byte_types}; break;
    case MPI_MINLOC:
    case MPI_MAXLOC: groups = {pair_types}; break;
    default:  // MPI_REPLACE, MPI_NO_OP: none
        break;
    }
    std::vector<MPI_Datatype> all;
    for (const auto &g : groups)
        all.insert(all.end(), g.begin(), g.end());
    return all;
}

// A complex number of type Z (__complex__ float, double or long double).
template <typename Z>
Z complex_of(int re, int im) {
    Z z;
    __real__ z = re;
    __imag__ z = im;
    return z;
}

template <typename Z>
MPI_Datatype complex_type() {
    if constexpr (std::is_same_v<Z, __complex__ float>)
        return MPI_C_FLOAT_COMPLEX;
    else if constexpr (std::is_same_v<Z, __complex__ double>)
        return MPI_C_DOUBLE_COMPLEX;
    else
        return MPI_C_LONG_DOUBLE_COMPLEX;
}

// The MINLOC/MAXLOC pair of value type T, as the C struct of section 5.9.4.
template <typename T>
struct Pair {
    T value;
    int index;
    bool operator==(const Pair &o) const { return value == o.value && index == o.index; }
};

template <typename T>
MPI_Datatype pair_type() {
    if constexpr (std::is_same_v<T, float>)
        return MPI_FLOAT_INT;
    else if constexpr (std::is_same_v<T, double>)
        return MPI_DOUBLE_INT;
    else if constexpr (std::is_same_v<T, long>)
        return MPI_LONG_INT;
    else if constexpr (std::is_same_v<T, int>)
        return MPI_2INT;
    else if constexpr (std::is_same_v<T, short>)
        return MPI_SHORT_INT;
    else
        return MPI_LONG_DOUBLE_INT;
}

}  // namespace

TEST_CASE("predefined operations are defined on exactly the types of 5.9.2 (and MPICH's)", "[op]") {
    for (int o = handle_index(MPI_MAX); o <= handle_index(MPI_NO_OP); ++o) {
        const MPI_Op op = make_handle(HandleKind::op, o);
        const std::vector<MPI_Datatype> allowed = allowed_types(op);
        for (int t = 1; t <= handle_index(MPI_CXX_LONG_DOUBLE_COMPLEX); ++t) {
            const MPI_Datatype type = make_handle(HandleKind::datatype, t);
            INFO("op " << o << ", datatype " << t);
            const bool ok = std::find(allowed.begin(), allowed.end(), type) != allowed.end();
            CHECK(check_op(op, type) == (ok ? MPI_SUCCESS : MPI_ERR_OP));
        }
    }
}

TEST_CASE("check_op rejects invalid operations and datatypes", "[op]") {
    CHECK(check_op(MPI_OP_NULL, MPI_INT) == MPI_ERR_OP);
    CHECK(check_op(make_handle(HandleKind::op, 200), MPI_INT) == MPI_ERR_OP);
    CHECK(check_op(MPI_COMM_WORLD, MPI_INT) == MPI_ERR_OP);  // not an op handle
    CHECK(check_op(MPI_SUM, MPI_DATATYPE_NULL) == MPI_ERR_TYPE);
    CHECK(check_op(MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(check_op(MPI_OP_NULL, MPI_DATATYPE_NULL) == MPI_ERR_TYPE);
    CHECK(check_op(MPI_REPLACE, MPI_INT) == MPI_ERR_OP);
    CHECK(check_op(MPI_NO_OP, MPI_INT) == MPI_ERR_OP);
    CHECK(reduce_local(nullptr, nullptr, 1, MPI_C_BOOL, MPI_SUM) == MPI_ERR_OP);
    CHECK(explain_op_error(MPI_OP_NULL) == nullptr);
    CHECK(explain_op_error(MPI_SUM) != nullptr);
    CHECK(explain_op_error(MPI_REPLACE) != nullptr);
}

TEST_CASE("every predefined operation is commutative", "[op]") {
    for (MPI_Op op = MPI_MAX; op <= MPI_NO_OP; ++op)
        CHECK(op_commutative(op));
    CHECK_FALSE(op_commutative(MPI_OP_NULL));
}

TEST_CASE("MAX and MIN on integers and floating point", "[op]") {
    using I = std::array<int, 4>;
    CHECK(reduced(MPI_MAX, MPI_INT, I{1, -5, 7, 0}, I{2, -6, 7, -1}) == I{2, -5, 7, 0});
    CHECK(reduced(MPI_MIN, MPI_INT, I{1, -5, 7, 0}, I{2, -6, 7, -1}) == I{1, -6, 7, -1});
    using U = std::array<unsigned, 2>;  // compared as unsigned, not as int
    CHECK(reduced(MPI_MAX, MPI_UNSIGNED, U{0x80000000u, 1}, U{1, 2}) == U{0x80000000u, 2});
    using S8 = std::array<int8_t, 2>;
    CHECK(reduced(MPI_MIN, MPI_INT8_T, S8{-128, 127}, S8{127, -1}) == S8{-128, -1});
    using D = std::array<double, 3>;
    CHECK(reduced(MPI_MAX, MPI_DOUBLE, D{1.5, -2, 1e300}, D{1.25, -1, -1e300}) == D{1.5, -1, 1e300});
    using F = std::array<float, 2>;
    CHECK(reduced(MPI_MIN, MPI_FLOAT, F{0.5f, -3}, F{0.25f, 4}) == F{0.25f, -3});
    using L = std::array<long double, 2>;
    CHECK(reduced(MPI_MAX, MPI_LONG_DOUBLE, L{1.0L / 3, 2}, L{0.25L, 3}) == L{1.0L / 3, 3});
    using A = std::array<MPI_Aint, 2>;
    CHECK(reduced(MPI_MIN, MPI_AINT, A{-4, 8}, A{3, 9}) == A{-4, 8});
}

TEST_CASE("SUM and PROD; integers wrap around", "[op]") {
    using I = std::array<int, 3>;
    CHECK(reduced(MPI_SUM, MPI_INT, I{1, -5, INT_MAX}, I{2, 5, 1}) == I{3, 0, INT_MIN});
    CHECK(reduced(MPI_PROD, MPI_INT, I{3, -5, INT_MAX}, I{4, 5, 2}) == I{12, -25, -2});
    using U16 = std::array<uint16_t, 2>;  // 65535 * 65535 overflows int after promotion
    CHECK(reduced(MPI_PROD, MPI_UINT16_T, U16{65535, 300}, U16{65535, 3}) == U16{1, 900});
    using S8 = std::array<signed char, 1>;
    CHECK(reduced(MPI_SUM, MPI_SIGNED_CHAR, S8{100}, S8{100}) == S8{-56});
    using U64 = std::array<unsigned long long, 1>;
    CHECK(reduced(MPI_SUM, MPI_UNSIGNED_LONG_LONG, U64{ULLONG_MAX}, U64{2}) == U64{1});
    using C = std::array<MPI_Count, 1>;
    CHECK(reduced(MPI_PROD, MPI_COUNT, C{1LL << 40}, C{3}) == C{3LL << 40});
    using D = std::array<double, 2>;
    CHECK(reduced(MPI_SUM, MPI_DOUBLE, D{0.5, -1}, D{0.25, 1}) == D{0.75, 0});
    CHECK(reduced(MPI_PROD, MPI_DOUBLE, D{0.5, -1}, D{0.25, 3}) == D{0.125, -3});
    using L = std::array<long double, 1>;
    CHECK(reduced(MPI_SUM, MPI_LONG_DOUBLE, L{0.5L}, L{0.25L}) == L{0.75L});
}

TEMPLATE_TEST_CASE("SUM and PROD on complex numbers", "[op]", __complex__ float, __complex__ double,
                   __complex__ long double) {
    using Z = TestType;
    using A = std::array<Z, 2>;
    const A a{complex_of<Z>(1, 2), complex_of<Z>(0, 1)};
    const A b{complex_of<Z>(3, 4), complex_of<Z>(0, 1)};
    const A sum = reduced(MPI_SUM, complex_type<Z>(), a, b);
    CHECK((sum[0] == complex_of<Z>(4, 6) && sum[1] == complex_of<Z>(0, 2)));
    const A prod = reduced(MPI_PROD, complex_type<Z>(), a, b);  // (1+2i)(3+4i), i*i
    CHECK((prod[0] == complex_of<Z>(-5, 10) && prod[1] == complex_of<Z>(-1, 0)));
}

TEST_CASE("logical operations give 0 or 1; C_BOOL too", "[op]") {
    using I = std::array<int, 4>;
    const I a{0, 0, 2, -1};
    const I b{0, 7, 0, 3};
    CHECK(reduced(MPI_LAND, MPI_INT, a, b) == I{0, 0, 0, 1});
    CHECK(reduced(MPI_LOR, MPI_INT, a, b) == I{0, 1, 1, 1});
    CHECK(reduced(MPI_LXOR, MPI_INT, a, b) == I{0, 1, 1, 0});
    using U8 = std::array<uint8_t, 2>;
    CHECK(reduced(MPI_LXOR, MPI_UINT8_T, U8{255, 0}, U8{1, 0}) == U8{0, 0});
    using B = std::array<bool, 4>;
    const B p{false, false, true, true};
    const B q{false, true, false, true};
    CHECK(reduced(MPI_LAND, MPI_C_BOOL, p, q) == B{false, false, false, true});
    CHECK(reduced(MPI_LOR, MPI_C_BOOL, p, q) == B{false, true, true, true});
    CHECK(reduced(MPI_LXOR, MPI_C_BOOL, p, q) == B{false, true, true, false});
}

TEST_CASE("bitwise operations on integers and MPI_BYTE", "[op]") {
    using U = std::array<unsigned, 1>;
    CHECK(reduced(MPI_BAND, MPI_UNSIGNED, U{0xf0f0f0f0u}, U{0xff00ff00u}) == U{0xf000f000u});
    CHECK(reduced(MPI_BOR, MPI_UNSIGNED, U{0xf0f0f0f0u}, U{0xff00ff00u}) == U{0xfff0fff0u});
    CHECK(reduced(MPI_BXOR, MPI_UNSIGNED, U{0xf0f0f0f0u}, U{0xff00ff00u}) == U{0x0ff00ff0u});
    using Byte = std::array<unsigned char, 2>;
    CHECK(reduced(MPI_BXOR, MPI_BYTE, Byte{0x5a, 0xff}, Byte{0xff, 0x0f}) == Byte{0xa5, 0xf0});
    using S64 = std::array<int64_t, 1>;
    CHECK(reduced(MPI_BAND, MPI_INT64_T, S64{-1}, S64{INT64_C(0x123456789)}) == S64{INT64_C(0x123456789)});
    using O = std::array<MPI_Offset, 1>;
    CHECK(reduced(MPI_BOR, MPI_OFFSET, O{1LL << 40}, O{1}) == O{(1LL << 40) | 1});
}

TEMPLATE_TEST_CASE("MINLOC and MAXLOC on every pair type; ties keep the smaller index", "[op]", float, double,
                   long, int, short, long double) {
    using T = TestType;
    using P = std::array<Pair<T>, 4>;
    const P in{{{1, 5}, {3, 0}, {2, 7}, {2, 1}}};
    const P inout{{{2, 3}, {3, 4}, {2, 2}, {2, 9}}};
    CHECK(reduced(MPI_MINLOC, pair_type<T>(), in, inout) == P{{{1, 5}, {3, 0}, {2, 2}, {2, 1}}});
    CHECK(reduced(MPI_MAXLOC, pair_type<T>(), in, inout) == P{{{2, 3}, {3, 0}, {2, 2}, {2, 1}}});
}

TEST_CASE("predefined operations on derived datatypes", "[op]") {
    SECTION("contiguous: reduced in place") {
        const auto out = on_a_rank([] {
            MPI_Datatype three;
            std::array<int, 6> in{1, 2, 3, 4, 5, 6}, inout{10, 20, 30, 40, 50, 60};
            if (MPI_Type_contiguous(3, MPI_INT, &three) || MPI_Type_commit(&three) ||
                MPI_Reduce_local(in.data(), inout.data(), 2, three, MPI_SUM) || MPI_Type_free(&three))
                inout = {};
            return inout;
        });
        CHECK(out == std::array<int, 6>{11, 22, 33, 44, 55, 66});
    }
    SECTION("vector: only the elements of the type map, through pack and unpack") {
        const auto out = on_a_rank([] {
            MPI_Datatype every_other;
            std::array<double, 6> in{1, 2, 3, 4, 5, 6}, inout{9, 9, 9, 9, 9, 9};
            if (MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &every_other) || MPI_Type_commit(&every_other) ||
                MPI_Reduce_local(in.data(), inout.data(), 1, every_other, MPI_MIN) ||
                MPI_Type_free(&every_other))
                inout = {};
            return inout;
        });
        CHECK(out == std::array<double, 6>{1, 9, 3, 9, 9, 9});
    }
    SECTION("vector of padded pairs: MAXLOC on packed pairs") {
        using P = Pair<double>;
        const auto out = on_a_rank([] {
            MPI_Datatype pairs;
            std::array<P, 4> in{{{1, 0}, {0, 0}, {5, 2}, {0, 0}}};
            std::array<P, 4> inout{{{1, 1}, {7, 7}, {4, 4}, {7, 7}}};
            if (MPI_Type_vector(2, 1, 2, MPI_DOUBLE_INT, &pairs) || MPI_Type_commit(&pairs) ||
                MPI_Reduce_local(in.data(), inout.data(), 1, pairs, MPI_MAXLOC) || MPI_Type_free(&pairs))
                inout = {};
            return inout;
        });
        CHECK(out == std::array<P, 4>{{{1, 0}, {7, 7}, {5, 2}, {7, 7}}});
    }
    SECTION("mixed basic types and uncommitted types are refused") {
        const auto codes = on_a_rank([] {
            const int lengths[2] = {1, 1};
            const MPI_Aint disps[2] = {0, 8};
            const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
            MPI_Datatype mixed, uncommitted;
            std::vector<int> r{MPI_Type_create_struct(2, lengths, disps, types, &mixed),
                               MPI_Type_commit(&mixed), MPI_Type_contiguous(2, MPI_INT, &uncommitted)};
            r.push_back(check_op(MPI_SUM, mixed));
            r.push_back(check_op(MPI_SUM, uncommitted));
            MPI_Type_free(&mixed);
            MPI_Type_free(&uncommitted);
            return r;
        });
        CHECK(codes == std::vector<int>{MPI_SUCCESS, MPI_SUCCESS, MPI_SUCCESS, MPI_ERR_OP, MPI_ERR_TYPE});
    }
}

namespace {

// What the last call of a user operation was given.
struct UserCall {
    const void *in;
    void *inout;
    int len;
    MPI_Datatype type;
};
UserCall g_call;

// inout[i] = in[i] - inout[i]: not commutative, so the order shows.
void subtract(void *in, void *inout, int *len, MPI_Datatype *type) {
    g_call = UserCall{in, inout, *len, *type};
    for (int i = 0; i < *len; ++i)
        static_cast<int *>(inout)[i] = static_cast<const int *>(in)[i] - static_cast<int *>(inout)[i];
}

}  // namespace

TEST_CASE("user operations are called on the user's buffers", "[op]") {
    struct Outcome {
        std::vector<int> codes;
        int commute_user, commute_max;
        std::array<int, 3> in, inout;
        MPI_Op freed;
    };
    const Outcome o = on_a_rank([] {
        Outcome r{};
        r.in = {10, 20, 30};
        r.inout = {1, 2, 3};
        MPI_Op op;
        r.codes.push_back(MPI_Op_create(subtract, 0, &op));
        r.codes.push_back(MPI_Op_commutative(op, &r.commute_user));
        r.codes.push_back(MPI_Op_commutative(MPI_MAX, &r.commute_max));
        // A user operation takes any datatype; it gets the handle given.
        r.codes.push_back(MPI_Reduce_local(r.in.data(), r.inout.data(), 3, MPI_INT, op));
        r.codes.push_back(g_call.in == r.in.data() && g_call.inout == r.inout.data() && g_call.len == 3 &&
                          g_call.type == MPI_INT);
        r.codes.push_back(MPI_Op_free(&op));
        r.freed = op;
        return r;
    });
    CHECK(o.codes == std::vector<int>{0, 0, 0, 0, 1, 0});
    CHECK(o.commute_user == 0);
    CHECK(o.commute_max == 1);
    CHECK(o.inout == std::array<int, 3>{9, 18, 27});
    CHECK(o.freed == MPI_OP_NULL);
}

TEST_CASE("MPI_Op_* and MPI_Reduce_local errors", "[op]") {
    const auto codes = on_a_rank([] {
        std::vector<int> r;
        int x = 1, y = 2, flag;
        MPI_Op ops[17], op = MPI_SUM;
        int made = 0;
        while (made < 17 && MPI_Op_create(subtract, 1, &ops[made]) == MPI_SUCCESS)
            ++made;
        r.push_back(made);
        r.push_back(MPI_Op_create(subtract, 1, &ops[16]));
        for (int i = 0; i < made; ++i)
            MPI_Op_free(&ops[i]);
        MPI_Op gone = ops[0];             // MPI_OP_NULL now
        r.push_back(MPI_Op_free(&op));    // predefined
        r.push_back(MPI_Op_free(&gone));  // null
        r.push_back(MPI_Op_create(nullptr, 1, &op));
        r.push_back(MPI_Op_commutative(MPI_OP_NULL, &flag));
        r.push_back(MPI_Reduce_local(&x, &y, -1, MPI_INT, MPI_SUM));
        r.push_back(MPI_Reduce_local(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM));
        r.push_back(MPI_Reduce_local(&x, &y, 1, MPI_INT, MPI_REPLACE));
        r.push_back(MPI_Reduce_local(&x, &y, 1, MPI_INT, MPI_MINLOC));
        r.push_back(MPI_Reduce_local(&x, nullptr, 1, MPI_INT, MPI_SUM));
        r.push_back(MPI_Reduce_local(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM));
        r.push_back(MPI_Reduce_local(nullptr, nullptr, 0, MPI_INT, MPI_SUM));
        r.push_back(y);
        return r;
    });
    CHECK(codes == std::vector<int>{16, MPI_ERR_NO_MEM, MPI_ERR_OP, MPI_ERR_OP, MPI_ERR_ARG, MPI_ERR_OP,
                                    MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_OP, MPI_ERR_OP, MPI_ERR_BUFFER,
                                    MPI_ERR_BUFFER, MPI_SUCCESS, 2});
}

TEST_CASE("Fortran's 2-types pair a value with an index of its own type", "[op]") {
    using P = std::array<float, 2>;  // MPI_2REAL: {value, index}, both REAL
    const std::array<P, 3> in{{{1, 4}, {3, 1}, {2, 2}}};
    const std::array<P, 3> inout{{{1, 2}, {3, 0}, {5, 7}}};
    CHECK(reduced(MPI_MAXLOC, MPI_2REAL, in, inout) == std::array<P, 3>{{{1, 2}, {3, 0}, {5, 7}}});
    CHECK(reduced(MPI_MINLOC, MPI_2REAL, in, inout) == std::array<P, 3>{{{1, 2}, {3, 0}, {2, 2}}});
    using D = std::array<double, 2>;
    CHECK(reduced(MPI_MAXLOC, MPI_2DOUBLE_PRECISION, std::array<D, 1>{{{9, 3}}},
                  std::array<D, 1>{{{8, 1}}}) == std::array<D, 1>{{{9, 3}}});
    using I = std::array<int, 2>;
    CHECK(reduced(MPI_MINLOC, MPI_2INTEGER, std::array<I, 1>{{{4, 6}}}, std::array<I, 1>{{{4, 2}}}) ==
          std::array<I, 1>{{{4, 2}}});
}

TEST_CASE("Fortran's LOGICAL takes the logical operations, its INTEGERs the arithmetic", "[op]") {
    CHECK(reduced(MPI_LAND, MPI_LOGICAL, std::array<int, 2>{1, 0}, std::array<int, 2>{1, 1}) ==
          std::array<int, 2>{1, 0});
    CHECK(check_op(MPI_SUM, MPI_LOGICAL) == MPI_ERR_OP);
    CHECK(check_op(MPI_SUM, MPI_CHARACTER) == MPI_ERR_OP);
    CHECK(reduced(MPI_SUM, MPI_INTEGER8, std::array<int64_t, 1>{int64_t{1} << 40},
                  std::array<int64_t, 1>{2}) == std::array<int64_t, 1>{(int64_t{1} << 40) + 2});
}

TEST_CASE("The sixteen-byte Fortran types reduce in their whole width", "[op]") {
    using I = __int128;
    const I big = I{1} << 100;
    CHECK(reduced(MPI_SUM, MPI_INTEGER16, std::array<I, 1>{big}, std::array<I, 1>{3}) ==
          std::array<I, 1>{big + 3});
    CHECK(reduced(MPI_MAX, MPI_INTEGER16, std::array<I, 1>{-big}, std::array<I, 1>{1}) ==
          std::array<I, 1>{1});
    // 1 + 2^-100 needs binary128's 113-bit significand: a double would drop it.
    using Q = lwmpi::Quad;
    const Q tiny = Q{1} / static_cast<Q>(big);
    CHECK(reduced(MPI_SUM, MPI_REAL16, std::array<Q, 1>{1}, std::array<Q, 1>{tiny})[0] - 1 == tiny);
}
