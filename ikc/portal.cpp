// Virtual portals over the cluster's one hardware input portal.
//
// The receiver allows one (cluster, port) on its virtual portal, then
// reads: it holds the hardware input portal for the whole transfer (one
// transfer at a time per cluster), and the data flows chunk by chunk from
// the sender's buffer straight into the receiver's. A transfer that waits
// for chunks keeps its place in its Progress.
#include "ikc/ikc.hpp"

namespace kernel::ikc {
namespace {

constexpr int max_portals = 64;

EndpointTable<max_portals> portals;
bool hardware_busy;  // the input portal is in a transfer

}  // namespace

long portal_create(int port) { return portals.create(port); }
long portal_open(int local_port, int cluster, int port) { return portals.open(local_port, cluster, port); }
long portal_close(int id) { return portals.release(id, false); }
long portal_unlink(int id) { return portals.release(id, true); }

long portal_allow(int id, int cluster, int port) {
    Endpoint *e = portals.get(id, true);
    if (!e) return -TS_EBADF;
    if (!valid_cluster(cluster) || !valid_port(port)) return -TS_EINVAL;
    e->allowed = true;
    e->allow_cluster = cluster;
    e->allow_port = port;
    return 0;
}

// Steps: 0 check and wait for the hardware portal, 1 move chunks.
long portal_read(int id, void *buf, size_t size, Progress &p) {
    Endpoint *e = portals.get(id, true);
    if (!e) return -TS_EBADF;
    if (p.step == 0) {
        if (!e->allowed) return -TS_EINVAL;  // a read needs an allow first
        if (size == 0) {
            e->allowed = false;
            return 0;
        }
        if (hardware_busy) return pending;  // one transfer at a time
        hardware_busy = true;
        e->allowed = false;
        hal::noc::portal_allow(e->local_port % hal::noc::portals(hal::cluster_id()), e->allow_cluster, portal_tag(e->allow_port, e->local_port));
        p.step = 1;
    }
    auto *dst = static_cast<char *>(buf);
    while (p.done < size) {
        const size_t n = hal::noc::portal_read_chunk(e->local_port % hal::noc::portals(hal::cluster_id()), dst + p.done, size - p.done);
        if (n == 0) return pending;
        p.done += n;
    }
    hardware_busy = false;
    serve_again();  // another reader may be waiting for the hardware portal
    return static_cast<long>(size);
}

void portal_read_cancel(Call &c) {
    if (c.p.step == 1) hardware_busy = false;
}

long portal_write(int id, const void *buf, size_t size, Progress &p) {
    const Endpoint *e = portals.get(id, false);
    if (!e) return -TS_EBADF;
    const uint32_t tag = portal_tag(e->local_port, e->remote_port);
    const auto *src = static_cast<const char *>(buf);
    const size_t chunk = hal::noc::portal_chunk();
    while (p.done < size) {
        const size_t n = size - p.done < chunk ? size - p.done : chunk;
        if (!hal::noc::portal_write_chunk(e->remote_cluster, e->remote_port % hal::noc::portals(e->remote_cluster), tag, src + p.done, n)) return pending;
        p.done += n;
    }
    return static_cast<long>(size);
}

}  // namespace kernel::ikc
