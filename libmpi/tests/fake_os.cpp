// A simulated Tessera for the host tests: lwmpi::os over threads, one
// mutex and one condition variable. Faithful to the contract where LWMPI
// depends on it: a mailbox keeps one slot per sender (a writer waits while
// its previous message is unread), messages are read in arrival order, a
// portal write waits for the receiver's allow of that very sender and a
// portal read needs a prior allow; all calls block until done. Each rank's
// stdout is a line buffer (fake::print) that reaches the console as the
// runtime's does: when flushed, at the rank's end, at an abort.
#include "fake_job.hpp"

#include <tessera/syscall.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "../mpiutil/os.hpp"
#include "mapping.hpp"

namespace fake {

namespace {

struct Aborted {};   // thrown through LWMPI to end a rank's thread
struct TimedOut {};

using Addr = std::pair<int, int>;  // (cluster, port)

struct Message {
    Addr from;
    std::vector<char> data;
};

struct InMailbox {
    std::deque<Message> queue;
    std::map<Addr, int> unread;  // per sender
    int owner = -1;              // world rank of the creator
    int arrived = 0;             // messages written to it so far
};

struct InPortal {
    bool allowed = false;
    Addr allow_from{};
    bool has_data = false;
    Addr data_from{};
    std::vector<char> data;
    unsigned long written = 0;  // transfers handed over, and taken
    unsigned long taken = 0;
};

enum class Kind { in_mailbox, out_mailbox, in_portal, out_portal };

struct Object {
    Kind kind;
    Addr local;   // (my cluster, port or local_port)
    Addr remote;  // outputs: target
};

struct Fabric {
    std::mutex m;
    std::condition_variable cv;
    JobConfig config;
    std::chrono::steady_clock::time_point start;
    std::map<Addr, InMailbox> mailboxes;
    std::map<Addr, InPortal> portals;
    std::map<int, Object> objects;
    int next_id = 3;
    std::map<std::string, int> names;
    bool aborted = false;
    int abort_code = 0;
    bool timed_out = false;
    int violations = 0;
    std::string console;
};

Fabric *g_fabric;

struct Identity {
    int rank = -1;
    int local = -1;
    ts_job_info info{};
    std::string out;        // stdout's line buffer (fake::print)
    bool mid_line = false;  // the last byte flushed was not '\n'
};
thread_local Identity t_me;

Fabric &fab() { return *g_fabric; }

// Waits (lock held) until pred(); ends the rank on abort or timeout.
template <class Pred>
void wait_for(std::unique_lock<std::mutex> &lock, Pred pred) {
    Fabric &f = fab();
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration<double>(f.config.timeout_s);
    while (!pred()) {
        if (f.aborted)
            throw Aborted{};
        if (f.cv.wait_until(lock, deadline) == std::cv_status::timeout && !pred()) {
            f.timed_out = true;
            f.aborted = true;
            f.cv.notify_all();
            throw TimedOut{};
        }
    }
    if (f.aborted)
        throw Aborted{};
}

void check_abort() {
    std::lock_guard<std::mutex> lock(fab().m);
    if (fab().aborted)
        throw Aborted{};
}

bool port_ok(int port) { return port > 0 && port < TS_PORTS; }
bool cluster_ok(int c) { return c >= 0 && c < t_me.info.nclusters; }

Object *object(int id, Kind kind) {
    auto it = fab().objects.find(id);
    return it != fab().objects.end() && it->second.kind == kind ? &it->second : nullptr;
}

int violation(int err) {
    ++fab().violations;
    return err;
}

// ts_console_flush: the caller's buffered output to the console.
bool flush_output() {
    std::lock_guard<std::mutex> lock(fab().m);
    if (!t_me.out.empty()) {
        fab().console += t_me.out;
        t_me.mid_line = t_me.out.back() != '\n';
        t_me.out.clear();
    }
    return t_me.mid_line;
}

}  // namespace

JobResult run_job(const JobConfig &config, const std::function<int(int rank)> &body) {
    Fabric f;
    f.config = config;
    f.start = std::chrono::steady_clock::now();
    g_fabric = &f;
    const tessera::pm::JobShape shape{config.np, config.ncompute, config.slots,
                                      static_cast<tessera::pm::MapPolicy>(config.policy)};
    JobResult result;
    result.status.assign(config.np, -1);
    std::vector<std::thread> threads;
    for (int rank = 0; rank < config.np; ++rank) {
        threads.emplace_back([&, rank] {
            const tessera::pm::Placement p = shape.place(rank);
            t_me.rank = rank;
            t_me.local = p.local;
            ts_job_info &i = t_me.info;
            i.cluster_id = config.nio + p.cluster;
            i.nclusters = config.nio + config.ncompute;
            i.nio_clusters = config.nio;
            i.ncores = config.slots + 1;
            i.np = config.np;
            i.map_policy = config.policy;
            i.slots_per_cluster = config.slots;
            i.mailbox_payload = config.payload;
            i.portal_chunk = 4096;
            i.argc = 1;
            i.timebase_hz = 10'000'000;
            std::strcpy(i.args, "test");
            if (rank < static_cast<int>(config.start_delay_ms.size()))
                std::this_thread::sleep_for(std::chrono::milliseconds(config.start_delay_ms[rank]));
            try {
                result.status[rank] = body(rank);
                lwmpi::util::rank_exit(result.status[rank]);  // the runtime's thread end
                flush_output();
            } catch (const Aborted &) {
                result.status[rank] = -2;
            } catch (const TimedOut &) {
                result.status[rank] = -3;
            }
            t_me = Identity{};
        });
    }
    for (auto &t : threads)
        t.join();
    g_fabric = nullptr;
    result.aborted = f.aborted && !f.timed_out;
    result.abort_code = f.abort_code;
    result.timed_out = f.timed_out;
    result.violations = f.violations;
    result.leaked_names = static_cast<int>(f.names.size());
    result.leaked_objects = static_cast<int>(f.objects.size());
    result.console = f.console;
    return result;
}

void print(const std::string &text) { t_me.out += text; }

void wait_arrivals(int rank, int n) {
    std::unique_lock<std::mutex> lock(fab().m);
    wait_for(lock, [&] {
        int sum = 0;
        for (const auto &[addr, mb] : fab().mailboxes)
            if (mb.owner == rank)
                sum += mb.arrived;
        return sum >= n;
    });
}

bool clean(const JobResult &r) {
    for (int s : r.status)
        if (s != 0)
            return false;
    return !r.aborted && !r.timed_out && r.violations == 0 && r.leaked_names == 0 &&
           r.leaked_objects == 0;
}

}  // namespace fake

