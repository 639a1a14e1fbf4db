// Host tests of libmpi/mpi/datatype and the MPI_Type_* calls (MPI 3.1
// chapter 4). The type map builder, packing and the table are tested
// through the internal functions on the test thread; the MPI calls run in
// a one-rank fake job, which records what it sees for the main thread to
// check (Catch2's assertions are not thread-safe).
#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fake_job.hpp"
#include "pt2pt/check.hpp"
#include "datatype/datatype.hpp"
#include "common/handles.hpp"
#include <lwmpi/text.hpp>

using namespace lwmpi;

// In lwmpi, for std::vector<Block>'s == and Catch2's printing to find them.
namespace lwmpi {

bool operator==(const Block &a, const Block &b) { return a.disp == b.disp && a.len == b.len; }

std::ostream &operator<<(std::ostream &os, const Block &b) {
    return os << "(" << b.disp << ", " << b.len << ")";
}

}  // namespace lwmpi

namespace {

// What MPI_Type_size, MPI_Type_get_extent and MPI_Type_get_true_extent say.
struct Bounds {
    int64_t size;
    MPI_Aint lb;
    MPI_Aint extent;
    MPI_Aint true_lb;
    MPI_Aint true_extent;

    bool operator==(const Bounds &o) const {
        return size == o.size && lb == o.lb && extent == o.extent && true_lb == o.true_lb &&
               true_extent == o.true_extent;
    }
};

std::ostream &operator<<(std::ostream &os, const Bounds &b) {
    return os << "{size " << b.size << ", lb " << b.lb << ", extent " << b.extent << ", true_lb " << b.true_lb
              << ", true_extent " << b.true_extent << "}";
}

Bounds bounds_of(const Datatype &t) { return {t.size, t.lb, t.extent, t.true_lb, t.true_extent}; }

// The derived types a test makes, freed when it ends so that the rank's
// table is empty for the next test.
struct Types {
    std::vector<MPI_Datatype> made;

    ~Types() {
        for (MPI_Datatype h : made)
            datatype_free(h);
    }

    MPI_Datatype make(const Recipe &r) {
        char why[96];
        TextBuilder t(why, sizeof why);
        MPI_Datatype h = MPI_DATATYPE_NULL;
        const int e = datatype_create(r, &h, t);
        INFO(why);
        REQUIRE(e == MPI_SUCCESS);
        made.push_back(h);
        return h;
    }
};

const Datatype &get(MPI_Datatype h) {
    const Datatype *t = datatype_get(h);
    REQUIRE(t);
    return *t;
}

// The recipes of the MPI constructors (as type_api.cpp makes them).
Recipe contiguous(int n, MPI_Datatype t) { return {.count = 1, .length = n, .type = t}; }
Recipe vector(int n, int len, int stride, MPI_Datatype t) {
    return {.count = n, .length = len, .type = t, .stride = stride, .in_extents = true};
}
Recipe resized(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent) {
    return {.count = 1, .length = 1, .type = t, .resize = true, .lb = lb, .extent = extent};
}
Recipe structure(int n, const int *lens, const MPI_Aint *disps, const MPI_Datatype *types) {
    return {.count = n, .lengths = lens, .types = types, .byte_disps = disps, .pad = true};
}

// The contiguous pieces of one element's data, in type-map order.
std::vector<Block> blocks_of(const Datatype &t) {
    std::vector<Block> pieces;
    for_each_piece(t, 1, [&](MPI_Aint disp, MPI_Aint len) {
        pieces.push_back({disp, len});
        return 0;
    });
    return pieces;
}

// Its segments (repetitions of a piece kept whole).
std::vector<Segment> segments_of(const Datatype &t) {
    std::vector<Segment> out;
    each_segment(t, [&](const Segment &g) {
        out.push_back(g);
        return 0;
    });
    return out;
}

std::vector<unsigned char> pack_all(const void *buf, int count, const Datatype &t) {
    std::vector<unsigned char> out(static_cast<size_t>(count * t.size));
    pack(buf, count, t, out.data());
    return out;
}

// The C layouts the struct tests describe.
struct Particle {
    char tag;
    double pos[3];
    int id;
    short flags;
};

struct DoubleChar {
    double d;
    char c;
};

MPI_Datatype particle_type(Types &types) {
    static const int lens[] = {1, 3, 1, 1};
    static const MPI_Aint disps[] = {offsetof(Particle, tag), offsetof(Particle, pos), offsetof(Particle, id),
                                     offsetof(Particle, flags)};
    static const MPI_Datatype members[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT};
    return types.make(structure(4, lens, disps, members));
}

MPI_Datatype double_char_type(Types &types) {
    static const int lens[] = {1, 1};
    static const MPI_Aint disps[] = {offsetof(DoubleChar, d), offsetof(DoubleChar, c)};
    static const MPI_Datatype members[] = {MPI_DOUBLE, MPI_CHAR};
    return types.make(structure(2, lens, disps, members));
}

template <typename T>
struct PairOf {
    T value;
    int index;
};

template <typename T>
void check_pair(MPI_Datatype h) {
    const Datatype &t = get(h);
    INFO("pair of " << sizeof(T) << "-byte values");
    CHECK(t.size == static_cast<int64_t>(sizeof(T) + sizeof(int)));
    CHECK(t.lb == 0);
    CHECK(t.extent == static_cast<MPI_Aint>(sizeof(PairOf<T>)));
    CHECK(t.true_lb == 0);
    CHECK(t.true_extent == static_cast<MPI_Aint>(offsetof(PairOf<T>, index) + sizeof(int)));
    CHECK(t.contiguous == (sizeof(PairOf<T>) == sizeof(T) + sizeof(int)));
    CHECK(t.basic == h);
    CHECK(t.basic_count == 1);
    CHECK(t.align == static_cast<MPI_Aint>(alignof(PairOf<T>)));

    // Three pairs pack to value, index, value, index... with no padding.
    PairOf<T> in[3], out[3];
    std::memset(in, 0x5a, sizeof in);
    std::memset(out, 0xa5, sizeof out);
    for (int i = 0; i < 3; ++i) {
        in[i].value = static_cast<T>(i + 1);
        in[i].index = 10 * i;
    }
    const std::vector<unsigned char> packed = pack_all(in, 3, t);
    for (int i = 0; i < 3; ++i) {
        T v;
        int index;
        std::memcpy(&v, &packed[i * t.size], sizeof v);
        std::memcpy(&index, &packed[i * t.size + sizeof(T)], sizeof index);
        CHECK(v == static_cast<T>(i + 1));
        CHECK(index == 10 * i);
    }
    unpack(packed.data(), packed.size(), out, 3, t);
    for (int i = 0; i < 3; ++i) {
        CHECK(out[i].value == in[i].value);
        CHECK(out[i].index == in[i].index);
    }
    // Padding is not data: unpacking leaves it alone.
    const auto *bytes = reinterpret_cast<const unsigned char *>(out);
    const size_t pad = offsetof(PairOf<T>, index) - sizeof(T);
    for (size_t b = 0; b < pad; ++b)
        CHECK(bytes[sizeof(T) + b] == 0xa5);
}

}  // namespace

// ---- Predefined types ----------------------------------------------------

TEST_CASE("pair types have the layout of their C struct", "[datatype]") {
    check_pair<float>(MPI_FLOAT_INT);
    check_pair<double>(MPI_DOUBLE_INT);
    check_pair<long>(MPI_LONG_INT);
    check_pair<int>(MPI_2INT);
    check_pair<short>(MPI_SHORT_INT);
    check_pair<long double>(MPI_LONG_DOUBLE_INT);
    CHECK(get(MPI_2INT).contiguous);
    CHECK_FALSE(get(MPI_DOUBLE_INT).contiguous);  // 12 bytes of data in 16
    CHECK_FALSE(get(MPI_SHORT_INT).contiguous);   // padding inside
    CHECK(get(MPI_SHORT_INT).nblocks == 2);
    CHECK(get(MPI_DOUBLE_INT).nblocks == 1);
}

