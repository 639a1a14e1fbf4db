// Host tests of the local name daemon: its cache, and its protocol on a
// simulated machine (the name server on cluster 0, daemons on clusters
// 1..3) whose NoC has, like the hardware, one message slot per (receiver,
// sender) pair, so that a daemon's sends find the slot full and must be
// tried again.
#include <catch2/catch.hpp>

#include <string.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "name_daemon.hpp"
#include "name_table.hpp"

using tessera::names::Address;
using tessera::names::DaemonHost;
using tessera::names::NameCache;
using tessera::names::NameDaemon;
using tessera::names::NameTable;
using tessera::names::Topology;
// (<tessera/names.h> also names a function ts_name_daemon_stats.)
using Stats = struct ts_name_daemon_stats;

TEST_CASE("the cache keeps what it was given") {
    NameCache c{};
    Address a{};
    CHECK_FALSE(c.find("x", &a));
    c.put("x", {2, 9});
    REQUIRE(c.find("x", &a));
    CHECK(a.cluster == 2);
    CHECK(a.port == 9);
    c.put("x", {3, 10});  // replaced, not added
    REQUIRE(c.find("x", &a));
    CHECK(a.cluster == 3);
    CHECK(a.port == 10);
    CHECK(c.size() == 1);
}

TEST_CASE("a full cache evicts the least recently used name") {
    NameCache c{};
    for (int i = 0; i < NameCache::capacity; ++i)
        c.put(("n" + std::to_string(i)).c_str(), {1, i});
    Address a{};
    REQUIRE(c.find("n0", &a));  // n0 is now the most recently used; n1 the least
    c.put("new", {2, 1});
    CHECK(c.size() == NameCache::capacity);
    CHECK_FALSE(c.find("n1", &a));
    CHECK(c.find("n0", &a));
    CHECK(c.find("new", &a));
    c.put("newer", {2, 2});  // n2 goes next
    CHECK_FALSE(c.find("n2", &a));
    CHECK(c.find("n3", &a));
}

// ---- a simulated machine ------------------------------------------------------

namespace {

constexpr int clusters = 4;  // cluster 0: the name server; 1..3: daemons
constexpr int cores = 5;

using Bytes = std::vector<unsigned char>;

struct Packet {
    int port;
    Bytes bytes;
};

struct Machine {
    /// The hardware: slot[receiver][sender], one message each.
    std::optional<Packet> slot[clusters][clusters];
    /// What the receiving kernel took out of its slots, per port.
    std::map<int, std::deque<Bytes>> inbox[clusters];
    /// No delivery into the cluster while set (its master is busy).
    bool stalled[clusters] = {};
    /// Clusters whose daemon runs; the test reads the others' inboxes.
    bool daemon_on[clusters] = {false, true, true, true};
    NameDaemon daemons[clusters] = {};
    NameTable table{clusters};
    /// Replies of the name server not sent yet (it serves one request at a time).
    std::deque<std::pair<int, Packet>> server_out;
    /// Client requests not sent yet: (cluster, message) in posting order.
    std::deque<std::pair<int, Packet>> client_out;
    /// The process on each core, as a number (0: none).
    int process[clusters][cores] = {};
    uint32_t next_seq = 0;

    bool send(int src, int dst, int port, const void *msg, size_t size) {
        REQUIRE(dst >= 0);
        REQUIRE(dst < clusters);
        REQUIRE(port > 0);
        REQUIRE(port < TS_PORTS);
        if (slot[dst][src]) return false;
        const auto *b = static_cast<const unsigned char *>(msg);
        slot[dst][src] = Packet{port, Bytes(b, b + size)};
        return true;
    }

    bool deliver(int c) {
        bool moved = false;
        for (auto &s : slot[c]) {
            if (!s || stalled[c]) continue;
            inbox[c][s->port].push_back(s->bytes);
            s.reset();
            moved = true;
        }
        return moved;
    }

    bool run_daemon(int c);
    bool run_server();
    bool send_pending(std::deque<std::pair<int, Packet>> &q, int src_of_front);
    bool step();

