// Host tests of the pure logic behind the array datatypes (array_layout:
// subarray and darray pieces) and of the external32 representation
// (external32: the standard's byte layouts of section 13.5.2).
#include <catch2/catch.hpp>

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "datatype/array_layout.hpp"
#include "datatype/datatype.hpp"
#include "datatype/external32.hpp"
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

bool operator==(const ArrayPiece &a, const ArrayPiece &b) { return a.disp == b.disp && a.len == b.len; }
bool operator==(const Span &a, const Span &b) { return a.start == b.start && a.len == b.len; }

std::ostream &operator<<(std::ostream &os, const ArrayPiece &p) {
    return os << "(" << p.disp << ", " << p.len << ")";
}
std::ostream &operator<<(std::ostream &os, const Span &s) {
    return os << "[" << s.start << " +" << s.len << "]";
}

}  // namespace lwmpi

namespace {

std::vector<ArrayPiece> pieces(const std::vector<ArrayDim> &dims, bool fortran) {
    const int64_t n = array_pieces(dims.data(), static_cast<int>(dims.size()), fortran, nullptr);
    std::vector<ArrayPiece> out(static_cast<size_t>(n));
    CHECK(array_pieces(dims.data(), static_cast<int>(dims.size()), fortran, out.data()) == n);
    return out;
}

std::vector<Span> spans(const Distribution &d, int coord) {
    const int64_t n = distribution_spans(d, coord, nullptr);
    std::vector<Span> out(static_cast<size_t>(n));
    CHECK(distribution_spans(d, coord, out.data()) == n);
    return out;
}

}  // namespace

TEST_CASE("a subarray is rows of its fastest dimension", "[datatype][array]") {
    // 4 x 5, rows 1..2, columns 2..4: in C order rows of 3 at 7 and 12.
    const Span rows{1, 2}, cols{2, 3};
    CHECK(pieces({{4, &rows, 1}, {5, &cols, 1}}, false) == std::vector<ArrayPiece>{{7, 3}, {12, 3}});
    // The same in Fortran order: dimension 0 (size 4) varies fastest, so
    // columns j = 2..4 of 2 elements at j*4 + 1.
    CHECK(pieces({{4, &rows, 1}, {5, &cols, 1}}, true) == std::vector<ArrayPiece>{{9, 2}, {13, 2}, {17, 2}});
    // 3-D, C order: 2 x 3 x 4, taking [1, 1..2, 0..1].
    const Span a{1, 1}, b{1, 2}, c{0, 2};
    CHECK(pieces({{2, &a, 1}, {3, &b, 1}, {4, &c, 1}}, false) ==
          std::vector<ArrayPiece>{{12 + 4, 2}, {12 + 8, 2}});
    // One dimension: one piece.
    const Span all{0, 6};
    CHECK(pieces({{6, &all, 1}}, false) == std::vector<ArrayPiece>{{0, 6}});
}

TEST_CASE("block and cyclic distributions give the standard's spans", "[datatype][array]") {
    // Block, default: ceil(10 / 3) = 4 per process, the last gets 2.
    const Distribution block{10, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 3};
    CHECK(distribution_valid(block));
    CHECK(spans(block, 0) == std::vector<Span>{{0, 4}});
    CHECK(spans(block, 1) == std::vector<Span>{{4, 4}});
    CHECK(spans(block, 2) == std::vector<Span>{{8, 2}});
    // Block of 5 over 3: the last process gets nothing.
    const Distribution block5{10, MPI_DISTRIBUTE_BLOCK, 5, 3};
    CHECK(distribution_valid(block5));
    CHECK(spans(block5, 2).empty());
    // Blocks too small to cover the dimension.
    CHECK_FALSE(distribution_valid({10, MPI_DISTRIBUTE_BLOCK, 3, 3}));
    // Cyclic, default 1: every third element.
    const Distribution cyclic{7, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 3};
    CHECK(spans(cyclic, 1) == std::vector<Span>{{1, 1}, {4, 1}});
    CHECK(spans(cyclic, 0) == std::vector<Span>{{0, 1}, {3, 1}, {6, 1}});
    // Cyclic(2) over 2 of 9: the last block is cut.
    const Distribution cyclic2{9, MPI_DISTRIBUTE_CYCLIC, 2, 2};
    CHECK(spans(cyclic2, 0) == std::vector<Span>{{0, 2}, {4, 2}, {8, 1}});
    CHECK(spans(cyclic2, 1) == std::vector<Span>{{2, 2}, {6, 2}});
    CHECK_FALSE(distribution_valid({9, MPI_DISTRIBUTE_CYCLIC, 0, 2}));
    // None: everything, over one process only.
    CHECK(spans({5, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_DFLT_DARG, 1}, 0) == std::vector<Span>{{0, 5}});
    CHECK_FALSE(distribution_valid({5, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_DFLT_DARG, 2}));
    CHECK_FALSE(distribution_valid({5, 7, MPI_DISTRIBUTE_DFLT_DARG, 1}));
}