TEST_CASE("Fortran's and C++'s types have the layout of the C type of their size", "[datatype]") {
    const std::pair<MPI_Datatype, MPI_Aint> sizes[] = {{MPI_CHARACTER, 1},
                                                       {MPI_LOGICAL, 4},
                                                       {MPI_INTEGER, 4},
                                                       {MPI_INTEGER1, 1},
                                                       {MPI_INTEGER2, 2},
                                                       {MPI_INTEGER4, 4},
                                                       {MPI_INTEGER8, 8},
                                                       {MPI_REAL, 4},
                                                       {MPI_REAL4, 4},
                                                       {MPI_DOUBLE_PRECISION, 8},
                                                       {MPI_REAL8, 8},
                                                       {MPI_COMPLEX, 8},
                                                       {MPI_COMPLEX8, 8},
                                                       {MPI_DOUBLE_COMPLEX, 16},
                                                       {MPI_COMPLEX16, 16},
                                                       {MPI_CXX_BOOL, sizeof(bool)},
                                                       {MPI_CXX_FLOAT_COMPLEX, 8},
                                                       {MPI_CXX_DOUBLE_COMPLEX, 16},
                                                       {MPI_CXX_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double)},
                                                       {MPI_INTEGER16, 16},
                                                       {MPI_REAL16, 16},
                                                       {MPI_COMPLEX32, 32}};
    for (const auto &[type, size] : sizes) {
        INFO(datatype_name(type));
        CHECK(get(type).size == size);
        CHECK(get(type).extent == size);
        CHECK(get(type).contiguous);
    }
    // The 2-types: value and index of one type, one run, no padding.
    CHECK(get(MPI_2REAL).size == 8);
    CHECK(get(MPI_2REAL).nruns == 1);
    CHECK(get(MPI_2DOUBLE_PRECISION).extent == 16);
    CHECK(get(MPI_2INTEGER).contiguous);
    // Half precision, which neither ABI has a C type of, is absent, as in MPICH.
    CHECK(MPI_REAL2 == MPI_DATATYPE_NULL);
}

TEST_CASE("basic types are one contiguous block of one element", "[datatype]") {
    for (MPI_Datatype h : {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_DOUBLE_COMPLEX}) {
        const Datatype &t = get(h);
        CHECK(t.contiguous);
        CHECK(t.committed);
        CHECK(t.predefined);
        CHECK(blocks_of(t) == std::vector<Block>{{0, t.size}});
        CHECK(count_basic(t, 3 * t.size) == 3);
    }
    CHECK(get(MPI_LONG_DOUBLE).align == static_cast<MPI_Aint>(alignof(long double)));
}

// ---- The type map builder ---------------------------------------------------

TEST_CASE("constructors' sizes, bounds and blocks", "[datatype]") {
    Types types;
    SECTION("contiguous") {
        const Datatype &t = get(types.make(contiguous(3, MPI_DOUBLE)));
        CHECK(bounds_of(t) == Bounds{24, 0, 24, 0, 24});
        CHECK(t.contiguous);
        CHECK(t.nblocks == 1);
        const Datatype &p = get(types.make(contiguous(2, MPI_DOUBLE_INT)));
        CHECK(bounds_of(p) == Bounds{24, 0, 32, 0, 28});
        CHECK(blocks_of(p) == std::vector<Block>{{0, 12}, {16, 12}});
    }
    SECTION("vector: adjacent blocks merge, strided ones do not") {
        const Datatype &dense = get(types.make(vector(4, 2, 2, MPI_INT)));
        CHECK(bounds_of(dense) == Bounds{32, 0, 32, 0, 32});
        CHECK(dense.contiguous);
        const Datatype &t = get(types.make(vector(3, 2, 4, MPI_INT)));
        CHECK(bounds_of(t) == Bounds{24, 0, 40, 0, 40});
        CHECK(blocks_of(t) == std::vector<Block>{{0, 8}, {16, 8}, {32, 8}});
        CHECK_FALSE(t.contiguous);
    }
    SECTION("vector with a negative stride: blocks in type-map order") {
        const Datatype &t = get(types.make(vector(3, 1, -2, MPI_INT)));
        CHECK(bounds_of(t) == Bounds{12, -16, 20, -16, 20});
        CHECK(blocks_of(t) == std::vector<Block>{{0, 4}, {-8, 4}, {-16, 4}});
    }
    SECTION("the standard's indexed example (section 4.1.4)") {
        // oldtype {(double, 0), (char, 8)} of extent 16; blocks {3, 1} at {4, 0}.
        const MPI_Datatype dc = double_char_type(types);
        const int lens[] = {3, 1};
        const int disps[] = {4, 0};
        const Datatype &t =
            get(types.make({.count = 2, .lengths = lens, .type = dc, .disps = disps, .in_extents = true}));
        CHECK(bounds_of(t) == Bounds{36, 0, 112, 0, 105});
        CHECK(blocks_of(t) == std::vector<Block>{{64, 9}, {80, 9}, {96, 9}, {0, 9}});
    }
    SECTION("hindexed: byte displacements, out of order") {
        const int lens[] = {1, 2};
        const MPI_Aint disps[] = {10, -4};
        const Datatype &t =
            get(types.make({.count = 2, .lengths = lens, .type = MPI_INT, .byte_disps = disps}));
        CHECK(bounds_of(t) == Bounds{12, -4, 18, -4, 18});
        CHECK(blocks_of(t) == std::vector<Block>{{10, 4}, {-4, 8}});
    }
    SECTION("indexed blocks that meet merge") {
        const int lens[] = {2, 3};
        const int disps[] = {0, 2};
        const Datatype &t = get(
            types.make({.count = 2, .lengths = lens, .type = MPI_INT, .disps = disps, .in_extents = true}));
        CHECK(blocks_of(t) == std::vector<Block>{{0, 20}});
        CHECK(t.contiguous);
    }
    SECTION("hvector's extent is not padded; struct's is") {
        const Datatype &h = get(types.make({.count = 2, .length = 1, .type = MPI_INT, .stride = 3}));
        CHECK(bounds_of(h) == Bounds{8, 0, 7, 0, 7});
        const int lens[] = {1, 1};
        const MPI_Aint disps[] = {0, 3};
        const MPI_Datatype members[] = {MPI_INT, MPI_INT};
        const Datatype &s = get(types.make(structure(2, lens, disps, members)));
        CHECK(bounds_of(s) == Bounds{8, 0, 8, 0, 7});
    }
}

TEST_CASE("struct types match the C layout (section 4.1.6)", "[datatype]") {
    Types types;
    const Datatype &p = get(particle_type(types));
    CHECK(p.size == 1 + 3 * 8 + 4 + 2);
    CHECK(p.lb == 0);
    CHECK(p.extent == static_cast<MPI_Aint>(sizeof(Particle)));
    CHECK(p.true_extent == static_cast<MPI_Aint>(offsetof(Particle, flags) + sizeof(short)));
    CHECK(p.basic == MPI_DATATYPE_NULL);
    CHECK(p.basic_count == 6);
    CHECK(blocks_of(p) == std::vector<Block>{{0, 1}, {static_cast<MPI_Aint>(offsetof(Particle, pos)), 30}});

    const Datatype &dc = get(double_char_type(types));
    CHECK(bounds_of(dc) == Bounds{9, 0, static_cast<MPI_Aint>(sizeof(DoubleChar)), 0, 9});

    // A negative displacement; a block of no elements adds nothing, not
    // even its alignment (the extent 9 rounds up to 8's multiple, not 16's).
    const int lens[] = {1, 0, 1};
    const MPI_Aint disps[] = {-8, 100, 0};
    const MPI_Datatype members[] = {MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_CHAR};
    const Datatype &n = get(types.make(structure(3, lens, disps, members)));
    CHECK(bounds_of(n) == Bounds{9, -8, 16, -8, 9});
    CHECK(n.align == 8);

    // An empty struct.
    CHECK(bounds_of(get(types.make(structure(0, nullptr, nullptr, nullptr)))) == Bounds{0, 0, 0, 0, 0});
}

