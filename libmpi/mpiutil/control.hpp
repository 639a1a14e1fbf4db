// The messages of LWMPI's IKC protocols, carried in mailbox messages (one
// per mailbox write). Pure C++ (host-tested).
//
// Rendezvous (messages above the eager threshold, and synchronous sends):
//
//   sender S                                  receiver R
//   RTS{ctx, tag, S, seq, bytes}  ------------>  (matched by a receive)
//   portal awrite(bytes, tag seq)                portal allow(S, tag seq),
//     (waits in S's kernel for the allow)          aread(capacity of bytes)
//                                 ==========>  (data lands in the buffer)
//
// The portal allow is the clear to send: the write, tagged with the send's
// seq, waits for the allow of that tag, so that a receiver may take a
// sender's messages in any order. A portal write ends once its data is in
// the receiver's portal, so each side completes when its own portal
// operation ends: no acknowledgement. A receiver whose buffer is smaller
// keeps what fits and drops the rest (MPI_ERR_TRUNCATE).
//
// S keeps an output portal open to each of a few receivers, and its
// sends to one receiver write through it one after the other, in the
// order they were sent; R, which takes them in that order as a rule,
// sends nothing back. When R allows a message before an older RTS of the
// same S (another tag, a receive posted later), it answers CTS{seq}: S
// takes the portal back from the older one's write, which no allow can
// move meanwhile (cancelled, restarted after), and writes this one. A send
// that gets no kept portal says so with RTS_CTS: R answers CTS{seq} when
// it allows the transfer, and S writes then, on a kept portal or one of
// its own. A message of no bytes moves nothing through the portal:
// RTS_CTS, and the CTS ends the exchange (a synchronous send learns its
// receive matched).
//
// Eager (standard sends up to the threshold): an EAGER message carries the
// envelope and the first bytes; EAGER_MORE messages from the same sender
// follow at once with the rest (a sender's mailbox messages arrive in
// order). The send completes when the last one is written. Every header a
// rank writes to a peer gives back the credits of the peer's eager
// messages it consumed since it last wrote to it (`credit`); a receiver
// that has written nothing to a sender by the time it consumed half of the
// eager messages a sender may have outstanding (eager_credits()) sends them
// in a CREDIT of its own. A ping-pong thus needs no CREDIT message.
//
// Cancelling a send (MPI 3.1 section 3.8.4): the sender writes
// WITHDRAW{seq}; its receiver, which has every message the sender wrote
// before (a sender's mailbox messages, and its local messages, arrive in
// order), takes the send's message out of its unexpected ones if no
// receive matched it yet, and answers WITHDRAWN{seq, bytes 1: taken out,
// 0: matched}. The send's EAGER, RTS and local messages carry its seq.
//
// KICK wakes a rank of the same cluster that sleeps on its mailbox (the
// local path signals through shared memory otherwise).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace lwmpi::util {

inline constexpr uint8_t control_version = 6;

enum class ControlKind : uint8_t {
    rts = 1,         ///< request to send: an envelope and the bytes; the write comes, in order, for the allow
    cts = 2,         ///< clear to send: the receiver allowed the transfer
    eager = 3,       ///< an envelope, the size and the first bytes of data
    eager_more = 4,  ///< the next bytes of the sender's current eager message
    credit = 5,      ///< only gives back credits (`credit`)
    kick = 6,        ///< wake up (nothing else)
    rts_cts = 7,     ///< as RTS, but the sender writes once a CTS came
    withdraw = 8,    ///< the sender cancels its send `seq`
    withdrawn = 9,   ///< the answer: `bytes` 1 when the message was taken out, 0 when matched
};

/// The header of every message but EAGER_MORE: 32 bytes, naturally
/// aligned, in the byte order of the machine (every cluster runs the same
/// ISA).
struct ControlMsg {
    uint8_t kind;      ///< ControlKind
    uint8_t version;   ///< control_version
    uint16_t credit;   ///< eager messages of the reader's the writer consumed and gives back
    uint32_t context;  ///< RTS, EAGER: communicator context id; else 0
    int32_t source;    ///< world rank of the writer
    int32_t tag;       ///< RTS, EAGER: message tag; else 0
    uint32_t
        seq;  ///< RTS, CTS, EAGER, WITHDRAW(N): the sender's id of the send (RTS: its portal write's tag)
    int16_t cluster;  ///< writer's cluster id (reply address)
    int16_t port;     ///< writer's mailbox and portal port (reply address)
    uint64_t bytes;   ///< RTS, EAGER: the message's bytes; else 0
};
static_assert(sizeof(ControlMsg) == 32, "the control message layout is part of the protocol");
static_assert(alignof(ControlMsg) == 8);

/// The header of EAGER_MORE: 8 bytes, then data.
struct FragmentHeader {
    uint8_t kind;  ///< ControlKind::eager_more
    uint8_t version;
    uint16_t reserved0;
    int32_t source;  ///< world rank of the writer
};
static_assert(sizeof(FragmentHeader) == 8);

/// A control message of kind `k` with the writer's identity filled in.
constexpr ControlMsg make_control(ControlKind k, int source, int cluster, int port, uint32_t seq) {
    ControlMsg m{};
    m.kind = static_cast<uint8_t>(k);
    m.version = control_version;
    m.source = source;
    m.cluster = static_cast<int16_t>(cluster);
    m.port = static_cast<int16_t>(port);
    m.seq = seq;
    return m;
}

/// Data bytes an EAGER message (`first`) and an EAGER_MORE message carry,
/// for a mailbox payload of `payload` bytes.
constexpr uint64_t eager_first_bytes(uint64_t payload) { return payload - sizeof(ControlMsg); }
constexpr uint64_t eager_more_bytes(uint64_t payload) { return payload - sizeof(FragmentHeader); }

/// True when the `nread` bytes at `m` are a well-formed LWMPI message
/// from a rank of a job of `np` ranks. `m` is aligned for ControlMsg.
inline bool control_valid(const void *m, long nread, int np) {
    if (nread < static_cast<long>(sizeof(FragmentHeader))) return false;
    const auto *f = static_cast<const FragmentHeader *>(m);
    const auto kind = static_cast<ControlKind>(f->kind);
    if (f->version != control_version) return false;
    if (kind == ControlKind::eager_more)  // (its source is not where ControlMsg's is)
        return f->source >= 0 && f->source < np && nread > static_cast<long>(sizeof(FragmentHeader));
    if (f->kind < static_cast<uint8_t>(ControlKind::rts) ||
        f->kind > static_cast<uint8_t>(ControlKind::withdrawn))
        return false;
    if (nread < static_cast<long>(sizeof(ControlMsg))) return false;
    const auto *c = static_cast<const ControlMsg *>(m);
    if (c->source < 0 || c->source >= np || c->cluster < 0 || c->port < 0) return false;
    if (kind == ControlKind::eager)  // the first bytes of the message
        return c->tag >= 0 && static_cast<uint64_t>(nread) - sizeof(ControlMsg) <= c->bytes;
    if (kind == ControlKind::rts || kind == ControlKind::rts_cts)
        return c->tag >= 0 && nread == static_cast<long>(sizeof(ControlMsg));
    return nread == static_cast<long>(sizeof(ControlMsg));
}

}  // namespace lwmpi::util
