// Kernel-call arguments, decoded and checked in one place.
//
// <tessera/kcalls.def> gives every argument of every call a shape
// (ARG_INT, ARG_ID, ARG_IN, ...). From it each layer makes, for the calls
// it serves, a struct of decoded arguments, `name_args`, with one field per
// argument named as in kcalls.def, and declares the handlers:
//
//   long sys_name(const name_args &a, Call &c);         // every call
//   long sys_name_fast(const name_args &a, Call &c);    // fast: yes
//   long sys_name_cancel(const name_args &a, Call &c);  // cancel: yes
//
// The call table (kernel/syscall.cpp) runs the struct's decode() before
// the handler, which never sees the registers: ids arrive as the object
// they name, user buffers as checked spans, integers within their range.
//
// "Checked once" means once per attempt. A call may be tried several
// times: a fast try without the lock, a locked one, then the master's
// tries of a posted call that waits, or of an asynchronous operation that
// keeps its Call. Every try decodes afresh (decoded<> below is the only
// way to run a handler), so a retry never acts on an object closed or a
// buffer unmapped since the try before; what lasts across tries is the
// call's Progress, never a decoded pointer.
#pragma once

#include "kernel/core.hpp"

namespace kernel::kcall {

/// The order of decoding: every id first, then every integer, then every
/// user buffer (whose length is an integer argument, checked by then).
enum class Pass { id, value, memory };

/// A if !B, else B's type (for the shapes' decoded types).
template <bool B, class IfFalse, class IfTrue>
struct Pick {
    using type = IfFalse;
};
template <class IfFalse, class IfTrue>
struct Pick<true, IfFalse, IfTrue> {
    using type = IfTrue;
};

/// The raw 64-bit argument register i of c: for decoders only.
inline uint64_t reg(const Call &c, int i) { return c.regs[i]; }

// ---- integers --------------------------------------------------------------------

/// An integer of C type T in [Lo, Hi]; -TS_EINVAL otherwise. A register
/// holds a T as the runtime passes it (converted to long: a signed T
/// sign-extended, an unsigned one zero-extended), so anything else, e.g. an
/// int argument with garbage in its upper half, is out of range too.
template <class T, auto Lo, auto Hi>
struct Int {
    using type = T;
    static constexpr Pass pass = Pass::value;
    static long decode(const Call &c, int i, T &out) {
        if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {
            const int64_t v = static_cast<int64_t>(reg(c, i));
            if (v < static_cast<int64_t>(Lo) || v > static_cast<int64_t>(Hi)) return -TS_EINVAL;
            out = static_cast<T>(v);
        } else {
            const uint64_t v = reg(c, i);
            if (v < static_cast<uint64_t>(Lo) || v > static_cast<uint64_t>(Hi)) return -TS_EINVAL;
            out = static_cast<T>(v);
        }
        return 0;
    }
};

/// A logical port a program may bind or send to (port 0 is the kernels').
using Port = Int<int, 1, TS_PORTS - 1>;

/// A cluster of the job: 0 .. nclusters - 1.
struct Cluster {
    using type = int;
    static constexpr Pass pass = Pass::value;
    static long decode(const Call &c, int i, int &out) {
        const int64_t v = static_cast<int64_t>(reg(c, i));
        if (v < 0 || v >= static_cast<int64_t>(hal::manifest().nclusters)) return -TS_EINVAL;
        out = static_cast<int>(v);
        return 0;
    }
};

/// A value passed on as it is (a thread's argument, a trace event's words).
struct Word {
    using type = uint64_t;
    static constexpr Pass pass = Pass::value;
    static long decode(const Call &c, int i, uint64_t &out) {
        out = reg(c, i);
        return 0;
    }
};

/// A user address the call does not access (a key, the break, a ring the
/// kernel checks each time it uses it).
struct Addr {
    using type = uintptr_t;
    static constexpr Pass pass = Pass::value;
    static long decode(const Call &c, int i, uintptr_t &out) {
        out = static_cast<uintptr_t>(reg(c, i));
        return 0;
    }
};

// ---- ids -------------------------------------------------------------------------

/// The tables whose ids kernel calls take (ARG_ID's first parameter).
enum class Object { mailbox, portal, sync, window, file };
/// Which of the caller's objects an id may name (ARG_ID's second).
enum class Dir { input, output, any };

/// An id of table O and direction D, decoded into the caller's object:
/// specialized by the layer that owns the table (ikc: mailbox, portal,
/// sync, window; kernel: file).
template <Object O, Dir D>
struct Id;

/// An id register as an int (a C int, sign-extended), or -1 when it holds
/// none: no table has such an entry.
inline int id_of(const Call &c, int i) {
    const int64_t v = static_cast<int64_t>(reg(c, i));
    return v >= 0 && v <= INT_MAX ? static_cast<int>(v) : -1;
}

// ---- user memory -------------------------------------------------------------------

/// A user buffer checked readable in this attempt.
struct UserIn {
    const void *data = nullptr;
    size_t size = 0;
};

/// A user buffer checked writable in this attempt.
struct UserOut {
    void *data = nullptr;
    size_t size = 0;
};

/// A user buffer that a transfer moves through piece by piece, over many
/// attempts: checking all of it at each would grow with the square of its
/// size, so decoding takes it as it is, and the transfer checks each
/// piece's pages as it moves (ikc/portal.cpp), after its other checks.
template <bool Write>
struct UserStream {
    uintptr_t base = 0;
    size_t size = 0;
    void *data() const { return reinterpret_cast<void *>(kernel_view(base)); }
};

/// ARG_IN(N) and ARG_OUT(N): argument N's bytes at the register's address.
template <int N, bool Write>
struct Buffer {
    using type = typename Pick<Write, UserIn, UserOut>::type;
    static constexpr Pass pass = Pass::memory;
    static long decode(const Call &c, int i, type &out) {
        const uint64_t va = reg(c, i), len = reg(c, N);
        if (long err = check_user(va, len, Write)) return err;
        out = type{reinterpret_cast<decltype(out.data)>(va), static_cast<size_t>(len)};
        return 0;
    }
};

/// ARG_STREAM_IN(N) and ARG_STREAM_OUT(N).
template <int N, bool Write>
struct Stream {
    using type = UserStream<Write>;
    static constexpr Pass pass = Pass::memory;
    static long decode(const Call &c, int i, type &out) {
        out = type{static_cast<uintptr_t>(reg(c, i)), static_cast<size_t>(reg(c, N))};
        return 0;
    }
};

/// ARG_ARRAY_IN(T, N): argument N T's, readable.
template <class T, int N>
struct Array {
    using type = const T *;
    static constexpr Pass pass = Pass::memory;
    static long decode(const Call &c, int i, type &out) {
        const uint64_t va = reg(c, i), n = reg(c, N);
        if (n > UINT32_MAX) return -TS_EFAULT;  // its own range was checked: this is only for the product
        if (long err = check_user(va, n * sizeof(T), false)) return err;
        out = reinterpret_cast<const T *>(va);
        return 0;
    }
};

/// A T in user memory that a call reads at its start and writes at its
/// end, attempts apart (ARG_OBJ_INOUT): decoding checks only that it lies
/// in user space; load() and store() check its pages when they copy, so a
/// call whose buffer goes away midway still ends as it must.
template <class T>
struct UserRef {
    uintptr_t va = 0;
    /// Copies the T in: 0 or -TS_EFAULT.
    long load(T &out) const { return copy_from_user(&out, va, sizeof(T)); }
    /// Copies len bytes of src to offset `offset` of the T: 0 or -TS_EFAULT.
    long store(size_t offset, const void *src, size_t len) const {
        return copy_to_user(va + offset, src, len);
    }
};

/// ARG_OBJ_INOUT(T).
template <class T>
struct Ref {
    using type = UserRef<T>;
    static constexpr Pass pass = Pass::memory;
    static long decode(const Call &c, int i, type &out) {
        if (!in_user_space(reg(c, i), sizeof(T))) return -TS_EFAULT;
        out = type{static_cast<uintptr_t>(reg(c, i))};
        return 0;
    }
};

/// How a user object is reached (ARG_OBJ_IN, _OUT, ARG_OPT_OBJ_OUT,
/// ARG_ATOMIC_IN).
enum class Use { in, out, optional_out, atomic_in };

/// One T in user memory, checked in this attempt: a pointer the handler
/// reads (in, atomic_in) or writes (out, optional_out: nullptr when the
/// caller passed NULL).
template <class T, Use U>
struct UserObject {
    static constexpr bool write = U != Use::in && U != Use::atomic_in;
    using type = typename Pick<write, const T *, T *>::type;
    static constexpr Pass pass = Pass::memory;
    static long decode(const Call &c, int i, type &out) {
        const uint64_t va = reg(c, i);
        if (U == Use::optional_out && va == 0) {
            out = nullptr;
            return 0;
        }
        if (U == Use::atomic_in && va % alignof(T)) return -TS_EINVAL;
        if (long err = check_user(va, sizeof(T), write)) return err;
        out = reinterpret_cast<type>(va);
        return 0;
    }
};

/// ARG_CODE: an address of user code (4 readable bytes: one instruction).
struct Code {
    using type = uintptr_t;
    static constexpr Pass pass = Pass::memory;
    static long decode(const Call &c, int i, uintptr_t &out) {
        if (check_user(reg(c, i), 4, false)) return -TS_EFAULT;
        out = static_cast<uintptr_t>(reg(c, i));
        return 0;
    }
};

/// Decodes argument i of shape S in pass P (nothing in the other passes).
template <class S, Pass P>
long field(const Call &c, int i, typename S::type &out) {
    if constexpr (S::pass == P)
        return S::decode(c, i, out);
    else
        return 0;
}

/// The handler of a call of arguments Args, run on each attempt: decodes
/// c's registers, then runs F on them; a bad argument is the result.
template <class Args, long (*F)(const Args &, Call &)>
long decoded(Call &c) {
    Args a{};
    if (long err = a.decode(c)) return err;
    return F(a, c);
}

}  // namespace kernel::kcall