TEST_CASE("resized bounds stick in the types built from them (section 4.1.7)", "[datatype]") {
    Types types;
    const MPI_Datatype r = types.make(resized(MPI_INT, -4, 16));
    CHECK(bounds_of(get(r)) == Bounds{4, -4, 16, 0, 4});
    CHECK((get(r).lb_marked && get(r).ub_marked));
    CHECK_FALSE(get(r).contiguous);

    const Datatype &c = get(types.make(contiguous(2, r)));
    CHECK(bounds_of(c) == Bounds{8, -4, 32, 0, 20});
    CHECK(blocks_of(c) == std::vector<Block>{{0, 4}, {16, 4}});

    // In a struct the resized member's bounds win over the data beyond
    // them, and the extent is not padded.
    const int lens[] = {1, 1};
    const MPI_Aint disps[] = {0, 16};
    const MPI_Datatype members[] = {types.make(resized(MPI_INT, 0, 8)), MPI_DOUBLE};
    const Datatype &s = get(types.make(structure(2, lens, disps, members)));
    CHECK(bounds_of(s) == Bounds{12, 0, 8, 0, 24});
    CHECK((s.lb_marked && s.ub_marked));

    // Shrinking a pair to its data makes it contiguous; a negative extent
    // lays copies downwards.
    CHECK(get(types.make(resized(MPI_DOUBLE_INT, 0, 12))).contiguous);
    CHECK(get(types.make(resized(MPI_INT, -4, 4))).contiguous);
    const Datatype &down = get(types.make(contiguous(3, types.make(resized(MPI_INT, 0, -4)))));
    // Copy k has lb -4k and ub -4k - 4: lb -8, ub -4.
    CHECK(bounds_of(down) == Bounds{12, -8, 4, -8, 12});
    CHECK(blocks_of(down) == std::vector<Block>{{0, 4}, {-4, 4}, {-8, 4}});
    CHECK_FALSE(down.contiguous);
}

TEST_CASE("the basic type is the one all data shares", "[datatype]") {
    Types types;
    const Datatype &v = get(types.make(vector(3, 2, 5, MPI_DOUBLE)));
    CHECK(v.basic == MPI_DOUBLE);
    CHECK(v.basic_count == 6);

    const MPI_Datatype pairs = types.make(contiguous(2, MPI_DOUBLE_INT));
    const int lens[] = {3, 1, 0};
    const MPI_Aint disps[] = {0, 64, 200};
    const MPI_Datatype same[] = {MPI_DOUBLE_INT, pairs, MPI_CHAR};
    const Datatype &s = get(types.make(structure(3, lens, disps, same)));
    CHECK(s.basic == MPI_DOUBLE_INT);  // the CHAR block has no elements
    CHECK(s.basic_count == 5);

    const MPI_Datatype mixed[] = {MPI_DOUBLE, MPI_INT, MPI_INT};
    CHECK(get(types.make(structure(2, lens, disps, mixed))).basic == MPI_DATATYPE_NULL);
    CHECK(get(types.make(contiguous(0, MPI_INT))).basic == MPI_DATATYPE_NULL);
}

// ---- Packing -------------------------------------------------------------

TEST_CASE("pack and unpack a negative-stride vector", "[datatype]") {
    Types types;
    const Datatype &t = get(types.make(vector(3, 1, -2, MPI_INT)));
    int a[5] = {0, 1, 2, 3, 4};
    int packed[3];
    pack(&a[4], 1, t, packed);
    CHECK(packed[0] == 4);
    CHECK(packed[1] == 2);
    CHECK(packed[2] == 0);
    int b[5] = {-1, -1, -1, -1, -1};
    unpack(packed, sizeof packed, &b[4], 1, t);
    CHECK(std::vector<int>(b, b + 5) == std::vector<int>{0, -1, 2, -1, 4});
}

TEST_CASE("pack and unpack indexed types in type-map order", "[datatype]") {
    Types types;
    const int lens[] = {2, 1, 3};
    const int disps[] = {6, 0, 2};
    const Datatype &t =
        get(types.make({.count = 3, .lengths = lens, .type = MPI_SHORT, .disps = disps, .in_extents = true}));
    short a[16];
    for (short i = 0; i < 16; ++i)
        a[i] = i;
    // Two elements: the second starts one extent (8 shorts) after the first.
    std::vector<short> packed(12);
    pack(a, 2, t, packed.data());
    CHECK(packed == std::vector<short>{6, 7, 0, 2, 3, 4, 14, 15, 8, 10, 11, 12});
    short b[16] = {};
    unpack(packed.data(), packed.size() * sizeof(short), b, 2, t);
    for (int i = 0; i < 16; ++i)
        CHECK(b[i] == (i % 8 == 1 || i % 8 == 5 ? 0 : a[i]));
}

TEST_CASE("pack and unpack structs without touching their padding", "[datatype]") {
    Types types;
    const Datatype &t = get(particle_type(types));
    Particle in[3], out[3];
    std::memset(in, 0x11, sizeof in);
    std::memset(out, 0xee, sizeof out);
    for (int i = 0; i < 3; ++i)
        in[i] = Particle{
            static_cast<char>('a' + i), {i + 0.5, i + 1.5, i + 2.5}, 100 + i, static_cast<short>(-i)};
    const std::vector<unsigned char> packed = pack_all(in, 3, t);
    REQUIRE(packed.size() == 3 * 31);
    for (int i = 0; i < 3; ++i) {
        const unsigned char *e = &packed[31 * i];
        double pos[3];
        int id;
        short flags;
        std::memcpy(pos, e + 1, sizeof pos);
        std::memcpy(&id, e + 25, sizeof id);
        std::memcpy(&flags, e + 29, sizeof flags);
        CHECK(e[0] == 'a' + i);
        CHECK(pos[2] == i + 2.5);
        CHECK(id == 100 + i);
        CHECK(flags == -i);
    }
    unpack(packed.data(), packed.size(), out, 3, t);
    for (int i = 0; i < 3; ++i) {
        CHECK(out[i].tag == in[i].tag);
        CHECK(out[i].pos[0] == in[i].pos[0]);
        CHECK(out[i].id == in[i].id);
        CHECK(out[i].flags == in[i].flags);
        const auto *bytes = reinterpret_cast<const unsigned char *>(&out[i]);
        CHECK(bytes[1] == 0xee);                     // after tag
        CHECK(bytes[sizeof(Particle) - 1] == 0xee);  // after flags
    }
}

