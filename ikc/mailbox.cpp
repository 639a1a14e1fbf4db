// Virtual mailboxes over the cluster's hardware input mailboxes.
//
// A hardware message carries a small header (destination port, source
// port, length) before the user data. A reader takes the next message for
// its port: first from the buffers table, where messages that arrived for
// other ports are parked, then from the slots of its port's hardware
// mailbox. When the buffers table is full, messages stay in the hardware
// slots, so their senders wait (flow control): nothing is dropped, and per
// sender the order is kept.
//
// A reader may instead have its arrivals copied into a ring in its own
// memory (MAILBOX_RING), which it polls without a kernel call: the master
// fills the rings on every pass where the NoC interrupts it at once; where
// it does not, a polling reader fills its own (MAILBOX_DRAIN).
#include <stddef.h>
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
    uint16_t src_cluster;  ///< filled in by the receiving kernel (the slot it came through)
};

struct Message {
    Header h;
    char data[max_message - sizeof(Header)];
};

constinit BuffersTable<Message> buffers;
/// Messages parked for each port: changed under master_lock, read without
/// it (mailbox_wait_fast).
uint32_t parked_for[TS_PORTS];

// Records a message's arrival or read in the trace.
void trace_mailbox(uint16_t kind, const Message &m) {
    trace_kernel(kind, m.h.src_cluster, m.h.dst_port, TS_TRACE_MAILBOX, m.h.length);
}

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
        m.h.src_cluster = static_cast<uint16_t>(src);
        const bool ours = !got && m.h.dst_port == port;
        if (!ours && buffers.full()) continue;
        hal::noc::mailbox_release(hw, src);
        if (tracing) trace_mailbox(TS_TRACE_IKC_ARRIVE, m);
        if (ours) {
            out = m;
            got = true;
        } else if (buffers.park(m.h.dst_port, m)) {
            const bool port_ok = m.h.dst_port < TS_PORTS;
            if (port_ok) __atomic_add_fetch(&parked_for[m.h.dst_port], 1u, __ATOMIC_RELEASE);
            // Its reader may wait on the master (its doorbell rings then);
            // one that polls finds it by itself.
            if (!port_ok || hal::noc::doorbell_rings(m.h.dst_port)) serve_again();
        }
    }
    return got;
}

/// Input mailboxes with a ring (rings_poll() skips the table when none).
int ringed;

int hw_of(int port) { return port % hal::noc::mailboxes(hal::cluster_id()); }

/// Whether a message for `port` may wait in the kernel: parked, or in a
/// slot of its hardware mailbox (for it or for another port). A look
/// without the lock.
bool may_have(int port) {
    return __atomic_load_n(&parked_for[port], __ATOMIC_ACQUIRE) > 0 || hal::noc::mailbox_any(hw_of(port));
}

/// For a call's lock-free first try: the port of input mailbox e, when
/// it is the caller process's, read by the calling core, and `ready(e)`;
/// else -1 (the locked call decides). Racy reads of a table that never
/// moves: what they miss is what the locked call misses when it runs just
/// before the change.
template <class Ready>
int polled_port(const Endpoint &e, Ready ready) {
    auto now = [](const auto &field) { return __atomic_load_n(&field, __ATOMIC_ACQUIRE); };
    if (!now(e.used) || !now(e.input) || now(e.owner) != current_process() || now(e.core) != caller_core() ||
        !ready(e, now))
        return -1;
    const int port = now(e.local_port);
    return port >= 0 && port < TS_PORTS ? port : -1;
}

size_t slot_bytes() { return TS_RING_SLOT_BYTES(mailbox_payload()); }

