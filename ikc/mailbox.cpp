// Virtual mailboxes over the cluster's one hardware input mailbox.
//
// A hardware message carries a small header (destination port, source
// port, length) before the user data. A reader takes the next message for
// its port: first from the buffers table, where messages that arrived for
// other ports are parked, then from the hardware slots. When the buffers
// table is full, messages stay in the hardware slots, so their senders wait
// (flow control): nothing is dropped, and per sender the order is kept.
#include <string.h>

#include "ikc/ikc.hpp"

namespace kernel::ikc {
namespace {

constexpr int max_mailboxes = 128;
constexpr int max_parked = 128;
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

struct Parked {
    bool used;
    uint64_t seq;  // arrival order
    Message msg;
};

EndpointTable<max_mailboxes> mailboxes;
Parked parked[max_parked];
int nparked;
uint64_t next_seq;

void park(const Message &m) {
    for (Parked &p : parked) {
        if (!p.used) {
            p = Parked{true, next_seq++, m};
            ++nparked;
            return;
        }
    }
}

bool take_parked(int port, Message &out) {
    Parked *oldest = nullptr;
    for (Parked &p : parked)
        if (p.used && p.msg.h.dst_port == port && (!oldest || p.seq < oldest->seq)) oldest = &p;
    if (!oldest) return false;
    out = oldest->msg;
    oldest->used = false;
    // Readers whose messages wait in hardware slots for room may go on.
    if (nparked-- == max_parked) serve_again();
    return true;
}


// Empties the hardware slots into `out` (the first message for `port`) and
// the buffers table (all others). A slot is only emptied while the buffers
// table has room for whatever it holds. True when `out` was filled.
bool poll_hardware(int port, Message &out) {
    bool got = false;
    const int n = static_cast<int>(hal::manifest().nclusters);
    const int nhw = hal::noc::mailboxes(hal::cluster_id());
    for (int i = 0; i < n * nhw && nparked < max_parked; ++i) {
        Message m;
        if (!hal::noc::mailbox_receive(i / n, i % n, &m)) continue;
        if (!got && m.h.dst_port == port) {
            out = m;
            got = true;
        } else {
            park(m);
            serve_again();  // its owner may be waiting
        }
    }
    return got;
}

}  // namespace

void mailbox_init() {
    if (hal::noc::mailbox_size() > max_message || hal::noc::mailbox_size() <= sizeof(Header))
        panic("mailbox message size of the profile is not supported");
}

size_t mailbox_payload() { return hal::noc::mailbox_size() - sizeof(Header); }

long mailbox_create(int port) { return mailboxes.create(port); }
long mailbox_open(int local_port, int cluster, int port) { return mailboxes.open(local_port, cluster, port); }
long mailbox_close(int id) { return mailboxes.release(id, false); }
long mailbox_unlink(int id) { return mailboxes.release(id, true); }

long mailbox_read(int id, void *buf, size_t size) {
    const Endpoint *e = mailboxes.get(id, true);
    if (!e) return -TS_EBADF;
    Message m;
    if (!take_parked(e->local_port, m) && !poll_hardware(e->local_port, m)) return pending;
    const size_t length = m.h.length < mailbox_payload() ? m.h.length : mailbox_payload();
    memcpy(buf, m.data, length < size ? length : size);
    return static_cast<long>(length);
}

long mailbox_write(int id, const void *buf, size_t size) {
    const Endpoint *e = mailboxes.get(id, false);
    if (!e) return -TS_EBADF;
    return mailbox_send(e->local_port, e->remote_cluster, e->remote_port, buf, size);
}

long mailbox_send(int local_port, int cluster, int port, const void *buf, size_t size) {
    if (size > mailbox_payload()) return -TS_EINVAL;
    Message m{};
    m.h = Header{static_cast<uint16_t>(port), static_cast<uint16_t>(local_port),
                 static_cast<uint16_t>(size), 0};
    memcpy(m.data, buf, size);
    const int hw = port % hal::noc::mailboxes(cluster);
    return hal::noc::mailbox_send(cluster, hw, &m) ? static_cast<long>(size) : pending;
}

}  // namespace kernel::ikc