    /// Runs until nothing moves any more.
    void run() {
        int steps = 0;
        while (step())
            REQUIRE(++steps < 100000);
    }
};

Machine *machine;
int running;  // the cluster whose daemon runs now

bool host_send(int cluster, int port, const void *msg, size_t size) {
    return machine->send(running, cluster, port, msg, size);
}

const void *host_process_on(int core) {
    REQUIRE(core >= 0);
    return core < cores
               ? reinterpret_cast<const void *>(static_cast<intptr_t>(machine->process[running][core]))
               : nullptr;
}

bool Machine::run_daemon(int c) {
    running = c;
    bool moved = daemons[c].flush();
    auto &q = inbox[c][TS_PORT_NAME_DAEMON];
    for (; !q.empty(); q.pop_front(), moved = true)
        daemons[c].receive(q.front().data(), q.front().size());
    return daemons[c].flush() || moved;
}

// Like the real server: the next request only once the last reply is out.
bool Machine::run_server() {
    auto &q = inbox[TS_NAMESERVER_CLUSTER][TS_PORT_NAMESERVER];
    if (!server_out.empty() || q.empty()) return false;
    ts_name_request req;
    REQUIRE(q.front().size() == sizeof req);
    memcpy(&req, q.front().data(), sizeof req);
    q.pop_front();
    ts_name_reply rep{};
    rep.op = TS_NAME_REPLY;
    rep.seq = req.seq;
    rep.result = handle_request(table, req);
    const auto *b = reinterpret_cast<const unsigned char *>(&rep);
    server_out.push_back({req.reply_cluster, Packet{req.reply_port, Bytes(b, b + sizeof rep)}});
    return true;
}

// Sends the front of q (dst, packet) from `src`, and the next ones while
// they find room.
bool Machine::send_pending(std::deque<std::pair<int, Packet>> &q, int src) {
    bool moved = false;
    while (!q.empty() && send(src < 0 ? q.front().first : src, q.front().first, q.front().second.port,
                              q.front().second.bytes.data(), q.front().second.bytes.size())) {
        q.pop_front();
        moved = true;
    }
    return moved;
}

bool Machine::step() {
    bool moved = false;
    for (int c = 0; c < clusters; ++c)
        moved |= deliver(c);
    moved |= send_pending(client_out, -1);  // a client sends to its own cluster
    moved |= run_server();
    moved |= send_pending(server_out, TS_NAMESERVER_CLUSTER);
    for (int c = 1; c < clusters; ++c)
        if (daemon_on[c]) moved |= run_daemon(c);
    return moved;
}

ts_name_request request(int cluster, int core, int op, const char *name, int arg) {
    ts_name_request req{};
    req.op = op;
    req.seq = ++machine->next_seq;
    req.arg = arg;
    req.reply_cluster = cluster;
    req.reply_port = TS_PORT_NAME_REPLY_BASE + core;
    strncpy(req.name, name, sizeof req.name);
    return req;
}

template <class Message>
void post_bytes(int cluster, int port, const Message &m, size_t size = sizeof(Message)) {
    const auto *b = reinterpret_cast<const unsigned char *>(&m);
    machine->client_out.push_back({cluster, Packet{port, Bytes(b, b + size)}});
}

/// Posts a client request from `core` of `cluster` to its daemon (it is
/// sent on the next steps). Its seq.
uint32_t post(int cluster, int core, int op, const char *name, int arg = 0) {
    const ts_name_request req = request(cluster, core, op, name, arg);
    post_bytes(cluster, TS_PORT_NAME_DAEMON, req);
    return req.seq;
}

/// Messages waiting in the inbox of (cluster, port).
size_t waiting(int cluster, int port) { return machine->inbox[cluster][port].size(); }

/// The next reply to `core` of `cluster`, which must be there.
ts_name_reply take_reply(int cluster, int core) {
    auto &q = machine->inbox[cluster][TS_PORT_NAME_REPLY_BASE + core];
    REQUIRE_FALSE(q.empty());
    ts_name_reply rep;
    REQUIRE(q.front().size() == sizeof rep);
    memcpy(&rep, q.front().data(), sizeof rep);
    q.pop_front();
    CHECK(rep.op == TS_NAME_REPLY);
    return rep;
}

/// One request, run to its reply: the reply's result (and the reply in *out).
int call(int cluster, int core, int op, const char *name, int arg = 0, ts_name_reply *out = nullptr) {
    const uint32_t seq = post(cluster, core, op, name, arg);
    machine->run();
    const ts_name_reply rep = take_reply(cluster, core);
    CHECK(rep.seq == seq);
    CHECK(waiting(cluster, TS_PORT_NAME_REPLY_BASE + core) == 0);
    if (out) *out = rep;
    return rep.result;
}

Stats stats_of(int cluster) {
    ts_name_reply rep{};
    REQUIRE(call(cluster, 1, TS_NAME_STATS, "", 0, &rep) == 0);
    return rep.stats;
}

/// A fresh machine: every core of every cluster runs process 1.
std::unique_ptr<Machine> boot() {
    auto m = std::make_unique<Machine>();
    machine = m.get();
    for (int c = 1; c < clusters; ++c) {
        running = c;
        m->daemons[c].start(Topology{c, 1, clusters}, DaemonHost{host_send, host_process_on});
        for (int core = 1; core < cores; ++core)
            m->process[c][core] = 1;
    }
    return m;
}

}  // namespace