// ---- the shapes of <tessera/kcalls.def>, as types ------------------------------------
// Each is one macro argument (parentheses hide its commas), a type with a
// `type` (the decoded value), a `pass` and a decode().
#define ARG_INT(T, lo, hi) decltype(::kernel::kcall::Int<T, lo, hi>{})
#define ARG_PORT           ::kernel::kcall::Port
#define ARG_CLUSTER        ::kernel::kcall::Cluster
#define ARG_WORD           ::kernel::kcall::Word
#define ARG_ADDR           ::kernel::kcall::Addr
#define ARG_CODE           ::kernel::kcall::Code
#define ARG_ID(table, dir) \
    decltype(::kernel::kcall::Id<::kernel::kcall::Object::table, ::kernel::kcall::Dir::dir>{})
#define ARG_IN(n)          decltype(::kernel::kcall::Buffer<n, false>{})
#define ARG_OUT(n)         decltype(::kernel::kcall::Buffer<n, true>{})
#define ARG_STREAM_IN(n)   decltype(::kernel::kcall::Stream<n, false>{})
#define ARG_STREAM_OUT(n)  decltype(::kernel::kcall::Stream<n, true>{})
#define ARG_ARRAY_IN(T, n) decltype(::kernel::kcall::Array<T, n>{})
#define ARG_OBJ_IN(T)      decltype(::kernel::kcall::UserObject<T, ::kernel::kcall::Use::in>{})
#define ARG_OBJ_OUT(T)     decltype(::kernel::kcall::UserObject<T, ::kernel::kcall::Use::out>{})
#define ARG_OBJ_INOUT(T)   decltype(::kernel::kcall::Ref<T>{})
#define ARG_OPT_OBJ_OUT(T) decltype(::kernel::kcall::UserObject<T, ::kernel::kcall::Use::optional_out>{})
#define ARG_ATOMIC_IN(T)   decltype(::kernel::kcall::UserObject<T, ::kernel::kcall::Use::atomic_in>{})

