// LibMPI object handles (see mpi.h): the kind in the top byte, a table
// index in the low 24 bits, 0 for the null handle of every kind.
#pragma once

#include <mpi.h>
#include <stdint.h>

namespace lwmpi {

enum class HandleKind : unsigned {
    comm = 0x43,        // 'C'
    datatype = 0x44,    // 'D'
    errhandler = 0x45,  // 'E'
};

constexpr int make_handle(HandleKind kind, int index) {
    return static_cast<int>(static_cast<unsigned>(kind) << 24 | static_cast<unsigned>(index));
}
constexpr bool handle_is(int handle, HandleKind kind) {
    return static_cast<unsigned>(handle) >> 24 == static_cast<unsigned>(kind);
}
constexpr int handle_index(int handle) { return handle & 0xffffff; }

/// A predefined datatype: its size in bytes (MPI 3.1 section 3.2.2).
struct DatatypeInfo {
    MPI_Datatype handle;
    int size;
};

/// The datatype named by `h`, or nullptr (MPI_DATATYPE_NULL, other kinds,
/// unknown indices).
const DatatypeInfo *datatype_info(MPI_Datatype h);

/// A communicator. Each has two context ids: `context` for point-to-point
/// messages and `context + 1` for collectives, so that user messages never
/// match collective traffic (MPI 3.1 section 6.1.2).
struct CommInfo {
    MPI_Comm handle;
    int slot;          ///< index in per-rank tables (error handlers)
    uint32_t context;  ///< point-to-point context id
    bool is_self;      ///< MPI_COMM_SELF: size 1, holds only the caller
};

inline constexpr int kCommSlots = 3;  ///< slot 0 unused, WORLD, SELF

/// The communicator named by `h`, or nullptr (MPI_COMM_NULL, invalid).
const CommInfo *comm_info(MPI_Comm h);

/// Size of `c` and the caller's rank in it, given MPI_COMM_WORLD's.
constexpr int comm_size(const CommInfo &c, int world_size) { return c.is_self ? 1 : world_size; }
constexpr int comm_rank(const CommInfo &c, int world_rank) { return c.is_self ? 0 : world_rank; }
/// World rank of rank `r` of `c` (r valid in c), and the reverse.
constexpr int to_world(const CommInfo &c, int r, int my_world_rank) { return c.is_self ? my_world_rank : r; }
constexpr int from_world(const CommInfo &c, int world) { return c.is_self ? 0 : world; }

/// True for MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN.
constexpr bool errhandler_valid(MPI_Errhandler h) {
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN;
}

}  // namespace lwmpi
