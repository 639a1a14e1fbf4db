// Reduction operations and the MPI_Op_* calls (MPI 3.1 section 5.9).
//
// Every (predefined operation, predefined type) kernel is a template
// instance, gathered at compile time into one table; an empty entry means
// section 5.9.2 does not define the operation on that type.
#include "env/call.hpp"
#include "op.hpp"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "datatype.hpp"
#include "env/errors.hpp"
#include "common/handles.hpp"
#include "env/state.hpp"
#include <lwmpi/rank_local.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// The type groups of section 5.9.2, as bits. The multi-language types
// (MPI_AINT, MPI_OFFSET, MPI_COUNT) are a group of their own. Beyond the
// standard, as MPICH does and programs written for it expect: MPI_CHAR
// counts as a C integer type, and the logical operations take the
// multi-language types too.
enum : unsigned {
    c_integer_types = 1u << 0,
    multi_language_types = 1u << 1,
    floating_types = 1u << 2,
    logical_types = 1u << 3,
    complex_types = 1u << 4,
    byte_types = 1u << 5,
    pair_types = 1u << 6,  // the {value; index;} types of section 5.9.4
};

/// How the elements lie in a buffer. Only the pair types care: in the user
/// layout a pair is its C struct (padding included); packed (pack(), or a
/// contiguous derived type), its index follows its value directly.
enum class Layout : bool { user, packed };

using Kernel = void (*)(const void *in, void *inout, size_t n, Layout layout);

// ---- The operations ------------------------------------------------------
// Each names its handle, the groups it is defined on and what it does to
// one element: apply(in, inout) for elementwise operations, better(u, v)
// (u wins over v) for MINLOC and MAXLOC.

// Integer arithmetic wraps around, as the hardware does, instead of being
// undefined on overflow: it is done on unsigned long long (unsigned
// __int128 for MPI_INTEGER16), wide enough for the type and immune to the
// promotion of short operands to int.
template <typename T, typename F>
constexpr T arith(T a, T b, F f) {
    using Wide = std::conditional_t<(sizeof(T) > sizeof(long long)), unsigned __int128, unsigned long long>;
    if constexpr (std::is_integral_v<T>)
        return static_cast<T>(f(static_cast<Wide>(a), static_cast<Wide>(b)));
    else
        return f(a, b);
}

struct Max {
    static constexpr MPI_Op handle = MPI_MAX;
    static constexpr unsigned groups = c_integer_types | multi_language_types | floating_types;
    template <typename T>
    static T apply(T a, T b) {
        return a > b ? a : b;
    }
};
struct Min {
    static constexpr MPI_Op handle = MPI_MIN;
    static constexpr unsigned groups = c_integer_types | multi_language_types | floating_types;
    template <typename T>
    static T apply(T a, T b) {
        return a < b ? a : b;
    }
};
struct Sum {
    static constexpr MPI_Op handle = MPI_SUM;
    static constexpr unsigned groups =
        c_integer_types | multi_language_types | floating_types | complex_types;
    template <typename T>
    static T apply(T a, T b) {
        return arith(a, b, [](auto x, auto y) { return x + y; });
    }
};
struct Prod {
    static constexpr MPI_Op handle = MPI_PROD;
    static constexpr unsigned groups =
        c_integer_types | multi_language_types | floating_types | complex_types;
    template <typename T>
    static T apply(T a, T b) {
        return arith(a, b, [](auto x, auto y) { return x * y; });
    }
};
struct Land {
    static constexpr MPI_Op handle = MPI_LAND;
    static constexpr unsigned groups = c_integer_types | multi_language_types | logical_types;
    template <typename T>
    static T apply(T a, T b) {
        return static_cast<T>(a && b);
    }
};
struct Lor {
    static constexpr MPI_Op handle = MPI_LOR;
    static constexpr unsigned groups = c_integer_types | multi_language_types | logical_types;
    template <typename T>
    static T apply(T a, T b) {
        return static_cast<T>(a || b);
    }
};
struct Lxor {
    static constexpr MPI_Op handle = MPI_LXOR;
    static constexpr unsigned groups = c_integer_types | multi_language_types | logical_types;
    template <typename T>
    static T apply(T a, T b) {
        return static_cast<T>(!a != !b);
    }
};
struct Band {
    static constexpr MPI_Op handle = MPI_BAND;
    static constexpr unsigned groups = c_integer_types | multi_language_types | byte_types;
    template <typename T>
    static T apply(T a, T b) {
        return static_cast<T>(a & b);
    }
};
struct Bor {
    static constexpr MPI_Op handle = MPI_BOR;
    static constexpr unsigned groups = c_integer_types | multi_language_types | byte_types;
    template <typename T>
    static T apply(T a, T b) {
        return static_cast<T>(a | b);
    }
};
struct Bxor {
    static constexpr MPI_Op handle = MPI_BXOR;
    static constexpr unsigned groups = c_integer_types | multi_language_types | byte_types;
    template <typename T>
    static T apply(T a, T b) {
        return static_cast<T>(a ^ b);
    }
};
struct MinLoc {
    static constexpr MPI_Op handle = MPI_MINLOC;
    static constexpr unsigned groups = pair_types;
    template <typename T>
    static bool better(T u, T v) {
        return u < v;
    }
};
struct MaxLoc {
    static constexpr MPI_Op handle = MPI_MAXLOC;
    static constexpr unsigned groups = pair_types;
    template <typename T>
    static bool better(T u, T v) {
        return u > v;
    }
};