// ---- per call: the struct of decoded arguments and the handlers' declarations --------

#define KC_EXPAND(...)                   __VA_ARGS__
#define KC_CAT(a, b)                     KC_CAT_(a, b)
#define KC_CAT_(a, b)                    a##b
#define KC_NARGS(...)                    KC_NARGS_(_ __VA_OPT__(, ) __VA_ARGS__, 4, 3, 2, 1, 0)
#define KC_NARGS_(_, a, b, c, d, n, ...) n
/// M(index, shape, name) for each argument of a call.
#define KC_ZIP(M, shapes, ...) \
    KC_APPLY(KC_CAT(KC_ZIP_, KC_NARGS(__VA_ARGS__)), M, KC_EXPAND shapes __VA_OPT__(, ) __VA_ARGS__)
#define KC_APPLY(macro, ...) macro(__VA_ARGS__)
#define KC_ZIP_0(M, ...)
#define KC_ZIP_1(M, s0, n0)                         M(0, s0, n0)
#define KC_ZIP_2(M, s0, s1, n0, n1)                 M(0, s0, n0) M(1, s1, n1)
#define KC_ZIP_3(M, s0, s1, s2, n0, n1, n2)         M(0, s0, n0) M(1, s1, n1) M(2, s2, n2)
#define KC_ZIP_4(M, s0, s1, s2, s3, n0, n1, n2, n3) M(0, s0, n0) M(1, s1, n1) M(2, s2, n2) M(3, s3, n3)

