// A simulated Tessera for the host tests: lwmpi::os over threads, one
// mutex and one condition variable. Faithful to the contract where LWMPI
// depends on it (<tessera/syscall.h>, the kernel's ikc/):
//
// - Mailboxes: a reader takes the messages for its port in arrival order.
//   Messages wait for their reader in the cluster's buffers table
//   (JobConfig::ikc_buffers of them for all the cluster's ports); when it
//   is full, each sending cluster has one hardware slot at the receiving
//   cluster, and a writer waits while its cluster's slot is taken.
// - Portals: a read needs a prior allow and takes one transfer from the
//   allowed (cluster, port) only; a write waits until the receiver's
//   allowed read takes its data. Both sides must agree on the size.
// - Asynchronous reads and writes: one per object at a time (-TS_EBUSY),
//   moved on "in the background": a read is served as soon as a message
//   (or the allowed writer's data) is there, by whichever thread brings
//   it; wait blocks until then, test returns -TS_EAGAIN meanwhile.
// - Objects belong to their cluster (the process of its ranks); closing
//   or unlinking one with its asynchronous operation still running is
//   -TS_EBUSY.
// - Windows (TS_SYS_WINDOW_*): a table of windows, each owned by the
//   rank that made it, with its exposed regions. Accesses are carried out
//   at once under the fabric's mutex (the ranks are threads of one host
//   process, so a target's addresses are the caller's), atomics with
//   __atomic so that the owner's own atomics on the word see them whole.
//   A write to memory the target does not expose fails at the next flush
//   to that target (as the kernel's, which reports it then).
// - Names: registered by a cluster for (that cluster, port), resolved by
//   everyone, -TS_ENOENT until registered.
//
// Misuse counts as a violation: what the kernel refuses (-TS_EBADF,
// -TS_EINVAL, -TS_EBUSY) and what it accepts but loses data with (a
// message nobody will read, left parked for good; a portal size mismatch;
// an allow that replaces one not used yet). A job still running after
// JobConfig::timeout_s is hung: its ranks end at their next fabric call.
// Each rank's stdout is a line buffer (fake::print) that reaches the
// console as the runtime's does: when flushed, at the rank's end, at an
// abort.
//
// In processes mode (JobConfig::processes) each rank is a process as far
// as threads can be: its threads share its process word, and its private
// area is one memfd range mapped twice, at the rank's own addresses and at
// its alias (each cluster's areas at consecutive addresses, their aliases
// too), so that os::global() moves pointers into it. Unlike the target's,
// the areas of the ranks of a cluster are at different addresses
// (private_base differs), and the rest of a rank's memory (its heap, its
// stack) is not private.
#include "fake_job.hpp"

#include <tessera/syscall.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tessera/names.h>
#include "../mpiutil/os.hpp"
#include <tessera/mapping.hpp>

namespace fake {

namespace {

struct Aborted {};  // thrown through LWMPI to end a rank's thread
struct TimedOut {};

using Addr = std::pair<int, int>;  // (cluster, port)
using Clock = std::chrono::steady_clock;

// The asynchronous operation of one object.
struct Async {
    bool started = false;
    bool finished = false;
    void *rbuf = nullptr;        // a read's destination
    const void *wbuf = nullptr;  // a write's source
    size_t size = 0;
    long result = 0;
    Addr starter{-1, -1};  // (cluster, core) of the thread that started it
    size_t transfer = 0;   // a portal read's: the transfer's bytes (those past `size` dropped)
    uint32_t tag = 0;      // a portal write's
};

enum class Kind { in_mailbox, out_mailbox, in_portal, out_portal };

struct Object {
    Kind kind;
    Addr local;   // (my cluster, port or local_port)
    Addr remote;  // outputs: target
    Async async;
};

struct Message {
    int from_cluster;
    std::vector<char> data;
    bool in_slot;       // in the sender cluster's hardware slot, not parked
    unsigned long seq;  // arrival order in the cluster
};

struct InMailbox {
    int object;       // the id of the input mailbox
    int owner;        // world rank of the creator
    int arrived = 0;  // messages written to it so far
    std::deque<Message> queue;
    ts_ring *ring = nullptr;  // where its arrivals go (os::mailbox_ring)
    unsigned ring_head = 0;   // the fabric's own count (it never reads the ring's)
    Addr reader{-1, -1};      // (cluster, core) whose event an arrival in the ring is
};

struct InPortal {
    int object;
    bool allowed = false;
    Addr allow_from{};
    uint32_t allow_tag = 0;
};

// What a cluster's kernel holds for its mailboxes' readers.
struct ClusterIkc {
    int parked = 0;             // messages in the buffers table
    std::set<int> slots_taken;  // sending clusters whose hardware slot is full
};

// An IKC window: its owner (a world rank), its exposed regions (base,
// size), and per target (cluster, key) the first error a write to it met
// since the last flush.
struct Window {
    int owner;
    std::vector<std::pair<uintptr_t, size_t>> regions;
    std::map<Addr, long> write_error;
};

struct alignas(64) SharedBlock {
    unsigned char bytes[lwmpi::os::cluster_shared_bytes];
};

struct Fabric {
    std::mutex m;
    std::condition_variable cv;
    JobConfig config;
    Clock::time_point start;
    Clock::time_point deadline;
    std::map<Addr, InMailbox> mailboxes;
    std::map<Addr, InPortal> portals;
    std::map<int, ClusterIkc> clusters;
    std::map<int, Object> objects;
    std::map<Addr, unsigned long> events;               // per (cluster, core), for ikc_wait_any
    std::vector<int> sleeps, yields;                    // per rank: blocking waits, os::yield() calls
    std::vector<int> ikc_calls;                         // per rank: IKC calls made
    std::vector<std::vector<ts_mpi_state>> mpi_states;  // per rank: what it told the job monitor
    int next_id = 3;
    unsigned long next_seq = 0;
    std::map<std::string, Addr> names;
    std::map<Addr, Window> windows;      // (cluster, key)
    std::map<int, int> next_window_key;  // per cluster
    bool aborted = false;
    int abort_code = 0;
    bool timed_out = false;
    int violations = 0;
    std::string console;
};

Fabric *g_fabric;

// The private areas of one compute cluster's ranks in processes mode:
// one memory file mapped twice, at `own` (rank l's area at own + l *
// private_bytes) and at `alias`.
class PrivateAreas {
public:
    explicit PrivateAreas(int ranks) : bytes_(static_cast<size_t>(ranks) * private_bytes) {
        const int fd = memfd_create("lwmpi-private", MFD_CLOEXEC);
        if (fd < 0) throw std::system_error(errno, std::generic_category(), "memfd_create");
        if (ftruncate(fd, static_cast<off_t>(bytes_)) == 0 && (own_ = map(fd))) alias_ = map(fd);
        const int err = errno;
        close(fd);
        if (!alias_) {
            if (own_) munmap(own_, bytes_);
            throw std::system_error(err, std::generic_category(), "mapping the private areas");
        }
    }
    PrivateAreas(const PrivateAreas &) = delete;
    PrivateAreas &operator=(const PrivateAreas &) = delete;
    ~PrivateAreas() {
        munmap(own_, bytes_);
        munmap(alias_, bytes_);
    }
    unsigned char *own() const { return own_; }
    unsigned char *alias() const { return alias_; }

private:
    unsigned char *map(int fd) const {
        void *p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        return p == MAP_FAILED ? nullptr : static_cast<unsigned char *>(p);
    }

