// MPIUtil's IKC path, the eager and rendezvous protocols over IKC
// (control.hpp draws the exchanges), in three parts: ikc_send.cpp (the
// eager messages and the queue of outgoing control messages),
// ikc_rendezvous.cpp (the portal transfers) and ikc_recv.cpp (the mailbox
// ring, the handling of each arrival, the waits); engine.hpp declares
// what the engine calls. Each rank has one input mailbox, whose arrivals
// the kernel puts in a ring in the rank's memory (polled without a kernel
// call), and one input portal on its MPI port. The portal takes one
// transfer at a time: matched rendezvous receives queue for it. A message
// leaves with one kernel call when its receiver has room (trywrite), else
// in the background. Nothing here blocks but the waits (ikc_wait_any(),
// ikc_wait_outside()). This header: what the parts call of one another.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "control.hpp"
#include "engine.hpp"

namespace lwmpi::util {

// ---- ikc_send.cpp ----

/// Bytes a mailbox message of the job may carry.
uint64_t payload();

/// The entry of outs[0..n) open to `to`, or -1.
int open_to(const OutEndpoint *outs, int n, const Address &to);

/// The entry of outs[0..n) open to `to`, in *out: the one already open,
/// else a free one or the least recently used, (re)opened with `open`. -1
/// in *out when the one open to `to`, or every one, is busy (or pinned).
int out_endpoint(OutEndpoint *outs, int n, const Address &to, int (*open)(int, int, int), int (*close)(int),
                 int *out);

/// The active request of `token`, or nullptr; send_of: only a send.
Request *request_of(uint32_t token);
/// The request of `token`, active or done (not released), or nullptr.
Request *request_in_use(uint32_t token);
Request *send_of(uint32_t id);

/// A header for rank `to`, giving back the credits of its eager messages
/// I consumed since I last wrote to it.
ControlMsg control_to(int to, ControlKind k, uint32_t seq);

/// Posts the reply `k` (CTS) to the sender of receive `r`.
int post_reply(const Request &r, ControlKind k, uint64_t bytes);

// ---- ikc_recv.cpp ----

/// I consumed an eager message of `source`: the credit goes back with my
/// next message to it, or in a CREDIT once half of them are consumed.
int consume_eager(int source);

// ---- ikc_rendezvous.cpp ----

/// Starts rendezvous send r to `to`: its RTS, then its portal write at
/// once on the kept portal to `to`, or after the CTS (RTS_CTS).
int send_rts(Request &r, const Address &to);

/// CTS for rendezvous send r, which waits for it (RTS_CTS) or waits in
/// line for its kept portal (its receiver took it before an older one).
int on_cts(Request &r);

/// Rendezvous sends whose portal write ended complete; then the sends
/// that wait for a portal try again, oldest first.
int poll_writes(bool *did);

/// Rendezvous send r, whose receiver took its RTS out (a cancel), gives
/// up what it waits for, since no CTS and no allow will come; r is done.
int abandon(Request &r);

/// Starts the portal transfer of the oldest matched rendezvous receive.
int start_incoming();

/// The portal transfer under way, if it ended, completes its receive and
/// the next one starts.
int poll_incoming(bool *did);

// ---- withdraw.cpp ----

/// WITHDRAW `m` from the sender of a message: takes it out of my
/// unexpected messages if it is there, and answers.
int on_withdraw(const ControlMsg &m);

/// WITHDRAWN `m`: the answer to a cancel of mine.
int on_withdrawn(const ControlMsg &m);

}  // namespace lwmpi::util