#define KC_FIELD(i, shape, name) shape::type name;
#define KC_DECODE(i, shape, name) \
    if (long err = ::kernel::kcall::field<shape, P>(kc_call, i, name)) return err;
#define KC_yes(...) __VA_ARGS__
#define KC_no(...)

/// The arguments of call `name`, and its handlers' declarations.
#define KC_CALL_DECLS(name, fast, cancel, shapes, ...)                          \
    struct name##_args {                                                        \
        KC_ZIP(KC_FIELD, shapes, __VA_ARGS__)                                   \
        template <::kernel::kcall::Pass P>                                      \
        long decode_pass([[maybe_unused]] const ::kernel::Call &kc_call) {      \
            KC_ZIP(KC_DECODE, shapes, __VA_ARGS__)                              \
            return 0;                                                           \
        }                                                                       \
        /** The arguments of c, checked: 0, or the first bad one's -TS_E*. */   \
        long decode(const ::kernel::Call &kc_call) {                            \
            using ::kernel::kcall::Pass;                                        \
            if (long err = decode_pass<Pass::id>(kc_call)) return err;          \
            if (long err = decode_pass<Pass::value>(kc_call)) return err;       \
            return decode_pass<Pass::memory>(kc_call);                          \
        }                                                                       \
    };                                                                          \
    long sys_##name(const name##_args &a, ::kernel::Call &c);                   \
    KC_##fast(long sys_##name##_fast(const name##_args &a, ::kernel::Call &c);) \
        KC_##cancel(long sys_##name##_cancel(const name##_args &a, ::kernel::Call &c);)

#define KC_SAME_core_core(...) __VA_ARGS__
#define KC_SAME_core_ikc(...)
#define KC_SAME_core_kernel(...)
#define KC_SAME_ikc_core(...)
#define KC_SAME_ikc_ikc(...) __VA_ARGS__
#define KC_SAME_ikc_kernel(...)
#define KC_SAME_kernel_core(...)
#define KC_SAME_kernel_ikc(...)
#define KC_SAME_kernel_kernel(...) __VA_ARGS__

/// For TS_KCALL: the declarations of the calls of layer `want` only.
/// Each layer includes kcalls.def with
///   #define TS_KCALL(...) KC_LAYER_CALLS(its layer, __VA_ARGS__)
#define KC_LAYER_CALLS(want, NAME, name, number, layer, where, fast, cancel, wrapper, ret, params, shapes, \
                       ...)                                                                                \
    KC_CAT(KC_SAME_##layer##_, want)(KC_CALL_DECLS(name, fast, cancel, shapes, __VA_ARGS__))

namespace kernel {
#define TS_KCALL(...) KC_LAYER_CALLS(core, __VA_ARGS__)
#include <tessera/kcalls.def>
#undef TS_KCALL
}  // namespace kernel