TEST_CASE("MPI-1 MPI_LB and MPI_UB markers set each bound apart", "[datatype]") {
    Types types;
    CHECK(bounds_of(get(MPI_LB)) == Bounds{0, 0, 0, 0, 0});
    CHECK(get(MPI_LB).lb_marked);
    CHECK_FALSE(get(MPI_LB).ub_marked);

    // Both markers: they are the bounds, the data inside or not.
    const int lens[] = {1, 1, 1};
    const MPI_Aint both_disps[] = {-8, 0, 16};
    const MPI_Datatype both_members[] = {MPI_LB, MPI_INT, MPI_UB};
    const MPI_Datatype both = types.make(structure(3, lens, both_disps, both_members));
    CHECK(bounds_of(get(both)) == Bounds{4, -8, 24, 0, 4});
    CHECK((get(both).lb_marked && get(both).ub_marked));
    CHECK_FALSE(get(both).contiguous);

    // An lb marker only: the upper bound is the data's, padded to the
    // alignment (data 0..5, lb -4: extent 9 rounded to 12).
    const MPI_Aint lb_disps[] = {-4, 0, 4};
    const MPI_Datatype lb_members[] = {MPI_LB, MPI_INT, MPI_CHAR};
    const MPI_Datatype lb_only = types.make(structure(3, lens, lb_disps, lb_members));
    CHECK(bounds_of(get(lb_only)) == Bounds{5, -4, 12, 0, 5});
    CHECK(get(lb_only).lb_marked);
    CHECK_FALSE(get(lb_only).ub_marked);

    // A ub marker only, below the data's end: it wins, and no padding.
    const MPI_Aint ub_disps[] = {0, 2, 0};
    const MPI_Datatype ub_members[] = {MPI_INT, MPI_UB, MPI_CHAR};
    const Datatype &ub_only = get(types.make(structure(2, lens, ub_disps, ub_members)));
    CHECK(bounds_of(ub_only) == Bounds{4, 0, 2, 0, 4});

    // The lb marker sticks, and the data beyond it sets the upper bound:
    // {lb_only at 0, char at 20} has lb -4 and ub 21 padded to 4 (24 + 4).
    const MPI_Aint outer_disps[] = {0, 20};
    const MPI_Datatype outer_members[] = {lb_only, MPI_CHAR};
    const Datatype &outer = get(types.make(structure(2, lens, outer_disps, outer_members)));
    CHECK(outer.lb == -4);
    CHECK(outer.extent == 28);
    CHECK(outer.lb_marked);
    CHECK_FALSE(outer.ub_marked);

    // Copies of a marked type: lowest lb marker, highest ub marker.
    CHECK(bounds_of(get(types.make(contiguous(3, both)))) == Bounds{12, -8, 72, 0, 52});

    // Markers with no data: the side without one is at 0, as in MPICH
    // ({(LB, 10)}: lb 10, ub 0, extent -10; {(UB, 10)}: lb 0, extent 10).
    const MPI_Aint at_10[] = {10};
    const MPI_Datatype lb_alone[] = {MPI_LB}, ub_alone[] = {MPI_UB};
    const Datatype &no_data_lb = get(types.make(structure(1, lens, at_10, lb_alone)));
    CHECK(no_data_lb.lb == 10);
    CHECK(no_data_lb.extent == -10);
    CHECK(no_data_lb.size == 0);
    const Datatype &no_data_ub = get(types.make(structure(1, lens, at_10, ub_alone)));
    CHECK(no_data_ub.lb == 0);
    CHECK(no_data_ub.extent == 10);
}

TEST_CASE("nested types: matrix columns through a resized vector", "[datatype]") {
    // A 4x5 row-major matrix; a column is vector(4, 1, 5), resized to one
    // double so that consecutive columns start one double apart.
    Types types;
    const MPI_Datatype column = types.make(resized(types.make(vector(4, 1, 5, MPI_DOUBLE)), 0, 8));
    const Datatype &columns = get(types.make(contiguous(5, column)));
    CHECK(bounds_of(columns) == Bounds{160, 0, 40, 0, 160});
    CHECK(columns.basic == MPI_DOUBLE);
    double m[4][5];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 5; ++c)
            m[r][c] = 10 * r + c;
    std::vector<double> transposed(20);
    pack(m, 1, columns, transposed.data());
    for (int c = 0; c < 5; ++c)
        for (int r = 0; r < 4; ++r)
            CHECK(transposed[4 * c + r] == m[r][c]);
    double back[4][5] = {};
    unpack(transposed.data(), 160, back, 1, columns);
    CHECK(std::memcmp(back, m, sizeof m) == 0);

    // Two elements of a vector of structs, each struct 16 bytes apart.
    const Datatype &vs = get(types.make(vector(2, 1, 2, double_char_type(types))));
    CHECK(bounds_of(vs) == Bounds{18, 0, 48, 0, 41});
    DoubleChar dc[6] = {};
    for (int i = 0; i < 6; ++i)
        dc[i] = {i * 1.0, static_cast<char>('A' + i)};
    // Packed: dc[0], dc[2], then the second element's dc[3], dc[5].
    std::vector<unsigned char> packed = pack_all(dc, 2, vs);
    double d;
    std::memcpy(&d, &packed[18], sizeof d);
    CHECK(d == 3.0);
    CHECK(packed[26] == 'D');
    std::memcpy(&d, &packed[27], sizeof d);
    CHECK(d == 5.0);
    CHECK(packed[35] == 'F');
}

TEST_CASE("unpack stops inside an element as the bytes run out", "[datatype]") {
    Types types;
    const Datatype &t = get(double_char_type(types));
    DoubleChar in[2] = {{1.5, 'x'}, {2.5, 'y'}};
    const std::vector<unsigned char> packed = pack_all(in, 2, t);
    DoubleChar out[2] = {{0, '-'}, {0, '-'}};
    unpack(packed.data(), 13, out, 2, t);  // 9 bytes, then 4 of the second double
    CHECK(out[0].d == 1.5);
    CHECK(out[0].c == 'x');
    CHECK(std::memcmp(&out[1].d, &in[1].d, 4) == 0);
    CHECK(std::memcmp(reinterpret_cast<const char *>(&out[1].d) + 4, "\0\0\0\0", 4) == 0);
    CHECK(out[1].c == '-');

    // Contiguous types too: only `bytes` bytes are written.
    int ints[4] = {0, 0, 0, 0};
    const int src[4] = {1, 2, 3, 4};
    unpack(src, 10, ints, 4, get(MPI_INT));
    CHECK(ints[1] == 2);
    CHECK(ints[3] == 0);
}

TEST_CASE("count_basic counts basic elements, even in a partial element", "[datatype]") {
    Types types;
    const Datatype &dc = get(double_char_type(types));  // runs: 8, 1
    CHECK(count_basic(dc, 0) == 0);
    CHECK(count_basic(dc, 8) == 1);
    CHECK(count_basic(dc, 9) == 2);
    CHECK(count_basic(dc, 4) == -1);
    CHECK(count_basic(dc, 17) == 3);
    CHECK(count_basic(dc, 18) == 4);
    CHECK(count_basic(dc, 13) == -1);

    // A pair's value and index are two basic elements (section 4.1.11).
    CHECK(count_basic(get(MPI_DOUBLE_INT), 24) == 4);
    CHECK(count_basic(get(MPI_DOUBLE_INT), 20) == 3);
    CHECK(count_basic(get(MPI_DOUBLE_INT), 10) == -1);
    CHECK(count_basic(get(MPI_2INT), 12) == 3);

    // Runs of equal sizes merge, whatever their types: int, char, char, double.
    const int lens[] = {1, 2, 1};
    const MPI_Aint disps[] = {0, 4, 8};
    const MPI_Datatype members[] = {MPI_INT, MPI_CHAR, MPI_DOUBLE};
    const Datatype &m = get(types.make(structure(3, lens, disps, members)));
    CHECK(m.nruns == 3);
    CHECK(count_basic(m, 5) == 2);
    CHECK(count_basic(m, 6) == 3);
    CHECK(count_basic(m, 7) == -1);
    CHECK(count_basic(m, 14 + 6) == 7);

    const Datatype &empty = get(types.make(contiguous(0, MPI_INT)));
    CHECK(count_basic(empty, 0) == 0);
    CHECK(count_basic(empty, 4) == -1);
}

