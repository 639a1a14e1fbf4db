// Datatypes (MPI 3.1 chapter 4): the predefined ones and those built by
// MPI_Type_*, and packing any of them to and from contiguous bytes.
//
// LibMPI hands MPIUtil contiguous bytes only: a message of `count`
// elements of type t is count * t.size bytes on the wire, in the order of
// t's type map. A contiguous type is sent from the user buffer directly;
// any other is packed into a temporary buffer first (and unpacked after a
// receive).
//
// A type map is kept flattened: the data bytes of one element as a list
// of blocks in type-map order, each a contiguous piece repeated at a
// stride (adjacent pieces merged, regular repetitions kept as one block,
// so that a vector's list does not grow with its count), so packing is a
// loop of memcpy, and the sizes of its basic elements as a list of runs
// (for MPI_Get_elements and external32). Derived types live
// in a per-rank table of max_derived_types entries; a constructor copies
// the blocks of its old types, so packing never looks at another type.
// A type also remembers how it was made (MPI_Type_get_contents) and holds
// the derived types it was made from: they stay in the table, freed or
// not, until it goes.
#pragma once

#include <mpi.h>
#include <stdint.h>

namespace lwmpi {

/// IEEE binary128, MPI_REAL16's C type, and its complex pair (MPI_COMPLEX32):
/// riscv64's long double is binary128; x86-64's is not, but GCC's
/// __float128 is (its arithmetic is libgcc's).
#if __LDBL_MANT_DIG__ == 113
using Quad = long double;
using QuadComplex = __complex__ long double;
#else
using Quad = __float128;
typedef _Complex float __attribute__((mode(TC))) QuadComplex;
#endif

class TextBuilder;

/// At most this many derived datatypes per rank (MPI_ERR_NO_MEM beyond).
constexpr int max_derived_types = 4096;

/// An entry of a type map's list of blocks: `len` bytes of data at `disp`
/// bytes from the address of an element (the buffer address a call is
/// given; lb is measured from it too). An entry with len < 0 repeats the
/// entry after it: -len pieces, each `disp` bytes after the one before.
struct Block {
    MPI_Aint disp;
    MPI_Aint len;
};

/// What one entry, or a repetition and its entry, stands for: `count`
/// pieces of `len` bytes, the first at `disp`, `stride` bytes apart.
struct Segment {
    MPI_Aint disp;
    MPI_Aint len;
    int64_t count = 1;
    MPI_Aint stride = 0;
};

/// `count` consecutive basic elements of predefined type `type`, `size`
/// bytes each (a pair type's members are a run each: MPI_DOUBLE, MPI_INT).
struct Run {
    int64_t size;
    int64_t count;
    MPI_Datatype type;
};

/// What the rest of LibMPI needs to know about a datatype.
struct Datatype {
    int64_t size;          ///< bytes of data in one element (MPI_Type_size)
    MPI_Aint lb;           ///< lower bound (MPI_Type_get_extent)
    MPI_Aint extent;       ///< distance between consecutive elements
    MPI_Aint true_lb;      ///< lowest byte of data (MPI_Type_get_true_extent)
    MPI_Aint true_extent;  ///< span of the data bytes
    bool contiguous;       ///< count elements are count*size bytes from buf + true_lb
    bool committed;        ///< usable in communication (predefined: always)
    bool predefined;
    /// The type map holds an explicit lower / upper bound marker, which
    /// overrides the data's bound (the sticky markers of section 4.1.7):
    /// MPI_Type_create_resized sets both, on this type or one it is built
    /// from; the MPI-1 MPI_LB and MPI_UB types set one each.
    bool lb_marked;
    bool ub_marked;
    /// The predefined type of every basic element (for reductions and
    /// MPI_Get_elements), or MPI_DATATYPE_NULL when the elements mix types
    /// or there are none. A pair type (MPI_DOUBLE_INT...) is its own basic
    /// type, and so it is for types built of one pair type only.
    MPI_Datatype basic;
    int64_t basic_count;  ///< elements of `basic` in one element (a pair counts 1)
    MPI_Aint align;       ///< the largest alignment of a basic element (section 4.1.6)
    const Block *blocks;  ///< the data of one element, in type-map order (each_segment reads them)
    int64_t nblocks;      ///< entries of `blocks`
    const Run *runs;      ///< its basic elements in type-map order (a pair's two members apart)
    int64_t nruns;
};

/// The datatype named by `h` (predefined, or derived and not freed), or
/// nullptr.
const Datatype *datatype_get(MPI_Datatype h);

/// How a derived type was made (MPI 3.1 section 4.1.13): an
/// MPI_COMBINER_* and the constructor's arguments, in the order of
/// MPI_Type_get_contents.
struct Contents {
    int combiner;
    int nints;
    int naddrs;
    int ntypes;
    const int *ints;
    const MPI_Aint *addrs;
    const MPI_Datatype *types;
};

/// The arguments of any type constructor (MPI 3.1 sections 4.1.2-4.1.7),
/// as `count` blocks: block i is length(i) consecutive elements of
/// type(i) (each the type's extent after the previous one) starting at
/// displacement(i). Unused pointers are nullptr.
struct Recipe {
    int count = 0;
    int length = 0;  ///< every block's length, when lengths is nullptr
    const int *lengths = nullptr;
    MPI_Datatype type = MPI_DATATYPE_NULL;  ///< every block's type, when types is nullptr
    const MPI_Datatype *types = nullptr;
    /// displacement(i) is disps[i], else byte_disps[i], else i * stride; in
    /// extents of `type` when in_extents, else in bytes.
    const int *disps = nullptr;
    const MPI_Aint *byte_disps = nullptr;
    int64_t stride = 0;
    bool in_extents = false;
    bool pad = false;     ///< MPI_Type_create_struct: round the extent up to the alignment (4.1.6)
    bool resize = false;  ///< MPI_Type_create_resized: then lb and extent are these (4.1.7)
    MPI_Aint lb = 0;
    MPI_Aint extent = 0;
    /// How the user made it, for MPI_Type_get_envelope and _get_contents
    /// (copied); nullptr only in unit tests of the layout.
    const Contents *how = nullptr;
};

/// Makes a new, uncommitted, derived type from `r` into *out. Returns
/// MPI_SUCCESS, or MPI_ERR_COUNT (negative count or block length),
/// MPI_ERR_TYPE (an invalid old type), MPI_ERR_ARG (bounds that overflow
/// MPI_Aint) or MPI_ERR_NO_MEM (table full, out of memory), with what is
/// wrong appended to `why`.
int datatype_create(const Recipe &r, MPI_Datatype *out, TextBuilder &why);

/// Marks a derived type usable in communication (section 4.1.9); a
/// predefined one is already. MPI_ERR_TYPE when `h` is not valid.
int datatype_commit(MPI_Datatype h);

/// Drops a user reference to a derived type (section 4.1.9): after the
/// last one its handle is no longer valid; types built from it are not
/// affected, nor holders (datatype_hold). MPI_ERR_TYPE for predefined or
/// invalid handles.
int datatype_free(MPI_Datatype h);

/// How derived type `h` was made, or nullptr when it is predefined
/// (MPI_COMBINER_NAMED) or not valid.
const Contents *datatype_contents(MPI_Datatype h);

/// A new user reference to type types[i] of a Contents (held, so still in
/// the table even if freed): the handle is valid again until as many
/// MPI_Type_free as references (MPI_Type_get_contents, 4.1.13). Nothing
/// for a predefined type.
void datatype_share(MPI_Datatype h);

/// The name of a valid type `h` (MPI_Type_get_name, section 6.8): the
/// standard name of a predefined one, "" for a derived one, unless set.
const char *datatype_name(MPI_Datatype h);
/// Sets it (at most MPI_MAX_OBJECT_NAME - 1 bytes kept). MPI_ERR_TYPE when
/// `h` is not valid, MPI_ERR_NO_MEM when a predefined type's name finds no
/// room.
int datatype_set_name(MPI_Datatype h, const char *name);

/// Frees every derived type of the rank and the table (MPI_Finalize).
void datatype_finalize();

/// datatype_get(h), and keeps the type alive until datatype_release(h)
/// even if it is freed meanwhile: a pending operation holds its type (and
/// a held type, freed or not, can be held again).
/// Predefined types need no holding (both calls do nothing for them).
const Datatype *datatype_hold(MPI_Datatype h);
void datatype_release(MPI_Datatype h);

/// Calls f(segment) for the segments of one element of `t`, in type-map
/// order; stops at the first non-zero f returns, and returns it.
template <class F>
int each_segment(const Datatype &t, F f) {
    for (int64_t b = 0; b < t.nblocks; ++b) {
        const Block &k = t.blocks[b];
        const Segment s = k.len >= 0 ? Segment{k.disp, k.len}
                                     : Segment{t.blocks[b + 1].disp, t.blocks[b + 1].len, -k.len, k.disp};
        b += k.len < 0;
        if (int e = f(s)) return e;
    }
    return 0;
}

/// Calls f(disp, len) for each contiguous piece of the data of `count`
/// elements of `t` (t.extent apart from displacement 0), in type-map
/// order; stops at the first non-zero f returns, and returns it.
template <class F>
int for_each_piece(const Datatype &t, int64_t count, F f) {
    for (int64_t i = 0; i < count; ++i)
        if (int e = each_segment(t, [&](const Segment &s) {
                for (int64_t j = 0; j < s.count; ++j)
                    if (int e2 = f(i * t.extent + s.disp + j * s.stride, s.len)) return e2;
                return 0;
            }))
            return e;
    return 0;
}

/// Copies `count` elements of `t` from the user buffer `buf` into `out`
/// (count * t.size bytes, in type-map order).
void pack(const void *buf, int count, const Datatype &t, void *out);

/// Copies `bytes` bytes of packed data (bytes <= count * t.size; a last
/// partial element is copied as far as it goes) from `in` into the user
/// buffer `buf` laid out as `count` elements of `t`.
void unpack(const void *in, uint64_t bytes, void *buf, int count, const Datatype &t);

/// Basic elements in the first `bytes` packed bytes of elements of `t`,
/// or -1 when `bytes` ends inside a basic element (MPI_Get_elements,
/// section 4.1.11: a pair type's value and index are two elements).
int64_t count_basic(const Datatype &t, uint64_t bytes);

/// Packed bytes of the first `n` basic elements of elements of `t`, the
/// inverse of count_basic (MPI_Status_set_elements, section 12.3); -1
/// when `t` has no basic elements and n > 0.
int64_t bytes_of_basic(const Datatype &t, int64_t n);

// ---- copies between buffers ----

/// Element `index` of a buffer of `t` (its extent apart).
inline char *at(void *buf, MPI_Aint index, const Datatype &t) {
    return static_cast<char *>(buf) + index * t.extent;
}
inline const char *at(const void *buf, MPI_Aint index, const Datatype &t) {
    return static_cast<const char *>(buf) + index * t.extent;
}

/// Copies `count` elements of `t` from `src` to `dst` (same layout;
/// nothing when src == dst). MPI_ERR_NO_MEM when the packed copy does not
/// fit.
int copy(const void *src, void *dst, int count, const Datatype &t);

/// Copies between two type signatures that match (a rank's own block in
/// Gather, Scatter, Alltoall): MPI_ERR_TRUNCATE when the source holds more
/// bytes than the destination.
int copy_as(const void *src, int scount, const Datatype &st, void *dst, int rcount, const Datatype &rt);

/// A valid, committed datatype, else MPI_ERR_TYPE (only committed types
/// may be used in communication, section 4.1.9).
int check_datatype(MPI_Datatype datatype);

}  // namespace lwmpi