/// Moves e's arrivals into its ring while the ring has room, in the owner's
/// address space: messages moved, or -TS_EFAULT when the ring is no longer
/// writable (then nothing is taken: the messages wait in the kernel).
long fill_ring(Endpoint &e) {
    Ring &r = e.ring;
    if (long err = check_user(r.va, TS_RING_BYTES(r.slots, mailbox_payload()), true)) return err;
    auto *ring = reinterpret_cast<ts_ring *>(kernel_view(r.va));
    char *slots = reinterpret_cast<char *>(ring + 1);
    // A tail the process corrupted reads as a full ring: it stops only its
    // own arrivals.
    const uint32_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    long moved = 0;
    Message m;
    while (r.head - tail < r.slots) {
        if (!take_parked(e.local_port, m) && !poll_hardware(hw_of(e.local_port), e.local_port, m)) break;
        const size_t length = m.h.length < mailbox_payload() ? m.h.length : mailbox_payload();
        auto *slot = reinterpret_cast<ts_ring_slot *>(slots + (r.head & (r.slots - 1)) * slot_bytes());
        *slot = ts_ring_slot{static_cast<unsigned short>(length), m.h.src_cluster, m.h.src_port, 0};
        memcpy(slot + 1, m.data, length);
        if (tracing) trace_mailbox(TS_TRACE_IKC_READ, m);
        __atomic_store_n(&ring->head, ++r.head, __ATOMIC_RELEASE);  // the slot before the index
        count_transfer(e.stats, Progress{}, length, false);
        ++moved;
    }
    if (r.head - tail >= r.slots && may_have(e.local_port))
        __atomic_store_n(&ring->stalled, 1u, __ATOMIC_RELEASE);
    // The head before the look at `wake`, as the process sets `wake`
    // before its last look at the head: one of the two sees the other.
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (moved && __atomic_load_n(&ring->wake, __ATOMIC_RELAXED)) add_event(e.core);
    return moved;
}

/// fill_ring as the kernel's own work, in the ring owner's address space.
struct Fill {
    Endpoint &e;
};
long fill_ring_work(const Fill &f, Call &) { return fill_ring(f.e); }

/// mailbox_read of an input mailbox found already.
long read_from(Endpoint &e, void *buf, size_t size, Progress *p) {
    if (e.ring.va) return -TS_EBUSY;  // its arrivals go into the ring
    Message m;
    if (!take_parked(e.local_port, m) && !poll_hardware(hw_of(e.local_port), e.local_port, m)) {
        if (p) mark_start(*p);  // the read waits from now on
        return pending;
    }
    const size_t length = m.h.length < mailbox_payload() ? m.h.length : mailbox_payload();
    const size_t copied = length < size ? length : size;
    memcpy(kernel_view(buf), m.data, copied);
    if (tracing) trace_mailbox(TS_TRACE_IKC_READ, m);
    count_transfer(e.stats, p ? *p : Progress{}, copied, false);
    return static_cast<long>(length);
}

/// mailbox_write of an output mailbox found already.
long write_to(Endpoint &e, const void *buf, size_t size, Progress *p) {
    const long r = mailbox_send(e.local_port, e.remote_cluster, e.remote_port, buf, size);
    if (r == pending && p) mark_start(*p);  // the write waits from now on
    if (r >= 0) count_transfer(e.stats, p ? *p : Progress{}, size, true);
    return r;
}

// The attempts of AREAD and AWRITE, run through their decoders.
long aread_attempt(const mailbox_aread_args &a, Call &c) {
    return read_from(*a.id, a.buf.data, a.buf.size, &c.p);
}
long awrite_attempt(const mailbox_awrite_args &a, Call &c) {
    return write_to(*a.id, a.buf.data, a.buf.size, &c.p);
}

}  // namespace

void forget_ring(Endpoint &e) {
    if (e.ring.va) --ringed;
    e.ring = Ring{};
}

void mailbox_init() {
    const ts_manifest &m = hal::manifest();
    if (hal::noc::mailbox_size() > max_message || hal::noc::mailbox_size() <= sizeof(Header))
        panic("mailbox message size of the profile is not supported");
    if (m.ikc_buffers < 1 || m.ikc_buffers > max_buffers)
        panic("buffers table size of the profile is not supported");
    using Slot = BuffersTable<Message>::Slot;
    auto *slots = static_cast<Slot *>(boot_alloc(sizeof(Slot) * m.ikc_buffers));
    if (!slots) panic("no room for the profile's buffers table");
    buffers.attach(slots, m.ikc_buffers);
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
    return read_from(*e, buf, size, p);
}

