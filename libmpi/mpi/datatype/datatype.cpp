// Datatypes: the predefined table, the per-rank table of derived types,
// building a type map from a constructor's blocks, and packing.
#include "datatype.hpp"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/handles.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

namespace lwmpi {

namespace {

// ---- Predefined types --------------------------------------------------

// The type map of a basic type `self` of C type T: one block, one run.
template <typename T, MPI_Datatype self>
struct BasicMap {
    static constexpr Block blocks[] = {{0, sizeof(T)}};
    static constexpr Run runs[] = {{sizeof(T), 1, self}};
};

template <typename T, MPI_Datatype self>
constexpr Datatype basic() {
    using M = BasicMap<T, self>;
    const auto n = static_cast<MPI_Aint>(sizeof(T));
    return Datatype{.size = n,
                    .lb = 0,
                    .extent = n,
                    .true_lb = 0,
                    .true_extent = n,
                    .contiguous = true,
                    .committed = true,
                    .predefined = true,
                    .lb_marked = false,
                    .ub_marked = false,
                    .basic = self,
                    .basic_count = 1,
                    .align = alignof(T),
                    .blocks = M::blocks,
                    .nblocks = 1,
                    .runs = M::runs,
                    .nruns = 1};
}

// The type map of a {value; index;} pair of MINLOC/MAXLOC (section
// 5.9.4): value and index are one block unless padding parts them, and
// one run when they are of one type. `V` is the value's basic type, `IV`
// the index's (MPI_INT, or the value's own for Fortran's 2-types).
template <typename T, MPI_Datatype V, typename I = int, MPI_Datatype IV = MPI_INT>
struct PairMap {
    struct P {
        T value;
        I index;
    };
    static constexpr MPI_Aint index_offset = offsetof(P, index);
    static constexpr bool one_block = index_offset == sizeof(T);
    static constexpr bool one_run = V == IV;
    static constexpr Block blocks[] = {{0, one_block ? index_offset + sizeof(I) : sizeof(T)},
                                       {index_offset, sizeof(I)}};
    static constexpr Run runs[] = {{sizeof(T), one_run ? 2 : 1, V}, {sizeof(I), 1, IV}};
};

// A pair's size is its value and index; its extent is the C struct's, so
// trailing padding (MPI_DOUBLE_INT: 12 and 16) makes it non-contiguous.
template <typename T, MPI_Datatype V, typename I = int, MPI_Datatype IV = MPI_INT>
constexpr Datatype pair(MPI_Datatype self) {
    using M = PairMap<T, V, I, IV>;
    const auto n = static_cast<MPI_Aint>(sizeof(T) + sizeof(I));
    const auto ext = static_cast<MPI_Aint>(sizeof(typename M::P));
    return Datatype{.size = n,
                    .lb = 0,
                    .extent = ext,
                    .true_lb = 0,
                    .true_extent = static_cast<MPI_Aint>(M::index_offset + sizeof(I)),
                    .contiguous = M::one_block && n == ext,
                    .committed = true,
                    .predefined = true,
                    .lb_marked = false,
                    .ub_marked = false,
                    .basic = self,
                    .basic_count = 1,
                    .align = alignof(typename M::P),
                    .blocks = M::blocks,
                    .nblocks = M::one_block ? 1 : 2,
                    .runs = M::runs,
                    .nruns = M::one_run ? 1 : 2};
}

// MPI-1's MPI_LB and MPI_UB: no data, only a bound marker at
// displacement 0 (section 3.12.3 of MPI 1.1).
constexpr Datatype marker(MPI_Datatype self, bool lb) {
    return Datatype{.size = 0,
                    .lb = 0,
                    .extent = 0,
                    .true_lb = 0,
                    .true_extent = 0,
                    .contiguous = true,
                    .committed = true,
                    .predefined = true,
                    .lb_marked = lb,
                    .ub_marked = !lb,
                    .basic = self,  // it has no basic element: never asked
                    .basic_count = 0,
                    .align = 0,
                    .blocks = nullptr,
                    .nblocks = 0,
                    .runs = nullptr,
                    .nruns = 0};
}

constexpr Datatype predefined[] = {
    Datatype{},
    basic<char, MPI_CHAR>(),
    basic<signed char, MPI_SIGNED_CHAR>(),
    basic<unsigned char, MPI_UNSIGNED_CHAR>(),
    basic<unsigned char, MPI_BYTE>(),
    basic<short, MPI_SHORT>(),
    basic<unsigned short, MPI_UNSIGNED_SHORT>(),
    basic<int, MPI_INT>(),
    basic<unsigned, MPI_UNSIGNED>(),
    basic<long, MPI_LONG>(),
    basic<unsigned long, MPI_UNSIGNED_LONG>(),
    basic<long long, MPI_LONG_LONG_INT>(),
    basic<unsigned long long, MPI_UNSIGNED_LONG_LONG>(),
    basic<float, MPI_FLOAT>(),
    basic<double, MPI_DOUBLE>(),
    basic<long double, MPI_LONG_DOUBLE>(),
    basic<bool, MPI_C_BOOL>(),  // C's _Bool and C++'s bool agree on our ABIs
    basic<int8_t, MPI_INT8_T>(),
    basic<int16_t, MPI_INT16_T>(),
    basic<int32_t, MPI_INT32_T>(),
    basic<int64_t, MPI_INT64_T>(),
    basic<uint8_t, MPI_UINT8_T>(),
    basic<uint16_t, MPI_UINT16_T>(),
    basic<uint32_t, MPI_UINT32_T>(),
    basic<uint64_t, MPI_UINT64_T>(),
    basic<wchar_t, MPI_WCHAR>(),
    basic<unsigned char, MPI_PACKED>(),
    basic<MPI_Aint, MPI_AINT>(),
    basic<MPI_Offset, MPI_OFFSET>(),
    basic<MPI_Count, MPI_COUNT>(),
    basic<__complex__ float, MPI_C_FLOAT_COMPLEX>(),
    basic<__complex__ double, MPI_C_DOUBLE_COMPLEX>(),
    basic<__complex__ long double, MPI_C_LONG_DOUBLE_COMPLEX>(),
    pair<float, MPI_FLOAT>(MPI_FLOAT_INT),
    pair<double, MPI_DOUBLE>(MPI_DOUBLE_INT),
    pair<long, MPI_LONG>(MPI_LONG_INT),
    pair<int, MPI_INT>(MPI_2INT),
    pair<short, MPI_SHORT>(MPI_SHORT_INT),
    pair<long double, MPI_LONG_DOUBLE>(MPI_LONG_DOUBLE_INT),
    marker(MPI_LB, true),
    marker(MPI_UB, false),
    basic<char, MPI_CHARACTER>(),
    basic<int, MPI_LOGICAL>(),
    basic<int, MPI_INTEGER>(),
    basic<float, MPI_REAL>(),
    basic<double, MPI_DOUBLE_PRECISION>(),
    basic<__complex__ float, MPI_COMPLEX>(),
    basic<__complex__ double, MPI_DOUBLE_COMPLEX>(),
    pair<float, MPI_REAL, float, MPI_REAL>(MPI_2REAL),
    pair<double, MPI_DOUBLE_PRECISION, double, MPI_DOUBLE_PRECISION>(MPI_2DOUBLE_PRECISION),
    pair<int, MPI_INTEGER, int, MPI_INTEGER>(MPI_2INTEGER),
    basic<int8_t, MPI_INTEGER1>(),
    basic<int16_t, MPI_INTEGER2>(),
    basic<int32_t, MPI_INTEGER4>(),
    basic<int64_t, MPI_INTEGER8>(),
    basic<float, MPI_REAL4>(),
    basic<double, MPI_REAL8>(),
    basic<__complex__ float, MPI_COMPLEX8>(),
    basic<__complex__ double, MPI_COMPLEX16>(),
    basic<bool, MPI_CXX_BOOL>(),
    basic<__complex__ float, MPI_CXX_FLOAT_COMPLEX>(),
    basic<__complex__ double, MPI_CXX_DOUBLE_COMPLEX>(),
    basic<__complex__ long double, MPI_CXX_LONG_DOUBLE_COMPLEX>(),
    basic<__int128, MPI_INTEGER16>(),
    basic<Quad, MPI_REAL16>(),
    basic<QuadComplex, MPI_COMPLEX32>(),
};
constexpr int num_predefined = sizeof predefined / sizeof predefined[0];

// mpi.h's constants must be this table's indices.
constexpr bool predefined_consistent() {
    for (int i = 1; i < num_predefined; ++i)
        if (make_handle(HandleKind::datatype, i) != predefined[i].basic) return false;
    return true;
}
static_assert(predefined_consistent(), "mpi.h datatype handles and the table disagree");

// Their standard names (MPI_Type_get_name, section 6.8), by index.
constexpr const char *predefined_names[] = {
    "",
    "MPI_CHAR",
    "MPI_SIGNED_CHAR",
    "MPI_UNSIGNED_CHAR",
    "MPI_BYTE",
    "MPI_SHORT",
    "MPI_UNSIGNED_SHORT",
    "MPI_INT",
    "MPI_UNSIGNED",
    "MPI_LONG",
    "MPI_UNSIGNED_LONG",
    "MPI_LONG_LONG_INT",
    "MPI_UNSIGNED_LONG_LONG",
    "MPI_FLOAT",
    "MPI_DOUBLE",
    "MPI_LONG_DOUBLE",
    "MPI_C_BOOL",
    "MPI_INT8_T",
    "MPI_INT16_T",
    "MPI_INT32_T",
    "MPI_INT64_T",
    "MPI_UINT8_T",
    "MPI_UINT16_T",
    "MPI_UINT32_T",
    "MPI_UINT64_T",
    "MPI_WCHAR",
    "MPI_PACKED",
    "MPI_AINT",
    "MPI_OFFSET",
    "MPI_COUNT",
    "MPI_C_COMPLEX",  // MPI_C_FLOAT_COMPLEX is its synonym (section 3.2.2), as in MPICH
    "MPI_C_DOUBLE_COMPLEX",
    "MPI_C_LONG_DOUBLE_COMPLEX",
    "MPI_FLOAT_INT",
    "MPI_DOUBLE_INT",
    "MPI_LONG_INT",
    "MPI_2INT",
    "MPI_SHORT_INT",
    "MPI_LONG_DOUBLE_INT",
    "MPI_LB",
    "MPI_UB",
    "MPI_CHARACTER",
    "MPI_LOGICAL",
    "MPI_INTEGER",
    "MPI_REAL",
    "MPI_DOUBLE_PRECISION",
    "MPI_COMPLEX",
    "MPI_DOUBLE_COMPLEX",
    "MPI_2REAL",
    "MPI_2DOUBLE_PRECISION",
    "MPI_2INTEGER",
    "MPI_INTEGER1",
    "MPI_INTEGER2",
    "MPI_INTEGER4",
    "MPI_INTEGER8",
    "MPI_REAL4",
    "MPI_REAL8",
    "MPI_COMPLEX8",
    "MPI_COMPLEX16",
    "MPI_CXX_BOOL",
    "MPI_CXX_FLOAT_COMPLEX",
    "MPI_CXX_DOUBLE_COMPLEX",
    "MPI_CXX_LONG_DOUBLE_COMPLEX",
    "MPI_INTEGER16",
    "MPI_REAL16",
    "MPI_COMPLEX32",
};
static_assert(sizeof predefined_names / sizeof predefined_names[0] == num_predefined);

// Names a rank gave predefined types (table made on the first).
using Name = char[MPI_MAX_OBJECT_NAME];
thread_local util::RankLocal<Name *> t_predefined_names;

// ---- The per-rank table of derived types -------------------------------

struct Slot {
    Datatype type;  // owns its blocks and runs (malloc)
    Contents *how;  // owns it and its arrays (one malloc); holds its derived types
    Name name;
    bool used;  // holds a type, maybe freed but still held
    int refs;   // user references (MPI_Type_free drops one): the handle is valid while > 0
    int holds;  // pending operations and types made from it (datatype_hold)
};

// The table is made in slabs of derived_slab slots, each on the first
// type made that needs it, so a rank pays only for the types it makes;
// they stay until MPI_Finalize. Index num_predefined + i is slot
// i % derived_slab of slab i / derived_slab.
constexpr int derived_slab = 16;
static_assert(max_derived_types % derived_slab == 0);
constexpr int derived_slabs = max_derived_types / derived_slab;
thread_local util::RankLocal<Slot *[derived_slabs]> t_derived;

// Slot i of the table, or nullptr when its slab is not made.
Slot *derived_at(int i) {
    Slot *slab = t_derived.get()[i / derived_slab];
    return slab ? &slab[i % derived_slab] : nullptr;
}

// The slot of derived type `h`, freed or not, or nullptr.
Slot *slot_of(MPI_Datatype h) {
    const int i = table_index(h, HandleKind::datatype, num_predefined, num_predefined + max_derived_types);
    Slot *s = i < 0 ? nullptr : derived_at(i - num_predefined);
    return s && s->used ? s : nullptr;
}

// The slot of derived type `h` while its handle is valid, or nullptr.
Slot *live_slot(MPI_Datatype h) {
    Slot *s = slot_of(h);
    return s && s->refs > 0 ? s : nullptr;
}

// A free slot, and its index in *index; nullptr when the table is full
// (*index is max_derived_types) or a new slab cannot be had.
Slot *free_slot(int *index) {
    Slot **slabs = t_derived.get();
    for (int i = 0; i < max_derived_types; ++i) {
        Slot *&slab = slabs[i / derived_slab];
        if (!slab) {
            slab = static_cast<Slot *>(calloc(derived_slab, sizeof(Slot)));
            if (!slab) {
                *index = i;
                return nullptr;
            }
        }
        if (!slab[i % derived_slab].used) {
            *index = i;
            return &slab[i % derived_slab];
        }
    }
    *index = max_derived_types;
    return nullptr;
}

void free_lists(Slot &s) {
    // The lists were allocated by flatten(); only Datatype's view is const.
    free(const_cast<Block *>(s.type.blocks));
    free(const_cast<Run *>(s.type.runs));
    free(s.how);
}

// Empties slot `s` (no reference or hold left) and lets go of the types
// it was made from.
void release_slot(Slot &s) {
    Contents *how = s.how;
    s.how = nullptr;
    for (int i = 0; how && i < how->ntypes; ++i)
        datatype_release(how->types[i]);
    free_lists(s);
    free(how);
    s = Slot{};
}

// A copy of `how` in one heap block, or nullptr when out of memory.
Contents *copy_contents(const Contents &how) {
    const size_t addrs = sizeof(MPI_Aint) * static_cast<size_t>(how.naddrs);
    const size_t types = sizeof(MPI_Datatype) * static_cast<size_t>(how.ntypes);
    const size_t ints = sizeof(int) * static_cast<size_t>(how.nints);
    // The widest array first, so that each one is aligned.
    auto *c = static_cast<Contents *>(malloc(sizeof(Contents) + addrs + types + ints));
    if (!c) return nullptr;
    char *p = reinterpret_cast<char *>(c + 1);
    *c = how;
    c->addrs = static_cast<MPI_Aint *>(memcpy(p, how.addrs, addrs));
    c->types = static_cast<MPI_Datatype *>(memcpy(p + addrs, how.types, types));
    c->ints = static_cast<int *>(memcpy(p + addrs + types, how.ints, ints));
    return c;
}

// ---- Measuring a recipe: size, bounds, basic type ----------------------

// MPI_Aint arithmetic that remembers an overflow.
struct Checked {
    bool overflow;

