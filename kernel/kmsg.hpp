// Messages between kernels, on the kernel's logical port 0 of cluster 0:
// the spawn servers' exit and abort reports and the compute clusters'
// console output, all read by cluster 0's kernel. One sender's messages
// arrive in the order it sent them, so a cluster's output always comes
// before its exit report.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <tessera/syscall.h>

namespace kernel {

/// exit: the cluster's MPI program ended (by itself); killed: it ended
/// because a fault killed it; abort: a thread ended the whole job;
/// mpi_state: what a rank is blocked in (TS_SYS_MPI_STATE_SEND: tag is the
/// rank, value the state, text a struct ts_mpi_state).
enum class KmsgKind : int32_t { exit = 1, abort = 2, console = 3, killed = 4, mpi_state = 5 };

struct Kmsg {
    KmsgKind kind;
    int32_t cluster;  ///< the sender
    int32_t core;     ///< console: the writing thread; reports: the thread the status comes from (-1: none)
    int32_t tag;      ///< that thread's tag (TS_SYS_THREAD_TAG; -1: none)
    int32_t value;    ///< exit/killed/abort: the status; console: bytes of text
    char text[236];   ///< console: the bytes (as many as fit in one message)
};

/// Bytes of a Kmsg before its text.
constexpr unsigned kmsg_header = offsetof(Kmsg, text);
/// The smallest mailbox payload a profile allows (tools/tessera/profile.py:
/// 96-byte messages, 8 bytes of them IKC's header).
constexpr unsigned min_mailbox_payload = 96 - 8;
static_assert(kmsg_header + 64 <= min_mailbox_payload,
              "a console message must carry 64 bytes of text or more");
static_assert(kmsg_header + sizeof(ts_mpi_state) <= min_mailbox_payload,
              "a rank's MPI state must fit in one message");

/// Cluster 0: takes the bytes a compute cluster's thread wrote to the
/// console and writes out each line they complete, whole (console.cpp says
/// how). A message with a bad cluster, core or length is dropped.
void console_deliver(const Kmsg &m);
/// Cluster 0: writes out what is left of every thread's partial line,
/// ended with a newline.
void console_flush_all();

}  // namespace kernel
