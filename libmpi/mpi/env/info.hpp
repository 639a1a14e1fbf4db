// Info objects (MPI 3.1 chapter 9): per-rank tables of (key, value)
// string pairs, and MPI_INFO_ENV (section 10.5.5).
#pragma once

#include <mpi.h>

namespace lwmpi {

/// True when `h` names a live info object (MPI_INFO_ENV included).
bool info_valid(MPI_Info h);

/// A new empty info object into *out; MPI_ERR_NO_MEM when the rank's
/// table is full or the heap is.
int info_new(MPI_Info *out);

/// The value of `key` in the live info object `h`, or nullptr when `h` is
/// MPI_INFO_NULL, not valid, or has no such key.
const char *info_lookup(MPI_Info h, const char *key);

/// Sets `key` (1..MPI_MAX_INFO_KEY-1 characters) to `value` in the live
/// info object `h`: MPI_SUCCESS, MPI_ERR_INFO when `h` is not valid,
/// MPI_ERR_NO_MEM when the heap is full.
int info_put(MPI_Info h, const char *key, const char *value);

/// Fills MPI_INFO_ENV for the calling rank (MPI_Init): "maxprocs" (the
/// size of MPI_COMM_WORLD) and, when argv is given, "command" (argv[0])
/// and "argv" (the other arguments, separated by spaces).
void info_init_env(int world_size, int argc, char **argv);

/// Frees every info object of the rank (MPI_Finalize).
void info_finalize();

}  // namespace lwmpi