// ---- The kernels ---------------------------------------------------------

// inout[i] = in[i] op inout[i]. Both layouts of a non-pair type are an
// array of T, aligned (a typed user buffer, or malloc'd packed data).
template <typename Op, typename T>
void elementwise(const void *in, void *inout, size_t n, Layout) {
    const T *a = static_cast<const T *>(in);
    T *b = static_cast<T *>(inout);
    for (size_t i = 0; i < n; ++i)
        b[i] = Op::apply(a[i], b[i]);
}

// MINLOC and MAXLOC (section 5.9.4): the better value wins with its index;
// equal values keep the smaller index. Packed pairs are not aligned, so the
// fields are copied in and out. I: the index's type (int, or the value's
// own in Fortran's 2-types).
template <typename Op, typename T, typename I>
void pairwise(const void *in, void *inout, size_t n, Layout layout) {
    struct Pair {
        T value;
        I index;
    };
    const bool packed = layout == Layout::packed;
    const size_t stride = packed ? sizeof(T) + sizeof(I) : sizeof(Pair);
    const size_t at = packed ? sizeof(T) : offsetof(Pair, index);
    const char *a = static_cast<const char *>(in);
    char *b = static_cast<char *>(inout);
    for (size_t k = 0; k < n; ++k, a += stride, b += stride) {
        T u, v;
        I i, j;
        memcpy(&u, a, sizeof u);
        memcpy(&i, a + at, sizeof i);
        memcpy(&v, b, sizeof v);
        memcpy(&j, b + at, sizeof j);
        if (Op::better(u, v)) {
            memcpy(b, &u, sizeof u);
            memcpy(b + at, &i, sizeof i);
        } else if (u == v && i < j) {
            memcpy(b + at, &i, sizeof i);
        }
    }
}

// ---- The table -----------------------------------------------------------

// A predefined datatype the operations know: its handle, C type and group
// (and a pair's index type).
template <MPI_Datatype H, typename T, unsigned G, typename I = int>
struct Type {
    static constexpr MPI_Datatype handle = H;
    using type = T;
    using index = I;
    static constexpr unsigned group = G;
};

template <typename... E>
struct TypeList {};
template <typename... Op>
struct OpList {};