    size_t bytes_;
    unsigned char *own_ = nullptr;
    unsigned char *alias_ = nullptr;
};

struct Identity {
    int rank = -1;
    int local = -1;
    int core = 0;  // os::core()
    ts_job_info info{};
    lwmpi::os::Aliasing aliasing{};         // from info: os::global()
    SharedBlock *shared = nullptr;          // the cluster's shared block
    void **word = nullptr;                  // its process's word (os::process_word)
    unsigned char *private_area = nullptr;  // processes mode: the rank's
    std::string out;                        // stdout's line buffer (fake::print)
    bool mid_line = false;                  // the last byte flushed was not '\n'
};
thread_local Identity t_me;

Fabric &fab() { return *g_fabric; }

// Ends the calling rank when the job was aborted or ran out of time
// (lock held).
void check_alive(std::unique_lock<std::mutex> &) {
    Fabric &f = fab();
    if (!f.aborted && Clock::now() >= f.deadline) {
        f.timed_out = true;
        f.aborted = true;
        f.cv.notify_all();
        throw TimedOut{};
    }
    if (f.aborted) throw Aborted{};
}

// Locks the fabric for a call of a rank that may be ended.
std::unique_lock<std::mutex> enter() {
    std::unique_lock<std::mutex> lock(fab().m);
    check_alive(lock);
    return lock;
}

// Waits (lock held) until pred(); ends the rank on abort or timeout.
template <class Pred>
void wait_for(std::unique_lock<std::mutex> &lock, Pred pred) {
    while (!pred()) {
        fab().cv.wait_until(lock, fab().deadline);
        check_alive(lock);
    }
}

bool port_ok(int port) { return port > 0 && port < TS_PORTS; }
// One more for the calling rank in a per-rank count (lock held).
void tally(std::vector<int> &per_rank) {
    if (t_me.rank >= 0 && t_me.rank < static_cast<int>(per_rank.size())) ++per_rank[t_me.rank];
}

// enter() for an IKC call: counted for its rank (each is a kernel call
// on the target).
std::unique_lock<std::mutex> enter_ikc() {
    auto lock = enter();
    tally(fab().ikc_calls);
    return lock;
}

bool cluster_ok(int c) { return c >= 0 && c < t_me.info.nclusters; }
Addr my_addr(int port) { return {t_me.info.cluster_id, port}; }

int violation(int err) {
    ++fab().violations;
    return err;
}

// Object `id` of `kind` of the caller's cluster (its process), or nullptr.
Object *object(int id, Kind kind) {
    auto it = fab().objects.find(id);
    if (it == fab().objects.end() || it->second.kind != kind ||
        it->second.local.first != t_me.info.cluster_id)
        return nullptr;
    return &it->second;
}

void finish(Async &a, long result) {
    a.finished = true;
    a.result = result;
    ++fab().events[a.starter];
    fab().cv.notify_all();
}

// ---- mailboxes ----

// Moves messages waiting in hardware slots into the buffers table while
// it has room, oldest first (the kernel does it on its next poll).
void unpark_slots(int cluster) {
    ClusterIkc &c = fab().clusters[cluster];
    while (c.parked < fab().config.ikc_buffers && !c.slots_taken.empty()) {
        Message *oldest = nullptr;
        for (auto &[addr, mb] : fab().mailboxes)
            if (addr.first == cluster)
                for (Message &m : mb.queue)
                    if (m.in_slot && (!oldest || m.seq < oldest->seq)) oldest = &m;
        oldest->in_slot = false;
        c.slots_taken.erase(oldest->from_cluster);
        ++c.parked;
    }
}

// Takes the oldest message of `mb` out of the kernel.
Message pop_message(InMailbox &mb, int cluster) {
    Message msg = std::move(mb.queue.front());
    mb.queue.pop_front();
    ClusterIkc &c = fab().clusters[cluster];
    if (msg.in_slot)
        c.slots_taken.erase(msg.from_cluster);
    else
        --c.parked;
    unpark_slots(cluster);
    return msg;
}

// Moves the messages of `mb` into its ring while it has room, as the
// kernel does (ts_ring's rules): messages moved.
long fill_ring(InMailbox &mb, int cluster) {
    ts_ring *r = mb.ring;
    const size_t stride = TS_RING_SLOT_BYTES(fab().config.payload);
    long moved = 0;
    while (!mb.queue.empty() && mb.ring_head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) < r->nslots) {
        const Message m = pop_message(mb, cluster);
        auto *slot = reinterpret_cast<ts_ring_slot *>(reinterpret_cast<char *>(r + 1) +
                                                      (mb.ring_head % r->nslots) * stride);
        *slot = ts_ring_slot{static_cast<unsigned short>(m.data.size()),
                             static_cast<unsigned short>(m.from_cluster), 0, 0};
        std::memcpy(slot + 1, m.data.data(), m.data.size());
        __atomic_store_n(&r->head, ++mb.ring_head, __ATOMIC_RELEASE);
        ++moved;
    }
    if (!mb.queue.empty()) __atomic_store_n(&r->stalled, 1u, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (moved && __atomic_load_n(&r->wake, __ATOMIC_RELAXED)) {
        ++fab().events[mb.reader];
        fab().cv.notify_all();
    }
    return moved;
}

// Whether a message from `from_cluster` can enter mailbox `to` now.
bool accepts(const Addr &to, int from_cluster) {
    auto it = fab().mailboxes.find(to);
    if (it == fab().mailboxes.end()) return true;
    const ClusterIkc &c = fab().clusters[to.first];
    return c.parked < fab().config.ikc_buffers || !c.slots_taken.count(from_cluster);
}

// Message `data` from `from_cluster` enters mailbox `to` (accepts() is true).
void deliver(const Addr &to, int from_cluster, std::vector<char> data) {
    auto it = fab().mailboxes.find(to);
    if (it == fab().mailboxes.end()) {
        // The kernel parks it for a port nobody reads, for good.
        ++fab().violations;
        return;
    }
    InMailbox &mb = it->second;
    ++mb.arrived;
    fab().cv.notify_all();
    ClusterIkc &c = fab().clusters[to.first];
    const bool in_slot = c.parked >= fab().config.ikc_buffers;
    if (in_slot)
        c.slots_taken.insert(from_cluster);
    else
        ++c.parked;
    mb.queue.push_back(Message{from_cluster, std::move(data), in_slot, fab().next_seq++});
    // Into the ring at once where the fabric fills it, or where its reader
    // sleeps (the kernel's master takes arrivals for a sleeping reader).
    if (mb.ring && (!fab().config.ring_pull || __atomic_load_n(&mb.ring->wake, __ATOMIC_SEQ_CST)))
        fill_ring(mb, to.first);
}

// Drops what mailbox `mb` still holds (its owner unlinks it).
void drop_messages(InMailbox &mb, int cluster) {
    ClusterIkc &c = fab().clusters[cluster];
    for (const Message &m : mb.queue) {
        if (m.in_slot)
            c.slots_taken.erase(m.from_cluster);
        else
            --c.parked;
    }
    mb.queue.clear();
    unpark_slots(cluster);
}

// ---- portals ----

// The output portal whose pending write tagged `tag` goes to `to` from
// `from`, or nullptr.
Object *pending_write(const Addr &to, const Addr &from, uint32_t tag) {
    for (auto &[id, o] : fab().objects)
        if (o.kind == Kind::out_portal && o.remote == to && o.local == from && o.async.started &&
            !o.async.finished && o.async.tag == tag)
            return &o;
    return nullptr;
}

// Moves the data into portal `to` when its allowed read and the allowed
// sender's write are both posted.
void try_transfer(const Addr &to) {
    auto it = fab().portals.find(to);
    if (it == fab().portals.end() || !it->second.allowed) return;
    InPortal &p = it->second;
    Async &r = fab().objects[p.object].async;
    if (!r.started || r.finished) return;
    Object *w = pending_write(to, p.allow_from, p.allow_tag);
    if (!w) return;
    if (w->async.size != r.transfer) ++fab().violations;  // one side would wait forever for the rest
    std::memcpy(r.rbuf, w->async.wbuf, std::min(r.size, w->async.size));
    p.allowed = false;
    finish(r, static_cast<long>(r.size));
    finish(w->async, static_cast<long>(w->async.size));
}

// ---- asynchronous operations ----

long start_async(Object *o, void *rbuf, const void *wbuf, size_t size) {
    if (!o) return violation(-TS_EBADF);
    if (o->async.started) return violation(-TS_EBUSY);  // wait for the last one first
    o->async = Async{true, false, rbuf, wbuf, size, 0, my_addr(lwmpi::os::core())};
    return 0;
}

// An asynchronous mailbox write (lock held) finishes once its receiver
// has room; true when it has.
bool try_awrite(Object &o) {
    Async &a = o.async;
    if (o.kind != Kind::out_mailbox || a.finished) return a.finished;
    if (!accepts(o.remote, o.local.first)) return false;
    const char *p = static_cast<const char *>(a.wbuf);
    deliver(o.remote, o.local.first, std::vector<char>(p, p + a.size));
    finish(a, static_cast<long>(a.size));
    return true;
}

// TS_SYS_*_WAIT on object `id`, one of `kinds`; blocks unless `nowait`.
long wait_async(int id, std::initializer_list<Kind> kinds, bool nowait) {
    auto lock = enter_ikc();
    Object *o = nullptr;
    for (Kind k : kinds)
        if (!o) o = object(id, k);
    if (!o) return violation(-TS_EBADF);
    Async &a = o->async;
    if (!a.started) return violation(-TS_EINVAL);  // nothing to wait for
    try_awrite(*o);
    if (!a.finished && nowait) return -TS_EAGAIN;
    tally(fab().sleeps);
    wait_for(lock, [&] { return try_awrite(*o) || a.finished; });
    a.started = false;
    return a.result;
}

// Closes or unlinks object `id` of `kind`; `cleanup` releases what it holds.
template <class Cleanup>
int release(int id, Kind kind, Cleanup cleanup) {
    auto lock = enter_ikc();
    Object *o = object(id, kind);
    if (!o) return violation(-TS_EBADF);
    if (o->async.started && !o->async.finished) return violation(-TS_EBUSY);
    cleanup(*o);
    fab().objects.erase(id);
    fab().cv.notify_all();
    return 0;
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
    f.start = Clock::now();
    f.deadline = f.start +
                 std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config.timeout_s));
    g_fabric = &f;
    const tessera::pm::JobShape shape{config.np, config.ncompute, config.slots,
                                      static_cast<tessera::pm::MapPolicy>(config.policy)};
    // One zeroed block per compute cluster: its ranks' shared memory.
    std::vector<std::unique_ptr<SharedBlock>> shared;
    std::vector<std::unique_ptr<PrivateAreas>> areas;
    for (int c = 0; c < config.ncompute; ++c) {
        shared.push_back(std::make_unique<SharedBlock>());
        if (config.processes) areas.push_back(std::make_unique<PrivateAreas>(config.slots));
    }
    // A word per rank (os::rank_word()), its threads' too.
    std::vector<void *> words(static_cast<size_t>(config.np));
    JobResult result;
    result.status.assign(config.np, -1);
    f.sleeps.assign(config.np, 0);
    f.yields.assign(config.np, 0);
    f.ikc_calls.assign(config.np, 0);
    f.mpi_states.assign(static_cast<size_t>(config.np), {});
    std::vector<std::thread> threads;
    for (int rank = 0; rank < config.np; ++rank) {
        threads.emplace_back([&, rank] {
            const tessera::pm::Placement p = shape.place(rank);
            t_me.rank = rank;
            t_me.local = p.local;
            t_me.core = p.local + 1;  // as the runtime places rank threads
            t_me.shared = shared[p.cluster].get();
            t_me.word = &words[static_cast<size_t>(rank)];
            ts_job_info &i = t_me.info;
            i.cluster_id = config.nio + p.cluster;
            i.nclusters = config.nio + config.ncompute;
            i.nio_clusters = config.nio;
            i.ncores = 2 * config.slots + 1;  // the master, the ranks, a core for each rank_thread()
            i.np = config.np;
            i.map_policy = config.policy;
            i.slots_per_cluster = config.slots;
            i.mailbox_payload = config.payload;
            i.portal_chunk = 4096;
            i.argc = 1;
            i.timebase_hz = 10'000'000;
            std::strcpy(i.args, "test");
            i.ikc_buffers = config.ikc_buffers;
            i.virtual_per_hw = config.virtual_per_hw;
            i.mpi_flags = (config.local_path ? 0 : TS_JOB_MPI_LOCAL_IKC) |
                          (config.eager_one_message ? TS_JOB_MPI_EAGER_ONE_MESSAGE : 0);
            i.mpi_wait_policy = config.wait_policy;
            i.mpi_eager_max = config.eager_max;
            i.rank = i.local_index = -1;
            i.appnum = rank < static_cast<int>(config.appnum.size()) ? config.appnum[rank] : 0;
            if (config.processes) {
                const PrivateAreas &a = *areas[static_cast<size_t>(p.cluster)];
                t_me.private_area = a.own() + static_cast<size_t>(p.local) * private_bytes;
                i.ranks_mode = TS_RANKS_PROCESSES;
                i.rank = rank;
                i.local_index = p.local;
                i.private_base = reinterpret_cast<uintptr_t>(t_me.private_area);
                i.private_size = private_bytes;
                i.alias_base = config.aliases ? reinterpret_cast<uintptr_t>(a.alias()) : 0;
            }
            t_me.aliasing = lwmpi::os::Aliasing::of(i, p.local);
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
    result.leaked_objects = static_cast<int>(f.objects.size() + f.windows.size());
    result.console = f.console;
    result.mpi_states = f.mpi_states;
    return result;
}

void print(const std::string &text) { t_me.out += text; }

std::thread rank_thread(std::function<void()> body) {
    Identity me = t_me;
    me.out.clear();
    me.mid_line = false;
    me.core += me.info.slots_per_cluster;
    return std::thread([me = std::move(me), body = std::move(body)] {
        t_me = me;
        try {
            body();
            flush_output();
        } catch (const Aborted &) {
        } catch (const TimedOut &) {}
        t_me = Identity{};
    });
}

unsigned char *private_memory() { return t_me.private_area; }

void hide_private(bool hidden) {
    if (mprotect(t_me.private_area, private_bytes, hidden ? PROT_NONE : PROT_READ | PROT_WRITE) < 0)
        throw std::system_error(errno, std::generic_category(), "mprotect of a private area");
}

namespace {
// Messages written to the mailboxes of world rank `rank` (lock held).
int arrived_at(int rank) {
    int sum = 0;
    for (const auto &[addr, mb] : fab().mailboxes)
        if (mb.owner == rank) sum += mb.arrived;
    return sum;
}
}  // namespace

int sleeps(int rank) {
    auto lock = enter();
    return fab().sleeps.at(static_cast<size_t>(rank));
}

int yields(int rank) {
    auto lock = enter();
    return fab().yields.at(static_cast<size_t>(rank));
}

int ikc_calls(int rank) {
    auto lock = enter();
    return fab().ikc_calls.at(static_cast<size_t>(rank));
}

int arrivals(int rank) {
    auto lock = enter();
    return arrived_at(rank);
}

void wait_arrivals(int rank, int n) {
    auto lock = enter();
    wait_for(lock, [&] { return arrived_at(rank) >= n; });
}

bool clean(const JobResult &r) {
    for (int s : r.status)
        if (s != 0) return false;
    return !r.aborted && !r.timed_out && r.violations == 0 && r.leaked_names == 0 && r.leaked_objects == 0;
}

}  // namespace fake

// ---- lwmpi::os over the fabric -------------------------------------------

namespace lwmpi::os {

using namespace fake;

const ts_job_info *job() { return &t_me.info; }
int rank() { return t_me.rank; }
int local_index() { return t_me.local; }
int core() { return t_me.core; }

void *cluster_shared(size_t size) {
    const ts_job_info &i = t_me.info;
    if (i.ranks_mode == TS_RANKS_PROCESSES && !i.alias_base) return nullptr;  // private memory only
    return size <= sizeof(SharedBlock::bytes) && t_me.shared ? t_me.shared->bytes : nullptr;
}

void *global(const void *p) { return t_me.aliasing.global(p); }
void *private_of(const void *g) { return t_me.aliasing.private_of(g); }
void *&rank_word() {
    thread_local void *outside = nullptr;  // a thread outside any job (unit tests of LibMPI alone)
    return t_me.word ? *t_me.word : outside;
}

// Futexes over the fabric's lock and condition: a waker changes the word,
// then takes the lock to notify, so a sleeper that saw the old value under
// the lock is already waiting then.
void futex_wait(const uint32_t *addr, uint32_t expected, unsigned long timeout_ns) {
    auto lock = enter();
    const auto until = timeout_ns ? Clock::now() + std::chrono::nanoseconds(timeout_ns) : fab().deadline;
    while (__atomic_load_n(addr, __ATOMIC_SEQ_CST) == expected && Clock::now() < until) {
        fab().cv.wait_until(lock, std::min(until, fab().deadline));
        check_alive(lock);
    }
}

void futex_wake(const uint32_t *, int) {
    auto lock = enter();
    fab().cv.notify_all();
}

unsigned long time() {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - fab().start).count();
    return static_cast<unsigned long>(ns * fab().config.clock_rate / 100);  // 10 MHz
}

// A rank that polls (sleeping between tries) ends with the job too.
void sleep_ns(unsigned long ns) {
    enter();
    std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
    enter();
}

void yield() {
    {
        auto lock = enter();
        tally(fab().yields);
    }
    std::this_thread::yield();
}

void console_write(const char *s, size_t n) {
    std::lock_guard<std::mutex> lock(fab().m);
    fab().console.append(s, n);
}

bool console_flush() { return flush_output(); }

int mpi_state_send(const ts_mpi_state &st) {
    std::lock_guard<std::mutex> lock(fab().m);
    if (t_me.rank < 0) return -TS_EPERM;
    fab().mpi_states[static_cast<size_t>(t_me.rank)].push_back(st);
    return 0;
}

// The simulated fabric records no trace.
bool tracing() { return false; }
void trace_record(unsigned, int, int, long, unsigned long, unsigned long) {}

int trace_dump(int) { return -TS_ENOSYS; }

void abort_job(int code) {
    flush_output();  // as ts_job_abort: the caller's last words
    {
        std::lock_guard<std::mutex> lock(fab().m);
        if (!fab().aborted) fab().abort_code = code;
        fab().aborted = true;
        fab().cv.notify_all();
    }
    throw Aborted{};
}

// ---- mailboxes ----

int mailbox_create(int port) {
    auto lock = enter_ikc();
    if (!port_ok(port)) return violation(-TS_EINVAL);
    const Addr a = my_addr(port);
    if (fab().mailboxes.count(a)) return violation(-TS_EBUSY);
    const int id = fab().next_id++;
    fab().objects[id] = Object{Kind::in_mailbox, a, {}, {}};
    fab().mailboxes.emplace(a, InMailbox{id, t_me.rank, 0, {}});
    return id;
}

namespace {
// A new output mailbox or portal (`kind`) to (cluster, port): its id, or
// -TS_ENFILE when my cluster already has the profile's virtual_per_hw of
// them on that cluster's one hardware resource, as the kernel's active
// table allows.
int open_output(Kind kind, int local_port, int cluster, int port) {
    if (!port_ok(local_port) || !port_ok(port) || !cluster_ok(cluster)) return violation(-TS_EINVAL);
    int carried = 0;
    for (const auto &[id, o] : fab().objects)
        carried += o.kind == kind && o.local.first == t_me.info.cluster_id && o.remote.first == cluster;
    if (carried >= fab().config.virtual_per_hw) return -TS_ENFILE;
    const int id = fab().next_id++;
    fab().objects[id] = Object{kind, my_addr(local_port), {cluster, port}, {}};
    return id;
}
}  // namespace

int mailbox_open(int local_port, int cluster, int port) {
    auto lock = enter_ikc();
    return open_output(Kind::out_mailbox, local_port, cluster, port);
}

long mailbox_awrite(int id, const void *buf, size_t size) {
    auto lock = enter_ikc();
    Object *o = object(id, Kind::out_mailbox);
    if (o && size > static_cast<size_t>(fab().config.payload)) return violation(-TS_EINVAL);
    if (long e = start_async(o, nullptr, buf, size)) return e;
    try_awrite(*o);
    return 0;
}

long mailbox_trywrite(int id, const void *buf, size_t size) {
    auto lock = enter_ikc();
    Object *o = object(id, Kind::out_mailbox);
    if (!o) return violation(-TS_EBADF);
    if (size > static_cast<size_t>(fab().config.payload)) return violation(-TS_EINVAL);
    if (o->async.started) return violation(-TS_EBUSY);  // as the kernel's synchronous calls
    if (!accepts(o->remote, o->local.first)) return -TS_EAGAIN;
    const char *p = static_cast<const char *>(buf);
    deliver(o->remote, o->local.first, std::vector<char>(p, p + size));
    return static_cast<long>(size);
}

long mailbox_ring(int id, ts_ring *ring, unsigned nslots) {
    auto lock = enter_ikc();
    Object *o = object(id, Kind::in_mailbox);
    if (!o) return violation(-TS_EBADF);
    if (!ring || reinterpret_cast<uintptr_t>(ring) % 8 || nslots == 0 || nslots > TS_RING_MAX_SLOTS ||
        (nslots & (nslots - 1)))
        return violation(-TS_EINVAL);
    InMailbox &mb = fab().mailboxes.at(o->local);
    *ring = ts_ring{0, 0, 0, 0, nslots, 0};
    mb.ring = ring;
    mb.ring_head = 0;
    mb.reader = my_addr(core());
    if (!fab().config.ring_pull) fill_ring(mb, o->local.first);
    return fab().config.ring_pull ? TS_RING_PULL : 0;
}

long mailbox_drain(int id) {
    auto lock = enter_ikc();
    Object *o = object(id, Kind::in_mailbox);
    if (!o) return violation(-TS_EBADF);
    InMailbox &mb = fab().mailboxes.at(o->local);
    if (!mb.ring) return violation(-TS_EINVAL);
    mb.reader = my_addr(core());
    return fill_ring(mb, o->local.first);
}

long mailbox_test(int id) { return wait_async(id, {Kind::out_mailbox}, true); }

long mailbox_parked(int id) {
    auto lock = enter_ikc();
    Object *o = object(id, Kind::in_mailbox);
    if (!o) return violation(-TS_EBADF);
    return static_cast<long>(fab().mailboxes.at(o->local).queue.size());
}

int mailbox_close(int id) {
    return release(id, Kind::out_mailbox, [](Object &) {});
}

int mailbox_unlink(int id) {
    return release(id, Kind::in_mailbox, [](Object &o) {
        InMailbox &mb = fab().mailboxes.at(o.local);
        if (!mb.queue.empty()) ++fab().violations;  // left in the kernel's buffers table for good
        drop_messages(mb, o.local.first);
        fab().mailboxes.erase(o.local);
    });
}

// ---- portals ----

int portal_create(int port) {
    auto lock = enter_ikc();
    if (!port_ok(port)) return violation(-TS_EINVAL);
    const Addr a = my_addr(port);
    if (fab().portals.count(a)) return violation(-TS_EBUSY);
    const int id = fab().next_id++;
    fab().objects[id] = Object{Kind::in_portal, a, {}, {}};
    fab().portals.emplace(a, InPortal{id});
    return id;
}

int portal_allow(int id, int cluster, int port, uint32_t tag) {
    auto lock = enter_ikc();
    Object *o = object(id, Kind::in_portal);
    if (!o) return violation(-TS_EBADF);
    if (!cluster_ok(cluster) || !port_ok(port)) return violation(-TS_EINVAL);
    InPortal &p = fab().portals.at(o->local);
    if (p.allowed) ++fab().violations;  // the kernel forgets the first: a transfer lost
    p.allowed = true;
    p.allow_from = {cluster, port};
    p.allow_tag = tag;
    try_transfer(o->local);
    return 0;
}

int portal_open(int local_port, int cluster, int port) {
    auto lock = enter_ikc();
    return open_output(Kind::out_portal, local_port, cluster, port);
}

long portal_aread(int id, void *buf, size_t size, size_t transfer) {
    auto lock = enter_ikc();
    Object *o = object(id, Kind::in_portal);
    if (transfer && transfer < size) return violation(-TS_EINVAL);
    if (long e = start_async(o, buf, nullptr, size)) return e;
    o->async.transfer = transfer ? transfer : size;
    InPortal &p = fab().portals.at(o->local);
    if (!p.allowed) {  // the kernel's first attempt fails, its wait says so
        finish(o->async, violation(-TS_EINVAL));
        return 0;
    }
    if (o->async.transfer == 0) {  // the kernel takes the allow and moves nothing
        p.allowed = false;
        finish(o->async, 0);
        return 0;
    }
    try_transfer(o->local);
    return 0;
}

long portal_awrite(int id, const void *buf, size_t size, uint32_t tag) {
    auto lock = enter_ikc();
    Object *o = object(id, Kind::out_portal);
    if (long e = start_async(o, nullptr, buf, size)) return e;
    o->async.tag = tag;
    if (size == 0) {  // no chunk to move
        finish(o->async, 0);
        return 0;
    }
    try_transfer(o->remote);
    return 0;
}

long ikc_wait_any(unsigned long seen, unsigned long timeout_ns) {
    auto lock = enter_ikc();
    const auto until = timeout_ns ? Clock::now() + std::chrono::nanoseconds(timeout_ns) : fab().deadline;
    const Addr me = my_addr(core());
    tally(fab().sleeps);
    // Writes finish when they are looked at (try_awrite): look at mine.
    auto count = [&] {
        for (auto &entry : fab().objects)
            if (entry.second.async.starter == me && entry.second.async.started) try_awrite(entry.second);
        return fab().events[me];
    };
    while (count() == seen && Clock::now() < until) {
        fab().cv.wait_until(lock, std::min(until, fab().deadline));
        check_alive(lock);
    }
    return static_cast<long>(count() & LONG_MAX);
}

int ikc_wake(int core) {
    auto lock = enter_ikc();
    if (core < 1 || core >= t_me.info.ncores) return violation(-TS_EINVAL);
    ++fab().events[my_addr(core)];
    fab().cv.notify_all();
    return 0;
}

long portal_wait(int id) { return wait_async(id, {Kind::in_portal, Kind::out_portal}, false); }
long portal_test(int id) { return wait_async(id, {Kind::in_portal, Kind::out_portal}, true); }

// Writes move whole when both sides are posted (try_transfer): one that
// has not finished moved nothing.
long portal_cancel(int id) {
    {
        auto lock = enter_ikc();
        Object *o = object(id, Kind::out_portal);
        if (!o || !o->async.started) return violation(o ? -TS_EINVAL : -TS_EBADF);
        if (!o->async.finished) {
            o->async.started = false;
            return -TS_ECANCELED;
        }
    }
    return portal_test(id);
}

int portal_close(int id) {
    return release(id, Kind::out_portal, [](Object &) {});
}

int portal_unlink(int id) {
    return release(id, Kind::in_portal, [](Object &o) { fab().portals.erase(o.local); });
}

// ---- windows ----

namespace {

// The caller's window `key`, or nullptr (lock held).
Window *own_window(int key) {
    auto it = fab().windows.find(my_addr(key));
    return it == fab().windows.end() || it->second.owner != t_me.rank ? nullptr : &it->second;
}

// Whether [addr, addr + n) lies in one region of `w`.
bool exposed(const Window &w, uintptr_t addr, size_t n) {
    for (const auto &[base, size] : w.regions)
        if (addr >= base && n <= size && addr - base <= size - n) return true;
    return false;
}

// One request of the caller's window `key` (struct ts_window_op).
long window_access(int key, ts_window_op &op) {
    auto lock = enter_ikc();
    Window *me = own_window(key);
    if (!me) return -TS_EBADF;
    if (!cluster_ok(op.cluster)) return -TS_EINVAL;
    const Addr to{op.cluster, op.target};
    auto it = fab().windows.find(to);
    if (it == fab().windows.end()) return -TS_ENOENT;
    const Window &target = it->second;
    const uintptr_t addr = op.addr;
    switch (op.kind) {
    case TS_WINDOW_WRITE:
        if (!exposed(target, addr, op.size)) {
            me->write_error.emplace(to, -TS_EACCES);  // (keeps the first)
            return 0;
        }
        std::memcpy(reinterpret_cast<void *>(addr), op.buf, op.size);
        return 0;
    case TS_WINDOW_READ:
        if (!exposed(target, addr, op.size)) return -TS_EACCES;
        std::memcpy(op.buf, reinterpret_cast<const void *>(addr), op.size);
        return 0;
    case TS_WINDOW_FLUSH: {
        auto e = me->write_error.find(to);
        if (e == me->write_error.end()) return 0;
        const long err = e->second;
        me->write_error.erase(e);
        return err;
    }
    case TS_WINDOW_CAS:
    case TS_WINDOW_FADD:
    case TS_WINDOW_SWAP: {
        if (addr % 8) return -TS_EINVAL;
        if (!exposed(target, addr, 8)) return -TS_EACCES;
        auto *word = reinterpret_cast<uint64_t *>(addr);
        if (op.kind == TS_WINDOW_FADD) {
            op.result = __atomic_fetch_add(word, op.operand, __ATOMIC_SEQ_CST);
        } else if (op.kind == TS_WINDOW_SWAP) {
            op.result = __atomic_exchange_n(word, op.operand, __ATOMIC_SEQ_CST);
        } else {
            uint64_t expected = op.compare;
            __atomic_compare_exchange_n(word, &expected, op.operand, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
            op.result = expected;  // the old value, whether it was swapped or not
        }
        return 0;
    }
    default: return -TS_EINVAL;
    }
}

long access(int key, ts_window_op op, uint64_t *result = nullptr) {
    const long r = window_access(key, op);
    if (r == 0 && result) *result = op.result;
    return r;
}

}  // namespace

int window_create() {
    auto lock = enter_ikc();
    const int key = ++fab().next_window_key[t_me.info.cluster_id];
    fab().windows[my_addr(key)] = Window{t_me.rank, {}, {}};
    return key;
}

int window_expose(int key, void *base, size_t size) {
    auto lock = enter_ikc();
    Window *w = own_window(key);
    if (!w) return -TS_EBADF;
    // As the kernel's: the regions it overlaps join it, their hull at once.
    uintptr_t lo = reinterpret_cast<uintptr_t>(base), hi = lo + size;
    if (size == 0) return -TS_EINVAL;
    const auto meets = [&](const std::pair<uintptr_t, size_t> &r) {
        return r.first < hi && lo < r.first + r.second;
    };
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto &r : w->regions)
            if (meets(r) && (r.first < lo || r.first + r.second > hi)) {
                lo = std::min(lo, r.first);
                hi = std::max<uintptr_t>(hi, r.first + r.second);
                grew = true;
            }
    }
    const size_t merged = static_cast<size_t>(std::count_if(w->regions.begin(), w->regions.end(), meets));
    if (!merged && w->regions.size() >= TS_WINDOW_REGIONS) return -TS_EINVAL;
    std::erase_if(w->regions, meets);
    w->regions.emplace_back(lo, hi - lo);
    return 0;
}

int window_withdraw(int key, void *base) {
    auto lock = enter_ikc();
    Window *w = own_window(key);
    if (!w) return -TS_EBADF;
    for (auto it = w->regions.begin(); it != w->regions.end(); ++it)
        if (it->first == reinterpret_cast<uintptr_t>(base)) {
            w->regions.erase(it);
            return 0;
        }
    return -TS_ENOENT;
}

int window_free(int key) {
    auto lock = enter_ikc();
    if (!own_window(key)) return -TS_EBADF;
    fab().windows.erase(my_addr(key));
    return 0;
}

namespace {
// A request to window `target` of `cluster`, the rest zero.
ts_window_op request(unsigned kind, int cluster, int target, uint64_t addr = 0) {
    ts_window_op op{};
    op.kind = kind;
    op.cluster = cluster;
    op.target = target;
    op.addr = addr;
    return op;
}
}  // namespace

long window_write(int key, int cluster, int target, uint64_t addr, const void *buf, size_t n) {
    ts_window_op op = request(TS_WINDOW_WRITE, cluster, target, addr);
    op.buf = const_cast<void *>(buf);
    op.size = n;
    return access(key, op);
}
long window_read(int key, int cluster, int target, uint64_t addr, void *buf, size_t n) {
    ts_window_op op = request(TS_WINDOW_READ, cluster, target, addr);
    op.buf = buf;
    op.size = n;
    return access(key, op);
}
long window_flush(int key, int cluster, int target) {
    return access(key, request(TS_WINDOW_FLUSH, cluster, target));
}
long window_atomic(int key, int cluster, int target, uint64_t addr, unsigned kind, uint64_t operand,
                   uint64_t compare, uint64_t *old) {
    ts_window_op op = request(kind, cluster, target, addr);
    op.operand = operand;
    op.compare = compare;
    return access(key, op, old);
}

// ---- names ----

namespace {
int check_name(const char *name) {
    if (!name || !*name) return -TS_EINVAL;
    return std::strlen(name) > TS_NAME_MAX ? -TS_ENAMETOOLONG : 0;
}
}  // namespace

int name_register(const char *name, int port) {
    auto lock = enter();
    if (int e = check_name(name)) return e;
    if (!port_ok(port)) return -TS_EINVAL;
    if (!fab().names.emplace(name, my_addr(port)).second) return -TS_EEXIST;
    return 0;
}

// The name is looked up when the answer is asked for, as the daemon would
// when the request reaches it; the answer is always in by then.
thread_local std::string t_resolving;

int name_resolve_start(const char *name) {
    auto lock = enter();
    if (int e = check_name(name)) return e;
    if (!t_resolving.empty()) return violation(-TS_EBUSY);
    t_resolving = name;
    return 0;
}

int name_resolve_test(int *cluster, int *port) {
    auto lock = enter();
    if (!cluster || !port || t_resolving.empty()) return violation(-TS_EINVAL);
    auto it = fab().names.find(t_resolving);
    t_resolving.clear();
    if (it == fab().names.end()) return -TS_ENOENT;
    *cluster = it->second.first;
    *port = it->second.second;
    return 0;
}

int name_unregister(const char *name) {
    auto lock = enter();
    if (int e = check_name(name)) return e;
    // The ranks of a cluster are one process: any of them may remove it.
    auto it = fab().names.find(name);
    if (it == fab().names.end() || it->second.first != t_me.info.cluster_id) return -TS_ENOENT;
    fab().names.erase(it);
    return 0;
}

}  // namespace lwmpi::os
