// The local name daemon's logic: its table, its cache, and the requests it
// serves, with no OS calls, so that the kernel runs it (services/nameserver/
// daemon.cpp) and the host tests drive it over a simulated NoC.
//
// The daemon never waits. Every message it takes is handled at once: a
// request is answered, or a query goes out on its behalf (to the name
// server, then to another cluster's daemon) and the request waits in its
// slot for the answer, while the daemon goes on with other messages. What
// it has to send goes out when the receiver has room (flush); until then it
// stays where it was made, so there is no queue to overflow:
//   - a local client's request has a slot of its own (one per core: a
//     thread has at most one request in flight), which holds its query or
//     its reply, and one more request that came while it was busy;
//   - another daemon's port query has its answer kept per (cluster, slot)
//     of the asking daemon, which waits for it before it asks again.
// Since the daemon always takes its messages, the name server and other
// daemons never wait on it for long, so no cycle of waits can form.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <tessera/image.h>
#include "name_cache.hpp"

namespace tessera::names {

/// What the daemon needs from where it runs (the kernel, or a host test).
struct DaemonHost {
    /// Sends one message from the daemon's port to (cluster, port): true,
    /// or false while the receiver has no room (the daemon tries again).
    bool (*send)(int cluster, int port, const void *msg, size_t size);
    /// The process running on `core` of the daemon's cluster now, or
    /// nullptr: an identity, compared and never dereferenced.
    const void *(*process_on)(int core);
};

/// Where a daemon runs: daemons run on clusters first_compute..nclusters-1,
/// and on cluster 0 when the job has an I/O rank there (io_daemon).
struct Topology {
    int self;
    int first_compute;
    int nclusters;
    bool io_daemon;
};

class NameDaemon {
public:
    static constexpr int names = 32;              ///< names in the local table
    static constexpr int clients = TS_MAX_CORES;  ///< request slots: one per core
    static_assert(names >= TS_MAX_CORES - 1, "each MPI process of a full cluster links a name");

    /// Serves as the daemon of cluster `where.self`. Zero-initialised
    /// before, the daemon is idle (the kernel keeps one in a global).
    void start(Topology where, DaemonHost host);
    /// Handles one message of `size` bytes taken from the daemon's
    /// mailbox. A message that is malformed, or names no place where an
    /// answer could go, is dropped.
    void receive(const void *msg, size_t size);
    /// Sends what waits to be sent, as far as the receivers have room.
    /// True when anything was sent.
    bool flush();
    /// The counters STATS answers with.
    struct ts_name_daemon_stats stats() const;

private:
    enum class Stage : uint8_t { idle, sending, waiting };

    /// The request of one local client.
    struct Slot {
        Stage stage;
        bool final;      ///< sending: `out` is the reply to the client (else a query)
        bool has_next;   ///< `next` arrived while this request was in flight
        int to_cluster;  ///< sending: where `out` goes
        int to_port;
        int resolved_cluster;  ///< RESOLVE: the cluster the name server gave
        ts_name_message out;   ///< the last message made for this request
        ts_name_request req;
        ts_name_request next;
    };

    enum class NameState : uint8_t { linking, linked, unlinking };

    /// A name of the local table. Only linked names resolve.
    struct Local {
        int port;
        NameState state;
        const void *owner;  ///< the process that registered it
    };

    /// The answer to another daemon's port query, until it is out.
    struct PortAnswer {
        bool due;
        uint32_t seq;
        int32_t result;
        int32_t port;
    };

    int slot_of(const ts_name_request &req) const;
    bool has_daemon(int cluster) const;
    void on_request(int slot, const ts_name_request &req);
    void begin(int slot, ts_name_request req);
    void do_register(int slot);
    void do_unregister(int slot);
    void do_resolve(int slot);
    void on_reply(const ts_name_reply &rep);
    void on_lookup(int slot, int cluster);
    void on_port_query(const ts_name_request &req);
    void answer(int slot, int result, int port = 0);
    void ask(int slot, int op, int cluster, int port, int arg);
    /// `out` of the slot goes to (cluster, port) at the next flush; `final`: it is the reply.
    void send_later(int slot, int cluster, int port, bool final);
    bool flush_slot(int slot);
    bool flush_answers();

    Topology where_{};
    DaemonHost host_{};
    NameMap<Local, names> names_;
    NameCache cache_;
    Slot slots_[clients] = {};
    PortAnswer answers_[TS_MAX_CLUSTERS][clients] = {};
    int sending_ = 0;  ///< slots in Stage::sending
    int answers_due_ = 0;
    uint32_t next_query_ = 0;
    struct ts_name_daemon_stats counters_ = {};
};

}  // namespace tessera::names