using Types = TypeList<
    Type<MPI_CHAR, char, c_integer_types>, Type<MPI_INT, int, c_integer_types>,
    Type<MPI_LONG, long, c_integer_types>, Type<MPI_SHORT, short, c_integer_types>,
    Type<MPI_UNSIGNED_SHORT, unsigned short, c_integer_types>, Type<MPI_UNSIGNED, unsigned, c_integer_types>,
    Type<MPI_UNSIGNED_LONG, unsigned long, c_integer_types>,
    Type<MPI_LONG_LONG_INT, long long, c_integer_types>,
    Type<MPI_UNSIGNED_LONG_LONG, unsigned long long, c_integer_types>,
    Type<MPI_SIGNED_CHAR, signed char, c_integer_types>,
    Type<MPI_UNSIGNED_CHAR, unsigned char, c_integer_types>, Type<MPI_INT8_T, int8_t, c_integer_types>,
    Type<MPI_INT16_T, int16_t, c_integer_types>, Type<MPI_INT32_T, int32_t, c_integer_types>,
    Type<MPI_INT64_T, int64_t, c_integer_types>, Type<MPI_UINT8_T, uint8_t, c_integer_types>,
    Type<MPI_UINT16_T, uint16_t, c_integer_types>, Type<MPI_UINT32_T, uint32_t, c_integer_types>,
    Type<MPI_UINT64_T, uint64_t, c_integer_types>, Type<MPI_AINT, MPI_Aint, multi_language_types>,
    Type<MPI_OFFSET, MPI_Offset, multi_language_types>, Type<MPI_COUNT, MPI_Count, multi_language_types>,
    Type<MPI_FLOAT, float, floating_types>, Type<MPI_DOUBLE, double, floating_types>,
    Type<MPI_LONG_DOUBLE, long double, floating_types>, Type<MPI_C_BOOL, bool, logical_types>,
    Type<MPI_C_FLOAT_COMPLEX, __complex__ float, complex_types>,
    Type<MPI_C_DOUBLE_COMPLEX, __complex__ double, complex_types>,
    Type<MPI_C_LONG_DOUBLE_COMPLEX, __complex__ long double, complex_types>,
    Type<MPI_BYTE, unsigned char, byte_types>, Type<MPI_FLOAT_INT, float, pair_types>,
    Type<MPI_DOUBLE_INT, double, pair_types>, Type<MPI_LONG_INT, long, pair_types>,
    Type<MPI_2INT, int, pair_types>, Type<MPI_SHORT_INT, short, pair_types>,
    Type<MPI_LONG_DOUBLE_INT, long double, pair_types>,
    // Fortran's types by their groups: integer, floating point, logical,
    // complex; MPI_CHARACTER is in none.
    Type<MPI_INTEGER, int, c_integer_types>, Type<MPI_INTEGER1, int8_t, c_integer_types>,
    Type<MPI_INTEGER2, int16_t, c_integer_types>, Type<MPI_INTEGER4, int32_t, c_integer_types>,
    Type<MPI_INTEGER8, int64_t, c_integer_types>, Type<MPI_REAL, float, floating_types>,
    Type<MPI_DOUBLE_PRECISION, double, floating_types>, Type<MPI_REAL4, float, floating_types>,
    Type<MPI_REAL8, double, floating_types>, Type<MPI_LOGICAL, int, logical_types>,
    Type<MPI_COMPLEX, __complex__ float, complex_types>,
    Type<MPI_DOUBLE_COMPLEX, __complex__ double, complex_types>,
    Type<MPI_COMPLEX8, __complex__ float, complex_types>,
    Type<MPI_COMPLEX16, __complex__ double, complex_types>, Type<MPI_2REAL, float, pair_types, float>,
    Type<MPI_2DOUBLE_PRECISION, double, pair_types, double>, Type<MPI_2INTEGER, int, pair_types, int>,
    // C++'s (section 3.2.2).
    Type<MPI_CXX_BOOL, bool, logical_types>, Type<MPI_CXX_FLOAT_COMPLEX, __complex__ float, complex_types>,
    Type<MPI_CXX_DOUBLE_COMPLEX, __complex__ double, complex_types>,
    Type<MPI_CXX_LONG_DOUBLE_COMPLEX, __complex__ long double, complex_types>,
    // The sixteen-byte Fortran types.
    Type<MPI_INTEGER16, __int128, c_integer_types>, Type<MPI_REAL16, Quad, floating_types>,
    Type<MPI_COMPLEX32, QuadComplex, complex_types>>;

using Ops = OpList<Max, Min, Sum, Prod, Land, Band, Lor, Bor, Lxor, Bxor, MinLoc, MaxLoc>;

