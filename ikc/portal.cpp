// Virtual portals over the cluster's hardware input portals.
//
// The receiver allows one (cluster, port) on its virtual portal, then
// reads: it takes the lock of its port's hardware portal (the active-table
// entry) for the whole transfer, so the virtual portals that share one
// hardware portal take turns, one transfer at a time; the data flows chunk
// by chunk from the sender's buffer straight into the receiver's. A
// transfer that waits for chunks keeps its place in its Progress.
#include "virtual.hpp"

namespace kernel::ikc {
namespace {

int input_hw(const Endpoint &e) { return e.local_port % hal::noc::portals(hal::cluster_id()); }
int lock_owner(int id) { return id + 1; }

// Records a transfer's arrival or read at input portal e in the trace.
void trace_portal(uint16_t kind, const Endpoint &e, size_t transfer) {
    trace_kernel(kind, e.allow_cluster, e.local_port, TS_TRACE_PORTAL, transfer);
}

// A read that ends before its last chunk: the hardware portal stops
// taking the sender's chunks and goes to the next reader.
void abandon(Endpoint &e, int id) {
    hal::noc::portal_close(input_hw(e));
    if (active_table().unlock(e.active, lock_owner(id))) serve_again();
}

// For a user buffer, checks the next chunk's bytes [done, done + chunk)
// that fall in it (none once done reaches size).
long check_chunk(bool user, const void *buf, size_t size, size_t done, bool write) {
    if (!user || done >= size) return 0;
    const size_t chunk = hal::noc::portal_chunk();
    const size_t n = size - done < chunk ? size - done : chunk;
    return check_user(reinterpret_cast<uintptr_t>(buf) + done, n, write);
}

}  // namespace

long portal_create(int port) { return portal_table().create(port); }
long portal_open(int local_port, int cluster, int port) {
    return portal_table().open(local_port, cluster, port);
}
long portal_close(int id) { return portal_table().release(id, false); }
long portal_unlink(int id) { return portal_table().release(id, true); }

namespace {

long allow(Endpoint *e, int cluster, int port, uint32_t tag) {
    if (!valid_cluster(cluster) || !valid_port(port)) return -TS_EINVAL;
    e->allowed = true;
    e->allow_cluster = static_cast<int16_t>(cluster);
    e->allow_port = static_cast<int16_t>(port);
    e->allow_tag = tag;
    ++e->stats.allows;
    return 0;
}

// Steps: 0 check and take the hardware portal's lock, 1 move chunks:
// p.done counts the transfer's bytes, the first `size` of which land in buf.
// A user buffer is checked chunk by chunk as the data moves (the
// transfer's attempts would otherwise check all of it again each time,
// which grows with the square of its size); a buffer unmapped halfway
// through ends the transfer with -TS_EFAULT.
long read_from(Endpoint *e, void *buf, size_t size, size_t transfer, Progress &p, bool user) {
    const int id = portal_table().id_of(*e);
    mark_start(p);
    if (transfer == 0) transfer = size;
    if (p.step == 0) {
        if (!e->allowed) return -TS_EINVAL;  // a read needs an allow first
        // A transfer holds at least the bytes kept; the NoC counts them in 32 bits.
        if (transfer < size || transfer > UINT32_MAX) return -TS_EINVAL;
        if (transfer == 0) {
            e->allowed = false;
            count_transfer(e->stats, p, 0, false);
            return 0;
        }
        if (!active_table().lock(e->active, lock_owner(id))) return pending;  // another transfer
        e->allowed = false;
        hal::noc::portal_allow(input_hw(*e), e->allow_cluster,
                               portal_tag(e->allow_port, e->local_port, e->allow_tag),
                               static_cast<uint32_t>(transfer));
        p.step = 1;
    }
    auto *dst = static_cast<char *>(buf);
    while (p.done < transfer) {
        if (long err = check_chunk(user, buf, size, p.done, true)) {
            abandon(*e, id);
            return err;
        }
        const size_t room = p.done < size ? size - p.done : 0;
        const size_t n =
            hal::noc::portal_read_chunk(input_hw(*e), room ? dst + p.done : nullptr, transfer - p.done, room);
        if (n == 0) return pending;
        if (tracing && p.done == 0) trace_portal(TS_TRACE_IKC_ARRIVE, *e, transfer);
        p.done += n;
    }
    if (tracing) trace_portal(TS_TRACE_IKC_READ, *e, transfer);
    // Another reader may wait for the hardware portal.
    if (active_table().unlock(e->active, lock_owner(id))) serve_again();
    count_transfer(e->stats, p, size, false);
    return static_cast<long>(size);
}

// An unfinished read of e, at progress p, whose process ends: it gives
// the hardware portal back if it held it.
void cancel_read(Endpoint &e, const Progress &p) {
    if (p.step == 1) abandon(e, portal_table().id_of(e));
}

long write_to(Endpoint *e, const void *buf, size_t size, uint32_t tag, Progress &p, bool user) {
    mark_start(p);
    const int hw = e->remote_port % hal::noc::portals(e->remote_cluster);
    const uint64_t hw_tag = portal_tag(e->local_port, e->remote_port, tag);
    const auto *src = static_cast<const char *>(buf);
    const size_t chunk = hal::noc::portal_chunk();
    while (p.done < size) {
        const size_t n = size - p.done < chunk ? size - p.done : chunk;
        if (long err = check_chunk(user, buf, size, p.done, false)) return err;
        if (!hal::noc::portal_write_chunk(e->remote_cluster, hw, hw_tag, src + p.done, n)) return pending;
        p.done += n;
    }
    if (tracing) trace_kernel(TS_TRACE_IKC_POST, e->remote_cluster, e->remote_port, TS_TRACE_PORTAL, size);
    count_transfer(e->stats, p, size, true);
    return static_cast<long>(size);
}

// The attempts of AREAD and AWRITE, and the cancel of AREAD, through
// their decoders.
long aread_attempt(const portal_aread_args &a, Call &c) {
    return read_from(a.id, a.buf.data(), a.buf.size, a.transfer, c.p, true);
}
long aread_cancel(const portal_aread_args &a, Call &c) {
    cancel_read(*a.id, c.p);
    return 0;
}
long awrite_attempt(const portal_awrite_args &a, Call &c) {
    return write_to(a.id, a.buf.data(), a.buf.size, a.tag, c.p, true);
}

}  // namespace

long portal_allow(int id, int cluster, int port, uint32_t tag) {
    Endpoint *e;
    if (long err = portal_table().get(id, Dir::input, e)) return err;
    return allow(e, cluster, port, tag);
}

long portal_read(int id, void *buf, size_t size, size_t transfer, Progress &p, bool user) {
    Endpoint *e;
    if (long err = portal_table().get(id, Dir::input, e)) return err;
    return read_from(e, buf, size, transfer, p, user);
}

long portal_write(int id, const void *buf, size_t size, uint32_t tag, Progress &p, bool user) {
    Endpoint *e;
    if (long err = portal_table().get(id, Dir::output, e)) return err;
    return write_to(e, buf, size, tag, p, user);
}

long sys_portal_create(const portal_create_args &a, Call &) { return portal_create(a.port); }
long sys_portal_open(const portal_open_args &a, Call &) {
    return portal_open(a.local_port, a.cluster, a.port);
}
long sys_portal_close(const portal_close_args &a, Call &) { return portal_table().release(*a.id); }
long sys_portal_unlink(const portal_unlink_args &a, Call &) { return portal_table().release(*a.id); }
long sys_portal_allow(const portal_allow_args &a, Call &) { return allow(a.id, a.cluster, a.port, a.tag); }
long sys_portal_read(const portal_read_args &a, Call &c) {
    if (long err = refuse_while_async(*a.id, c.p)) return err;
    return read_from(a.id, a.buf.data(), a.buf.size, a.transfer, c.p, true);
}
long sys_portal_read_cancel(const portal_read_args &a, Call &c) {
    cancel_read(*a.id, c.p);
    return 0;
}
long sys_portal_write(const portal_write_args &a, Call &c) {
    if (long err = refuse_while_async(*a.id, c.p)) return err;
    return write_to(a.id, a.buf.data(), a.buf.size, a.tag, c.p, true);
}
long sys_portal_aread(const portal_aread_args &a, Call &c) {
    return async_start(portal_table(), *a.id, c, kcall::decoded<portal_aread_args, aread_attempt>,
                       kcall::decoded<portal_aread_args, aread_cancel>);
}
long sys_portal_awrite(const portal_awrite_args &a, Call &c) {
    return async_start(portal_table(), *a.id, c, kcall::decoded<portal_awrite_args, awrite_attempt>, nullptr);
}
long sys_portal_wait(const portal_wait_args &a, Call &) { return async_wait(portal_table(), *a.id, a.flags); }
long sys_portal_ioctl(const portal_ioctl_args &a, Call &) {
    *a.arg = a.id->stats;
    return 0;
}

}  // namespace kernel::ikc
