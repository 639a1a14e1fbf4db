// One ring of the job's trace (<tessera/trace.h>), apart from the kernel so
// that the host tests run it (kernel/core/tests/test_trace_ring.cpp).
//
// The ring is an array filled from its start by one writer (its core),
// which publishes the count (release) after the event: a reader on another
// core that loads the count (acquire) may copy every event below it, which
// never changes again, because the ring never wraps. An event that finds
// the ring full is only counted.
#pragma once

#include <stdint.h>

#include <tessera/trace.h>

namespace kernel {

struct TraceRing {
    ts_trace_event *events = nullptr;  ///< capacity of them (nullptr: 0)
    uint32_t capacity = 0;
    uint32_t count = 0;  ///< events recorded: written with release by the writer
    uint64_t lost = 0;   ///< events that found the ring full

    /// Records e, or counts it as lost. The ring's writer only.
    void put(const ts_trace_event &e) {
        const uint32_t i = count;
        if (i >= capacity) {
            __atomic_store_n(&lost, lost + 1, __ATOMIC_RELAXED);  // read by other cores
            return;
        }
        events[i] = e;
        __atomic_store_n(&count, i + 1, __ATOMIC_RELEASE);
    }
    /// Events recorded so far, at most `fit`: that many from `events` may
    /// be copied, from any core.
    uint32_t readable(uint64_t fit) const {
        const uint32_t n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
        return n < fit ? n : static_cast<uint32_t>(fit);
    }
    uint64_t lost_now() const { return __atomic_load_n(&lost, __ATOMIC_RELAXED); }
};

}  // namespace kernel