long mailbox_write(int id, const void *buf, size_t size, Progress *p) {
    Endpoint *e;
    if (long err = mailbox_table().get(id, Dir::output, e)) return err;
    return write_to(*e, buf, size, p);
}

long mailbox_send(int local_port, int cluster, int port, const void *buf, size_t size) {
    if (size > mailbox_payload()) return -TS_EINVAL;
    Message m{};
    m.h = Header{static_cast<uint16_t>(port), static_cast<uint16_t>(local_port), static_cast<uint16_t>(size),
                 0};
    memcpy(m.data, kernel_view(buf), size);
    const int hw = port % hal::noc::mailboxes(cluster);
    if (!hal::noc::mailbox_send(cluster, hw, port, &m)) return pending;
    if (tracing) trace_kernel(TS_TRACE_IKC_POST, cluster, port, TS_TRACE_MAILBOX, size);
    return static_cast<long>(size);
}

bool update_doorbells() {
    bool polled[TS_PORTS] = {};
    // A port is polled by its reader's core unless that core sleeps in a
    // call the master serves, or the master fills the port's ring.
    const bool master_fills = hal::master_takes_arrivals();
    for (const Endpoint &e : mailbox_table().entries)
        if (e.used && e.input && e.owner && !core_waits_on_master(e.core) && !(e.ring.va && master_fills))
            polled[e.local_port] = true;
    bool started = false;
    for (int port = 0; port < TS_PORTS; ++port) {
        const bool rings = hal::noc::doorbell_rings(port);
        if (rings == !polled[port]) continue;
        hal::noc::set_doorbell(port, !polled[port]);
        started = started || !polled[port];
    }
    return started;
}

long sys_mailbox_create(const mailbox_create_args &a, Call &) { return mailbox_create(a.port); }
long sys_mailbox_open(const mailbox_open_args &a, Call &) {
    return mailbox_open(a.local_port, a.cluster, a.port);
}
long sys_mailbox_close(const mailbox_close_args &a, Call &) { return mailbox_table().release(*a.id); }
long sys_mailbox_unlink(const mailbox_unlink_args &a, Call &) { return mailbox_table().release(*a.id); }

// A read or wait on an input mailbox names the core that reads it from
// now on: its doorbell follows that core (update_doorbells), whichever
// thread of the process created it.
long sys_mailbox_read(const mailbox_read_args &a, Call &c) {
    a.id->core = caller_core();
    if (long err = refuse_while_async(*a.id, c.p)) return err;
    return read_from(*a.id, a.buf.data, a.buf.size, &c.p);
}
long sys_mailbox_write(const mailbox_write_args &a, Call &c) {
    if (long err = refuse_while_async(*a.id, c.p)) return err;
    return write_to(*a.id, a.buf.data, a.buf.size, &c.p);
}
long sys_mailbox_aread(const mailbox_aread_args &a, Call &c) {
    a.id->core = caller_core();
    if (a.id->ring.va) return -TS_EBUSY;
    return async_start(mailbox_table(), *a.id, c, kcall::decoded<mailbox_aread_args, aread_attempt>, nullptr);
}
long sys_mailbox_awrite(const mailbox_awrite_args &a, Call &c) {
    const long r =
        async_start(mailbox_table(), *a.id, c, kcall::decoded<mailbox_awrite_args, awrite_attempt>, nullptr);
    // Not written at once (the receiver's slot is full): the master's
    // passes write it, and ask the NoC to tell them when the slot frees,
    // even while the caller computes and makes no call.
    if (r == 0 && !a.id->async.finished) serve_again();
    return r;
}
long sys_mailbox_wait(const mailbox_wait_args &a, Call &) {
    if (a.id->input) a.id->core = caller_core();
    return async_wait(mailbox_table(), *a.id, a.flags);
}
long sys_mailbox_wait_fast(const mailbox_wait_args &a, Call &) {
    if (!(a.flags & TS_IKC_NOWAIT)) return pending;
    const int port = polled_port(
        *a.id, [](const Endpoint &e, auto now) { return now(e.async.started) && !now(e.async.finished); });
    return port < 0 || may_have(port) ? pending : -TS_EAGAIN;
}