TEST_CASE("process grids are row-major and a darray is the product of its spans", "[datatype][array]") {
    const int psizes[] = {2, 3};
    int coords[2];
    grid_coords(5, 2, psizes, coords);
    CHECK(coords[0] == 1);
    CHECK(coords[1] == 2);
    grid_coords(3, 2, psizes, coords);
    CHECK(coords[0] == 1);
    CHECK(coords[1] == 0);

    // A 4 x 6 array, block x cyclic over 2 x 3 processes: process (1, 2)
    // owns rows 2..3 and columns 2 and 5.
    const std::vector<Span> rows = spans({4, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 2}, 1);
    const std::vector<Span> cols = spans({6, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 3}, 2);
    const std::vector<ArrayDim> dims{{4, rows.data(), 1}, {6, cols.data(), 2}};
    CHECK(pieces(dims, false) == std::vector<ArrayPiece>{{14, 1}, {17, 1}, {20, 1}, {23, 1}});
    // Fortran order: rows vary fastest, strides 1 and 4.
    CHECK(pieces(dims, true) == std::vector<ArrayPiece>{{2 * 4 + 2, 2}, {5 * 4 + 2, 2}});
    // A process without elements along one dimension owns nothing.
    const Span none[1] = {};
    CHECK(pieces({{4, rows.data(), 1}, {6, none, 0}}, false).empty());
}

namespace {

std::vector<unsigned char> to_ext(MPI_Datatype t, const void *native, int count = 1) {
    const Datatype &d = *datatype_get(t);
    std::vector<unsigned char> out(static_cast<size_t>(external32_bytes(d, count)));
    to_external32(d, count, native, out.data());
    return out;
}

template <typename T>
T from_ext(MPI_Datatype t, const std::vector<unsigned char> &ext) {
    T v;
    from_external32(*datatype_get(t), 1, ext.data(), &v);
    return v;
}

using Bytes = std::vector<unsigned char>;

}  // namespace

TEST_CASE("external32 is big-endian in the sizes of table 13.2", "[datatype][external32]") {
    CHECK(external32_size(MPI_CHAR) == 1);
    CHECK(external32_size(MPI_SHORT) == 2);
    CHECK(external32_size(MPI_INT) == 4);
    CHECK(external32_size(MPI_LONG) == 4);
    CHECK(external32_size(MPI_UNSIGNED_LONG) == 4);
    CHECK(external32_size(MPI_LONG_LONG) == 8);
    CHECK(external32_size(MPI_FLOAT) == 4);
    CHECK(external32_size(MPI_DOUBLE) == 8);
    CHECK(external32_size(MPI_LONG_DOUBLE) == 16);
    CHECK(external32_size(MPI_C_BOOL) == 1);
    CHECK(external32_size(MPI_WCHAR) == 4);
    CHECK(external32_size(MPI_AINT) == 8);
    CHECK(external32_size(MPI_C_DOUBLE_COMPLEX) == 16);
    CHECK(external32_size(MPI_C_LONG_DOUBLE_COMPLEX) == 32);

    const int i = 0x01020304;
    CHECK(to_ext(MPI_INT, &i) == Bytes{1, 2, 3, 4});
    CHECK(from_ext<int>(MPI_INT, {1, 2, 3, 4}) == i);
    const short sh = -2;
    CHECK(to_ext(MPI_SHORT, &sh) == Bytes{0xff, 0xfe});
    const double one = 1.0;
    CHECK(to_ext(MPI_DOUBLE, &one) == Bytes{0x3f, 0xf0, 0, 0, 0, 0, 0, 0});
    const float half = -0.5f;
    CHECK(to_ext(MPI_FLOAT, &half) == Bytes{0xbf, 0, 0, 0});
    CHECK(from_ext<float>(MPI_FLOAT, {0xbf, 0, 0, 0}) == -0.5f);
    const long long big = 0x0102030405060708LL;
    CHECK(to_ext(MPI_LONG_LONG, &big) == Bytes{1, 2, 3, 4, 5, 6, 7, 8});
}