TEST_CASE("a vector's type map does not grow with its count", "[datatype]") {
    // MPI_Type_vector(INT_MAX / 2, 1, 3, four ints): a billion pieces of
    // 16 bytes, 48 apart, kept as one block and one run.
    Types types;
    const MPI_Datatype four = types.make(contiguous(4, MPI_INT));
    const int n = INT_MAX / 2;
    const Datatype &v = get(types.make(vector(n, 1, 3, four)));
    CHECK(v.nblocks == 2);  // a repetition and its piece
    CHECK(v.nruns == 1);
    CHECK(v.size == int64_t{16} * n);
    CHECK(v.true_extent == int64_t{48} * (n - 1) + 16);
    const std::vector<Segment> vs = segments_of(v);
    REQUIRE(vs.size() == 1);
    CHECK((vs[0].disp == 0 && vs[0].len == 16 && vs[0].count == n && vs[0].stride == 48));
    CHECK(count_basic(v, static_cast<uint64_t>(v.size)) == int64_t{4} * n);
    // Copies of it one extent apart, where each copy's first piece follows
    // the last one's in memory: a repetition each, the joined pieces
    // between them; resized to a multiple of the stride, the copies
    // continue one repetition. A struct of it keeps one block per member.
    const MPI_Datatype one = types.make(vector(n, 1, 3, four));
    CHECK(segments_of(get(types.make(vector(3, 1, 1, one)))).size() == 5);
    const Datatype &whole = get(types.make(vector(3, 1, 1, types.make(resized(one, 0, int64_t{48} * n)))));
    const std::vector<Segment> ws = segments_of(whole);
    REQUIRE(ws.size() == 1);
    CHECK(ws[0].count == int64_t{3} * n);
    const int lens[] = {1, 1};
    const MPI_Aint disps[] = {0, -8};
    const MPI_Datatype members[] = {one, MPI_DOUBLE};
    const Datatype &st = get(types.make(structure(2, lens, disps, members)));
    CHECK(segments_of(st).size() == 2);
    CHECK(st.nruns == 2);
}

TEST_CASE("repeated pieces pack and unpack in type-map order", "[datatype]") {
    Types types;
    int v[32];
    for (int i = 0; i < 32; ++i)
        v[i] = i;
    // Two ints every three, five times: one block of five pieces.
    const Datatype &t = get(types.make(vector(5, 2, 3, MPI_INT)));
    CHECK(segments_of(t).size() == 1);
    std::vector<int> packed(10);
    pack(v, 1, t, packed.data());
    CHECK(packed == std::vector<int>{0, 1, 3, 4, 6, 7, 9, 10, 12, 13});
    // Pieces of one length at irregular displacements: the regular ones
    // join, then a new block; two elements, the second an extent on.
    const int lens[] = {1, 1, 1, 1, 1};
    const int at[] = {0, 2, 4, 7, 9};
    const Recipe ix{.count = 5, .lengths = lens, .type = MPI_INT, .disps = at, .in_extents = true};
    const Datatype &x = get(types.make(ix));
    CHECK(segments_of(x).size() == 2);
    CHECK(blocks_of(x) == std::vector<Block>{{0, 4}, {8, 4}, {16, 4}, {28, 4}, {36, 4}});
    std::vector<int> two(10);
    pack(v, 2, x, two.data());
    CHECK(two == std::vector<int>{0, 2, 4, 7, 9, 10, 12, 14, 17, 19});
    // A partial unpack stops inside the repetition.
    int back[32];
    std::fill(std::begin(back), std::end(back), -1);
    unpack(two.data(), 7 * sizeof(int), back, 2, x);
    CHECK((back[0] == 0 && back[2] == 2 && back[9] == 9 && back[10] == 10 && back[12] == 12));
    CHECK((back[1] == -1 && back[14] == -1 && back[19] == -1));
}

TEST_CASE("large contiguous copies flatten to one block and one run", "[datatype]") {
    Types types;
    const MPI_Datatype kb = types.make(contiguous(1 << 12, MPI_CHAR));
    const Datatype &big = get(types.make(contiguous(1 << 20, kb)));
    CHECK(big.size == int64_t{1} << 32);
    CHECK(big.nblocks == 1);
    CHECK(big.nruns == 1);
    CHECK(count_basic(big, big.size) == int64_t{1} << 32);
}

// ---- Errors and the table --------------------------------------------------

TEST_CASE("datatype_create explains bad blocks", "[datatype]") {
    Types types;
    char why[96];
    MPI_Datatype h = MPI_DATATYPE_NULL;
    auto fails = [&](const Recipe &r) {
        TextBuilder t(why, sizeof why);
        return datatype_create(r, &h, t);
    };
    const int lens[] = {1, -2};
    const MPI_Aint disps[] = {0, 8};
    const MPI_Datatype members[] = {MPI_INT, MPI_INT};
    CHECK(fails(structure(2, lens, disps, members)) == MPI_ERR_COUNT);
    CHECK(std::string(why) == "blocklengths[1] -2");
    CHECK(fails(vector(2, -1, 2, MPI_INT)) == MPI_ERR_COUNT);
    CHECK(std::string(why) == "blocklength -1");

    const int ones[] = {1, 1};
    const MPI_Datatype bad[] = {MPI_INT, MPI_COMM_WORLD};
    CHECK(fails(structure(2, ones, disps, bad)) == MPI_ERR_TYPE);
    CHECK(std::string(why) == "types[1] is not a valid datatype");
    CHECK(fails(contiguous(2, MPI_DATATYPE_NULL)) == MPI_ERR_TYPE);
    CHECK(std::string(why) == "oldtype is not a valid datatype");

    MPI_Datatype freed = types.make(contiguous(2, MPI_INT));
    REQUIRE(datatype_free(freed) == MPI_SUCCESS);
    types.made.pop_back();
    CHECK(fails(contiguous(2, freed)) == MPI_ERR_TYPE);

    const Recipe huge{.count = 3, .length = 1, .type = MPI_INT, .stride = INT64_MAX / 2};
    CHECK(fails(huge) == MPI_ERR_ARG);
    CHECK(std::string(why) == "the displacements overflow MPI_Aint");
}

TEST_CASE("a rank holds at most max_derived_types derived types", "[datatype]") {
    Types types;
    std::vector<MPI_Datatype> handles;
    for (int i = 0; i < max_derived_types; ++i)
        handles.push_back(types.make(contiguous(i, MPI_INT)));
    for (MPI_Datatype h : handles) {
        CHECK(handle_is(h, HandleKind::datatype));
        CHECK(h > MPI_LONG_DOUBLE_INT);
    }
    char why[96];
    TextBuilder t(why, sizeof why);
    MPI_Datatype h = MPI_DATATYPE_NULL;
    CHECK(datatype_create(contiguous(1, MPI_INT), &h, t) == MPI_ERR_NO_MEM);
    CHECK(std::string(why) == "at most " + std::to_string(max_derived_types) + " derived datatypes per rank");

    // A freed slot is used again.
    REQUIRE(datatype_free(handles[7]) == MPI_SUCCESS);
    types.made.erase(types.made.begin() + 7);
    CHECK(types.make(contiguous(1, MPI_INT)) == handles[7]);
}

