// external32 conversion: a table of what each basic type is, and the
// conversion of one value of each kind.
#include "external32.hpp"

#include <string.h>

namespace lwmpi {

namespace {

// How a basic type's value is converted.
enum class Kind : uint8_t {
    sint,         // two's complement, sign-extended when it widens
    uint,         // unsigned (and IEEE float and double: only the byte order changes)
    long_double,  // the native long double to IEEE quadruple
};

struct Form {
    Kind kind;
    int parts;      // 2 for a complex value, else 1
    int ext_bytes;  // of one part, in external32
};

Form form_of(MPI_Datatype basic) {
    switch (basic) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_CHARACTER:
    case MPI_INTEGER1:
    case MPI_INT8_T: return {Kind::sint, 1, 1};
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_PACKED:
    case MPI_C_BOOL:
    case MPI_CXX_BOOL:
    case MPI_UINT8_T: return {Kind::uint, 1, 1};
    case MPI_SHORT:
    case MPI_INTEGER2:
    case MPI_INT16_T: return {Kind::sint, 1, 2};
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T: return {Kind::uint, 1, 2};
    case MPI_INT:
    case MPI_LONG:  // 4 bytes in external32 (table 13.2)
    case MPI_INT32_T:
    case MPI_INTEGER:
    case MPI_INTEGER4:
    case MPI_LOGICAL:
    case MPI_WCHAR: return {Kind::sint, 1, 4};
    case MPI_UNSIGNED:
    case MPI_UNSIGNED_LONG:
    case MPI_UINT32_T:
    case MPI_FLOAT:
    case MPI_REAL:
    case MPI_REAL4: return {Kind::uint, 1, 4};
    case MPI_LONG_LONG_INT:
    case MPI_INTEGER8:
    case MPI_INT64_T:
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT: return {Kind::sint, 1, 8};
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
    case MPI_DOUBLE:
    case MPI_DOUBLE_PRECISION:
    case MPI_REAL8: return {Kind::uint, 1, 8};
    case MPI_INTEGER16: return {Kind::sint, 1, 16};
    case MPI_REAL16: return {Kind::uint, 1, 16};  // binary128 in both representations
    case MPI_LONG_DOUBLE: return {Kind::long_double, 1, 16};
    case MPI_C_FLOAT_COMPLEX:
    case MPI_COMPLEX:
    case MPI_COMPLEX8:
    case MPI_CXX_FLOAT_COMPLEX: return {Kind::uint, 2, 4};
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
    case MPI_CXX_DOUBLE_COMPLEX: return {Kind::uint, 2, 8};
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX: return {Kind::long_double, 2, 16};
    case MPI_COMPLEX32: return {Kind::uint, 2, 16};
    default: return {Kind::uint, 1, 0};  // not basic: a run never has it
    }
}

// Reverses n bytes from `from` into `to` (not overlapping).
void reverse(const unsigned char *from, unsigned char *to, int n) {
    for (int i = 0; i < n; ++i)
        to[i] = from[n - 1 - i];
}

// The n bytes of a native value at `from`, most significant first.
void native_to_big(const unsigned char *from, unsigned char *to, int n) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    reverse(from, to, n);
#else
    memcpy(to, from, n);
#endif
}

void big_to_native(const unsigned char *from, unsigned char *to, int n) { native_to_big(from, to, n); }

// IEEE quadruple precision, big-endian, from and to the native long
// double: the same format on riscv64; the x87 80-bit format elsewhere
// (its explicit integer bit dropped and its 63 fraction bits widened to
// 112; the other way the low 49 fraction bits are cut).
static_assert(__LDBL_MANT_DIG__ == 113 || __LDBL_MANT_DIG__ == 64, "long double format not supported");
static_assert(sizeof(long double) == 16);