    MPI_Aint add(MPI_Aint a, MPI_Aint b) {
        MPI_Aint r;
        overflow |= __builtin_add_overflow(a, b, &r);
        return r;
    }
    MPI_Aint sub(MPI_Aint a, MPI_Aint b) {
        MPI_Aint r;
        overflow |= __builtin_sub_overflow(a, b, &r);
        return r;
    }
    MPI_Aint mul(MPI_Aint a, MPI_Aint b) {
        MPI_Aint r;
        overflow |= __builtin_mul_overflow(a, b, &r);
        return r;
    }
};

// Addresses [lo, hi), once set.
struct Range {
    MPI_Aint lo;
    MPI_Aint hi;
    bool set;
};

// Widens `r` to cover n >= 1 copies of [lo, hi), `step` bytes apart from
// `disp` on (step < 0: the copies go downwards).
void cover_copies(Range &r, Checked &c, MPI_Aint disp, int64_t n, MPI_Aint step, MPI_Aint lo, MPI_Aint hi) {
    const MPI_Aint last = c.mul(n - 1, step);
    const MPI_Aint first_lo = c.add(c.add(disp, lo), last < 0 ? last : 0);
    const MPI_Aint last_hi = c.add(c.add(disp, hi), last > 0 ? last : 0);
    if (!r.set || first_lo < r.lo) r.lo = first_lo;
    if (!r.set || last_hi > r.hi) r.hi = last_hi;
    r.set = true;
}

// Block i of a recipe: `len` elements of `type` (nullptr: not a valid
// type) from byte displacement `disp` on.
struct Piece {
    int64_t len;
    const Datatype *type;
    MPI_Aint disp;
};

Piece piece(const Recipe &r, int i, Checked &c) {
    Piece p;
    p.len = r.lengths ? r.lengths[i] : r.length;
    p.type = datatype_get(r.types ? r.types[i] : r.type);
    const MPI_Aint d = r.disps ? r.disps[i] : r.byte_disps ? r.byte_disps[i] : c.mul(i, r.stride);
    p.disp = r.in_extents && p.type ? c.mul(d, p.type->extent) : d;
    return p;
}

// What a recipe's blocks add up to.
struct Shape {
    Checked c;
    int64_t size;
    int64_t basic_count;
    MPI_Aint align;
    // Each side of the bounds apart (lo of the lb ranges, hi of the ub
    // ones): a marker of a side overrides the data's bound on that side.
    Range lbs;       // lbs of the blocks with data and no lb marker
    Range ubs;       // ubs of the blocks with data and no ub marker
    Range lb_marks;  // lbs of the blocks with an lb marker
    Range ub_marks;  // ubs of the blocks with a ub marker
    Range data;      // true_lb..true ub
    bool voted;      // a block with data set `basic`
    MPI_Datatype basic;
    bool mixed;  // a later one had another basic type
};

// Adds block `p` to `s`. A block of no elements adds no entries to the
// type map, so it moves no bound (nor does a type with no data and no
// explicit bounds).
void add_piece(Shape &s, const Piece &p) {
    const Datatype &t = *p.type;
    s.size = s.c.add(s.size, s.c.mul(p.len, t.size));
    s.basic_count = s.c.add(s.basic_count, s.c.mul(p.len, t.basic_count));
    if (p.len == 0) return;
    const MPI_Aint ub = s.c.add(t.lb, t.extent);
    if (t.lb_marked || t.size > 0)
        cover_copies(t.lb_marked ? s.lb_marks : s.lbs, s.c, p.disp, p.len, t.extent, t.lb, t.lb);
    if (t.ub_marked || t.size > 0)
        cover_copies(t.ub_marked ? s.ub_marks : s.ubs, s.c, p.disp, p.len, t.extent, ub, ub);
    if (t.size == 0) return;
    cover_copies(s.data, s.c, p.disp, p.len, t.extent, t.true_lb, s.c.add(t.true_lb, t.true_extent));
    if (t.align > s.align) s.align = t.align;
    if (!s.voted)
        s.basic = t.basic;
    else if (t.basic != s.basic)
        s.mixed = true;
    s.voted = true;
}

// `n` rounded up to a multiple of `align`.
MPI_Aint round_up(Checked &c, MPI_Aint n, MPI_Aint align) {
    const MPI_Aint rest = align > 0 ? n % align : 0;
    return rest ? c.add(n, align - rest) : n;
}

// The bounds of the type: on each side, the markers' when there are any,
// else the data's, with a struct's extent rounded up to the alignment of
// its basic elements when it has no ub marker (section 4.1.6);
// create_resized's own (4.1.7). A side with neither is at displacement 0,
// as in MPICH: {(LB, 10)} alone has lb 10, ub 0 and extent -10.
void set_bounds(const Recipe &r, Shape &s, Datatype &t) {
    t.lb_marked = r.resize || s.lb_marks.set;
    t.ub_marked = r.resize || s.ub_marks.set;
    const Range &lo = s.lb_marks.set ? s.lb_marks : s.lbs;
    const Range &hi = s.ub_marks.set ? s.ub_marks : s.ubs;
    if (r.resize) {
        t.lb = r.lb;
        t.extent = r.extent;
    } else if (lo.set || hi.set) {
        t.lb = lo.set ? lo.lo : 0;
        t.extent = s.c.sub(hi.set ? hi.hi : 0, t.lb);
    }
    if (r.pad && !t.ub_marked) t.extent = round_up(s.c, t.extent, s.align);
    if (s.data.set) {
        t.true_lb = s.data.lo;
        t.true_extent = s.c.sub(s.data.hi, s.data.lo);
    }
}

// True when every block of `r` is alike but for its displacement, i *
// stride (contiguous, vector, hvector): then its first and last blocks
// tell the whole shape, and one block's type map repeated is its own.
bool uniform(const Recipe &r) { return !r.lengths && !r.types && !r.disps && !r.byte_disps; }

// Checks the blocks of `r` and sets every field of `t` but its lists and
// the flags that depend on them.
int measure(const Recipe &r, Datatype &t, TextBuilder &why) {
    Shape s{};
    // A uniform recipe's bounds are its first and last blocks' (the
    // displacements go one way), and its sums count times one block's.
    const bool ends_only = uniform(r) && r.count > 2;
    for (int i = 0; i < r.count; i = ends_only && i == 0 ? r.count - 1 : i + 1) {
        const Piece p = piece(r, i, s.c);
        if (!p.type) {
            if (r.types)
                why.put("types[").put_int(i).put("]");
            else
                why.put("oldtype");
            why.put(" is not a valid datatype");
            return MPI_ERR_TYPE;
        }
        if (p.len < 0) {
            if (r.lengths)
                why.put("blocklengths[").put_int(i).put("] ");
            else
                why.put("blocklength ");
            why.put_int(p.len);
            return MPI_ERR_COUNT;
        }
        add_piece(s, p);
        if (ends_only && i > 0) {
            s.size = s.c.mul(r.count, s.c.mul(p.len, p.type->size));
            s.basic_count = s.c.mul(r.count, s.c.mul(p.len, p.type->basic_count));
        }
    }
    set_bounds(r, s, t);
    if (s.c.overflow) {
        why.put("the displacements overflow MPI_Aint");
        return MPI_ERR_ARG;
    }
    t.size = s.size;
    t.basic = s.mixed ? MPI_DATATYPE_NULL : s.basic;
    t.basic_count = s.basic_count;
    t.align = s.align;
    return MPI_SUCCESS;
}

// ---- Flattening a recipe into blocks and runs --------------------------

// A growing array (malloc'd; no C++ library on the target).
template <typename T>
struct List {
    T *items;
    int64_t n;
    int64_t cap;
};

// Joins `next` to `last` when its bytes follow last's in memory, or when
// it continues last's repetition (pieces of one length, one stride).
bool merge(Segment &last, const Segment &next) {
    if (last.count == 1 && next.count == 1 && last.disp + last.len == next.disp) {
        last.len += next.len;
        return true;
    }
    if (next.len != last.len) return false;
    const MPI_Aint stride = last.count > 1   ? last.stride
                            : next.count > 1 ? next.stride
                                             : next.disp - last.disp;
    if ((next.count > 1 && next.stride != stride) || next.disp != last.disp + last.count * stride)
        return false;
    last.count += next.count;
    last.stride = stride;
    return true;
}

// Joins `next` to `last` when its elements have the same type.
bool merge(Run &last, const Run &next) {
    if (last.type != next.type) return false;
    last.count += next.count;
    return true;
}

template <typename T>
bool push(List<T> &l, const T &x) {
    if (l.n > 0 && merge(l.items[l.n - 1], x)) return true;
    if (l.n == l.cap) {
        const int64_t cap = l.cap ? 2 * l.cap : 4;
        T *grown = static_cast<T *>(realloc(l.items, static_cast<size_t>(cap) * sizeof(T)));
        if (!grown) return false;
        l.items = grown;
        l.cap = cap;
    }
    l.items[l.n++] = x;
    return true;
}

// A segment whose first piece continues the last piece before it in
// memory (a repetition's last, or a single one) joins that piece: fewer,
// longer pieces to copy; the rest of its repetition follows.
bool push(List<Segment> &l, const Segment &x) {
    if (l.n > 0) {
        Segment &last = l.items[l.n - 1];
        const MPI_Aint tail = last.disp + (last.count - 1) * last.stride;
        if (tail + last.len == x.disp && (last.count > 1 || x.count > 1)) {
            const Segment joined{tail, last.len + x.len};
            if (last.count > 1)
                --last.count;
            else
                --l.n;  // (joined replaces it)
            if (!push<Segment>(l, joined)) return false;
            return x.count == 1 || push<Segment>(l, Segment{x.disp + x.stride, x.len, x.count - 1, x.stride});
        }
    }
    return push<Segment>(l, x);
}

// Appends n copies of the k segments at `items`, `step` bytes apart from
// `disp` on. One segment repeated regularly stays one segment: the list
// grows with n only when each copy has several.
bool append_copies(List<Segment> &l, const Segment *items, int64_t k, MPI_Aint disp, int64_t n,
                   MPI_Aint step) {
    if (k == 0) return true;
    if (k == 1 && n > 1) {
        const Segment &b = items[0];
        if (b.count == 1 && step == b.len) return push(l, Segment{disp + b.disp, n * b.len});
        if (b.count == 1) return push(l, Segment{disp + b.disp, b.len, n, step});
        if (b.count * b.stride == step) return push(l, Segment{disp + b.disp, b.len, n * b.count, b.stride});
    }
    for (int64_t j = 0; j < n; ++j, disp += step)
        for (int64_t b = 0; b < k; ++b)
            if (!push(l, Segment{disp + items[b].disp, items[b].len, items[b].count, items[b].stride}))
                return false;
    return true;
}

// The segments of one element of `t` (malloc'd, *n of them), or nullptr
// when out of memory.
Segment *segments(const Datatype &t, int64_t *n) {
    auto *out = static_cast<Segment *>(malloc(static_cast<size_t>(t.nblocks) * sizeof(Segment)));
    *n = 0;
    if (out)
        each_segment(t, [&](const Segment &s) {
            out[(*n)++] = s;
            return 0;
        });
    return out;
}

// Appends the segments of n copies of `t` (which has data), t.extent
// apart from `disp` on.
bool append_blocks(List<Segment> &l, const Datatype &t, MPI_Aint disp, int64_t n) {
    // The copies of a contiguous type make one block.
    if (t.contiguous) return push(l, Segment{disp + t.true_lb, n * t.size});
    int64_t k;
    Segment *items = segments(t, &k);
    const bool ok = items && append_copies(l, items, k, disp, n, t.extent);
    free(items);
    return ok;
}

// Appends n copies of the k runs at `items`.
bool append_runs(List<Run> &l, const Run *items, int64_t k, int64_t n) {
    if (k == 0) return true;
    if (k == 1) return push(l, Run{items[0].size, n * items[0].count, items[0].type});
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < k; ++i)
            if (!push(l, items[i])) return false;
    return true;
}

// The type map of a recipe as it is built.
struct Flat {
    List<Segment> segments;
    List<Run> runs;