TEST_CASE("register, then resolve on the same cluster: a local hit") {
    auto m = boot();
    CHECK(call(1, 1, TS_NAME_REGISTER, "svc", 9) == 0);
    ts_name_reply rep{};
    CHECK(call(1, 2, TS_NAME_RESOLVE, "svc", 0, &rep) == 1);
    CHECK(rep.port == 9);
    const Stats st = stats_of(1);
    CHECK(st.local_hits == 1);
    CHECK(st.cache_hits == 0);
    CHECK(st.misses == 0);
    CHECK(st.names == 1);
    CHECK(m->table.lookup("svc") == 1);  // linked at the name server too
}

TEST_CASE("resolve on another cluster: a miss, then a cache hit") {
    auto m = boot();
    REQUIRE(call(1, 1, TS_NAME_REGISTER, "svc", 9) == 0);
    ts_name_reply rep{};
    CHECK(call(2, 1, TS_NAME_RESOLVE, "svc", 0, &rep) == 1);
    CHECK(rep.port == 9);
    Stats st = stats_of(2);
    CHECK(st.misses == 1);
    CHECK(st.cache_hits == 0);
    CHECK(st.cached == 1);
    CHECK(stats_of(1).queries == 1);

    rep = {};
    CHECK(call(2, 3, TS_NAME_RESOLVE, "svc", 0, &rep) == 1);
    CHECK(rep.port == 9);
    st = stats_of(2);
    CHECK(st.misses == 1);
    CHECK(st.cache_hits == 1);
    CHECK(stats_of(1).queries == 1);  // not asked again
}

TEST_CASE("errors") {
    auto m = boot();
    REQUIRE(call(1, 1, TS_NAME_REGISTER, "svc", 9) == 0);
    CHECK(call(1, 2, TS_NAME_REGISTER, "svc", 10) == -TS_EEXIST);  // here
    CHECK(call(2, 1, TS_NAME_REGISTER, "svc", 10) == -TS_EEXIST);  // at the name server
    CHECK(stats_of(2).names == 0);
    CHECK(call(2, 1, TS_NAME_REGISTER, "svc2", 10) == 0);  // the refused name left no trace
    CHECK(call(2, 1, TS_NAME_RESOLVE, "nobody") == -TS_ENOENT);
    CHECK(stats_of(2).misses == 1);
    CHECK(stats_of(2).cached == 0);
    CHECK(call(1, 1, TS_NAME_UNREGISTER, "nobody") == -TS_ENOENT);
    CHECK(call(1, 1, TS_NAME_UNREGISTER, "svc2") == -TS_ENOENT);  // registered elsewhere
    CHECK(call(1, 1, TS_NAME_REGISTER, "", 9) == -TS_EINVAL);
    CHECK(call(1, 1, TS_NAME_RESOLVE, "") == -TS_EINVAL);
    CHECK(call(1, 1, TS_NAME_REGISTER, "p", 0) == -TS_EINVAL);
    CHECK(call(1, 1, TS_NAME_REGISTER, "p", TS_PORTS) == -TS_EINVAL);
    CHECK(call(1, 1, 99, "p") == -TS_EINVAL);

    // A name that fills the field with no NUL is too long, not read past.
    ts_name_request req = request(1, 1, TS_NAME_REGISTER, "", 9);
    memset(req.name, 'z', sizeof req.name);
    post_bytes(1, TS_PORT_NAME_DAEMON, req);
    m->run();
    CHECK(take_reply(1, 1).result == -TS_ENAMETOOLONG);
    CHECK(stats_of(1).names == 1);
}

TEST_CASE("the local table fills up") {
    auto m = boot();
    for (int i = 0; i < NameDaemon::names; ++i)
        REQUIRE(call(1, 1, TS_NAME_REGISTER, ("n" + std::to_string(i)).c_str(), 9) == 0);
    CHECK(call(1, 1, TS_NAME_REGISTER, "one-more", 9) == -TS_ENFILE);
    CHECK(m->table.lookup("one-more") == -TS_ENOENT);
    REQUIRE(call(1, 1, TS_NAME_UNREGISTER, "n3") == 0);
    CHECK(call(1, 1, TS_NAME_REGISTER, "one-more", 9) == 0);
}