TEST_CASE("commit, free, and holding a freed type", "[datatype]") {
    Types types;
    const MPI_Datatype h = types.make(vector(2, 1, 2, MPI_INT));
    CHECK_FALSE(get(h).committed);
    CHECK(check_datatype(h) == MPI_ERR_TYPE);  // not committed yet
    CHECK(datatype_commit(h) == MPI_SUCCESS);
    CHECK(check_datatype(h) == MPI_SUCCESS);
    CHECK(check_datatype(MPI_DOUBLE_INT) == MPI_SUCCESS);
    CHECK(datatype_commit(MPI_INT) == MPI_SUCCESS);
    CHECK(datatype_commit(MPI_DATATYPE_NULL) == MPI_ERR_TYPE);
    CHECK(datatype_free(MPI_INT) == MPI_ERR_TYPE);
    CHECK(datatype_free(MPI_DATATYPE_NULL) == MPI_ERR_TYPE);

    // A type built from h does not depend on it.
    const MPI_Datatype outer = types.make(contiguous(2, h));
    const Datatype *held = datatype_hold(h);
    REQUIRE(held == &get(h));
    REQUIRE(datatype_free(h) == MPI_SUCCESS);
    types.made.erase(types.made.begin());
    CHECK_FALSE(datatype_get(h));
    CHECK(datatype_free(h) == MPI_ERR_TYPE);
    CHECK(held->size == 8);  // still there for its holder
    CHECK(blocks_of(*held) == std::vector<Block>{{0, 4}, {8, 4}});
    CHECK(types.make(contiguous(1, MPI_INT)) != h);  // its slot is not reused yet
    datatype_release(h);
    CHECK(types.make(contiguous(1, MPI_INT)) == h);  // now it is
    CHECK(bounds_of(get(outer)) == Bounds{16, 0, 24, 0, 24});
    // The first copy's last block and the second's first merge.
    CHECK(blocks_of(get(outer)) == std::vector<Block>{{0, 4}, {8, 8}, {20, 4}});

    CHECK(datatype_hold(MPI_INT) == &get(MPI_INT));
    datatype_release(MPI_INT);
}

// ---- The MPI calls, in a one-rank job --------------------------------------

