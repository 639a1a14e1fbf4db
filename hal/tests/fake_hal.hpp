// A host stand-in for the few per-target HAL functions that
// hal/common/noc.cpp calls (manifest, cluster_id, notify_core), so that its
// real code runs in a test process that plays several clusters: the test
// picks the calling cluster, owns the fabric memory and reads back which
// cores were notified.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include <tessera/image.h>

namespace fake_hal {

// The topology every test shares. noc.cpp computes its block layout from
// it once per process, so tests may change fabric_base/fabric_size (and
// add clusters shaped like the others) but not the counts or sizes.
constexpr unsigned nclusters = 4;
constexpr uint32_t mailbox_size = 120;  // not a multiple of 64: slots are not cache-line sized
constexpr uint32_t portal_chunk = 72;
constexpr uint16_t io_mailboxes = 2, io_portals = 1;            // cluster 0
constexpr uint16_t compute_mailboxes = 1, compute_portals = 3;  // clusters 1..3

ts_manifest &manifest();

/// The cluster the calling thread plays (hal::cluster_id()); per thread, so
/// threads can play different clusters at once.
void set_cluster(int cluster);
/// The calling thread runs core `core` of its cluster from now on (0, the
/// master, by default).
void set_core(int core);

struct Notification {
    int from;  ///< the cluster that raised it
    int cluster;
    int core;
    bool operator==(const Notification &) const = default;
};

/// The notifications raised since the last call, oldest first; clears them.
std::vector<Notification> take_notifications();

/// A zeroed fabric region of `size` bytes, installed in the manifest for its
/// lifetime, followed by guard bytes that the NoC must never write.
class Fabric {
public:
    explicit Fabric(size_t size = 1u << 20);
    ~Fabric();
    Fabric(const Fabric &) = delete;
    Fabric &operator=(const Fabric &) = delete;

    /// True when the first page (console lock, linux64 event words) is
    /// still zero and the guard after the region still holds its pattern.
    bool outside_untouched() const;

private:
    static constexpr size_t guard = 64 * 1024;
    unsigned char *mem_;
    size_t size_;
};

}  // namespace fake_hal