TEST_CASE("unregister: only the registering process, here and at the name server") {
    auto m = boot();
    m->process[1][2] = 2;
    REQUIRE(call(1, 1, TS_NAME_REGISTER, "svc", 9) == 0);
    CHECK(call(1, 2, TS_NAME_UNREGISTER, "svc") == -TS_EPERM);
    CHECK(call(1, 2, TS_NAME_RESOLVE, "svc") == 1);     // still there
    CHECK(call(1, 3, TS_NAME_UNREGISTER, "svc") == 0);  // same process, other thread
    CHECK(m->table.lookup("svc") == -TS_ENOENT);
    CHECK(call(1, 1, TS_NAME_RESOLVE, "svc") == -TS_ENOENT);
    CHECK(call(1, 1, TS_NAME_UNREGISTER, "svc") == -TS_ENOENT);
    CHECK(stats_of(1).names == 0);
    CHECK(call(1, 2, TS_NAME_REGISTER, "svc", 11) == 0);  // the name can come back
}

TEST_CASE("a name linked without a daemon has no port") {
    auto m = boot();
    REQUIRE(m->table.link("bare", 2) == 0);  // linked directly, as ts_name_link does
    REQUIRE(m->table.link("io", 0) == 0);    // on a cluster without a daemon
    CHECK(call(1, 1, TS_NAME_RESOLVE, "bare") == -TS_ENOENT);
    CHECK(call(1, 1, TS_NAME_RESOLVE, "io") == -TS_ENOENT);
    CHECK(call(2, 1, TS_NAME_RESOLVE, "bare") == -TS_ENOENT);  // its own cluster
    CHECK(stats_of(1).cached == 0);
}

TEST_CASE("every core of every cluster at once, through full slots") {
    auto m = boot();
    auto name = [](int c, int core) { return "c" + std::to_string(c) + "." + std::to_string(core); };
    for (int c = 1; c < clusters; ++c)
        for (int core = 1; core < cores; ++core)
            post(c, core, TS_NAME_REGISTER, name(c, core).c_str(), 8 + core);
    m->run();
    for (int c = 1; c < clusters; ++c)
        for (int core = 1; core < cores; ++core)
            REQUIRE(take_reply(c, core).result == 0);

    // Each core resolves every name, one request at a time, all cores
    // interleaved: a new request is posted as soon as the last is answered.
    for (int round = 0; round < 2; ++round) {
        int next[clusters][cores] = {};
        auto post_next = [&](int c, int core) {
            const int k = next[c][core]++;
            const int tc = 1 + k / (cores - 1), tcore = 1 + k % (cores - 1);
            post(c, core, TS_NAME_RESOLVE, name(tc, tcore).c_str());
        };
        for (int c = 1; c < clusters; ++c)
            for (int core = 1; core < cores; ++core)
                post_next(c, core);
        for (int left = (clusters - 1) * (cores - 1) * (clusters - 1) * (cores - 1); left > 0;) {
            REQUIRE(m->step());
            for (int c = 1; c < clusters; ++c) {
                for (int core = 1; core < cores; ++core) {
                    if (!waiting(c, TS_PORT_NAME_REPLY_BASE + core)) continue;
                    const int k = next[c][core] - 1;
                    const ts_name_reply rep = take_reply(c, core);
                    REQUIRE(rep.result == 1 + k / (cores - 1));
                    REQUIRE(rep.port == 8 + 1 + k % (cores - 1));
                    --left;
                    if (next[c][core] < (clusters - 1) * (cores - 1)) post_next(c, core);
                }
            }
        }
    }
    // 12 names, 4 on each cluster: every remote name misses at least once
    // (first round), at most once per core, and never in the second round.
    for (int c = 1; c < clusters; ++c) {
        const Stats st = stats_of(c);
        CHECK(st.local_hits == 2 * 4 * 4);
        CHECK(st.misses + st.cache_hits == 2 * 4 * 8);
        CHECK(st.misses >= 8);
        CHECK(st.misses <= 4 * 8);  // each core misses at most once per name
        CHECK(st.cached == 8);
    }
}

TEST_CASE("a request posted while the slot is busy goes next") {
    auto m = boot();
    REQUIRE(call(1, 1, TS_NAME_REGISTER, "svc", 9) == 0);
    const uint32_t first = post(2, 1, TS_NAME_RESOLVE, "svc");
    const uint32_t second = post(2, 1, TS_NAME_STATS, "");
    m->run();
    const ts_name_reply a = take_reply(2, 1), b = take_reply(2, 1);
    CHECK(a.seq == first);
    CHECK(a.result == 1);
    CHECK(b.seq == second);
    CHECK(b.stats.misses == 1);
}

