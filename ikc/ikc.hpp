// Inter-kernel communication: virtual mailboxes, portals and syncs,
// multiplexed over the cluster's NoC resources through logical ports.
//
// Every cluster has one hardware input mailbox and one hardware input
// portal (hal::noc); any number of virtual ones (up to the table sizes)
// share them, each bound to a logical port 0..TS_PORTS-1. Ids returned here
// index the virtual tables; an object belongs to the process that made it
// (nullptr: the kernel itself) and only its owner may use it.
//
// The functions take the kernel lock themselves; buffers are kernel
// addresses or user addresses already checked by the kernel-call layer.
#pragma once

#include "kernel/kernel.hpp"

namespace kernel::ikc {

void init();
/// Bytes of user data that fit in one mailbox message.
size_t mailbox_payload();

long mailbox_create(int port);
long mailbox_open(int local_port, int cluster, int port);
/// Next message for the mailbox's port, in arrival order; copies
/// min(size, message bytes) and returns the message's bytes.
long mailbox_read(int id, void *buf, size_t size);
long mailbox_write(int id, const void *buf, size_t size);
/// The kernel's own sends (no virtual mailbox needed): one message from
/// local_port to (cluster, port). Arguments must be valid.
long mailbox_send(int local_port, int cluster, int port, const void *buf, size_t size);
long mailbox_close(int id);
long mailbox_unlink(int id);

long portal_create(int port);
long portal_allow(int id, int cluster, int port);
long portal_open(int local_port, int cluster, int port);
/// Receives exactly `size` bytes from the allowed sender.
long portal_read(int id, void *buf, size_t size);
/// Sends `size` bytes once the receiver allows us.
long portal_write(int id, const void *buf, size_t size);
long portal_close(int id);
long portal_unlink(int id);

long sync_create(const int *clusters, int n, int type, int port);
long sync_open(const int *clusters, int n, int type, int port);
long sync_wait(int id);
long sync_signal(int id);
long sync_close(int id);
long sync_unlink(int id);

// ---- kernel-call adapters ------------------------------------------------------
// They turn a kernel call's registers into the arguments of the functions
// above, checking user buffers on the way; syscall.cpp lists them.

template <long (*F)(int)>
long sys_id(uint64_t a0, uint64_t, uint64_t, uint64_t) {
    return F(static_cast<int>(a0));
}

template <long (*F)(int, int, int)>
long sys_three(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t) {
    return F(static_cast<int>(a0), static_cast<int>(a1), static_cast<int>(a2));
}

template <long (*F)(int, void *, size_t)>
long sys_receive(uint64_t id, uint64_t buf, uint64_t size, uint64_t) {
    if (long err = check_user(buf, size, true)) return err;
    return F(static_cast<int>(id), reinterpret_cast<void *>(buf), size);
}

template <long (*F)(int, const void *, size_t)>
long sys_send(uint64_t id, uint64_t buf, uint64_t size, uint64_t) {
    if (long err = check_user(buf, size, false)) return err;
    return F(static_cast<int>(id), reinterpret_cast<const void *>(buf), size);
}

/// For sync create/open: copies the user's cluster list first.
template <long (*F)(const int *, int, int, int)>
long sys_sync_make(uint64_t list, uint64_t n, uint64_t type, uint64_t port) {
    if (n < 2 || n > TS_MAX_CLUSTERS) return -TS_EINVAL;
    int clusters[TS_MAX_CLUSTERS];
    if (long err = copy_from_user(clusters, list, n * sizeof(int))) return err;
    return F(clusters, static_cast<int>(n), static_cast<int>(type), static_cast<int>(port));
}

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

/// The virtual table of one abstraction. create/open/release take the
/// kernel lock; get needs it held.
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
    hal::Guard g(lock);
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
    hal::Guard g(lock);
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
    hal::Guard g(lock);
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