// ---- lwmpi::os over the fabric -------------------------------------------

namespace lwmpi::os {

using namespace fake;

const ts_job_info *job() { return &t_me.info; }
int rank() { return t_me.rank; }
int local_index() { return t_me.local; }

unsigned long time() {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - fab().start)
                        .count();
    return static_cast<unsigned long>(ns * fab().config.clock_rate / 100);  // 10 MHz
}

void sleep_ns(unsigned long ns) {
    check_abort();
    std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
    check_abort();
}

void console_write(const char *s, size_t n) {
    std::lock_guard<std::mutex> lock(fab().m);
    fab().console.append(s, n);
}

bool console_flush() { return flush_output(); }

void abort_job(int code) {
    flush_output();  // as ts_job_abort: the caller's last words
    {
        std::lock_guard<std::mutex> lock(fab().m);
        if (!fab().aborted)
            fab().abort_code = code;
        fab().aborted = true;
        fab().cv.notify_all();
    }
    throw Aborted{};
}

int mailbox_create(int port) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (!port_ok(port))
        return violation(-TS_EINVAL);
    const Addr a{t_me.info.cluster_id, port};
    if (fab().mailboxes.count(a))
        return violation(-TS_EBUSY);
    fab().mailboxes[a].owner = t_me.rank;
    const int id = fab().next_id++;
    fab().objects[id] = Object{Kind::in_mailbox, a, {}};
    return id;
}

int mailbox_open(int local_port, int cluster, int port) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (!port_ok(local_port) || !port_ok(port) || !cluster_ok(cluster))
        return violation(-TS_EINVAL);
    const int id = fab().next_id++;
    fab().objects[id] = Object{Kind::out_mailbox, {t_me.info.cluster_id, local_port}, {cluster, port}};
    return id;
}

long mailbox_write(int id, const void *buf, size_t size) {
    std::unique_lock<std::mutex> lock(fab().m);
    Object *o = object(id, Kind::out_mailbox);
    if (!o)
        return violation(-TS_EBADF);
    if (size > static_cast<size_t>(fab().config.payload))
        return violation(-TS_EINVAL);
    const Addr from = o->local, to = o->remote;
    if (!fab().mailboxes.count(to))
        return violation(-TS_ENOENT);
    wait_for(lock, [&] {
        auto it = fab().mailboxes.find(to);
        return it == fab().mailboxes.end() || it->second.unread[from] == 0;
    });
    auto it = fab().mailboxes.find(to);
    if (it == fab().mailboxes.end())
        return violation(-TS_ENOENT);
    const char *p = static_cast<const char *>(buf);
    it->second.queue.push_back(Message{from, std::vector<char>(p, p + size)});
    ++it->second.unread[from];
    ++it->second.arrived;
    fab().cv.notify_all();
    return static_cast<long>(size);
}

long mailbox_read(int id, void *buf, size_t size) {
    std::unique_lock<std::mutex> lock(fab().m);
    Object *o = object(id, Kind::in_mailbox);
    if (!o)
        return violation(-TS_EBADF);
    const Addr me = o->local;
    InMailbox &mb = fab().mailboxes[me];
    wait_for(lock, [&] { return !mb.queue.empty(); });
    Message msg = std::move(mb.queue.front());
    mb.queue.pop_front();
    --mb.unread[msg.from];
    fab().cv.notify_all();
    std::memcpy(buf, msg.data.data(), std::min(size, msg.data.size()));
    return static_cast<long>(msg.data.size());
}