// TRYWRITE never waits, so it marks no start (a clock read).
long sys_mailbox_trywrite(const mailbox_trywrite_args &a, Call &c) {
    if (long err = refuse_while_async(*a.id, c.p)) return err;
    const long r = write_to(*a.id, a.buf.data, a.buf.size, nullptr);
    return r == pending ? -TS_EAGAIN : r;
}

// The same checks as the locked call, in racy reads of tables that never
// move (as polled_port): -TS_EAGAIN only where the locked call, run at
// some moment of this one, would answer it too. The buffer was checked by
// the decoding.
long sys_mailbox_trywrite_fast(const mailbox_trywrite_args &a, Call &) {
    if (a.buf.size > mailbox_payload()) return pending;
    const Endpoint &e = *a.id;
    auto now = [](const auto &field) { return __atomic_load_n(&field, __ATOMIC_ACQUIRE); };
    if (!now(e.used) || now(e.input) || now(e.owner) != current_process() || now(e.async.started))
        return pending;
    const int cluster = now(e.remote_cluster);
    if (!valid_cluster(cluster)) return pending;
    return hal::noc::mailbox_slot_full(cluster, now(e.remote_port) % hal::noc::mailboxes(cluster))
               ? -TS_EAGAIN
               : pending;
}

long sys_mailbox_ring(const mailbox_ring_args &a, Call &) {
    Endpoint &e = *a.id;
    if (e.async.started) return -TS_EBUSY;
    const uintptr_t va = a.ring;
    const uint64_t slots = a.nslots;
    if (va == 0) {
        forget_ring(e);
        return 0;
    }
    if (va % 8 || slots == 0 || slots > TS_RING_MAX_SLOTS || (slots & (slots - 1))) return -TS_EINVAL;
    if (long err = check_user(va, TS_RING_BYTES(slots, mailbox_payload()), true)) return err;
    const ts_ring empty{0, 0, 0, 0, static_cast<unsigned>(slots), 0};
    memcpy(reinterpret_cast<void *>(kernel_view(va)), &empty, sizeof empty);
    if (!e.ring.va) ++ringed;
    e.ring = Ring{va, static_cast<uint32_t>(slots), 0};
    e.core = caller_core();
    serve_again();  // what has already arrived goes into the ring
    return hal::master_takes_arrivals() ? 0 : TS_RING_PULL;
}

long sys_mailbox_drain(const mailbox_drain_args &a, Call &) {
    Endpoint &e = *a.id;
    if (!e.ring.va) return -TS_EINVAL;
    e.core = caller_core();
    return fill_ring(e);
}

long sys_mailbox_drain_fast(const mailbox_drain_args &a, Call &) {
    const int port = polled_port(*a.id, [](const Endpoint &e, auto now) { return now(e.ring.va) != 0; });
    return port < 0 || may_have(port) ? pending : 0;
}

bool rings_poll() {
    if (ringed == 0) return false;
    bool moved = false;
    for (Endpoint &e : mailbox_table().entries) {
        if (!e.used || !e.ring.va || !e.owner || e.owner->killed || !may_have(e.local_port)) continue;
        if (run_as<Fill, fill_ring_work>(e.owner, Fill{e}) > 0) moved = true;
    }
    return moved;
}

long sys_mailbox_ioctl(const mailbox_ioctl_args &a, Call &) {
    Endpoint &e = *a.id;
    if (e.input) e.stats.parked = static_cast<unsigned long>(buffers.count(e.local_port));
    *a.arg = e.stats;
    return 0;
}

}  // namespace kernel::ikc
