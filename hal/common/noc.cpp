// The emulated NoC interface. The fabric region holds, after the console
// lock, one block per cluster with that cluster's *input* resources, as
// many of each as the profile gives the cluster (manifest cluster table):
//   mailbox  [count of full slots | one slot per sender cluster: [full flag | message]]
//   portal   [allowed sender + 1 | tag | epoch | ... | a ring of
//            portal_depth chunk buffers, each with full flag, length, epoch]
//   sync     a signal counter per (port, sender cluster)
//   doorbell one word per port: 0 (the fabric starts zeroed) while an
//            arrival for the port must wake the cluster's master
// Blocks have one size, that of the richest cluster.
// A sender writes into the receiver's block; the receiver empties it.
// Each side wakes the other's master (an IPI) only when it is needed:
// an arrival for a port whose doorbell rings, or a slot or chunk freed
// for a sender that asked to be told. Only an attempt made on a master
// asks to be told: another core retries by itself (it polls, or posts its
// call to its master, whose attempt then asks), so two cores that poll
// exchange messages without waking either master.
#include <string.h>

#include "hal/hal.hpp"
#include "tessera/syscall.h"

namespace hal::noc {
namespace {

constexpr size_t header_bytes = 64;  // keeps flags and data in separate cache lines

// A portal's chunk buffers form a ring, so that the sender can write the
// next chunks while the receiver copies out the first: the two copies
// overlap. The sender fills buffer next_write % portal_depth, the receiver
// empties buffer next_read % portal_depth; each index has one writer. A
// buffer is claimed by a sender (chunk_writing) before it checks the
// allow, so that two senders never write it at once. Every allow and
// every close starts a new epoch; a chunk carries the epoch it was written
// in, and the receiver drops one from an earlier epoch (written for a
// transfer that was closed before it ended).
enum : uint32_t { chunk_free = 0, chunk_full = 1, chunk_writing = 2 };

constexpr uint32_t portal_depth = 8;

struct ChunkCtl {
    uint32_t full;  // chunk_*
    uint32_t length;
    uint32_t epoch;
};

struct PortalCtl {
    uint32_t allowed;  // sender cluster + 1; 0: no sender allowed
    uint32_t epoch;
    uint64_t tag;
    uint32_t wanted;           // bytes the allowed transfer takes (the reader's read)
    uint64_t accepted;         // epoch << 32 | bytes the allowed sender wrote under it
    uint32_t next_write;       // the allowed sender's: the next buffer it fills
    uint32_t next_read;        // the receiver's: the next buffer it empties
    uint32_t reader_waits;     // the receiver's master waits for a chunk
    uint32_t writers_waiting;  // bit s: sender cluster s's master waits for the allow or a buffer
    ChunkCtl chunks[portal_depth];
};
static_assert(TS_MAX_CLUSTERS <= 32, "writers_waiting has one bit per cluster");
constexpr size_t portal_header_bytes = (sizeof(PortalCtl) + 63) / 64 * 64;  // data on its own cache lines

struct SlotCtl {
    uint32_t full;
    uint32_t writer_waits;  // the sender's master waits for the slot
};

// Ahead of a mailbox's slots: how many may be full, so that a look for
// any message is one load (mailbox_any). A sender counts its slot before
// it fills it, the receiver uncounts it after it emptied it: the count is
// never below the slots that are full.
struct MailboxCtl {
    uint32_t filled;
};

size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

size_t slot_bytes() { return header_bytes + mailbox_size(); }
size_t mailbox_bytes() { return header_bytes + align_up(TS_MAX_CLUSTERS * slot_bytes(), 64); }
size_t chunk_stride() { return align_up(portal_chunk(), 64); }
size_t portal_bytes() { return portal_header_bytes + portal_depth * chunk_stride(); }
size_t sync_bytes() { return TS_PORTS * TS_MAX_CLUSTERS * sizeof(uint32_t); }
size_t doorbell_bytes() { return align_up(TS_PORTS * sizeof(uint32_t), 64); }

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
size_t block_stride() {
    return align_up(mailboxes_bytes() + portals_bytes() + sync_bytes() + doorbell_bytes(), 4096);
}

char *block(int cluster) {
    return reinterpret_cast<char *>(manifest().fabric_base) + first_block + block_stride() * cluster;
}

MailboxCtl *mailbox(int receiver, int hw) {
    return reinterpret_cast<MailboxCtl *>(block(receiver) + hw * mailbox_bytes());
}
SlotCtl *slot(int receiver, int hw, int sender) {
    return reinterpret_cast<SlotCtl *>(reinterpret_cast<char *>(mailbox(receiver, hw)) + header_bytes +
                                       sender * slot_bytes());
}
char *slot_data(int receiver, int hw, int sender) {
    return reinterpret_cast<char *>(slot(receiver, hw, sender)) + header_bytes;
}
PortalCtl *portal(int receiver, int hw) {
    return reinterpret_cast<PortalCtl *>(block(receiver) + mailboxes_bytes() + hw * portal_bytes());
}
char *chunk_data(PortalCtl *p, uint32_t index) {
    return reinterpret_cast<char *>(p) + portal_header_bytes + (index % portal_depth) * chunk_stride();
}
uint32_t *sync_counter(int receiver, int port, int sender) {
    auto *base = reinterpret_cast<uint32_t *>(block(receiver) + mailboxes_bytes() + portals_bytes());
    return base + port * TS_MAX_CLUSTERS + sender;
}
uint32_t *doorbell_quiet(int receiver, int port) {
    return reinterpret_cast<uint32_t *>(block(receiver) + mailboxes_bytes() + portals_bytes() +
                                        sync_bytes()) +
           port;
}

uint32_t load(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
void store(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
// The two sides of a "tell me" handshake (Dekker's): the waiter raises
// its flag, then looks at the resource again; the other side changes the
// resource, then looks at the flag. Sequentially consistent, so that at
// least one of them sees the other's store.
uint32_t load_sc(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
void store_sc(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }

// Set by set_quiet() around the master's attempts for a thread that runs.
bool master_quiet = false;

// Only the master asks to be told (see the top of this file), and not
// while it is quiet.
bool asks_to_be_told() { return core_id() == 0 && !master_quiet; }

// The sender `src` waited for portal p: tell it, once.
void tell_writer(PortalCtl *p, int src) {
    if (src < 0) return;
    const uint32_t bit = 1u << src;
    if (__atomic_fetch_and(&p->writers_waiting, ~bit, __ATOMIC_SEQ_CST) & bit) notify_core(src, 0);
}

// A writer that held a chunk buffer for a moment and let it go: the
// allowed sender may have found it claimed and asked to be told. Only
// masters ask, so when that sender is our own cluster and we are its
// master, its attempts and ours run one after another and ours kept
// nothing from it: a tell would only wake us at once, again and again
// while its transfer does not move. (Its request stays up for the reader.)
void tell_kept_writer(PortalCtl *p) {
    const int src = static_cast<int>(load_sc(&p->allowed)) - 1;
    if (src == cluster_id() && asks_to_be_told()) return;
    tell_writer(p, src);
}

}  // namespace

bool fabric_fits() { return first_block + block_stride() * manifest().nclusters <= manifest().fabric_size; }

void set_quiet(bool quiet) {
    if (core_id() == 0) master_quiet = quiet;
}

size_t mailbox_size() { return manifest().mailbox_size; }
size_t portal_chunk() { return manifest().portal_chunk; }
int mailboxes(int cluster) { return manifest().clusters[cluster].mailboxes; }
int portals(int cluster) { return manifest().clusters[cluster].portals; }

bool mailbox_send(int dst, int hw, int port, const void *msg) {
    SlotCtl *s = slot(dst, hw, cluster_id());
    if (load(&s->full)) {
        if (!asks_to_be_told()) return false;
        store_sc(&s->writer_waits, 1);
        if (load_sc(&s->full)) {
            // mailbox_release will tell us. Meanwhile the receiver's master
            // should empty the slot: its reader may be a core that polls
            // but is busy elsewhere.
            notify_core(dst, 0);
            return false;
        }
    }
    memcpy(slot_data(dst, hw, cluster_id()), msg, mailbox_size());
    __atomic_add_fetch(&mailbox(dst, hw)->filled, 1u, __ATOMIC_SEQ_CST);
    store_sc(&s->full, 1);
    if (!load_sc(doorbell_quiet(dst, port))) notify_core(dst, 0);
    return true;
}

bool mailbox_slot_full(int dst, int hw) { return load(&slot(dst, hw, cluster_id())->full) != 0; }

bool mailbox_peek(int hw, int src, void *msg) {
    const SlotCtl *s = slot(cluster_id(), hw, src);
    if (!load(&s->full)) return false;
    memcpy(msg, slot_data(cluster_id(), hw, src), mailbox_size());
    return true;
}

bool mailbox_any(int hw) { return load(&mailbox(cluster_id(), hw)->filled) != 0; }

void mailbox_release(int hw, int src) {
    SlotCtl *s = slot(cluster_id(), hw, src);
    store_sc(&s->full, 0);
    __atomic_sub_fetch(&mailbox(cluster_id(), hw)->filled, 1u, __ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&s->writer_waits, 0u, __ATOMIC_SEQ_CST)) notify_core(src, 0);
}

void set_doorbell(int port, bool rings) { store_sc(doorbell_quiet(cluster_id(), port), rings ? 0 : 1); }
bool doorbell_rings(int port) { return load_sc(doorbell_quiet(cluster_id(), port)) == 0; }

void portal_allow(int hw, int src, uint64_t tag, uint32_t bytes) {
    PortalCtl *p = portal(cluster_id(), hw);
    p->tag = tag;
    p->wanted = bytes;
    const uint32_t epoch = __atomic_add_fetch(&p->epoch, 1u, __ATOMIC_SEQ_CST);
    __atomic_store_n(&p->accepted, static_cast<uint64_t>(epoch) << 32, __ATOMIC_SEQ_CST);
    store_sc(&p->allowed, static_cast<uint32_t>(src) + 1);
    tell_writer(p, src);
}

void portal_close(int hw) {
    PortalCtl *p = portal(cluster_id(), hw);
    store(&p->allowed, 0);
    __atomic_fetch_add(&p->epoch, 1u, __ATOMIC_ACQ_REL);
}

size_t portal_read_chunk(int hw, void *buf, size_t remaining, size_t room) {
    PortalCtl *p = portal(cluster_id(), hw);
    ChunkCtl *c = &p->chunks[p->next_read % portal_depth];
    int src;
    for (;;) {
        if (load(&c->full) != chunk_full) {
            if (!asks_to_be_told()) return 0;
            store_sc(&p->reader_waits, 1);
            if (load_sc(&c->full) != chunk_full) return 0;  // portal_write_chunk will tell us
        }
        src = static_cast<int>(p->allowed) - 1;
        if (load(&c->epoch) == load(&p->epoch)) break;
        // Left over from a closed transfer: dropped; its successor may be
        // this transfer's first chunk.
        store_sc(&c->full, chunk_free);
        store(&p->next_read, p->next_read + 1);
        tell_writer(p, src);
        c = &p->chunks[p->next_read % portal_depth];
    }
    const size_t n = c->length < remaining ? c->length : remaining;
    if (room) memcpy(buf, chunk_data(p, p->next_read), n < room ? n : room);
    if (n == remaining) store(&p->allowed, 0);  // before the release: see portal_write_chunk
    store(&p->next_read, p->next_read + 1);
    store_sc(&c->full, chunk_free);
    tell_writer(p, src);
    return n;
}

bool portal_write_chunk(int dst, int hw, uint64_t tag, const void *data, size_t n) {
    PortalCtl *p = portal(dst, hw);
    // Claim the chunk buffer, then check the allow: a receiver that ends a
    // transfer clears `allowed` before it frees the buffer, so an allow
    // seen after the claim belongs to a live transfer.
    const uint32_t me = 1u << cluster_id();
    // The next buffer: read the index, claim its buffer, and check that the
    // index did not move meanwhile (the allowed sender's chunk went in), or
    // we would hold a buffer that is not the next one: then again.
    uint32_t index = 0;
    ChunkCtl *c = nullptr;
    auto claim = [&] {
        for (;;) {
            index = load_sc(&p->next_write);
            c = &p->chunks[index % portal_depth];
            uint32_t expected = chunk_free;
            const bool held = __atomic_compare_exchange_n(&c->full, &expected, chunk_writing, false,
                                                          __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            if (load_sc(&p->next_write) == index) return held;
            if (held) {
                store_sc(&c->full, chunk_free);
                tell_kept_writer(p);  // it may have found it held
            }
        }
    };
    if (!claim()) {
        if (!asks_to_be_told()) return false;
        __atomic_fetch_or(&p->writers_waiting, me, __ATOMIC_SEQ_CST);
        if (!claim()) return false;  // the reader's release will tell us
    }
    // The epoch read before the allow must still be current after it: an
    // allow that lands between the two reads (portal_allow bumps the epoch,
    // then stores the allow) would otherwise pass the check with the old
    // epoch, and the receiver would drop the chunk as stale. The chunk's
    // bytes are then booked under that epoch, up to what the reader takes:
    // once it has all it wants, the sender's next bytes wait for the next
    // allow (the ring may still hold this transfer's last chunks, unread).
    uint32_t epoch = 0;
    auto allowed = [&] {
        epoch = load_sc(&p->epoch);
        if (load_sc(&p->allowed) != static_cast<uint32_t>(cluster_id()) + 1 || p->tag != tag ||
            load_sc(&p->epoch) != epoch)
            return false;
        uint64_t booked = __atomic_load_n(&p->accepted, __ATOMIC_SEQ_CST);
        if (booked >> 32 != epoch || static_cast<uint32_t>(booked) >= p->wanted) return false;
        return __atomic_compare_exchange_n(&p->accepted, &booked, booked + n, false, __ATOMIC_SEQ_CST,
                                           __ATOMIC_SEQ_CST);
    };
    bool ok = allowed();
    if (!ok && asks_to_be_told()) {
        // Ask portal_allow to tell us, then look again. The request stays
        // up until a tell, even if this cluster writes in between: another
        // transfer of ours may wait too, and a needless wake-up costs less
        // than a lost one.
        __atomic_fetch_or(&p->writers_waiting, me, __ATOMIC_SEQ_CST);
        ok = allowed();
    }
    if (!ok) {
        store_sc(&c->full, chunk_free);
        // The allowed sender may have found the buffer claimed by this
        // attempt, and waits to be told before it tries again.
        tell_kept_writer(p);
        return false;
    }
    memcpy(chunk_data(p, index), data, n);
    c->length = static_cast<uint32_t>(n);
    store(&c->epoch, epoch);
    store(&p->next_write, index + 1);
    store_sc(&c->full, chunk_full);
    if (__atomic_exchange_n(&p->reader_waits, 0u, __ATOMIC_SEQ_CST)) notify_core(dst, 0);
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
