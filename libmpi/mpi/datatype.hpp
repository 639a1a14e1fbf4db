// Datatypes (MPI 3.1 chapter 4): the predefined ones and those built by
// MPI_Type_*, and packing any of them to and from contiguous bytes.
//
// LibMPI hands MPIUtil contiguous bytes only: a message of `count`
// elements of type t is count * t.size bytes on the wire, in the order of
// t's type map. A contiguous type is sent from the user buffer directly;
// any other is packed into a temporary buffer first (and unpacked after a
// receive).
#pragma once

#include <mpi.h>
#include <stdint.h>

namespace lwmpi {

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
    /// The predefined type of every basic element (for reductions and
    /// MPI_Get_elements), or MPI_DATATYPE_NULL when the elements mix types.
    MPI_Datatype basic;
    int64_t basic_count;   ///< basic elements in one element
};

/// The datatype named by `h` (predefined, or derived and not freed), or
/// nullptr.
const Datatype *datatype_get(MPI_Datatype h);

/// Copies `count` elements of `t` from the user buffer `buf` into `out`
/// (count * t.size bytes, in type-map order).
void pack(const void *buf, int count, const Datatype &t, void *out);

/// Copies `bytes` bytes of packed data (bytes <= count * t.size; a last
/// partial element is copied as far as it goes) from `in` into the user
/// buffer `buf` laid out as `count` elements of `t`.
void unpack(const void *in, uint64_t bytes, void *buf, int count, const Datatype &t);

/// Basic elements in the first `bytes` packed bytes of elements of `t`,
/// or -1 when `bytes` ends inside a basic element (MPI_Get_elements).
int64_t count_basic(const Datatype &t, uint64_t bytes);

}  // namespace lwmpi
