// Holding a rank for a debugger (mpirun --gdb R).
//
// Every rank runs the same program at the same addresses, and the ranks
// of a cluster share its text, so a breakpoint on main would stop them
// all. Instead the manifest names one rank (TS_MANIFEST_HOLD_RANK,
// hold_rank), and the kernel of the cluster that hosts it parks the first
// thread that would enter user mode on that rank's core (local index + 1;
// in processes mode the rank's process, in threads mode the thread crt0
// starts for it, or the program's first thread for local index 0) before
// it does. The rank has not run a single instruction of its own yet; the
// other ranks go on (and wait for it in MPI).
//
// The debugger (tools/mpirun's gdb script) stops in tessera_debug_held,
// which the parked core calls every few milliseconds, so a breakpoint
// there takes whenever gdb arrives; it then sets tessera_debug_release
// and puts a breakpoint on main for that thread only.
#include <tessera/image.h>
#include <tessera/mapping.hpp>

#include "kernel/core.hpp"

extern "C" {
/// The debugger sets it (to anything but 0) to let the held rank go.
volatile int tessera_debug_release;
/// The rank held (for the debugger and the tests), -1 until one is.
volatile int tessera_debug_held_rank = -1;

/// Called over and over while a rank is held: a breakpoint here stops in
/// the held core, however late the debugger attaches.
[[gnu::noinline, gnu::used]] void tessera_debug_held() { asm volatile("" ::: "memory"); }
}

namespace kernel {
namespace {

/// Per core: its first thread has been looked at (each core touches only
/// its own entry).
bool looked[TS_MAX_CORES];

/// How often a held core calls tessera_debug_held, per second.
constexpr uint64_t polls_per_second = 100;

// True when the manifest asks to hold the rank whose core is `core` of
// this cluster.
bool holds(int core) {
    const ts_manifest &m = hal::manifest();
    if (!(m.flags & TS_MANIFEST_HOLD_RANK) || m.hold_rank >= m.np) return false;
    tessera::pm::JobShape shape{};
    if (!tessera::pm::make_shape(static_cast<int>(m.np), static_cast<int>(m.nclusters - m.nio_clusters),
                                 static_cast<int>(m.slots_per_cluster), static_cast<int>(m.map_policy),
                                 &shape) ||
        !shape.fits())
        return false;
    const tessera::pm::Placement at = shape.place(static_cast<int>(m.hold_rank));
    return at.cluster + static_cast<int>(m.nio_clusters) == hal::cluster_id() && at.local + 1 == core;
}

}  // namespace

void debug_hold(int core) {
    if (looked[core]) return;
    looked[core] = true;
    if (!holds(core)) return;
    const int rank = static_cast<int>(hal::manifest().hold_rank);
    kprintf("[kernel] cluster %d core %d: rank %d held before its main for the debugger\n", hal::cluster_id(),
            core, rank);
    tessera_debug_held_rank = rank;
    while (!tessera_debug_release) {
        tessera_debug_held();
        hal::clear_event();
        hal::set_timer(hal::time() + hal::timebase() / polls_per_second);
        hal::wait_event();
    }
    hal::set_timer(0);
}

}  // namespace kernel
