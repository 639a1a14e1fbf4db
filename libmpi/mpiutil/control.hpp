// The control messages of LWMPI's rendezvous protocol, carried in IKC
// mailboxes (one message per mailbox write). Pure C++ (host-tested).
//
//   sender S                                  receiver R
//   RTS{ctx, tag, S, seq, bytes}  ------------>  (matched by MPI_Recv)
//                                               portal allow(S)   [bytes>0]
//                      <------------ CTS{seq, accepted = min(bytes, capacity)}
//   portal write(accepted bytes) ===========>  portal read       [accepted>0]
//                      <------------ ACK{seq, accepted}           [accepted>0]
//
// With accepted == 0 (zero-byte message, or a zero-size receive buffer)
// the CTS ends the exchange on both sides: no portal transfer, no ACK.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace lwmpi::util {

inline constexpr uint8_t kControlVersion = 1;

enum class ControlKind : uint8_t {
    rts = 1,  ///< request to send: an envelope and the bytes offered
    cts = 2,  ///< clear to send: the bytes the receiver accepts
    ack = 3,  ///< the receiver got the data
};

/// One control message: 32 bytes, naturally aligned, in the byte order of
/// the machine (every cluster runs the same ISA).
struct ControlMsg {
    uint8_t kind;      ///< ControlKind
    uint8_t version;   ///< kControlVersion
    uint16_t reserved0;
    uint32_t context;  ///< RTS: communicator context id; else 0
    int32_t source;    ///< world rank of the writer
    int32_t tag;       ///< RTS: message tag; else 0
    uint32_t seq;      ///< the sending rank's sequence number of the send
    int16_t cluster;   ///< writer's cluster id (reply address)
    int16_t port;      ///< writer's mailbox and portal port (reply address)
    uint64_t bytes;    ///< RTS: offered; CTS: accepted; ACK: received
};
static_assert(sizeof(ControlMsg) == 32, "the control message layout is part of the protocol");
static_assert(alignof(ControlMsg) == 8);

/// A control message of kind `k` with the writer's identity filled in.
constexpr ControlMsg make_control(ControlKind k, int source, int cluster, int port, uint32_t seq) {
    ControlMsg m{};
    m.kind = static_cast<uint8_t>(k);
    m.version = kControlVersion;
    m.source = source;
    m.cluster = static_cast<int16_t>(cluster);
    m.port = static_cast<int16_t>(port);
    m.seq = seq;
    return m;
}

/// True when `m` (of which `nread` bytes were read from the mailbox) is a
/// well-formed LWMPI control message from a rank of a job of `np` ranks.
constexpr bool control_valid(const ControlMsg &m, long nread, int np) {
    if (nread != static_cast<long>(sizeof(ControlMsg)) || m.version != kControlVersion)
        return false;
    if (m.kind < static_cast<uint8_t>(ControlKind::rts) || m.kind > static_cast<uint8_t>(ControlKind::ack))
        return false;
    if (m.source < 0 || m.source >= np || m.cluster < 0 || m.port < 0)
        return false;
    return m.kind != static_cast<uint8_t>(ControlKind::rts) || m.tag >= 0;
}

}  // namespace lwmpi::util
