// Messages between kernels, on the kernel's logical port 0 of cluster 0:
// the spawn servers' exit and abort reports and the compute clusters'
// console output, all read by cluster 0's kernel. One sender's messages
// arrive in the order it sent them, so a cluster's output always comes
// before its exit report.
#pragma once

#include <stdint.h>

namespace kernel {

enum class KmsgKind : int32_t { exit = 1, abort = 2, console = 3 };

struct Kmsg {
    KmsgKind kind;
    int32_t cluster;  ///< the sender
    int32_t value;    ///< exit/abort: the status; console: bytes of text
    char text[244];   ///< console: the bytes (as many as fit in one message)
};

/// Bytes of a Kmsg before its text.
constexpr unsigned kmsg_header = 12;
static_assert(sizeof(Kmsg) == kmsg_header + sizeof(Kmsg::text));

/// Cluster 0: writes a compute cluster's console bytes out, a whole line at
/// a time per sender, so lines of different clusters never mix.
void console_deliver(const Kmsg &m);
/// Cluster 0: writes out what is left of every sender's partial line.
void console_flush_all();

}  // namespace kernel
