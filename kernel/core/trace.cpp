// The job's trace (mpirun --trace; <tessera/trace.h>): per core, a ring of
// MPI events and a ring of kernel events (kernel/trace_ring.hpp), each
// written by its core only. Kernel code is never interrupted (traps come
// from user mode only), so a core never records two events at once.
#include <string.h>

#include "kernel/kcall_args.hpp"
#include "kernel/trace_ring.hpp"

namespace kernel {
namespace {

/// The most events of one ring: at 48 bytes, 192 KiB.
constexpr uint32_t max_events = 4096;
/// The rings take at most this fraction of the frames free at boot.
constexpr size_t share_of_free = 4;

TraceRing rings[TS_MAX_CORES][TS_TRACE_RINGS];

// Records e in ring `ring` of the calling core.
void trace_put(int ring, const ts_trace_event &e) { rings[hal::core_id()][ring].put(e); }

}  // namespace

bool tracing;

void trace_init() {
    if (!(hal::manifest().flags & TS_MANIFEST_TRACE)) return;
    const int rings_n = hal::ncores() * TS_TRACE_RINGS;
    const size_t room = frames_free_count() * hal::page_size / share_of_free;
    size_t per_ring = room / rings_n / sizeof(ts_trace_event);
    if (per_ring > max_events) per_ring = max_events;
    auto *events =
        per_ring ? static_cast<ts_trace_event *>(boot_alloc(per_ring * rings_n * sizeof(ts_trace_event)))
                 : nullptr;
    if (!events) per_ring = 0;  // every event is counted as lost
    for (int core = 0; core < hal::ncores(); ++core)
        for (int r = 0; r < TS_TRACE_RINGS; ++r) {
            TraceRing &ring = rings[core][r];
            ring.capacity = static_cast<uint32_t>(per_ring);
            ring.events = events ? events + (core * TS_TRACE_RINGS + r) * per_ring : nullptr;
        }
    tracing = true;
}

void trace_kernel(uint16_t kind, int32_t a, int64_t b, uint64_t c, uint64_t d) {
    const uint64_t now = hal::time();
    trace_put(TS_TRACE_RING_KERNEL, ts_trace_event{now, now, kind, -1, a, b, c, d});
}

void trace_kcall(uint64_t start, uint64_t number, long result) {
    trace_put(TS_TRACE_RING_KERNEL, ts_trace_event{start, hal::time(), TS_TRACE_KCALL, -1,
                                                   static_cast<int32_t>(number), result, 0, 0});
}

long sys_trace_record(const trace_record_args &a, Call &) {
    if (!tracing) return -TS_EPERM;
    const uint64_t word = a.word;
    const uint16_t kind = static_cast<uint16_t>(word);
    if (kind < 1 || kind > TS_TRACE_MPI_LAST) return -TS_EINVAL;
    const uint64_t now = hal::time();
    trace_put(TS_TRACE_RING_MPI,
              ts_trace_event{now, now, kind, static_cast<int16_t>(word >> 16),
                             static_cast<int32_t>(word >> 32), static_cast<int64_t>(a.b), a.c, a.d});
    return 0;
}

// The header first, then the events that fit; events are copied from the
// ring as they are (another core's ring may grow meanwhile: the count read
// first bounds what is copied).
// The whole buffer was checked writable by this attempt's decoding.
long sys_trace_read(const trace_read_args &a, Call &) {
    if (!tracing) return -TS_EPERM;
    if (a.core >= hal::ncores()) return -TS_EINVAL;
    const size_t size = a.size;
    const TraceRing &r = rings[a.core][a.ring];
    const uint32_t count = r.readable((size - sizeof(ts_trace_header)) / sizeof(ts_trace_event));
    ts_trace_header h{};
    h.magic = TS_TRACE_MAGIC;
    h.version = TS_TRACE_VERSION;
    h.event_size = sizeof(ts_trace_event);
    h.cluster = static_cast<uint16_t>(hal::cluster_id());
    h.core = static_cast<uint16_t>(a.core);
    h.ring = static_cast<uint16_t>(a.ring);
    h.count = count;
    h.capacity = r.capacity;
    h.lost = r.lost_now();
    h.timebase_hz = hal::timebase();
    h.read_at = hal::time();
    const size_t events = count * sizeof(ts_trace_event);
    memcpy(a.buf.data, &h, sizeof h);
    memcpy(static_cast<char *>(a.buf.data) + sizeof h, r.events, events);
    return static_cast<long>(sizeof h + events);
}

}  // namespace kernel
