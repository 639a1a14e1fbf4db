// Inter-kernel communication: virtual mailboxes, portals and syncs,
// multiplexed over the cluster's NoC resources through logical ports.
//
// Every cluster has one hardware input mailbox and one hardware input
// portal (hal::noc); any number of virtual ones (up to the table sizes)
// share them, each bound to a logical port 0..TS_PORTS-1. Ids returned here
// index the virtual tables; an object belongs to the process that made it
// (nullptr: the kernel itself) and only its owner may use it.
//
// Only the master runs these functions (kernel calls are forwarded to it),
// so the tables have a single writer and need no lock. An operation that
// may have to wait is written as attempts: it returns `pending` until it is
// done; the master tries again on a later event. Buffers are kernel
// addresses or user addresses the kernel-call layer has just checked.
#pragma once

#include "kernel/kernel.hpp"

namespace kernel::ikc {

void init();
/// Bytes of user data that fit in one mailbox message.
size_t mailbox_payload();

long mailbox_create(int port);
long mailbox_open(int local_port, int cluster, int port);
/// Next message for the mailbox's port, in arrival order; copies
/// min(size, message bytes) and returns the message's bytes, or pending.
long mailbox_read(int id, void *buf, size_t size);
/// size, -TS_EINVAL (more than mailbox_payload()), or pending while the
/// receiver's slot is full.
long mailbox_write(int id, const void *buf, size_t size);
/// The kernel's own sends (no virtual mailbox needed): one message from
/// local_port to (cluster, port), or pending. Arguments must be valid.
long mailbox_send(int local_port, int cluster, int port, const void *buf, size_t size);
long mailbox_close(int id);
long mailbox_unlink(int id);

long portal_create(int port);
long portal_allow(int id, int cluster, int port);
long portal_open(int local_port, int cluster, int port);
/// Receives exactly `size` bytes from the allowed sender into buf (which
/// receives byte p.done next): size, or pending.
long portal_read(int id, void *buf, size_t size, Progress &p);
/// Gives the hardware portal back when a read is cut short.
void portal_read_cancel(Call &c);
/// Sends `size` bytes once the receiver allows us: size, or pending.
long portal_write(int id, const void *buf, size_t size, Progress &p);
long portal_close(int id);
long portal_unlink(int id);

long sync_create(const int *clusters, int n, int type, int port);
long sync_open(const int *clusters, int n, int type, int port);
/// 0 once every expected signal was consumed, or pending.
long sync_wait(int id, Progress &p);
long sync_signal(int id);
long sync_close(int id);
long sync_unlink(int id);

// ---- kernel-call adapters ------------------------------------------------------
// They turn a kernel call's registers into the arguments of the functions
// above, checking user buffers on every attempt (a buffer may be unmapped by
// another thread between two attempts); syscall.cpp lists them.

template <long (*F)(int)>
long sys_id(Call &c) {
    return F(static_cast<int>(c.a[0]));
}

template <long (*F)(int, int, int)>
long sys_three(Call &c) {
    return F(static_cast<int>(c.a[0]), static_cast<int>(c.a[1]), static_cast<int>(c.a[2]));
}

template <long (*F)(int, void *, size_t)>
long sys_receive(Call &c) {
    if (long err = check_user(c.a[1], c.a[2], true)) return err;
    return F(static_cast<int>(c.a[0]), reinterpret_cast<void *>(c.a[1]), c.a[2]);
}

template <long (*F)(int, const void *, size_t)>
long sys_send(Call &c) {
    if (long err = check_user(c.a[1], c.a[2], false)) return err;
    return F(static_cast<int>(c.a[0]), reinterpret_cast<const void *>(c.a[1]), c.a[2]);
}

/// Portal read (Buf = void *) and write (Buf = const void *).
template <class Buf, long (*F)(int, Buf, size_t, Progress &)>
long sys_transfer(Call &c) {
    constexpr bool to_user = !__is_same(Buf, const void *);
    if (long err = check_user(c.a[1], c.a[2], to_user)) return err;
    return F(static_cast<int>(c.a[0]), reinterpret_cast<Buf>(c.a[1]), c.a[2], c.p);
}

/// For sync create/open: copies the user's cluster list first.
template <long (*F)(const int *, int, int, int)>
long sys_sync_make(Call &c) {
    const uint64_t n = c.a[1];
    if (n < 2 || n > TS_MAX_CLUSTERS) return -TS_EINVAL;
    int clusters[TS_MAX_CLUSTERS];
    if (long err = copy_from_user(clusters, c.a[0], n * sizeof(int))) return err;
    return F(clusters, static_cast<int>(n), static_cast<int>(c.a[2]), static_cast<int>(c.a[3]));
}

inline long sys_sync_wait(Call &c) { return sync_wait(static_cast<int>(c.a[0]), c.p); }

// ---- shared by mailboxes and portals ----------------------------------------

/// A virtual mailbox or portal: an input bound to a local port, or an
/// output from a local port to a remote (cluster, port).
struct Endpoint {
    bool used = false;
    bool input = false;
    Process *owner = nullptr;
    int local_port = 0;
    int remote_cluster = -1;
    int remote_port = -1;
    bool allowed = false;  ///< input portals: an allow waits for its read
    int allow_cluster = -1;
    int allow_port = -1;
};

/// The virtual table of one abstraction.
template <int N>
struct EndpointTable {
    Endpoint entries[N];

    /// A new input on `port`: id, -TS_EINVAL (bad port), -TS_EBUSY, -TS_ENFILE.
    long create(int port);
    /// A new output: id, -TS_EINVAL (bad port or cluster), -TS_ENFILE.
    long open(int local_port, int cluster, int port);
    /// The caller's endpoint `id` of the given direction, or nullptr.
    Endpoint *get(int id, bool input);
    /// Frees the caller's endpoint: 0 or -TS_EBADF.
    long release(int id, bool input);
};

bool valid_port(int port);
bool valid_cluster(int cluster);

template <int N>
long EndpointTable<N>::create(int port) {
    if (!valid_port(port)) return -TS_EINVAL;
    int free = -1;
    for (int i = 0; i < N; ++i) {
        if (entries[i].used && entries[i].input && entries[i].local_port == port) return -TS_EBUSY;
        if (!entries[i].used && free < 0) free = i;
    }
    if (free < 0) return -TS_ENFILE;
    entries[free] = Endpoint{true, true, current_process(), port};
    return free;
}

template <int N>
long EndpointTable<N>::open(int local_port, int cluster, int port) {
    if (!valid_port(local_port) || !valid_port(port) || !valid_cluster(cluster)) return -TS_EINVAL;
    for (int i = 0; i < N; ++i) {
        if (!entries[i].used) {
            entries[i] = Endpoint{true, false, current_process(), local_port, cluster, port};
            return i;
        }
    }
    return -TS_ENFILE;
}

template <int N>
Endpoint *EndpointTable<N>::get(int id, bool input) {
    if (id < 0 || id >= N) return nullptr;
    Endpoint &e = entries[id];
    return e.used && e.input == input && e.owner == current_process() ? &e : nullptr;
}

template <int N>
long EndpointTable<N>::release(int id, bool input) {
    Endpoint *e = get(id, input);
    if (!e) return -TS_EBADF;
    e->used = false;
    return 0;
}

/// Tag of a portal transfer between two ports (carried by the allow).
constexpr uint32_t portal_tag(int sender_port, int receiver_port) {
    return static_cast<uint32_t>(sender_port) << 16 | static_cast<uint32_t>(receiver_port);
}

}  // namespace kernel::ikc
