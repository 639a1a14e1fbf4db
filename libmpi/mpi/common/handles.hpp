// LibMPI object handles (see mpi.h): the kind in the top byte, a table
// index in the low 24 bits, 0 for the null handle of every kind but the
// file's (MPI_FILE_NULL carries an error handler: it is index 0 of 'F').
#pragma once

#include <mpi.h>
#include <stdint.h>

namespace lwmpi {

enum class HandleKind : unsigned {
    comm = 0x43,        // 'C'
    datatype = 0x44,    // 'D'
    errhandler = 0x45,  // 'E'
    file = 0x46,        // 'F' (MPI-IO, MPI 3.1 chapter 13; index 0 is MPI_FILE_NULL)
    group = 0x47,       // 'G'
    info = 0x49,        // 'I'
    keyval = 0x4b,      // 'K' (attribute keys, MPI 3.1 section 6.7)
    message = 0x4d,     // 'M' (matched probe, MPI 3.1 section 3.8.2: a request not started)
    op = 0x4f,          // 'O'
    request = 0x52,     // 'R'
    win = 0x57,         // 'W' (one-sided communication, MPI 3.1 chapter 11)
};

constexpr int make_handle(HandleKind kind, int index) {
    return static_cast<int>(static_cast<unsigned>(kind) << 24 | static_cast<unsigned>(index));
}
constexpr bool handle_is(int handle, HandleKind kind) {
    return static_cast<unsigned>(handle) >> 24 == static_cast<unsigned>(kind);
}
constexpr int handle_index(int handle) { return handle & 0xffffff; }

/// Index of `h` in a table of `n` entries of kind `kind` whose first
/// `first` entries are not handles (0: the null handle), or -1.
constexpr int table_index(int h, HandleKind kind, int first, int n) {
    if (!handle_is(h, kind)) return -1;
    const int i = handle_index(h);
    return i >= first && i < n ? i : -1;
}

}  // namespace lwmpi
