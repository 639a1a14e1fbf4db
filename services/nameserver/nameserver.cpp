// The name server: a user program on I/O cluster 0 that answers name
// requests on mailbox port TS_PORT_NAMESERVER, forever. Silent unless it
// cannot start.
#include <stdio.h>
#include <tessera/runtime.h>

#include "name_table.hpp"

using tessera::names::NameTable;

namespace {

// Replies go to the mailbox the request names; a request naming an
// impossible one gets no reply (its sender is broken anyway).
void reply(const ts_name_request &req, int result, int nclusters) {
    if (req.reply_cluster < 0 || req.reply_cluster >= nclusters || req.reply_port <= 0 ||
        req.reply_port >= TS_PORTS)
        return;
    const int out = ts_mailbox_open(TS_PORT_NAMESERVER, req.reply_cluster, req.reply_port);
    if (out < 0) return;
    ts_name_reply rep{};
    rep.op = TS_NAME_REPLY;
    rep.seq = req.seq;
    rep.result = result;
    ts_mailbox_write(out, &rep, sizeof rep);
    ts_mailbox_close(out);
}

}  // namespace

int main() {
    const int nclusters = ts_job()->nclusters;
    static NameTable table(nclusters);
    const int in = ts_mailbox_create(TS_PORT_NAMESERVER);
    if (in < 0) {
        fprintf(stderr, "nameserver: cannot create mailbox port %d (error %d)\n", TS_PORT_NAMESERVER, in);
        return 1;
    }
    for (;;) {
        ts_name_request req;
        const long n = ts_mailbox_read(in, &req, sizeof req);
        if (n != static_cast<long>(sizeof req)) continue;  // not a name request
        reply(req, tessera::names::handle_request(table, req), nclusters);
    }
}
