// Message matching (MPI 3.1 section 3.5): envelopes, receive patterns and
// the queue of unexpected messages. Pure C++, no OS calls, so the host unit
// tests exercise exactly what runs on the target.
//
// Ranks here are MPI_COMM_WORLD ranks; communicators are told apart by
// their context id. A message matches a receive when the contexts are
// equal, the source is the receive's source or the receive accepts any
// source, and likewise for the tag. Messages from one sender are matched
// in the order they were sent (non-overtaking): the unexpected queue keeps
// arrival order and is always searched before newer messages are read.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mpiutil.hpp"

namespace lwmpi::util {

/// The envelope of a message (MPI 3.1 section 3.2.3).
struct Envelope {
    int32_t source;   ///< world rank of the sender
    int32_t tag;      ///< >= 0
    uint32_t context; ///< communicator context id
};

/// What a receive accepts.
struct Pattern {
    int32_t source;   ///< world rank or kAnySource
    int32_t tag;      ///< tag or kAnyTag
    uint32_t context;
};

/// True when a message with envelope `e` may satisfy a receive posted with `p`.
constexpr bool matches(const Pattern &p, const Envelope &e) {
    return p.context == e.context && (p.source == kAnySource || p.source == e.source) &&
           (p.tag == kAnyTag || p.tag == e.tag);
}

/// A request-to-send that arrived before a receive matched it: the envelope,
/// the bytes offered and the sender's reply address.
struct PendingSend {
    Envelope env;
    uint64_t bytes;   ///< bytes the sender offers
    uint32_t seq;     ///< the sender's sequence number for this send
    int16_t cluster;  ///< the sender's cluster id
    int16_t port;     ///< the sender's mailbox/portal port
};

/// Unexpected messages in arrival order, in a fixed table of N entries.
/// All-zero is the valid empty state (it lives in thread_local storage).
template <int N>
struct UnexpectedQueue {
    static_assert(N > 0);

    PendingSend items[N];
    int count;

    int size() const { return count; }
    bool full() const { return count == N; }

    /// Appends `m` as the newest message; false when the table is full.
    bool push(const PendingSend &m) {
        if (count == N)
            return false;
        items[count++] = m;
        return true;
    }

    /// Index of the oldest message matching `p`, or -1.
    int find(const Pattern &p) const {
        for (int i = 0; i < count; ++i)
            if (matches(p, items[i].env))
                return i;
        return -1;
    }

    /// True when a message from world rank `source` waits, in any context.
    bool has_source(int32_t source) const {
        for (int i = 0; i < count; ++i)
            if (items[i].env.source == source)
                return true;
        return false;
    }

    /// Removes the oldest message matching `p` into *out; false if none.
    bool take(const Pattern &p, PendingSend *out) {
        const int i = find(p);
        if (i < 0)
            return false;
        *out = items[i];
        for (int j = i + 1; j < count; ++j)
            items[j - 1] = items[j];
        --count;
        return true;
    }
};

}  // namespace lwmpi::util