int mailbox_close(int id) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (!object(id, Kind::out_mailbox))
        return violation(-TS_EBADF);
    fab().objects.erase(id);
    return 0;
}

int mailbox_unlink(int id) {
    std::lock_guard<std::mutex> lock(fab().m);
    Object *o = object(id, Kind::in_mailbox);
    if (!o)
        return violation(-TS_EBADF);
    if (!fab().mailboxes[o->local].queue.empty())
        ++fab().violations;  // LWMPI must have read every message by now
    fab().mailboxes.erase(o->local);
    fab().objects.erase(id);
    fab().cv.notify_all();
    return 0;
}

int portal_create(int port) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (!port_ok(port))
        return violation(-TS_EINVAL);
    const Addr a{t_me.info.cluster_id, port};
    if (fab().portals.count(a))
        return violation(-TS_EBUSY);
    fab().portals[a];
    const int id = fab().next_id++;
    fab().objects[id] = Object{Kind::in_portal, a, {}};
    return id;
}

int portal_allow(int id, int cluster, int port) {
    std::lock_guard<std::mutex> lock(fab().m);
    Object *o = object(id, Kind::in_portal);
    if (!o || !cluster_ok(cluster) || !port_ok(port))
        return violation(-TS_EINVAL);
    InPortal &p = fab().portals[o->local];
    if (p.allowed || p.has_data)
        return violation(-TS_EBUSY);
    p.allowed = true;
    p.allow_from = {cluster, port};
    fab().cv.notify_all();
    return 0;
}

int portal_open(int local_port, int cluster, int port) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (!port_ok(local_port) || !port_ok(port) || !cluster_ok(cluster))
        return violation(-TS_EINVAL);
    const int id = fab().next_id++;
    fab().objects[id] = Object{Kind::out_portal, {t_me.info.cluster_id, local_port}, {cluster, port}};
    return id;
}

long portal_write(int id, const void *buf, size_t size) {
    std::unique_lock<std::mutex> lock(fab().m);
    Object *o = object(id, Kind::out_portal);
    if (!o)
        return violation(-TS_EBADF);
    const Addr from = o->local, to = o->remote;
    if (!fab().portals.count(to))
        return violation(-TS_ENOENT);
    InPortal &p = fab().portals[to];
    wait_for(lock, [&] { return p.allowed && p.allow_from == from && !p.has_data; });
    const char *b = static_cast<const char *>(buf);
    p.data.assign(b, b + size);
    p.data_from = from;
    p.has_data = true;
    p.allowed = false;
    const unsigned long mine = ++p.written;
    fab().cv.notify_all();
    wait_for(lock, [&] { return p.taken >= mine; });  // the receiver took it
    return static_cast<long>(size);
}

long portal_read(int id, void *buf, size_t size) {
    std::unique_lock<std::mutex> lock(fab().m);
    Object *o = object(id, Kind::in_portal);
    if (!o)
        return violation(-TS_EBADF);
    InPortal &p = fab().portals[o->local];
    if (!p.allowed && !p.has_data)
        return violation(-TS_EINVAL);  // a read needs a prior allow
    wait_for(lock, [&] { return p.has_data; });
    if (p.data.size() != size)
        ++fab().violations;  // both sides must agree on the size
    std::memcpy(buf, p.data.data(), std::min(size, p.data.size()));
    p.has_data = false;
    ++p.taken;
    fab().cv.notify_all();
    return static_cast<long>(size);
}

int portal_close(int id) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (!object(id, Kind::out_portal))
        return violation(-TS_EBADF);
    fab().objects.erase(id);
    return 0;
}

int portal_unlink(int id) {
    std::lock_guard<std::mutex> lock(fab().m);
    Object *o = object(id, Kind::in_portal);
    if (!o)
        return violation(-TS_EBADF);
    fab().portals.erase(o->local);
    fab().objects.erase(id);
    return 0;
}

int name_link(const char *name, int cluster) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (!name || !cluster_ok(cluster))
        return -TS_EINVAL;
    if (std::strlen(name) > 31)
        return -TS_ENAMETOOLONG;
    if (fab().names.count(name))
        return -TS_EEXIST;
    fab().names[name] = cluster;
    return 0;
}

int name_lookup(const char *name) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (fab().aborted)
        throw Aborted{};
    auto it = fab().names.find(name);
    return it == fab().names.end() ? -TS_ENOENT : it->second;
}

int name_unlink(const char *name) {
    std::lock_guard<std::mutex> lock(fab().m);
    return fab().names.erase(name) ? 0 : -TS_ENOENT;
}

}  // namespace lwmpi::os
