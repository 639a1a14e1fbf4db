// Inter-kernel communication: virtual mailboxes, portals and syncs,
// multiplexed over the cluster's NoC resources through logical ports.
//
// Each cluster has the hardware input mailboxes and portals its profile
// gives it (hal::noc). Programs never see them: they create and open
// virtual abstractions by (cluster, logical port), 0..TS_PORTS-1; the
// kernel maps them N:1 onto the hardware through an active table
// (active.hpp) and parks messages that arrive for other ports in a buffers
// table (buffers.hpp). Ids returned here index the virtual tables; an
// object belongs to the process that made it (nullptr: the kernel itself)
// and only its owner may use it.
//
// Only the master runs these functions (kernel calls are forwarded to it),
// so the tables have a single writer and need no lock of their own. An
// operation that may have to wait is written as attempts: it returns
// `pending` until it is done; the master tries again on a later event.
// Buffers are kernel addresses or user addresses the kernel-call layer has
// just checked.
#pragma once

#include "kernel/core.hpp"

namespace kernel::ikc {

/// Checks the profile's NoC parameters against the kernel's tables; panics
/// when they do not fit (the image builder refuses such profiles first).
void init();
/// Bytes of user data that fit in one mailbox message.
size_t mailbox_payload();
/// The master, on every pass: attempts the running asynchronous operations.
/// True when one finished (a WAIT may complete).
bool poll();
/// The master, when p has ended: frees p's mailboxes, portals and syncs.
void release_process(Process *p);
/// The master, before it sleeps: an arrival for a port wakes it unless a
/// process reads that port from a core that runs (and so polls for its own
/// messages). True when a port's doorbell started ringing: the master must
/// look at the mailboxes once more before it sleeps.
bool update_doorbells();

/// An input mailbox on `port`: id, -TS_EINVAL, -TS_EBUSY, -TS_ENFILE.
long mailbox_create(int port);
/// An output mailbox from local_port to (cluster, port): id, -TS_EINVAL, -TS_ENFILE.
long mailbox_open(int local_port, int cluster, int port);
/// Next message for the mailbox's port, in arrival order; copies
/// min(size, message bytes) and returns the message's bytes, or pending.
/// p (optional) times the read for the statistics.
long mailbox_read(int id, void *buf, size_t size, Progress *p = nullptr);
/// size, -TS_EINVAL (more than mailbox_payload()), or pending while the
/// receiver's slot is full.
long mailbox_write(int id, const void *buf, size_t size, Progress *p = nullptr);
/// The kernel's own sends (no virtual mailbox needed): one message from
/// local_port to (cluster, port), or pending. Arguments must be valid.
long mailbox_send(int local_port, int cluster, int port, const void *buf, size_t size);
long mailbox_close(int id);
long mailbox_unlink(int id);

long portal_create(int port);
/// Lets (cluster, port) send the next transfer to input portal id, the
/// one it writes with `tag` (0: untagged): 0, -TS_EBADF, -TS_EPERM,
/// -TS_EINVAL.
long portal_allow(int id, int cluster, int port, uint32_t tag);
long portal_open(int local_port, int cluster, int port);
/// Receives a transfer of `transfer` bytes (0: size) from the allowed
/// sender, its first `size` into buf and the rest dropped (p.done: the
/// transfer's bytes so far): size, or pending; -TS_EINVAL without an allow,
/// or when 0 < transfer < size. `user`: buf is a user address, checked
/// chunk by chunk (-TS_EFAULT).
long portal_read(int id, void *buf, size_t size, size_t transfer, Progress &p, bool user);
/// Gives the hardware portal back when a read is cut short.
void portal_read_cancel(Call &c);
/// Sends `size` bytes once the receiver allows us with `tag`: size, or pending.
long portal_write(int id, const void *buf, size_t size, uint32_t tag, Progress &p, bool user);
long portal_close(int id);
long portal_unlink(int id);

long sync_create(const int *clusters, int n, int type, int port);
long sync_open(const int *clusters, int n, int type, int port);
/// 0 once every expected signal was consumed, or pending.
long sync_wait(int id, Progress &p);
long sync_signal(int id);
long sync_close(int id);
long sync_unlink(int id);

/// Windows (window.cpp): creates the window agent's mailboxes (ports
/// TS_PORT_WINDOW and TS_PORT_WINDOW_REPLY). Master only, at boot.
void window_init();
/// One step of the window agent: takes the replies that came for our
/// windows, serves the requests that came for them as far as their
/// answers find room, never waits. True when it moved anything (a WINDOW_ACCESS may go on).
bool window_poll();

// ---- kernel-call handlers ----------------------------------------------------
// They turn a kernel call's registers into the arguments of the functions
// above, checking user buffers on every attempt (a buffer may be unmapped by
// another thread between two attempts). Each is named sys_<call> after its
// entry in <tessera/kcalls.def>, from which kernel/syscall.cpp builds the
// call table.

template <long (*F)(int)>
long sys_id(Call &c) {
    return F(static_cast<int>(c.a[0]));
}

template <long (*F)(int, int, int)>
long sys_three(Call &c) {
    return F(static_cast<int>(c.a[0]), static_cast<int>(c.a[1]), static_cast<int>(c.a[2]));
}

constexpr Handler sys_mailbox_create = sys_id<mailbox_create>;
constexpr Handler sys_mailbox_open = sys_three<mailbox_open>;
constexpr Handler sys_mailbox_close = sys_id<mailbox_close>;
constexpr Handler sys_mailbox_unlink = sys_id<mailbox_unlink>;
long sys_mailbox_read(Call &c);
long sys_mailbox_write(Call &c);
long sys_mailbox_aread(Call &c);
long sys_mailbox_awrite(Call &c);
long sys_mailbox_wait(Call &c);
/// WAIT with TS_IKC_NOWAIT, tried without master_lock: -TS_EAGAIN when
/// nothing can have come for the caller's running AREAD (nothing parked
/// for its port, no full slot in its hardware mailbox); else pending, and
/// the call is served as usual. It reads shared state only.
long mailbox_wait_fast(Call &c);
long sys_mailbox_trywrite(Call &c);
long sys_mailbox_ring(Call &c);
long sys_mailbox_drain(Call &c);
/// DRAIN tried without master_lock: 0 when nothing can have come for the
/// caller's ringed mailbox (as mailbox_wait_fast); else pending.
long mailbox_drain_fast(Call &c);
/// TRYWRITE tried without master_lock: -TS_EAGAIN when the caller's output
/// mailbox is valid, the size and buffer are, and the receiver's slot for
/// this cluster is still full; else pending (the locked call decides).
long mailbox_trywrite_fast(Call &c);
/// WAIT_ANY (a0 seen, a1 timeout_ns): the calling core's count of events
/// (its asynchronous operations that finished, WAKEs for it) once it
/// differs from `seen` or the timeout passed; pending until then.
long sys_ikc_wait_any(Call &c);
/// WAKE (a0 core): an event for the thread of the caller's process on that
/// core: 0, or -TS_EINVAL.
long sys_ikc_wake(Call &c);
long sys_mailbox_ioctl(Call &c);

long sys_window_create(Call &c);
long sys_window_expose(Call &c);
long sys_window_withdraw(Call &c);
long sys_window_free(Call &c);
long sys_window_access(Call &c);

constexpr Handler sys_portal_create = sys_id<portal_create>;
long sys_portal_allow(Call &c);
constexpr Handler sys_portal_open = sys_three<portal_open>;
constexpr Handler sys_portal_close = sys_id<portal_close>;
constexpr Handler sys_portal_unlink = sys_id<portal_unlink>;
long sys_portal_read(Call &c);
long sys_portal_write(Call &c);
long sys_portal_aread(Call &c);
long sys_portal_awrite(Call &c);
long sys_portal_wait(Call &c);
long sys_portal_ioctl(Call &c);

/// For sync create/open: copies the user's cluster list first.
template <long (*F)(const int *, int, int, int)>
long sys_sync_make(Call &c) {
    const uint64_t n = c.a[1];
    if (n < 2 || n > TS_MAX_CLUSTERS) return -TS_EINVAL;
    int clusters[TS_MAX_CLUSTERS];
    if (long err = copy_from_user(clusters, c.a[0], n * sizeof(int))) return err;
    return F(clusters, static_cast<int>(n), static_cast<int>(c.a[2]), static_cast<int>(c.a[3]));
}

constexpr Handler sys_sync_create = sys_sync_make<sync_create>;
constexpr Handler sys_sync_open = sys_sync_make<sync_open>;
constexpr Handler sys_sync_signal = sys_id<sync_signal>;
constexpr Handler sys_sync_close = sys_id<sync_close>;
constexpr Handler sys_sync_unlink = sys_id<sync_unlink>;
inline long sys_sync_wait(Call &c) { return sync_wait(static_cast<int>(c.a[0]), c.p); }
long sys_sync_ioctl(Call &c);

/// The NoC's tag of a portal transfer between two ports that its writer
/// tagged `tag` (carried by the allow; a chunk with another tag waits).
constexpr uint64_t portal_tag(int sender_port, int receiver_port, uint32_t tag) {
    return static_cast<uint64_t>(tag) << 32 | static_cast<uint32_t>(sender_port) << 16 |
           static_cast<uint32_t>(receiver_port);
}

bool valid_port(int port);
bool valid_cluster(int cluster);

}  // namespace kernel::ikc
