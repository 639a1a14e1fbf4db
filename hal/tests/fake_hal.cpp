// The fake's side of hal.hpp: only what hal/common/noc.cpp links against.
#include "fake_hal.hpp"

#include <stdlib.h>
#include <string.h>

#include <mutex>

#include "hal/hal.hpp"

namespace fake_hal {
namespace {

constexpr unsigned char guard_byte = 0xa5;
constexpr size_t first_page = 4096;

thread_local int current_cluster = 0;
thread_local int current_core = 0;

std::mutex notifications_lock;  // threaded tests notify from several threads
std::vector<Notification> notifications;

ts_manifest make_manifest() {
    ts_manifest m{};
    m.magic = TS_MANIFEST_MAGIC;
    m.nclusters = nclusters;
    m.nio_clusters = 1;
    m.mailbox_size = mailbox_size;
    m.portal_chunk = portal_chunk;
    for (unsigned c = 0; c < TS_MAX_CLUSTERS; ++c) {
        ts_cluster_desc &d = m.clusters[c];
        const bool io = c == 0;
        d.window_base = 0x80000000u + c * (4u << 20);
        d.window_size = 4u << 20;
        d.first_hart = c * 2;
        d.ncores = 2;
        d.kind = io ? TS_CLUSTER_IO : TS_CLUSTER_COMPUTE;
        d.mailboxes = io ? io_mailboxes : compute_mailboxes;
        d.portals = io ? io_portals : compute_portals;
    }
    return m;
}

}  // namespace

ts_manifest &manifest() {
    static ts_manifest m = make_manifest();
    return m;
}

void set_cluster(int cluster) { current_cluster = cluster; }
void set_core(int core) { current_core = core; }

std::vector<Notification> take_notifications() {
    std::lock_guard<std::mutex> g(notifications_lock);
    std::vector<Notification> out;
    out.swap(notifications);
    return out;
}

Fabric::Fabric(size_t size) : size_(size) {
    // Page-aligned like the real region; the length aligned_alloc wants.
    const size_t total = (size + guard + 4095) & ~size_t{4095};
    mem_ = static_cast<unsigned char *>(aligned_alloc(4096, total));
    memset(mem_, 0, size);
    memset(mem_ + size, guard_byte, total - size);
    manifest().fabric_base = reinterpret_cast<uintptr_t>(mem_);
    manifest().fabric_size = size;
    take_notifications();  // a test starts with none recorded
}

Fabric::~Fabric() {
    manifest().fabric_base = 0;
    free(mem_);
}

bool Fabric::outside_untouched() const {
    for (size_t i = 0; i < first_page && i < size_; ++i)
        if (mem_[i] != 0) return false;
    for (size_t i = size_; i < size_ + guard; ++i)
        if (mem_[i] != guard_byte) return false;
    return true;
}

}  // namespace fake_hal

namespace hal {

const ts_manifest &manifest() { return fake_hal::manifest(); }
int cluster_id() { return fake_hal::current_cluster; }
int core_id() { return fake_hal::current_core; }

void notify_core(int cluster, int core) {
    std::lock_guard<std::mutex> g(fake_hal::notifications_lock);
    fake_hal::notifications.push_back({fake_hal::current_cluster, cluster, core});
}

}  // namespace hal
