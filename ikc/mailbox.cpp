// Virtual mailboxes over the cluster's hardware input mailboxes.
//
// A hardware message carries a small header (destination port, source
// port, length) before the user data. A reader takes the next message for
// its port: first from the buffers table, where messages that arrived for
// other ports are parked, then from the slots of its port's hardware
// mailbox. When the buffers table is full, messages stay in the hardware
// slots, so their senders wait (flow control): nothing is dropped, and per
// sender the order is kept.
#include <string.h>

#include "buffers.hpp"
#include "virtual.hpp"

namespace kernel::ikc {
namespace {

constexpr int max_buffers = 256;  // the profile's ikc_buffers may not exceed it
constexpr size_t max_message = 256;

struct Header {
    uint16_t dst_port;
    uint16_t src_port;
    uint16_t length;
    uint16_t reserved;
};

struct Message {
    Header h;
    char data[max_message - sizeof(Header)];
};

constinit BuffersTable<Message, max_buffers> buffers;
/// Messages parked for each port: changed under master_lock, read without
/// it (mailbox_wait_fast).
uint32_t parked_for[TS_PORTS];

bool take_parked(int port, Message &out) {
    const bool was_full = buffers.full();
    if (!buffers.take(port, out)) return false;
    __atomic_sub_fetch(&parked_for[port], 1u, __ATOMIC_RELEASE);
    // Readers whose messages wait in hardware slots for room may go on.
    if (was_full) serve_again();
    return true;
}

// Empties the slots of hardware mailbox `hw`: the first message for `port`
// goes into `out`, the others into the buffers table while it has room. A
// message that finds the table full stays in its slot, so that its sender
// waits (and the sender's later messages stay behind it). True when `out`
// was filled.
bool poll_hardware(int hw, int port, Message &out) {
    bool got = false;
    const int n = static_cast<int>(hal::manifest().nclusters);
    for (int src = 0; src < n; ++src) {
        Message m;
        if (!hal::noc::mailbox_peek(hw, src, &m)) continue;
        const bool ours = !got && m.h.dst_port == port;
        if (!ours && buffers.full()) continue;
        hal::noc::mailbox_release(hw, src);
        if (ours) {
            out = m;
            got = true;
        } else if (buffers.park(m.h.dst_port, m)) {
            if (m.h.dst_port < TS_PORTS) __atomic_add_fetch(&parked_for[m.h.dst_port], 1u, __ATOMIC_RELEASE);
            serve_again();  // its owner may be waiting
        }
    }
    return got;
}

long read_call(Call &c) {
    if (long err = check_user(c.a[1], c.a[2], true)) return err;
    return mailbox_read(static_cast<int>(c.a[0]), reinterpret_cast<void *>(c.a[1]), c.a[2], &c.p);
}

long write_call(Call &c) {
    if (long err = check_user(c.a[1], c.a[2], false)) return err;
    return mailbox_write(static_cast<int>(c.a[0]), reinterpret_cast<const void *>(c.a[1]), c.a[2], &c.p);
}

}  // namespace

void mailbox_init() {
    const ts_manifest &m = hal::manifest();
    if (hal::noc::mailbox_size() > max_message || hal::noc::mailbox_size() <= sizeof(Header))
        panic("mailbox message size of the profile is not supported");
    if (m.ikc_buffers < 1 || m.ikc_buffers > max_buffers)
        panic("buffers table size of the profile is not supported");
    buffers.set_limit(m.ikc_buffers);
}

size_t mailbox_payload() { return hal::noc::mailbox_size() - sizeof(Header); }

long mailbox_create(int port) { return mailbox_table().create(port); }
long mailbox_open(int local_port, int cluster, int port) {
    return mailbox_table().open(local_port, cluster, port);
}
long mailbox_close(int id) { return mailbox_table().release(id, false); }
long mailbox_unlink(int id) { return mailbox_table().release(id, true); }

long mailbox_read(int id, void *buf, size_t size, Progress *p) {
    Endpoint *e;
    if (long err = mailbox_table().get(id, Dir::input, e)) return err;
    const int hw = e->local_port % hal::noc::mailboxes(hal::cluster_id());
    Message m;
    if (!take_parked(e->local_port, m) && !poll_hardware(hw, e->local_port, m)) {
        if (p) mark_start(*p);  // the read waits from now on
        return pending;
    }
    const size_t length = m.h.length < mailbox_payload() ? m.h.length : mailbox_payload();
    const size_t copied = length < size ? length : size;
    memcpy(buf, m.data, copied);
    count_transfer(e->stats, p ? *p : Progress{}, copied, false);
    return static_cast<long>(length);
}

long mailbox_write(int id, const void *buf, size_t size, Progress *p) {
    Endpoint *e;
    if (long err = mailbox_table().get(id, Dir::output, e)) return err;
    const long r = mailbox_send(e->local_port, e->remote_cluster, e->remote_port, buf, size);
    if (r == pending && p) mark_start(*p);  // the write waits from now on
    if (r >= 0) count_transfer(e->stats, p ? *p : Progress{}, size, true);
    return r;
}

long mailbox_send(int local_port, int cluster, int port, const void *buf, size_t size) {
    if (size > mailbox_payload()) return -TS_EINVAL;
    Message m{};
    m.h = Header{static_cast<uint16_t>(port), static_cast<uint16_t>(local_port), static_cast<uint16_t>(size),
                 0};
    memcpy(m.data, buf, size);
    const int hw = port % hal::noc::mailboxes(cluster);
    return hal::noc::mailbox_send(cluster, hw, port, &m) ? static_cast<long>(size) : pending;
}

bool update_doorbells() {
    bool polled[TS_PORTS] = {};
    for (const Endpoint &e : mailbox_table().entries)
        if (e.used && e.input && e.owner && !core_waits_on_master(e.core)) polled[e.local_port] = true;
    bool started = false;
    for (int port = 0; port < TS_PORTS; ++port) {
        const bool rings = hal::noc::doorbell_rings(port);
        if (rings == !polled[port]) continue;
        hal::noc::set_doorbell(port, !polled[port]);
        started = started || !polled[port];
    }
    return started;
}

// The core that reads or waits on input mailbox c.a[0] from now on: its
// doorbell follows that core (update_doorbells), whichever thread of the
// process created it.
void note_reader(const Call &c) {
    Endpoint *e;
    if (mailbox_table().get(static_cast<int>(c.a[0]), Dir::input, e) == 0) e->core = caller_core();
}

long sys_mailbox_read(Call &c) {
    note_reader(c);
    return sync_call(mailbox_table(), c, Dir::input, read_call);
}
long sys_mailbox_write(Call &c) { return sync_call(mailbox_table(), c, Dir::output, write_call); }
long sys_mailbox_aread(Call &c) {
    note_reader(c);
    return async_start(mailbox_table(), c, Dir::input, read_call, nullptr);
}
long sys_mailbox_awrite(Call &c) { return async_start(mailbox_table(), c, Dir::output, write_call, nullptr); }
long sys_mailbox_wait(Call &c) {
    note_reader(c);
    return async_wait(mailbox_table(), c);
}
long mailbox_wait_fast(Call &c) {
    if (!(c.a[1] & TS_IKC_NOWAIT) || c.a[0] >= static_cast<uint64_t>(max_virtual)) return pending;
    // Racy reads of a table that never moves: an answer of EAGAIN is what
    // the locked call gives when it runs just before a change.
    const Endpoint &e = mailbox_table().entries[c.a[0]];
    auto now = [](const auto &field) { return __atomic_load_n(&field, __ATOMIC_ACQUIRE); };
    if (!now(e.used) || !now(e.input) || now(e.owner) != current_process() || now(e.core) != caller_core() ||
        !now(e.async.started) || now(e.async.finished))
        return pending;
    const int port = now(e.local_port);
    if (port < 0 || port >= TS_PORTS || now(parked_for[port]) > 0) return pending;
    return hal::noc::mailbox_any(port % hal::noc::mailboxes(hal::cluster_id())) ? pending : -TS_EAGAIN;
}

long sys_mailbox_ioctl(Call &c) {
    Endpoint *e;
    if (mailbox_table().get(static_cast<int>(c.a[0]), Dir::input, e) == 0)
        e->stats.parked = static_cast<unsigned long>(buffers.count(e->local_port));
    return endpoint_ioctl(mailbox_table(), c);
}

}  // namespace kernel::ikc