TEST_CASE("port answers wait for room at the asking daemon") {
    auto m = boot();
    m->daemon_on[2] = false;  // the test plays cluster 2's daemon
    REQUIRE(call(1, 1, TS_NAME_REGISTER, "svc", 9) == 0);
    m->stalled[2] = true;
    for (int slot = 1; slot <= 3; ++slot) {
        ts_name_request q = request(2, 0, TS_NAME_PORT, slot == 2 ? "nobody" : "svc", slot);
        q.reply_port = TS_PORT_NAME_DAEMON;
        post_bytes(1, TS_PORT_NAME_DAEMON, q);  // as if it came from cluster 2
    }
    m->run();
    CHECK(waiting(2, TS_PORT_NAME_DAEMON) == 0);
    m->stalled[2] = false;
    m->run();
    REQUIRE(waiting(2, TS_PORT_NAME_DAEMON) == 3);
    for (int slot = 1; slot <= 3; ++slot) {
        ts_name_reply rep;
        memcpy(&rep, m->inbox[2][TS_PORT_NAME_DAEMON].front().data(), sizeof rep);
        m->inbox[2][TS_PORT_NAME_DAEMON].pop_front();
        CHECK(rep.result == (slot == 2 ? -TS_ENOENT : 1));
        CHECK(rep.port == (slot == 2 ? 0 : 9));
    }
    CHECK(stats_of(1).queries == 3);
}

TEST_CASE("malformed, misdirected and forged messages are dropped") {
    auto m = boot();
    REQUIRE(call(1, 1, TS_NAME_REGISTER, "svc", 9) == 0);
    ts_name_request req = request(1, 1, TS_NAME_RESOLVE, "svc", 0);
    post_bytes(1, TS_PORT_NAME_DAEMON, req, sizeof req - 1);  // short
    req.reply_cluster = 2;                                    // a client of another cluster
    post_bytes(1, TS_PORT_NAME_DAEMON, req);
    req = request(1, 1, TS_NAME_RESOLVE, "svc", 0);
    req.reply_port = TS_PORT_NAME_REPLY_BASE + TS_MAX_CORES;  // no such core
    post_bytes(1, TS_PORT_NAME_DAEMON, req);
    ts_name_reply forged{};
    forged.op = TS_NAME_REPLY;
    forged.seq = 1u << 24 | 1;  // an answer nobody waits for
    post_bytes(1, TS_PORT_NAME_DAEMON, forged);
    forged.seq = 200u << 24;  // no such slot
    post_bytes(1, TS_PORT_NAME_DAEMON, forged);
    ts_name_request port = request(1, 0, TS_NAME_PORT, "svc", TS_MAX_CORES);  // bad slot
    port.reply_port = TS_PORT_NAME_DAEMON;
    port.reply_cluster = 2;
    post_bytes(1, TS_PORT_NAME_DAEMON, port);
    m->run();
    for (int c = 1; c < clusters; ++c)
        for (const auto &[p, q] : m->inbox[c])
            CHECK(q.empty());
    // Still serving, with nothing counted for what was dropped.
    const Stats st = stats_of(1);
    CHECK(st.local_hits == 0);
    CHECK(st.queries == 0);
    CHECK(call(1, 1, TS_NAME_RESOLVE, "svc") == 1);
}

TEST_CASE("an answer with another seq does not complete a waiting request") {
    auto m = boot();
    REQUIRE(call(2, 1, TS_NAME_REGISTER, "svc", 7) == 0);
    m->stalled[TS_NAMESERVER_CLUSTER] = true;
    const uint32_t seq = post(1, 1, TS_NAME_RESOLVE, "svc");
    m->run();  // the lookup waits at the name server
    ts_name_reply forged{};
    forged.op = TS_NAME_REPLY;
    forged.seq = 1u << 24;  // slot 1, but not its query
    forged.result = -TS_ENOENT;
    post_bytes(1, TS_PORT_NAME_DAEMON, forged);
    m->run();
    CHECK(waiting(1, TS_PORT_NAME_REPLY_BASE + 1) == 0);
    m->stalled[TS_NAMESERVER_CLUSTER] = false;
    m->run();
    const ts_name_reply rep = take_reply(1, 1);
    CHECK(rep.seq == seq);
    CHECK(rep.result == 2);
    CHECK(rep.port == 7);
}
