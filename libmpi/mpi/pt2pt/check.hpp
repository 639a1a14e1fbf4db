// Argument checking for point-to-point calls (MPI 3.1 sections 3.2-3.4,
// 8.3). Pure functions: each returns MPI_SUCCESS or the error class. When
// several arguments are wrong, the first failing check in this order wins:
// count, datatype, buffer, rank, tag (the communicator is checked before).
#pragma once

#include <mpi.h>

#include "datatype/datatype.hpp"

namespace lwmpi {

class TextBuilder;

/// count >= 0, else MPI_ERR_COUNT.
int check_count(int count);
/// A non-null buffer unless count == 0 or `datatype` (valid) is derived,
/// else MPI_ERR_BUFFER: a derived type may hold absolute addresses, used
/// with MPI_BOTTOM (NULL; MPI 3.1 section 4.1.5).
int check_buffer(const void *buf, int count, MPI_Datatype datatype);
/// 0 <= dest < size or MPI_PROC_NULL, else MPI_ERR_RANK.
int check_dest(int dest, int size);
/// As check_dest, MPI_ANY_SOURCE also accepted.
int check_source(int source, int size);
/// 0 <= tag <= LWMPI_TAG_UB, else MPI_ERR_TAG.
int check_send_tag(int tag);
/// As check_send_tag, MPI_ANY_TAG also accepted.
int check_recv_tag(int tag);

/// The arguments of a point-to-point call, less the communicator.
struct P2PArgs {
    const void *buf;
    int count;
    MPI_Datatype datatype;
    int peer;  ///< dest or source, a rank of the communicator
    int tag;
};

/// All checks of MPI_Send (comm_size: size of the communicator).
int check_send(const P2PArgs &a, int comm_size);
/// All checks of MPI_Recv.
int check_recv(const P2PArgs &a, int comm_size);

/// Appends to t why check_send or check_recv of `a` gave `code`: the bad
/// value and what is allowed, e.g. "dest 7; the communicator has 2 ranks"
/// (`peer` names a.peer: "dest" or "source"). Nothing for MPI_ERR_TYPE.
void explain_p2p(TextBuilder &t, int code, const P2PArgs &a, int comm_size, const char *peer);

}  // namespace lwmpi
