// The "external32" data representation (MPI 3.1 section 13.5.2) of
// MPI_Pack_external: every basic element big-endian, in the sizes of
// table 13.2, whatever the machine. Pure logic over a type's runs, so the
// host tests check it alone.
//
// Packing to external32 is native packing (pack(), in type-map order)
// then converting that stream element by element; unpacking converts
// back, then unpacks.
#pragma once

#include <stdint.h>

#include "datatype.hpp"

namespace lwmpi {

/// Bytes of one element of predefined basic type `basic` in external32
/// (table 13.2): MPI_LONG is 4, MPI_LONG_DOUBLE 16, a complex two parts.
int64_t external32_size(MPI_Datatype basic);

/// Bytes of `count` elements of `t` in external32; -1 when more than
/// int64_t holds.
int64_t external32_bytes(const Datatype &t, int64_t count);

/// Converts `count` elements of `t`, packed natively at `in` (count *
/// t.size bytes), to external32 at `out` (external32_bytes()).
void to_external32(const Datatype &t, int64_t count, const void *in, void *out);

/// The reverse: external32 at `in` to native packed elements at `out`.
/// An integer wider natively than in external32 (MPI_LONG) is sign- or
/// zero-extended.
void from_external32(const Datatype &t, int64_t count, const void *in, void *out);

}  // namespace lwmpi