    // Appends block `p` of a recipe; false when out of memory.
    bool add(const Piece &p) {
        if (p.len == 0 || p.type->size == 0) return true;
        return append_blocks(segments, *p.type, p.disp, p.len) &&
               append_runs(runs, p.type->runs, p.type->nruns, p.len);
    }
    // Appends n copies of what `one` holds, `step` bytes apart.
    bool add_copies(const Flat &one, int64_t n, MPI_Aint step) {
        return append_copies(segments, one.segments.items, one.segments.n, 0, n, step) &&
               append_runs(runs, one.runs.items, one.runs.n, n);
    }
    void drop() {
        free(segments.items);
        free(runs.items);
    }
};

// The block entries of segments[0..n) (malloc'd, *entries of them): a
// repetition takes two. nullptr when out of memory (or none).
Block *encode(const Segment *segs, int64_t n, int64_t *entries) {
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i)
        m += segs[i].count > 1 ? 2 : 1;
    *entries = m;
    auto *out = static_cast<Block *>(malloc(static_cast<size_t>(m) * sizeof(Block)));
    for (int64_t i = 0, at = 0; out && i < n; ++i) {
        if (segs[i].count > 1) out[at++] = Block{segs[i].stride, -segs[i].count};
        out[at++] = Block{segs[i].disp, segs[i].len};
    }
    return out;
}