constexpr int op_slots = handle_index(MPI_MAXLOC) + 1;
constexpr int type_slots = handle_index(MPI_COMPLEX32) + 1;

struct KernelTable {
    Kernel at[op_slots][type_slots];  // [op index][datatype index]
};

// The kernel of Op on E, or nullptr where section 5.9.2 leaves it undefined
// (such pairs are never instantiated: Band on double would not compile).
template <typename Op, typename E>
constexpr Kernel kernel_for() {
    if constexpr ((Op::groups & E::group) == 0)
        return nullptr;
    else if constexpr (E::group == pair_types)
        return &pairwise<Op, typename E::type, typename E::index>;
    else
        return &elementwise<Op, typename E::type>;
}

template <typename Op, typename... E>
constexpr void fill_row(KernelTable &t, TypeList<E...>) {
    static_assert(((handle_index(E::handle) < type_slots) && ...));
    ((t.at[handle_index(Op::handle)][handle_index(E::handle)] = kernel_for<Op, E>()), ...);
}

template <typename... Op, typename... E>
constexpr KernelTable make_table(OpList<Op...>, TypeList<E...> types) {
    static_assert(((handle_index(Op::handle) < op_slots) && ...));
    KernelTable t{};
    (fill_row<Op>(t, types), ...);
    return t;
}

constexpr KernelTable kernels = make_table(Ops{}, Types{});

Kernel find_kernel(MPI_Op op, MPI_Datatype basic) {
    const int o = table_index(op, HandleKind::op, 1, op_slots);
    const int t = table_index(basic, HandleKind::datatype, 1, type_slots);
    return o < 0 || t < 0 ? nullptr : kernels.at[o][t];
}

// ---- User operations (section 5.9.5) ----------------------------------

constexpr int first_user = handle_index(MPI_NO_OP) + 1;
constexpr int max_user_ops = 16;
constexpr int op_table_size = first_user + max_user_ops;

struct UserOp {
    MPI_User_function *function;  // nullptr: free slot
    bool commute;
    bool freed;  // MPI_Op_free'd while pending operations hold it
    int holds;   // pending operations that use it (op_hold)
};
thread_local util::RankLocal<UserOp[op_table_size]> t_user;  // entries below first_user unused

// The user operation `op` names, freed or not, or nullptr.
UserOp *held_op(MPI_Op op) {
    const int i = table_index(op, HandleKind::op, first_user, op_table_size);
    UserOp *u = i >= 0 ? &t_user.get()[i] : nullptr;
    return u && u->function ? u : nullptr;
}

// The user operation `op` names while its handle is valid, or nullptr.
const UserOp *user_op(MPI_Op op) {
    const UserOp *u = held_op(op);
    return u && !u->freed ? u : nullptr;
}

bool is_predefined(MPI_Op op) { return table_index(op, HandleKind::op, 1, first_user) >= 0; }

bool op_valid(MPI_Op op) { return is_predefined(op) || user_op(op); }

// A malloc'd scratch buffer, freed on scope exit.
class Scratch {
public:
    explicit Scratch(size_t bytes) : p_(static_cast<char *>(malloc(bytes))) {}
    ~Scratch() { free(p_); }
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;
    char *get() const { return p_; }

private:
    char *p_;
};

}  // namespace

int check_op(MPI_Op op, MPI_Datatype datatype) {
    const Datatype *t = datatype_get(datatype);
    if (!t || !t->committed) return MPI_ERR_TYPE;
    if (user_op(op)) return MPI_SUCCESS;
    // MPI_REPLACE and MPI_NO_OP have no kernel: they are for
    // MPI_Accumulate alone (section 11.3.4), not for reductions.
    return find_kernel(op, t->basic) ? MPI_SUCCESS : MPI_ERR_OP;
}

int reduce_local(const void *in, void *inout, int count, MPI_Datatype datatype, MPI_Op op) {
    if (int e = check_op(op, datatype)) return e;
    return reduce_checked(in, inout, count, datatype, *datatype_get(datatype), op);
}

