// The local name daemon, kernel-resident on every compute cluster, and on
// cluster 0 for the job's I/O rank (mpirun --io-rank).
//
// It runs on the cluster's master core (the resource manager core of an
// MPPA-256 compute cluster), like the spawn server, so that it takes no PE
// away from the MPI ranks. The master must never block on its behalf: it
// runs one step of the daemon whenever it has served the posted kernel
// calls (services_poll, from serve_calls), which takes the messages that
// arrived and sends what it can; what cannot go out yet stays in the daemon
// until a later step. The daemon's logic is in name_daemon.cpp; this file
// connects it to IKC.
#include "daemon.hpp"

#include "kernel.hpp"
#include "name_daemon.hpp"

namespace kernel {
namespace {

/// Messages taken per step; the master then serves calls before the next.
constexpr int max_reads_per_step = 32;

constinit tessera::names::NameDaemon daemon;
int mailbox = -1;  // the daemon's input mailbox; -1: no daemon on this cluster

bool send(int cluster, int port, const void *msg, size_t size) {
    return ikc::mailbox_send(TS_PORT_NAME_DAEMON, cluster, port, msg, size) != pending;
}

// Thread-table entries change only on the master, which runs the daemon.
const void *process_on(int core) { return core < hal::ncores() ? threads[core].proc : nullptr; }

}  // namespace

void name_daemon_init() {
    const ts_manifest &m = hal::manifest();
    const int self = hal::cluster_id();
    const bool io_daemon = (m.flags & TS_MANIFEST_IO_RANK) != 0;
    if (self < static_cast<int>(m.nio_clusters) && !(io_daemon && self == 0)) return;
    if (ikc::mailbox_payload() < sizeof(ts_name_message))
        panic("mailbox messages too small for the name daemon");
    const long id = ikc::mailbox_create(TS_PORT_NAME_DAEMON);
    if (id < 0) panic("cannot create the name daemon's mailbox");
    daemon.start({self, static_cast<int>(m.nio_clusters), static_cast<int>(m.nclusters), io_daemon},
                 {send, process_on});
    mailbox = static_cast<int>(id);
}

bool name_daemon_poll() {
    if (mailbox < 0) return false;
    bool moved = daemon.flush();
    for (int i = 0; i < max_reads_per_step; ++i) {
        ts_name_message m;
        const long n = ikc::mailbox_read(mailbox, &m, sizeof(m));
        if (n < 0) break;  // pending: nothing more has arrived
        daemon.receive(&m, static_cast<size_t>(n));
        moved = true;
    }
    return daemon.flush() || moved;
}

}  // namespace kernel
