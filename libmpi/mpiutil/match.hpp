// Message matching (MPI 3.1 section 3.5): envelopes and receive patterns.
// Pure C++, no OS calls, so the host unit tests exercise exactly what runs
// on the target.
//
// Ranks here are MPI_COMM_WORLD ranks; communicators are told apart by
// their context id. A message matches a receive when the contexts are
// equal, the source is the receive's source or the receive accepts any
// source, and likewise for the tag. Messages from one sender are matched
// in the order they were sent (non-overtaking): the engine keeps posted
// receives and unexpected messages in arrival order and searches them
// oldest first.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <mpiutil/mpiutil.hpp>

namespace lwmpi::util {

/// The envelope of a message (MPI 3.1 section 3.2.3).
struct Envelope {
    int32_t source;    ///< world rank of the sender
    int32_t tag;       ///< >= 0
    uint32_t context;  ///< communicator context id
};

/// What a receive accepts.
struct Pattern {
    int32_t source;  ///< world rank or any_source
    int32_t tag;     ///< tag or any_tag
    uint32_t context;
};

/// True when a message with envelope `e` may satisfy a receive posted with `p`.
constexpr bool matches(const Pattern &p, const Envelope &e) {
    return p.context == e.context && (p.source == any_source || p.source == e.source) &&
           (p.tag == any_tag || p.tag == e.tag);
}

}  // namespace lwmpi::util
