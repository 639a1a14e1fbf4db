// MPIUtil internals shared by process.cpp and rendezvous.cpp: where a rank
// can be reached.
#pragma once

namespace lwmpi::util {

/// Room for "mpi:<rank>" and its NUL.
inline constexpr int kNameMax = 16;

/// The IKC address of a rank: its cluster id and its mailbox/portal port.
struct Address {
    int cluster;
    int port;
};

/// Address of world rank `rank`: the cluster from the name server (looked
/// up once, then cached), the port from the job's mapping. While the rank
/// has not linked its name yet, waits without a time limit, as a send to a
/// rank that has not called MPI_Init must (mpirun's --timeout ends a job
/// that really hangs). MPI_ERR_RANK for a bad rank, MPI_ERR_OTHER when the
/// name server fails.
int resolve(int rank, Address *out);

}  // namespace lwmpi::util
