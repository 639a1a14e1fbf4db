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

#include "kernel/kcall_args.hpp"

namespace kernel::ikc {

using Dir = kcall::Dir;

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

// ---- kernel calls ---------------------------------------------------------------
// The handlers (sys_<call>, declared below from <tessera/kcalls.def>) get
// their ids decoded into these objects by the decoders that follow, once
// per attempt (kernel/kcall_args.hpp), and call the functions above or
// their forms that take the object.

/// A virtual mailbox or portal (virtual.hpp).
struct Endpoint;
/// A virtual sync (sync.cpp).
struct Sync;
/// A window (window.cpp).
struct Window;

/// The caller's endpoint `id` of table `object` (mailbox, portal) and
/// direction `dir`: 0, -TS_EBADF (no such endpoint), -TS_EPERM (another
/// process's).
long decode_endpoint(kcall::Object object, kcall::Dir dir, int id, Endpoint *&out);
/// The caller's sync `id` of side `dir`: 0, -TS_EBADF, -TS_EPERM.
long decode_sync(kcall::Dir dir, int id, Sync *&out);
/// The caller's window `key`: 0, -TS_EBADF.
long decode_window(int key, Window *&out);

/// The NoC's tag of a portal transfer between two ports that its writer
/// tagged `tag` (carried by the allow; a chunk with another tag waits).
constexpr uint64_t portal_tag(int sender_port, int receiver_port, uint32_t tag) {
    return static_cast<uint64_t>(tag) << 32 | static_cast<uint32_t>(sender_port) << 16 |
           static_cast<uint32_t>(receiver_port);
}

bool valid_port(int port);
bool valid_cluster(int cluster);

}  // namespace kernel::ikc

namespace kernel::kcall {

template <Object O, Dir D>
struct EndpointId {
    using type = ikc::Endpoint *;
    static constexpr Pass pass = Pass::id;
    static long decode(const Call &c, int i, type &out) {
        return ikc::decode_endpoint(O, D, id_of(c, i), out);
    }
};
template <Dir D>
struct Id<Object::mailbox, D> : EndpointId<Object::mailbox, D> {};
template <Dir D>
struct Id<Object::portal, D> : EndpointId<Object::portal, D> {};

template <Dir D>
struct Id<Object::sync, D> {
    using type = ikc::Sync *;
    static constexpr Pass pass = Pass::id;
    static long decode(const Call &c, int i, type &out) { return ikc::decode_sync(D, id_of(c, i), out); }
};

template <Dir D>
struct Id<Object::window, D> {
    using type = ikc::Window *;
    static constexpr Pass pass = Pass::id;
    static long decode(const Call &c, int i, type &out) { return ikc::decode_window(id_of(c, i), out); }
};

}  // namespace kernel::kcall

// The arguments and handlers of the IKC calls (kcall_args.hpp).
namespace kernel::ikc {
#define TS_KCALL(...) KC_LAYER_CALLS(ikc, __VA_ARGS__)
#include <tessera/kcalls.def>
#undef TS_KCALL
}  // namespace kernel::ikc