int reduce_checked(const void *in, void *inout, int count, MPI_Datatype datatype, const Datatype &t,
                   MPI_Op op) {
    if (count <= 0) return MPI_SUCCESS;
    if (const UserOp *u = held_op(op)) {  // checked when the operation started
        int len = count;
        MPI_Datatype type = datatype;
        u->function(const_cast<void *>(in), inout, &len, &type);
        return MPI_SUCCESS;
    }
    const Kernel kernel = find_kernel(op, t.basic);
    if (t.predefined) {
        kernel(in, inout, static_cast<size_t>(count), Layout::user);
        return MPI_SUCCESS;
    }
    const size_t elements = static_cast<size_t>(count) * static_cast<size_t>(t.basic_count);
    if (t.contiguous) {
        kernel(static_cast<const char *>(in) + t.true_lb, static_cast<char *>(inout) + t.true_lb, elements,
               Layout::packed);
        return MPI_SUCCESS;
    }
    // Anything else is reduced on packed copies of both operands.
    const size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(t.size);
    if (bytes == 0) return MPI_SUCCESS;
    Scratch scratch(2 * bytes);
    if (!scratch.get()) return MPI_ERR_NO_MEM;
    char *a = scratch.get();
    char *b = a + bytes;
    pack(in, count, t, a);
    pack(inout, count, t, b);
    kernel(a, b, elements, Layout::packed);
    unpack(b, bytes, inout, count, t);
    return MPI_SUCCESS;
}

const char *explain_op_error(MPI_Op op) {
    if (op == MPI_REPLACE || op == MPI_NO_OP)
        return "MPI_REPLACE and MPI_NO_OP are for one-sided communication only";
    return op_valid(op) ? "the operation is not defined for the datatype" : nullptr;
}

void op_hold(MPI_Op op) {
    if (UserOp *u = held_op(op)) ++u->holds;
}

void op_release(MPI_Op op) {
    UserOp *u = held_op(op);
    if (u && --u->holds == 0 && u->freed) *u = UserOp{};
}

bool op_commutative(MPI_Op op) {
    const UserOp *u = user_op(op);
    return u ? u->commute : is_predefined(op);
}

}  // namespace lwmpi

int MPI_Op_create(MPI_User_function *function, int commute, MPI_Op *op) {
    Call call("MPI_Op_create");
    if (int e = call.active()) return e;
    if (!function || !op) return call.fail(MPI_ERR_ARG);
    UserOp *user = t_user.get();
    for (int i = first_user; i < op_table_size; ++i)
        if (!user[i].function) {
            user[i] = UserOp{function, commute != 0, false, 0};
            *op = make_handle(HandleKind::op, i);
            return MPI_SUCCESS;
        }
    return call.fail(MPI_ERR_NO_MEM, "too many user operations");
}

int MPI_Op_free(MPI_Op *op) {
    Call call("MPI_Op_free");
    if (int e = call.active()) return e;
    if (!op) return call.fail(MPI_ERR_ARG);
    if (!user_op(*op))
        return call.fail(MPI_ERR_OP, is_predefined(*op) ? "a predefined operation cannot be freed" : nullptr);
    // Operations still pending keep it until they end (section 5.9.5).
    UserOp &u = t_user.get()[handle_index(*op)];
    if (u.holds > 0)
        u.freed = true;
    else
        u = UserOp{};
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute) {
    Call call("MPI_Op_commutative");
    if (int e = call.active()) return e;
    if (!op_valid(op)) return call.fail(MPI_ERR_OP);
    if (!commute) return call.fail(MPI_ERR_ARG);
    *commute = op_commutative(op);
    return MPI_SUCCESS;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
    Call call("MPI_Reduce_local");
    if (int e = call.active()) return e;
    if (count < 0) return call.fail(MPI_ERR_COUNT);
    if (int e = check_op(op, datatype)) return call.fail(e, e == MPI_ERR_OP ? explain_op_error(op) : nullptr);
    if (count > 0 && (!inbuf || !inoutbuf || inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        return call.fail(MPI_ERR_BUFFER);
    if (int e = reduce_local(inbuf, inoutbuf, count, datatype, op)) return call.fail(e);
    return MPI_SUCCESS;
}
