#include "name_daemon.hpp"

#include <string.h>

namespace tessera::names {
namespace {

// A query's seq names the slot that asked (high byte) and tells its
// successive queries apart (the rest), so a late answer is recognised.
constexpr int slot_shift = 24;
static_assert(NameDaemon::clients <= 256, "a slot fits the high byte of a seq");

ts_name_reply reply(uint32_t seq, int result, int port) {
    ts_name_reply rep{};
    rep.op = TS_NAME_REPLY;
    rep.seq = seq;
    rep.result = result;
    rep.port = port;
    return rep;
}

}  // namespace

void NameDaemon::start(Topology where, DaemonHost host) {
    where_ = where;
    host_ = host;
}

void NameDaemon::receive(const void *msg, size_t size) {
    ts_name_message m;
    if (size != sizeof m.req && size != sizeof m.rep) return;
    memcpy(&m, msg, size);
    if (m.op == TS_NAME_REPLY) {
        if (size == sizeof m.rep) on_reply(m.rep);
    } else if (size == sizeof m.req) {
        if (m.op == TS_NAME_PORT)
            on_port_query(m.req);
        else
            on_request(slot_of(m.req), m.req);
    }
}

// A local client's slot: its core, from the reply port the request names,
// or -1 when the reply would not go to a client of this cluster.
int NameDaemon::slot_of(const ts_name_request &req) const {
    const int slot = req.reply_port - TS_PORT_NAME_REPLY_BASE;
    const bool local = req.reply_cluster == where_.self;
    return local && slot >= 0 && slot < clients && req.reply_port < TS_PORTS ? slot : -1;
}

bool NameDaemon::has_daemon(int cluster) const {
    return (cluster >= where_.first_compute && cluster < where_.nclusters) ||
           (where_.io_daemon && cluster == 0);
}

void NameDaemon::on_request(int slot, const ts_name_request &req) {
    if (slot < 0) return;
    Slot &s = slots_[slot];
    if (s.stage == Stage::idle) {
        begin(slot, req);
    } else {
        // A well-behaved thread waits for its reply first, but a thread
        // killed while it waited leaves its request here for the next one
        // on the core: that one goes next. Only the latest is kept.
        s.next = req;
        s.has_next = true;
    }
}

void NameDaemon::begin(int slot, ts_name_request req) {
    Slot &s = slots_[slot];
    s.req = req;
    if (req.op == TS_NAME_STATS) {
        answer(slot, 0);
        return;
    }
    if (const int err = ts_name_check(req.name)) {
        answer(slot, err);
        return;
    }
    switch (req.op) {
    case TS_NAME_REGISTER: do_register(slot); break;
    case TS_NAME_UNREGISTER: do_unregister(slot); break;
    case TS_NAME_RESOLVE: do_resolve(slot); break;
    default: answer(slot, -TS_EINVAL);
    }
}

// The name is reserved here (linking) while the name server links it, so
// that two registrations of one name on this cluster cannot both go out.
void NameDaemon::do_register(int slot) {
    const ts_name_request &req = slots_[slot].req;
    if (req.arg < 1 || req.arg >= TS_PORTS) return answer(slot, -TS_EINVAL);
    if (names_.find(req.name)) return answer(slot, -TS_EEXIST);
    Local *local = names_.insert(req.name);
    if (!local) return answer(slot, -TS_ENFILE);
    *local = Local{req.arg, NameState::linking, host_.process_on(slot)};
    ask(slot, TS_NAME_LINK, TS_NAMESERVER_CLUSTER, TS_PORT_NAMESERVER, where_.self);
}

void NameDaemon::do_unregister(int slot) {
    const ts_name_request &req = slots_[slot].req;
    Local *local = names_.find(req.name);
    if (!local || local->state != NameState::linked) return answer(slot, -TS_ENOENT);
    if (local->owner != host_.process_on(slot)) return answer(slot, -TS_EPERM);
    local->state = NameState::unlinking;
    ask(slot, TS_NAME_UNLINK, TS_NAMESERVER_CLUSTER, TS_PORT_NAMESERVER, 0);
}

void NameDaemon::do_resolve(int slot) {
    const ts_name_request &req = slots_[slot].req;
    const Local *local = names_.find(req.name);
    if (local && local->state == NameState::linked) {
        ++counters_.local_hits;
        return answer(slot, where_.self, local->port);
    }
    Address addr;
    if (cache_.find(req.name, &addr)) {
        ++counters_.cache_hits;
        return answer(slot, addr.cluster, addr.port);
    }
    ++counters_.misses;
    ask(slot, TS_NAME_LOOKUP, TS_NAMESERVER_CLUSTER, TS_PORT_NAMESERVER, 0);
}

// An answer to one of our queries: the query still in `out` says which.
void NameDaemon::on_reply(const ts_name_reply &rep) {
    const uint32_t slot = rep.seq >> slot_shift;
    if (slot >= clients) return;
    Slot &s = slots_[slot];
    if (s.stage != Stage::waiting || s.out.req.seq != rep.seq) return;  // late, or not ours
    const int result = rep.result;
    switch (s.out.req.op) {
    case TS_NAME_LINK: {
        Local *local = names_.find(s.req.name);
        if (result < 0)
            names_.erase(local);
        else
            local->state = NameState::linked;
        return answer(static_cast<int>(slot), result < 0 ? result : 0);
    }
    case TS_NAME_UNLINK:
        // Gone here whatever the name server says: the name is not ours.
        names_.erase(names_.find(s.req.name));
        return answer(static_cast<int>(slot), result < 0 ? result : 0);
    case TS_NAME_LOOKUP: return on_lookup(static_cast<int>(slot), result);
    default:  // TS_NAME_PORT
        if (result < 0) return answer(static_cast<int>(slot), result);
        cache_.put(s.req.name, Address{s.resolved_cluster, rep.port});
        return answer(static_cast<int>(slot), s.resolved_cluster, rep.port);
    }
}

// The name server's cluster for a name we resolve: the port comes from that
// cluster's daemon. A name linked to this cluster but not in our table, or
// to a cluster without a daemon, has no port.
void NameDaemon::on_lookup(int slot, int cluster) {
    if (cluster < 0) return answer(slot, cluster);
    if (cluster == where_.self || !has_daemon(cluster)) return answer(slot, -TS_ENOENT);
    slots_[slot].resolved_cluster = cluster;
    ask(slot, TS_NAME_PORT, cluster, TS_PORT_NAME_DAEMON, slot);
}

void NameDaemon::on_port_query(const ts_name_request &req) {
    const int asker = req.reply_cluster, slot = req.arg;
    if (!has_daemon(asker) || req.reply_port != TS_PORT_NAME_DAEMON || slot < 0 || slot >= clients) return;
    int result = ts_name_check(req.name), port = 0;
    if (result == 0) {
        const Local *local = names_.find(req.name);
        if (local && local->state == NameState::linked) {
            result = where_.self;
            port = local->port;
        } else {
            result = -TS_ENOENT;
        }
    }
    ++counters_.queries;
    // The asking slot waits for this answer before it asks again, so only a
    // forged query can find an answer still due here; the latest one wins.
    PortAnswer &a = answers_[asker][slot];
    if (!a.due) ++answers_due_;
    a = PortAnswer{true, req.seq, result, port};
}

void NameDaemon::answer(int slot, int result, int port) {
    Slot &s = slots_[slot];
    s.out.rep = reply(s.req.seq, result, port);
    if (s.req.op == TS_NAME_STATS) s.out.rep.stats = stats();
    send_later(slot, where_.self, s.req.reply_port, true);
}

void NameDaemon::ask(int slot, int op, int cluster, int port, int arg) {
    Slot &s = slots_[slot];
    ts_name_request &q = s.out.req;
    q = ts_name_request{};
    q.op = op;
    q.seq = static_cast<uint32_t>(slot) << slot_shift | (++next_query_ & ((1u << slot_shift) - 1));
    q.arg = arg;
    q.reply_cluster = where_.self;
    q.reply_port = TS_PORT_NAME_DAEMON;
    memcpy(q.name, s.req.name, sizeof q.name);
    send_later(slot, cluster, port, false);
}

void NameDaemon::send_later(int slot, int cluster, int port, bool final) {
    Slot &s = slots_[slot];
    s.to_cluster = cluster;
    s.to_port = port;
    s.final = final;
    s.stage = Stage::sending;
    ++sending_;
}

bool NameDaemon::flush() {
    if (sending_ == 0 && answers_due_ == 0)
        return false;  // the common case, on every pass of the kernel's master
    bool sent = false;
    for (int slot = 0; slot < clients; ++slot)
        sent |= flush_slot(slot);
    return flush_answers() || sent;
}

// Sends the slot's message; once its reply is out, starts the request that
// waited behind it (which may be answered, and sent, at once).
bool NameDaemon::flush_slot(int slot) {
    Slot &s = slots_[slot];
    bool sent = false;
    while (s.stage == Stage::sending) {
        const size_t size = s.final ? sizeof s.out.rep : sizeof s.out.req;
        if (!host_.send(s.to_cluster, s.to_port, &s.out, size)) break;
        sent = true;
        --sending_;
        s.stage = s.final ? Stage::idle : Stage::waiting;
        if (s.stage == Stage::idle && s.has_next) {
            s.has_next = false;
            begin(slot, s.next);
        }
    }
    return sent;
}

bool NameDaemon::flush_answers() {
    bool sent = false;
    for (int cluster = 0; cluster < TS_MAX_CLUSTERS && answers_due_ > 0; ++cluster) {
        for (int slot = 0; slot < clients; ++slot) {
            PortAnswer &a = answers_[cluster][slot];
            if (!a.due) continue;
            const ts_name_reply rep = reply(a.seq, a.result, a.port);
            if (!host_.send(cluster, TS_PORT_NAME_DAEMON, &rep, sizeof rep))
                break;  // the rest for this cluster waits too
            a.due = false;
            --answers_due_;
            sent = true;
        }
    }
    return sent;
}

struct ts_name_daemon_stats NameDaemon::stats() const {
    struct ts_name_daemon_stats st = counters_;
    unsigned linked = 0;
    names_.for_each([&](const Local &l) { linked += l.state == NameState::linked ? 1 : 0; });
    st.names = linked;
    st.cached = static_cast<unsigned>(cache_.size());
    return st;
}

}  // namespace tessera::names