namespace {

#define EXPECT(cond)                  \
    do {                              \
        if (!(cond)) return __LINE__; \
    } while (0)

#define EXPECT_OK(call) EXPECT((call) == MPI_SUCCESS)

fake::JobConfig one_rank() {
    fake::JobConfig c;
    c.np = 1;
    return c;
}

// Runs body(rank 0) between MPI_Init and MPI_Finalize with
// MPI_ERRORS_RETURN; REQUIREs that it returned 0 (else the failed line).
void run_mpi(const std::function<int()> &body) {
    const fake::JobResult r = fake::run_job(one_rank(), [&](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        if (int line = body()) return line;
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    INFO("failed at line " << r.status[0] << "\n" << r.console);
    REQUIRE(fake::clean(r));
}

// The bounds of `h` through the MPI calls; size -1 when one failed.
Bounds query(MPI_Datatype h) {
    Bounds b{-1, 0, 0, 0, 0};
    MPI_Count size;
    if (MPI_Type_size_x(h, &size) == MPI_SUCCESS && MPI_Type_get_extent(h, &b.lb, &b.extent) == 0 &&
        MPI_Type_get_true_extent(h, &b.true_lb, &b.true_extent) == 0)
        b.size = size;
    return b;
}

}  // namespace

TEST_CASE("MPI_Type constructors' sizes and extents", "[datatype]") {
    struct Case {
        const char *name;
        std::function<int(MPI_Datatype *)> make;
        Bounds expected;
    };
    const int idx_lens[] = {3, 1}, idx_disps[] = {4, 0};
    const int hidx_lens[] = {1, 2};
    const MPI_Aint hidx_disps[] = {10, -4};
    const int block_disps[] = {5, 0, 10};
    const int p_lens[] = {1, 3, 1, 1};
    const MPI_Aint p_disps[] = {offsetof(Particle, tag), offsetof(Particle, pos), offsetof(Particle, id),
                                offsetof(Particle, flags)};
    const MPI_Datatype p_types[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT};
    const int dc_lens[] = {1, 1};
    const MPI_Aint dc_disps[] = {0, 8};
    const MPI_Datatype dc_types[] = {MPI_DOUBLE, MPI_CHAR};
    const auto dc = [&](MPI_Datatype *t) {
        return MPI_Type_create_struct(2, dc_lens, dc_disps, dc_types, t);
    };
    const auto resized_int = [](MPI_Datatype *t) { return MPI_Type_create_resized(MPI_INT, -4, 16, t); };
    const std::vector<Case> cases = {
        {"contiguous",
         [](MPI_Datatype *t) { return MPI_Type_contiguous(3, MPI_DOUBLE, t); },
         {24, 0, 24, 0, 24}},
        {"contiguous pairs",
         [](MPI_Datatype *t) { return MPI_Type_contiguous(2, MPI_DOUBLE_INT, t); },
         {24, 0, 32, 0, 28}},
        {"contiguous 0", [](MPI_Datatype *t) { return MPI_Type_contiguous(0, MPI_INT, t); }, {0, 0, 0, 0, 0}},
        {"vector", [](MPI_Datatype *t) { return MPI_Type_vector(3, 2, 4, MPI_INT, t); }, {24, 0, 40, 0, 40}},
        {"vector, negative stride",
         [](MPI_Datatype *t) { return MPI_Type_vector(3, 1, -2, MPI_INT, t); },
         {12, -16, 20, -16, 20}},
        {"hvector",
         [](MPI_Datatype *t) { return MPI_Type_create_hvector(2, 2, -20, MPI_SHORT, t); },
         {8, -20, 24, -20, 24}},
        {"indexed of structs",
         [&](MPI_Datatype *t) {
             MPI_Datatype s;
             if (int e = dc(&s)) return e;
             const int e = MPI_Type_indexed(2, idx_lens, idx_disps, s, t);
             MPI_Type_free(&s);
             return e;
         },
         {36, 0, 112, 0, 105}},
        {"hindexed",
         [&](MPI_Datatype *t) { return MPI_Type_create_hindexed(2, hidx_lens, hidx_disps, MPI_INT, t); },
         {12, -4, 18, -4, 18}},
        {"indexed_block",
         [&](MPI_Datatype *t) { return MPI_Type_create_indexed_block(3, 2, block_disps, MPI_INT, t); },
         {24, 0, 48, 0, 48}},
        {"struct Particle",
         [&](MPI_Datatype *t) { return MPI_Type_create_struct(4, p_lens, p_disps, p_types, t); },
         {31, 0, sizeof(Particle), 0, offsetof(Particle, flags) + sizeof(short)}},
        {"struct {double; char}", dc, {9, 0, sizeof(DoubleChar), 0, 9}},
        {"resized", resized_int, {4, -4, 16, 0, 4}},
        {"contiguous of resized",
         [&](MPI_Datatype *t) {
             MPI_Datatype r;
             if (int e = resized_int(&r)) return e;
             const int e = MPI_Type_contiguous(2, r, t);
             MPI_Type_free(&r);
             return e;
         },
         {8, -4, 32, 0, 20}},
        {"dup of a vector",
         [](MPI_Datatype *t) {
             MPI_Datatype v;
             if (int e = MPI_Type_vector(3, 2, 4, MPI_INT, &v)) return e;
             const int e = MPI_Type_dup(v, t);
             MPI_Type_free(&v);
             return e;
         },
         {24, 0, 40, 0, 40}},
        {"dup of a predefined type",
         [](MPI_Datatype *t) { return MPI_Type_dup(MPI_SHORT_INT, t); },
         {6, 0, 8, 0, 8}},
    };
    std::vector<Bounds> got(cases.size());
    std::vector<int> errors(cases.size());
    run_mpi([&] {
        for (size_t i = 0; i < cases.size(); ++i) {
            MPI_Datatype t = MPI_DATATYPE_NULL;
            errors[i] = cases[i].make(&t);
            got[i] = query(t);
            if (errors[i] == MPI_SUCCESS) EXPECT_OK(MPI_Type_free(&t));
        }
        return 0;
    });
    for (size_t i = 0; i < cases.size(); ++i) {
        INFO(cases[i].name);
        CHECK(errors[i] == MPI_SUCCESS);
        CHECK(got[i] == cases[i].expected);
    }
}

TEST_CASE("MPI_Type calls: commit, dup, free and their errors", "[datatype]") {
    run_mpi([] {
        MPI_Datatype t = MPI_DATATYPE_NULL, d = MPI_DATATYPE_NULL;
        int n = 0;
        EXPECT(MPI_Type_contiguous(-1, MPI_INT, &t) == MPI_ERR_COUNT);
        EXPECT(MPI_Type_contiguous(1, MPI_INT, nullptr) == MPI_ERR_ARG);
        EXPECT(MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &t) == MPI_ERR_TYPE);
        EXPECT(MPI_Type_vector(2, -1, 1, MPI_INT, &t) == MPI_ERR_COUNT);
        EXPECT(MPI_Type_indexed(2, nullptr, nullptr, MPI_INT, &t) == MPI_ERR_ARG);
        EXPECT(MPI_Type_create_indexed_block(1, 1, nullptr, MPI_INT, &t) == MPI_ERR_ARG);
        const int lens[] = {1, 1};
        const MPI_Aint disps[] = {0, 4};
        const MPI_Datatype types[] = {MPI_INT, 0x44ffffff};
        EXPECT(MPI_Type_create_struct(2, lens, disps, nullptr, &t) == MPI_ERR_ARG);
        EXPECT(MPI_Type_create_struct(2, lens, disps, types, &t) == MPI_ERR_TYPE);
        EXPECT(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t) == MPI_ERR_TYPE);
        EXPECT(MPI_Type_dup(MPI_COMM_WORLD, &t) == MPI_ERR_TYPE);
        EXPECT(t == MPI_DATATYPE_NULL);
        EXPECT_OK(MPI_Type_create_hindexed(0, nullptr, nullptr, MPI_INT, &t));  // no arrays needed
        EXPECT_OK(MPI_Type_free(&t));
        EXPECT(t == MPI_DATATYPE_NULL);
        EXPECT(MPI_Type_free(&t) == MPI_ERR_TYPE);

        // Uncommitted types are refused by packing; dup copies the state.
        EXPECT_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
        EXPECT_OK(MPI_Type_dup(t, &d));
        int a[3] = {1, 2, 3}, packed[2], pos = 0;
        EXPECT(MPI_Pack(a, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD) == MPI_ERR_TYPE);
        EXPECT(MPI_Pack(a, 1, d, packed, sizeof packed, &pos, MPI_COMM_WORLD) == MPI_ERR_TYPE);
        EXPECT_OK(MPI_Type_commit(&t));
        EXPECT_OK(MPI_Pack(a, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
        EXPECT(pos == 8 && packed[1] == 3);
        EXPECT_OK(MPI_Type_free(&d));
        EXPECT_OK(MPI_Type_dup(t, &d));
        pos = 0;
        EXPECT_OK(MPI_Pack(a, 1, d, packed, sizeof packed, &pos, MPI_COMM_WORLD));

        // Freeing t leaves d, and t's handle is dead.
        const MPI_Datatype stale = t;
        EXPECT_OK(MPI_Type_free(&t));
        EXPECT(MPI_Type_size(stale, &n) == MPI_ERR_TYPE);
        EXPECT(MPI_Type_commit(&t) == MPI_ERR_TYPE);
        EXPECT_OK(MPI_Type_size(d, &n));
        EXPECT(n == 8);
        EXPECT_OK(MPI_Type_free(&d));

        MPI_Datatype predefined = MPI_INT;
        EXPECT(MPI_Type_free(&predefined) == MPI_ERR_TYPE);
        EXPECT(predefined == MPI_INT);
        EXPECT_OK(MPI_Type_commit(&predefined));
        EXPECT(MPI_Type_commit(nullptr) == MPI_ERR_ARG);
        EXPECT(MPI_Type_free(nullptr) == MPI_ERR_ARG);
        MPI_Aint lb;
        EXPECT(MPI_Type_get_extent(MPI_INT, &lb, nullptr) == MPI_ERR_ARG);
        EXPECT(MPI_Type_get_true_extent(MPI_INT, nullptr, &lb) == MPI_ERR_ARG);
        EXPECT(MPI_Type_size(MPI_INT, nullptr) == MPI_ERR_ARG);
        EXPECT(MPI_Get_address(a, nullptr) == MPI_ERR_ARG);

        // Sizes beyond an int.
        MPI_Datatype kb, big;
        EXPECT_OK(MPI_Type_contiguous(1 << 12, MPI_CHAR, &kb));
        EXPECT_OK(MPI_Type_contiguous(1 << 20, kb, &big));
        MPI_Count size_x = 0;
        EXPECT_OK(MPI_Type_size(big, &n));
        EXPECT(n == MPI_UNDEFINED);
        EXPECT_OK(MPI_Type_size_x(big, &size_x));
        EXPECT(size_x == MPI_Count{1} << 32);
        EXPECT(MPI_Pack_size(1, big, MPI_COMM_WORLD, &n) == MPI_ERR_COUNT);
        EXPECT_OK(MPI_Type_free(&big));
        EXPECT_OK(MPI_Type_free(&kb));
        return 0;
    });
}

TEST_CASE("MPI_Pack, MPI_Unpack and MPI_Pack_size", "[datatype]") {
    run_mpi([] {
        // Two messages in one buffer: a struct and a negative-stride vector.
        MPI_Datatype dc, rev;
        const int lens[] = {1, 1};
        const MPI_Aint disps[] = {0, 8};
        const MPI_Datatype types[] = {MPI_DOUBLE, MPI_CHAR};
        EXPECT_OK(MPI_Type_create_struct(2, lens, disps, types, &dc));
        EXPECT_OK(MPI_Type_vector(3, 1, -2, MPI_INT, &rev));
        EXPECT_OK(MPI_Type_commit(&dc));
        EXPECT_OK(MPI_Type_commit(&rev));
        int size = 0;
        EXPECT_OK(MPI_Pack_size(2, dc, MPI_COMM_WORLD, &size));
        EXPECT(size == 18);
        EXPECT(MPI_Pack_size(-1, dc, MPI_COMM_WORLD, &size) == MPI_ERR_COUNT);
        EXPECT(MPI_Pack_size(1, dc, MPI_COMM_NULL, &size) == MPI_ERR_COMM);

        DoubleChar in[2] = {{1.25, 'p'}, {2.5, 'q'}};
        int ints[5] = {10, 11, 12, 13, 14};
        char buf[30];
        int pos = 0;
        EXPECT_OK(MPI_Pack(in, 2, dc, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        EXPECT(pos == 18);
        EXPECT_OK(MPI_Pack(&ints[4], 1, rev, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        EXPECT(pos == 30);
        EXPECT(MPI_Pack(ints, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE);
        EXPECT(pos == 30);

        DoubleChar out[2] = {};
        int back[3] = {};
        pos = 0;
        EXPECT_OK(MPI_Unpack(buf, sizeof buf, &pos, out, 2, dc, MPI_COMM_WORLD));
        EXPECT(out[1].d == 2.5 && out[1].c == 'q' && pos == 18);
        EXPECT_OK(MPI_Unpack(buf, sizeof buf, &pos, back, 3, MPI_INT, MPI_COMM_WORLD));
        EXPECT(back[0] == 14 && back[1] == 12 && back[2] == 10 && pos == 30);
        pos = 20;
        EXPECT(MPI_Unpack(buf, sizeof buf, &pos, back, 3, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE);
        EXPECT(pos == 20);

        EXPECT(MPI_Pack(in, 1, dc, buf, sizeof buf, nullptr, MPI_COMM_WORLD) == MPI_ERR_ARG);
        pos = 31;
        EXPECT(MPI_Pack(in, 1, dc, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_ARG);
        pos = 0;
        EXPECT(MPI_Pack(in, -1, dc, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_COUNT);
        EXPECT(MPI_Pack(in, 1, MPI_DATATYPE_NULL, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_TYPE);
        EXPECT(MPI_Pack(in, 1, dc, nullptr, 0, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE);
        EXPECT(MPI_Pack(in, 1, dc, nullptr, 100, &pos, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
        EXPECT(MPI_Pack(in, 1, dc, buf, sizeof buf, &pos, MPI_COMM_NULL) == MPI_ERR_COMM);
        EXPECT_OK(MPI_Pack(nullptr, 0, dc, nullptr, 0, &pos, MPI_COMM_WORLD));

        // Absolute addresses from MPI_Get_address, packed from MPI_BOTTOM.
        double x = 6.5;
        int k = 42;
        MPI_Aint addr[2];
        EXPECT_OK(MPI_Get_address(&k, &addr[0]));
        EXPECT_OK(MPI_Get_address(&x, &addr[1]));
        EXPECT(addr[0] == reinterpret_cast<MPI_Aint>(&k));
        const MPI_Datatype members[] = {MPI_INT, MPI_DOUBLE};
        MPI_Datatype abs;
        EXPECT_OK(MPI_Type_create_struct(2, lens, addr, members, &abs));
        EXPECT_OK(MPI_Type_commit(&abs));
        pos = 0;
        EXPECT_OK(MPI_Pack(MPI_BOTTOM, 1, abs, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        EXPECT(pos == 12);
        k = 0;
        x = 0;
        pos = 0;
        EXPECT_OK(MPI_Unpack(buf, pos + 12, &pos, MPI_BOTTOM, 1, abs, MPI_COMM_WORLD));
        EXPECT(k == 42 && x == 6.5);

        EXPECT_OK(MPI_Type_free(&abs));
        EXPECT_OK(MPI_Type_free(&dc));
        EXPECT_OK(MPI_Type_free(&rev));
        return 0;
    });
}

TEST_CASE("MPI_Type calls need MPI initialized; errors are reported", "[datatype]") {
    const fake::JobResult early = fake::run_job(one_rank(), [](int) {
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int n = 0;
        MPI_Datatype t;
        EXPECT(MPI_Type_size(MPI_INT, &n) == MPI_ERR_OTHER);
        EXPECT(MPI_Type_contiguous(2, MPI_INT, &t) == MPI_ERR_OTHER);
        MPI_Aint a;
        EXPECT(MPI_Get_address(&n, &a) == MPI_ERR_OTHER);
        return 0;
    });
    INFO("failed at line " << early.status[0]);
    CHECK(fake::clean(early));

    const fake::JobResult fatal = fake::run_job(one_rank(), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        MPI_Datatype t;
        MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t);  // does not return
        return 1;
    });
    CHECK(fatal.aborted);
    CHECK(fatal.abort_code == MPI_ERR_TYPE);
    CHECK(fatal.console ==
          "MPI error: rank 0: MPI_Type_vector: invalid datatype argument "
          "(oldtype is not a valid datatype)\n");
}

TEST_CASE("a type remembers how it was made and holds the types it was made from", "[datatype]") {
    const int ints[] = {3};
    const MPI_Datatype olds[] = {MPI_INT};
    const Contents contig_how{MPI_COMBINER_CONTIGUOUS, 1, 0, 1, ints, nullptr, olds};
    Recipe r = contiguous(3, MPI_INT);
    r.how = &contig_how;
    char why[96];
    TextBuilder t(why, sizeof why);
    MPI_Datatype inner, outer;
    REQUIRE(datatype_create(r, &inner, t) == MPI_SUCCESS);
    CHECK(datatype_contents(MPI_INT) == nullptr);
    const Contents *c = datatype_contents(inner);
    REQUIRE(c);
    CHECK(c->combiner == MPI_COMBINER_CONTIGUOUS);
    CHECK(c->nints == 1);
    CHECK(c->ints[0] == 3);
    CHECK(c->ntypes == 1);
    CHECK(c->types[0] == MPI_INT);

    // outer = contiguous(2, inner): inner stays while outer does.
    const int two[] = {2};
    const Contents outer_how{MPI_COMBINER_CONTIGUOUS, 1, 0, 1, two, nullptr, &inner};
    r = contiguous(2, inner);
    r.how = &outer_how;
    REQUIRE(datatype_create(r, &outer, t) == MPI_SUCCESS);
    CHECK(datatype_free(inner) == MPI_SUCCESS);
    CHECK(datatype_get(inner) == nullptr);  // its handle is no longer valid
    // get_contents gives it back: a new reference, valid again.
    const MPI_Datatype back = datatype_contents(outer)->types[0];
    CHECK(back == inner);
    datatype_share(back);
    REQUIRE(datatype_get(back));
    CHECK(datatype_get(back)->size == 3 * static_cast<int64_t>(sizeof(int)));
    CHECK(datatype_free(back) == MPI_SUCCESS);
    CHECK(datatype_get(back) == nullptr);
    // Freeing outer lets inner go too: the table is empty again.
    CHECK(datatype_free(outer) == MPI_SUCCESS);
    std::vector<MPI_Datatype> all;
    Types types;
    for (int i = 0; i < max_derived_types; ++i)
        all.push_back(types.make(contiguous(1, MPI_INT)));
    CHECK(all.size() == static_cast<size_t>(max_derived_types));
}

TEST_CASE("predefined types have their standard names, derived ones none", "[datatype]") {
    CHECK(std::string(datatype_name(MPI_INT)) == "MPI_INT");
    CHECK(std::string(datatype_name(MPI_LONG_DOUBLE_INT)) == "MPI_LONG_DOUBLE_INT");
    CHECK(std::string(datatype_name(MPI_C_FLOAT_COMPLEX)) == "MPI_C_COMPLEX");  // one type, two names
    CHECK(std::string(datatype_name(MPI_COMPLEX)) == "MPI_COMPLEX");
    CHECK(std::string(datatype_name(MPI_INTEGER4)) == "MPI_INTEGER4");
    CHECK(std::string(datatype_name(MPI_CXX_LONG_DOUBLE_COMPLEX)) == "MPI_CXX_LONG_DOUBLE_COMPLEX");
    CHECK(datatype_name(MPI_DATATYPE_NULL) == nullptr);
    Types types;
    const MPI_Datatype h = types.make(contiguous(2, MPI_INT));
    CHECK(std::string(datatype_name(h)).empty());
    CHECK(datatype_set_name(h, "two ints") == MPI_SUCCESS);
    CHECK(std::string(datatype_name(h)) == "two ints");
    CHECK(datatype_set_name(MPI_DATATYPE_NULL, "x") == MPI_ERR_TYPE);
}

TEST_CASE("bytes_of_basic inverts count_basic", "[datatype]") {
    Types types;
    const Datatype &dc = get(double_char_type(types));  // double, char: 9 bytes of data
    for (int64_t n = 0; n < 7; ++n)
        CHECK(count_basic(dc, static_cast<uint64_t>(bytes_of_basic(dc, n))) == n);
    CHECK(bytes_of_basic(dc, 3) == 9 + 8);
    CHECK(bytes_of_basic(get(MPI_DOUBLE_INT), 3) == 12 + 8);
    CHECK(bytes_of_basic(get(types.make(contiguous(0, MPI_INT))), 1) == -1);
}