TEST_CASE("external32 longs are 4 bytes, sign- or zero-extended back", "[datatype][external32]") {
    const long minus_two = -2;
    CHECK(to_ext(MPI_LONG, &minus_two) == Bytes{0xff, 0xff, 0xff, 0xfe});
    CHECK(from_ext<long>(MPI_LONG, {0xff, 0xff, 0xff, 0xfe}) == -2);
    CHECK(from_ext<long>(MPI_LONG, {0x7f, 0xff, 0xff, 0xff}) == 0x7fffffffL);
    const unsigned long u = 0xfffffffful;
    CHECK(to_ext(MPI_UNSIGNED_LONG, &u) == Bytes{0xff, 0xff, 0xff, 0xff});
    CHECK(from_ext<unsigned long>(MPI_UNSIGNED_LONG, {0xff, 0xff, 0xff, 0xff}) == 0xfffffffful);
}

TEST_CASE("external32 long doubles are IEEE quadruple precision", "[datatype][external32]") {
    Bytes one(16, 0);
    one[0] = 0x3f;
    one[1] = 0xff;
    const long double ld_one = 1.0L;
    CHECK(to_ext(MPI_LONG_DOUBLE, &ld_one) == one);
    // -2.5 = -1.01b * 2^1: sign 1, exponent 0x4000, fraction 01000...
    Bytes m25(16, 0);
    m25[0] = 0xc0;
    m25[2] = 0x40;
    const long double ld = -2.5L;
    CHECK(to_ext(MPI_LONG_DOUBLE, &ld) == m25);
    CHECK(from_ext<long double>(MPI_LONG_DOUBLE, m25) == -2.5L);
    // Values round-trip (quadruple holds every bit of the native formats).
    for (long double v : {1.0L / 3, -1e300L * 1e300L, 0.0L, 6.02214076e23L}) {
        const Bytes ext = to_ext(MPI_LONG_DOUBLE, &v);
        CHECK(from_ext<long double>(MPI_LONG_DOUBLE, ext) == v);
    }
}

TEST_CASE("external32 of a derived type follows its type map", "[datatype][external32]") {
    // struct {char c; double d; int i;} as a struct type: 1 + 8 + 4 bytes.
    struct S {
        char c;
        double d;
        int i;
    };
    const int lens[] = {1, 1, 1};
    const MPI_Aint disps[] = {offsetof(S, c), offsetof(S, d), offsetof(S, i)};
    const MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    char why[96];
    TextBuilder t(why, sizeof why);
    MPI_Datatype h;
    REQUIRE(datatype_create({.count = 3, .lengths = lens, .types = types, .byte_disps = disps, .pad = true},
                            &h, t) == MPI_SUCCESS);
    const Datatype &d = *datatype_get(h);
    CHECK(external32_bytes(d, 2) == 26);
    const S in[2] = {{'a', 2.0, 7}, {'b', -1.0, -1}};
    unsigned char native[2 * 13];
    pack(in, 2, d, native);
    Bytes ext(26);
    to_external32(d, 2, native, ext.data());
    const Bytes want{'a', 0x40, 0,    0, 0, 0, 0, 0, 0, 0,    0,    0,    7,
                     'b', 0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    CHECK(ext == want);
    unsigned char back[26];
    from_external32(d, 2, ext.data(), back);
    CHECK(std::memcmp(back, native, sizeof native) == 0);
    // A pair type is its value and an int.
    CHECK(external32_bytes(*datatype_get(MPI_DOUBLE_INT), 1) == 12);
    CHECK(external32_bytes(*datatype_get(MPI_SHORT_INT), 3) == 18);
    CHECK(external32_bytes(*datatype_get(MPI_LONG_INT), 1) == 8);
    CHECK(datatype_free(h) == MPI_SUCCESS);
}
