// The emulated NoC interface. The fabric region holds, after the console
// lock, one block per cluster with that cluster's *input* resources, as
// many of each as the profile gives the cluster (manifest cluster table):
//   mailbox  one slot per sender cluster: [full flag | message]
//   portal   [allowed sender + 1 | tag | full flag | length | chunk]
//   sync     a signal counter per (port, sender cluster)
// Blocks have one size, that of the richest cluster.
// A sender writes into the receiver's block and raises an IPI on the
// receiver's cluster; the receiver empties it and raises one back.
#include <string.h>

#include "hal/hal.hpp"
#include "tessera/syscall.h"

namespace hal::noc {
namespace {

constexpr size_t header_bytes = 64;  // keeps flags and data in separate cache lines

// The chunk buffer is claimed by a sender (chunk_writing) before it checks
// the allow, so that two senders never write it at once. Every allow and
// every close starts a new epoch; a chunk carries the epoch it was written
// in, and the receiver drops one from an earlier epoch (written for a
// transfer that was closed before it ended).
enum : uint32_t { chunk_free = 0, chunk_full = 1, chunk_writing = 2 };

struct PortalCtl {
    uint32_t allowed;  // sender cluster + 1; 0: no sender allowed
    uint32_t tag;
    uint32_t full;  // chunk_*
    uint32_t length;
    uint32_t epoch;
    uint32_t chunk_epoch;
};

size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

size_t slot_bytes() { return header_bytes + mailbox_size(); }
size_t mailbox_bytes() { return align_up(TS_MAX_CLUSTERS * slot_bytes(), 64); }
size_t portal_bytes() { return align_up(header_bytes + portal_chunk(), 64); }
size_t sync_bytes() { return TS_PORTS * TS_MAX_CLUSTERS * sizeof(uint32_t); }

// The most hardware resources of one kind any cluster has.
int most(int (*count)(int)) {
    int most = 1;
    for (unsigned c = 0; c < manifest().nclusters; ++c)
        if (count(static_cast<int>(c)) > most) most = count(static_cast<int>(c));
    return most;
}

// Every slot access needs these: computed once (the manifest never changes).
size_t mailboxes_bytes() {
    static const size_t bytes = mailbox_bytes() * static_cast<size_t>(most(mailboxes));
    return bytes;
}
size_t portals_bytes() {
    static const size_t bytes = portal_bytes() * static_cast<size_t>(most(portals));
    return bytes;
}

// The console lock has the first page; then one block per cluster.
constexpr size_t first_block = 4096;
size_t block_stride() { return align_up(mailboxes_bytes() + portals_bytes() + sync_bytes(), 4096); }

char *block(int cluster) {
    return reinterpret_cast<char *>(manifest().fabric_base) + first_block + block_stride() * cluster;
}

uint32_t *slot_flag(int receiver, int hw, int sender) {
    return reinterpret_cast<uint32_t *>(block(receiver) + hw * mailbox_bytes() + sender * slot_bytes());
}
char *slot_data(int receiver, int hw, int sender) {
    return reinterpret_cast<char *>(slot_flag(receiver, hw, sender)) + header_bytes;
}
PortalCtl *portal(int receiver, int hw) {
    return reinterpret_cast<PortalCtl *>(block(receiver) + mailboxes_bytes() + hw * portal_bytes());
}
char *portal_data(int receiver, int hw) {
    return reinterpret_cast<char *>(portal(receiver, hw)) + header_bytes;
}
uint32_t *sync_counter(int receiver, int port, int sender) {
    auto *base = reinterpret_cast<uint32_t *>(block(receiver) + mailboxes_bytes() + portals_bytes());
    return base + port * TS_MAX_CLUSTERS + sender;
}

uint32_t load(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
void store(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

}  // namespace

bool fabric_fits() { return first_block + block_stride() * manifest().nclusters <= manifest().fabric_size; }

size_t mailbox_size() { return manifest().mailbox_size; }
size_t portal_chunk() { return manifest().portal_chunk; }
int mailboxes(int cluster) { return manifest().clusters[cluster].mailboxes; }
int portals(int cluster) { return manifest().clusters[cluster].portals; }

bool mailbox_send(int dst, int hw, const void *msg) {
    uint32_t *flag = slot_flag(dst, hw, cluster_id());
    if (load(flag)) return false;
    memcpy(slot_data(dst, hw, cluster_id()), msg, mailbox_size());
    store(flag, 1);
    notify_core(dst, 0);
    return true;
}

bool mailbox_peek(int hw, int src, void *msg) {
    const uint32_t *flag = slot_flag(cluster_id(), hw, src);
    if (!load(flag)) return false;
    memcpy(msg, slot_data(cluster_id(), hw, src), mailbox_size());
    return true;
}

void mailbox_release(int hw, int src) {
    store(slot_flag(cluster_id(), hw, src), 0);
    notify_core(src, 0);
}

void portal_allow(int hw, int src, uint32_t tag) {
    PortalCtl *p = portal(cluster_id(), hw);
    p->tag = tag;
    __atomic_fetch_add(&p->epoch, 1u, __ATOMIC_ACQ_REL);
    store(&p->allowed, static_cast<uint32_t>(src) + 1);
    notify_core(src, 0);
}

void portal_close(int hw) {
    PortalCtl *p = portal(cluster_id(), hw);
    store(&p->allowed, 0);
    __atomic_fetch_add(&p->epoch, 1u, __ATOMIC_ACQ_REL);
}

size_t portal_read_chunk(int hw, void *buf, size_t remaining) {
    PortalCtl *p = portal(cluster_id(), hw);
    if (load(&p->full) != chunk_full) return 0;
    const int src = static_cast<int>(p->allowed) - 1;
    if (load(&p->chunk_epoch) != load(&p->epoch)) {  // left over from a closed transfer
        store(&p->full, chunk_free);
        if (src >= 0) notify_core(src, 0);
        return 0;
    }
    const size_t n = p->length < remaining ? p->length : remaining;
    memcpy(buf, portal_data(cluster_id(), hw), n);
    if (n == remaining) store(&p->allowed, 0);  // before the release: see portal_write_chunk
    store(&p->full, chunk_free);
    if (src >= 0) notify_core(src, 0);
    return n;
}

bool portal_write_chunk(int dst, int hw, uint32_t tag, const void *data, size_t n) {
    PortalCtl *p = portal(dst, hw);
    // Claim the chunk buffer, then check the allow: a receiver that ends a
    // transfer clears `allowed` before it frees the buffer, so an allow
    // seen after the claim belongs to a live transfer.
    uint32_t expected = chunk_free;
    if (!__atomic_compare_exchange_n(&p->full, &expected, chunk_writing, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return false;
    // The epoch read before the allow must still be current after it: an
    // allow that lands between the two reads (portal_allow bumps the epoch,
    // then stores the allow) would otherwise pass the check with the old
    // epoch, and the receiver would drop the chunk as stale.
    const uint32_t epoch = load(&p->epoch);
    if (load(&p->allowed) != static_cast<uint32_t>(cluster_id()) + 1 || p->tag != tag ||
        load(&p->epoch) != epoch) {
        store(&p->full, chunk_free);
        // The allowed sender may have found the buffer claimed by this
        // attempt, and waits for an event before it tries again.
        if (const uint32_t allowed = load(&p->allowed)) notify_core(static_cast<int>(allowed) - 1, 0);
        return false;
    }
    memcpy(portal_data(dst, hw), data, n);
    p->length = static_cast<uint32_t>(n);
    store(&p->chunk_epoch, epoch);
    store(&p->full, chunk_full);
    notify_core(dst, 0);
    return true;
}

void sync_signal(int dst, int port) {
    __atomic_fetch_add(sync_counter(dst, port, cluster_id()), 1u, __ATOMIC_ACQ_REL);
    notify_core(dst, 0);
}

bool sync_consume(int port, int src) {
    uint32_t *c = sync_counter(cluster_id(), port, src);
    uint32_t v = load(c);
    while (v != 0)
        if (__atomic_compare_exchange_n(c, &v, v - 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return true;
    return false;
}

}  // namespace hal::noc
