// Virtual portals over the cluster's one hardware input portal.
//
// The receiver allows one (cluster, port) on its virtual portal, then
// reads: it holds the hardware input portal for the whole transfer (one
// transfer at a time per cluster), and the data flows chunk by chunk from
// the sender's buffer straight into the receiver's.
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
    hal::Guard g(lock);
    Endpoint *e = portals.get(id, true);
    if (!e) return -TS_EBADF;
    if (!valid_cluster(cluster) || !valid_port(port)) return -TS_EINVAL;
    e->allowed = true;
    e->allow_cluster = cluster;
    e->allow_port = port;
    return 0;
}

long portal_read(int id, void *buf, size_t size) {
    Endpoint allow;
    {
        hal::Guard g(lock);
        Endpoint *e = portals.get(id, true);
        if (!e) return -TS_EBADF;
        if (!e->allowed) return -TS_EINVAL;  // a read needs an allow first
        allow = *e;
        e->allowed = false;
    }
    if (size == 0) return 0;
    block_until([&] {  // one transfer at a time on the hardware input portal
        if (hardware_busy) return false;
        hardware_busy = true;
        return true;
    });
    hal::noc::portal_allow(allow.allow_cluster, portal_tag(allow.allow_port, allow.local_port));
    auto *dst = static_cast<char *>(buf);
    for (size_t done = 0; done < size;) {
        block_until([&] {
            const size_t n = hal::noc::portal_read_chunk(dst + done, size - done);
            done += n;
            return n > 0;
        });
    }
    {
        hal::Guard g(lock);
        hardware_busy = false;
    }
    hal::notify_cluster(hal::cluster_id());  // another reader may be waiting
    return static_cast<long>(size);
}

long portal_write(int id, const void *buf, size_t size) {
    int dst;
    uint32_t tag;
    {
        hal::Guard g(lock);
        Endpoint *e = portals.get(id, false);
        if (!e) return -TS_EBADF;
        dst = e->remote_cluster;
        tag = portal_tag(e->local_port, e->remote_port);
    }
    const auto *src = static_cast<const char *>(buf);
    const size_t chunk = hal::noc::portal_chunk();
    for (size_t done = 0; done < size;) {
        const size_t n = size - done < chunk ? size - done : chunk;
        block_until([&] { return hal::noc::portal_write_chunk(dst, tag, src + done, n); });
        done += n;
    }
    return static_cast<long>(size);
}

}  // namespace kernel::ikc