// Sets t's lists to the type map of `r` (measured: no overflow, valid
// types). False when out of memory. A uniform recipe's blocks are one
// block's type map repeated, each `stride` after the one before, so it
// is built once.
bool flatten(const Recipe &r, Datatype &t) {
    Flat flat{};
    Checked c{};
    bool ok = true;
    if (uniform(r) && r.count > 1) {
        Flat one{};
        const Piece first = piece(r, 0, c);
        ok = one.add(first) && flat.add_copies(one, r.count, piece(r, 1, c).disp - first.disp);
        one.drop();
    } else {
        for (int i = 0; i < r.count && ok; ++i)
            ok = flat.add(piece(r, i, c));
    }
    Block *blocks = ok ? encode(flat.segments.items, flat.segments.n, &t.nblocks) : nullptr;
    free(flat.segments.items);
    if (!ok || (!blocks && t.nblocks > 0)) {
        free(blocks);
        free(flat.runs.items);
        return false;
    }
    t.blocks = blocks;
    t.runs = flat.runs.items;
    t.nruns = flat.runs.n;
    return true;
}

// ---- Packing -----------------------------------------------------------

// Copies n bytes between user memory and the packed stream.
void copy_bytes(uintptr_t user, uintptr_t stream, uint64_t n, bool to_stream) {
    void *u = reinterpret_cast<void *>(user);
    void *s = reinterpret_cast<void *>(stream);
    if (to_stream)
        memcpy(s, u, n);
    else
        memcpy(u, s, n);
}