void quad_from_native(const unsigned char *from, unsigned char *to) {
    if (__LDBL_MANT_DIG__ == 113) {
        native_to_big(from, to, 16);
        return;
    }
    uint64_t mantissa;
    uint16_t sign_exp;
    memcpy(&mantissa, from, 8);
    memcpy(&sign_exp, from + 8, 2);
    const uint64_t fraction = mantissa & 0x7fffffffffffffffull;
    const uint64_t hi = uint64_t{sign_exp} << 48 | fraction >> 15;
    const uint64_t lo = fraction << 49;
    for (int i = 0; i < 8; ++i) {
        to[i] = static_cast<unsigned char>(hi >> (56 - 8 * i));
        to[8 + i] = static_cast<unsigned char>(lo >> (56 - 8 * i));
    }
}

void quad_to_native(const unsigned char *from, unsigned char *to) {
    if (__LDBL_MANT_DIG__ == 113) {
        big_to_native(from, to, 16);
        return;
    }
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; ++i) {
        hi = hi << 8 | from[i];
        lo = lo << 8 | from[8 + i];
    }
    const uint16_t sign_exp = static_cast<uint16_t>(hi >> 48);
    // The integer bit is 1 but for zeros and subnormals (exponent 0).
    const uint64_t integer = (sign_exp & 0x7fff) ? 1ull << 63 : 0;
    const uint64_t mantissa = integer | (hi & 0xffffffffffffull) << 15 | lo >> 49;
    memset(to, 0, 16);
    memcpy(to, &mantissa, 8);
    memcpy(to + 8, &sign_exp, 2);
}

// Converts one part of `native` bytes natively / `f.ext_bytes` in
// external32, in the direction `out` says.
void convert_part(const Form &f, int native, const unsigned char *in, unsigned char *out, bool to_external) {
    if (f.kind == Kind::long_double) {
        if (to_external)
            quad_from_native(in, out);
        else
            quad_to_native(in, out);
        return;
    }
    unsigned char big[16];
    const int ext = f.ext_bytes;
    if (to_external) {
        // Its low ext bytes: the last ones big-endian (native >= ext).
        native_to_big(in, big, native);
        memcpy(out, big + (native - ext), ext);
        return;
    }
    const bool negative = f.kind == Kind::sint && (in[0] & 0x80);
    memset(big, negative ? 0xff : 0, native - ext);
    memcpy(big + (native - ext), in, ext);
    big_to_native(big, out, native);
}

// Converts `count` elements of `t` from `in` to `out`.
void convert(const Datatype &t, int64_t count, const void *in, void *out, bool to_external) {
    auto *from = static_cast<const unsigned char *>(in);
    auto *to = static_cast<unsigned char *>(out);
    for (int64_t k = 0; k < count; ++k)
        for (int64_t r = 0; r < t.nruns; ++r) {
            const Run &run = t.runs[r];
            const Form f = form_of(run.type);
            const int native = static_cast<int>(run.size) / f.parts;
            const int in_step = to_external ? native : f.ext_bytes;
            const int out_step = to_external ? f.ext_bytes : native;
            for (int64_t i = 0; i < run.count * f.parts; ++i, from += in_step, to += out_step)
                convert_part(f, native, from, to, to_external);
        }
}

}  // namespace

int64_t external32_size(MPI_Datatype basic) {
    const Form f = form_of(basic);
    return int64_t{f.parts} * f.ext_bytes;
}

int64_t external32_bytes(const Datatype &t, int64_t count) {
    int64_t per_element = 0;
    for (int64_t r = 0; r < t.nruns; ++r)
        per_element += t.runs[r].count * external32_size(t.runs[r].type);
    int64_t n;
    return __builtin_mul_overflow(per_element, count, &n) ? -1 : n;
}

void to_external32(const Datatype &t, int64_t count, const void *in, void *out) {
    convert(t, count, in, out, true);
}

void from_external32(const Datatype &t, int64_t count, const void *in, void *out) {
    convert(t, count, in, out, false);
}

}  // namespace lwmpi