// Copies the first `bytes` bytes of the type map of `count` elements of
// `t` at `user` to or from the packed stream at `stream`. Addresses are
// integers because the user buffer may be MPI_BOTTOM (NULL) with absolute
// displacements.
void copy_elements(uintptr_t user, uintptr_t stream, uint64_t bytes, int count, const Datatype &t,
                   bool to_stream) {
    if (t.contiguous) {
        copy_bytes(user + t.true_lb, stream, bytes, to_stream);
        return;
    }
    for_each_piece(t, count, [&](MPI_Aint disp, MPI_Aint len) {
        const uint64_t n = bytes < static_cast<uint64_t>(len) ? bytes : static_cast<uint64_t>(len);
        copy_bytes(user + static_cast<uintptr_t>(disp), stream, n, to_stream);
        stream += n;
        bytes -= n;
        return bytes == 0 ? 1 : 0;
    });
}

uintptr_t address(const void *p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

const Datatype *datatype_get(MPI_Datatype h) {
    const int i = table_index(h, HandleKind::datatype, 1, num_predefined);
    if (i >= 0) return &predefined[i];
    const Slot *s = live_slot(h);
    return s ? &s->type : nullptr;
}

int datatype_create(const Recipe &r, MPI_Datatype *out, TextBuilder &why) {
    Datatype t{};
    if (int e = measure(r, t, why)) return e;
    int index;
    Slot *s = free_slot(&index);
    if (!s) {
        if (index == max_derived_types)
            why.put("at most ").put_int(max_derived_types).put(" derived datatypes per rank");
        else
            why.put("no memory for the datatype table");
        return MPI_ERR_NO_MEM;
    }
    Contents *how = r.how ? copy_contents(*r.how) : nullptr;
    if ((r.how && !how) || !flatten(r, t)) {
        free(how);
        why.put("no memory for the type map");
        return MPI_ERR_NO_MEM;
    }
    // One element's data is one block, and the next element's follows it.
    t.contiguous = t.nblocks == 0 || (t.nblocks == 1 && t.blocks[0].len == t.extent);
    *s = Slot{.type = t, .how = how, .name = {}, .used = true, .refs = 1, .holds = 0};
    // Its old types stay while it does (they are valid: measure() said so).
    for (int i = 0; how && i < how->ntypes; ++i)
        datatype_hold(how->types[i]);
    *out = make_handle(HandleKind::datatype, num_predefined + index);
    return MPI_SUCCESS;
}

void datatype_finalize() {
    // Every slot goes: no need to let go of the holds between them.
    for (Slot *&slab : t_derived.get()) {
        for (int i = 0; slab && i < derived_slab; ++i)
            if (slab[i].used) free_lists(slab[i]);
        free(slab);
        slab = nullptr;
    }
    free(t_predefined_names.get());
    t_predefined_names.get() = nullptr;
}

int datatype_commit(MPI_Datatype h) {
    if (Slot *s = live_slot(h)) {
        s->type.committed = true;
        return MPI_SUCCESS;
    }
    return datatype_get(h) ? MPI_SUCCESS : MPI_ERR_TYPE;
}

int datatype_free(MPI_Datatype h) {
    Slot *s = live_slot(h);
    if (!s) return MPI_ERR_TYPE;
    if (--s->refs == 0 && s->holds == 0) release_slot(*s);
    return MPI_SUCCESS;
}

const Contents *datatype_contents(MPI_Datatype h) {
    const Slot *s = live_slot(h);
    return s ? s->how : nullptr;
}

void datatype_share(MPI_Datatype h) {
    if (Slot *s = slot_of(h)) ++s->refs;
}

const char *datatype_name(MPI_Datatype h) {
    const int i = table_index(h, HandleKind::datatype, 1, num_predefined);
    if (i >= 0) {
        const Name *set = t_predefined_names.get();
        return set ? set[i] : predefined_names[i];
    }
    const Slot *s = live_slot(h);
    return s ? s->name : nullptr;
}

int datatype_set_name(MPI_Datatype h, const char *name) {
    char *to = nullptr;
    const int i = table_index(h, HandleKind::datatype, 1, num_predefined);
    if (i >= 0) {
        Name *&set = t_predefined_names.get();
        if (!set) {
            set = static_cast<Name *>(malloc(num_predefined * sizeof(Name)));
            if (!set) return MPI_ERR_NO_MEM;
            for (int k = 0; k < num_predefined; ++k)
                TextBuilder(set[k], sizeof(Name)).put(predefined_names[k]);
        }
        to = set[i];
    } else if (Slot *s = live_slot(h)) {
        to = s->name;
    } else {
        return MPI_ERR_TYPE;
    }
    TextBuilder(to, sizeof(Name)).put(name);
    return MPI_SUCCESS;
}

const Datatype *datatype_hold(MPI_Datatype h) {
    // A type freed while a pending operation holds it can be held again by
    // the parts of that operation (the messages of a schedule, started as
    // it goes on).
    Slot *s = slot_of(h);
    if (s && (s->refs > 0 || s->holds > 0)) {
        ++s->holds;
        return &s->type;
    }
    return datatype_get(h);
}

void datatype_release(MPI_Datatype h) {
    Slot *s = slot_of(h);
    if (s && --s->holds == 0 && s->refs == 0) release_slot(*s);
}

void pack(const void *buf, int count, const Datatype &t, void *out) {
    const uint64_t bytes = static_cast<uint64_t>(count) * t.size;
    copy_elements(address(buf), address(out), bytes, count, t, true);
}

void unpack(const void *in, uint64_t bytes, void *buf, int count, const Datatype &t) {
    copy_elements(address(buf), address(in), bytes, count, t, false);
}

int64_t count_basic(const Datatype &t, uint64_t bytes) {
    if (t.size == 0) return bytes == 0 ? 0 : -1;
    const uint64_t size = static_cast<uint64_t>(t.size);
    uint64_t rest = bytes % size;  // of the last, partial element
    int64_t per_element = 0;
    int64_t in_rest = 0;
    for (int64_t i = 0; i < t.nruns; ++i) {
        const Run &run = t.runs[i];
        const uint64_t run_bytes = static_cast<uint64_t>(run.size * run.count);
        const uint64_t taken = rest < run_bytes ? rest : run_bytes;
        if (taken % run.size) return -1;
        per_element += run.count;
        in_rest += static_cast<int64_t>(taken) / run.size;
        rest -= taken;
    }
    return static_cast<int64_t>(bytes / size) * per_element + in_rest;
}

int64_t bytes_of_basic(const Datatype &t, int64_t n) {
    int64_t per_element = 0;
    for (int64_t i = 0; i < t.nruns; ++i)
        per_element += t.runs[i].count;
    if (per_element == 0) return n == 0 ? 0 : -1;
    int64_t bytes = n / per_element * t.size;
    int64_t rest = n % per_element;
    for (int64_t i = 0; rest > 0; ++i) {
        const int64_t taken = rest < t.runs[i].count ? rest : t.runs[i].count;
        bytes += taken * t.runs[i].size;
        rest -= taken;
    }
    return bytes;
}

int copy(const void *src, void *dst, int count, const Datatype &t) {
    if (src == dst) return MPI_SUCCESS;
    return copy_as(src, count, t, dst, count, t);
}

int copy_as(const void *src, int scount, const Datatype &st, void *dst, int rcount, const Datatype &rt) {
    const uint64_t bytes = static_cast<uint64_t>(scount) * static_cast<uint64_t>(st.size);
    const uint64_t room = static_cast<uint64_t>(rcount) * static_cast<uint64_t>(rt.size);
    if (bytes > room) return MPI_ERR_TRUNCATE;
    if (bytes == 0) return MPI_SUCCESS;
    void *packed = malloc(bytes);
    if (!packed) return MPI_ERR_NO_MEM;
    pack(src, scount, st, packed);
    unpack(packed, bytes, dst, rcount, rt);
    free(packed);
    return MPI_SUCCESS;
}

int check_datatype(MPI_Datatype datatype) {
    const Datatype *t = datatype_get(datatype);
    return t && t->committed ? MPI_SUCCESS : MPI_ERR_TYPE;
}

}  // namespace lwmpi
