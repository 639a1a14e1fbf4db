// IKC pieces shared by mailboxes, portals and syncs: ports, the active and
// virtual tables, statistics, asynchronous operations and ioctl.
#include "virtual.hpp"

namespace kernel::ikc {
namespace {

// The ports of a full cluster's MPI processes and name clients do not
// overlap each other or the file clients' (<tessera/syscall.h>).
static_assert(TS_PORT_MPI_BASE + TS_MAX_CORES - 1 <= TS_PORT_FILE_CLIENT_LOW);
static_assert(TS_PORT_NAME_REPLY_BASE + TS_MAX_CORES <= TS_PORT_FILE_CLIENT_HIGH);

constinit ActiveTable<max_active> active;
constinit VirtualTable mailboxes{Kind::mailbox};
constinit VirtualTable portals{Kind::portal};

// Hardware input resources of `cluster` of the given kind.
int hw_count(Kind kind, int cluster) {
    return kind == Kind::mailbox ? hal::noc::mailboxes(cluster) : hal::noc::portals(cluster);
}

ActiveKey key_for(Kind kind, bool input, int cluster, int port) {
    return ActiveKey{static_cast<int>(kind), input, cluster, port % hw_count(kind, cluster)};
}

int per_hw_limit() { return static_cast<int>(hal::manifest().virtual_per_hw); }

/// Events per core (WAIT_ANY): asynchronous operations that its thread
/// started and that finished, and WAKEs for it.
uint64_t events[TS_MAX_CORES];

/// Records what an attempt at e's asynchronous operation returned: true
/// when that ended it.
bool settle(VirtualTable &t, Endpoint &e, long r) {
    if (r == pending) return false;
    Async &a = e.async;
    a.result = r;
    a.finished = true;
    --t.running;
    add_event(a.core);
    return true;
}

/// One attempt at the caller's own asynchronous operation on e, on the
/// caller's core (its address space is the active one), so that it need not
/// wait for the master's next pass. The master attempts them all in poll().
void attempt_here(VirtualTable &t, Endpoint &e) {
    if (hal::core_id() != 0 && !e.async.finished) settle(t, e, e.async.attempt(e.async.call));
}

}  // namespace

// Port 0 is the kernels' own (job reports, ring barrier): programs may
// neither bind it nor send to it.
bool valid_port(int port) { return port >= (current_process() ? 1 : 0) && port < TS_PORTS; }

bool valid_cluster(int cluster) {
    return cluster >= 0 && cluster < static_cast<int>(hal::manifest().nclusters);
}

void mailbox_init();
bool rings_poll();

void init() {
    if (!hal::noc::fabric_fits()) panic("the profile's NoC fabric region is too small");
    if (hal::manifest().virtual_per_hw < 1)
        panic("the profile gives no virtual abstraction per hardware resource");
    mailbox_init();
    window_init();
}

ActiveTable<max_active> &active_table() { return active; }
VirtualTable &mailbox_table() { return mailboxes; }
VirtualTable &portal_table() { return portals; }

// ---- virtual tables ----------------------------------------------------------------

long VirtualTable::create(int port) {
    if (!valid_port(port)) return -TS_EINVAL;
    Endpoint *free = nullptr;
    for (Endpoint &e : entries) {
        if (e.used && e.input && e.local_port == port) return -TS_EBUSY;
        if (!e.used && !free) free = &e;
    }
    if (!free) return -TS_ENFILE;
    const int a = active.attach(key_for(kind_, true, hal::cluster_id(), port), per_hw_limit());
    if (a < 0) return a;
    *free = Endpoint{};
    free->used = true;
    free->input = true;
    free->owner = current_process();
    free->core = caller_core();
    free->local_port = port;
    free->active = a;
    return free - entries;
}

long VirtualTable::open(int local_port, int cluster, int port) {
    if (!valid_port(local_port) || !valid_port(port) || !valid_cluster(cluster)) return -TS_EINVAL;
    for (Endpoint &e : entries) {
        if (e.used) continue;
        const int a = active.attach(key_for(kind_, false, cluster, port), per_hw_limit());
        if (a < 0) return a;
        e = Endpoint{};
        e.used = true;
        e.owner = current_process();
        e.local_port = local_port;
        e.remote_cluster = cluster;
        e.remote_port = port;
        e.active = a;
        return &e - entries;
    }
    return -TS_ENFILE;
}

long VirtualTable::get(int id, Dir dir, Endpoint *&out) {
    out = nullptr;
    if (id < 0 || id >= max_virtual) return -TS_EBADF;
    Endpoint &e = entries[id];
    auto now = [](const auto &field) { return __atomic_load_n(&field, __ATOMIC_RELAXED); };
    const bool input = now(e.input);
    if (!now(e.used) || (dir == Dir::input && !input) || (dir == Dir::output && input)) return -TS_EBADF;
    if (now(e.owner) != current_process()) return -TS_EPERM;
    out = &e;
    return 0;
}

long decode_endpoint(kcall::Object object, Dir dir, int id, Endpoint *&out) {
    return (object == kcall::Object::mailbox ? mailboxes : portals).get(id, dir, out);
}

void VirtualTable::free(Endpoint &e) {
    if (e.async.started && !e.async.finished) --running;
    const int who = static_cast<int>(&e - entries) + 1;
    const bool contended = active.unlock(e.active, who);
    active.detach(e.active);
    forget_ring(e);
    e.used = false;
    if (contended) serve_again();  // a transfer waiting for the lock may go on
}

long VirtualTable::release(int id, bool input) {
    Endpoint *e;
    if (long err = get(id, input ? Dir::input : Dir::output, e)) return err;
    return release(*e);
}

long VirtualTable::release(Endpoint &e) {
    if (e.async.started && !e.async.finished) return -TS_EBUSY;
    free(e);
    return 0;
}

void VirtualTable::release_process(Process *p) {
    for (Endpoint &e : entries) {
        if (!e.used || e.owner != p) continue;
        if (e.async.started && !e.async.finished && e.async.cancel) e.async.cancel(e.async.call);  // as p
        free(e);
    }
}

bool VirtualTable::poll() {
    if (running == 0) return false;
    bool finished = false;
    for (Endpoint &e : entries) {
        Async &a = e.async;
        if (!e.used || !a.started || a.finished || (e.owner && e.owner->killed)) continue;
        // A portal write whose thread runs is tested by that thread: the
        // receiver's allow, or a freed chunk buffer, need not wake the
        // master for it. (A mailbox write goes on while its thread
        // computes: its send may be complete already.)
        hal::noc::set_quiet(kind_ == Kind::portal && !e.input && !core_waits_on_master(a.core));
        if (settle(*this, e, run_as(e.owner, a.attempt, a.call))) finished = true;
        hal::noc::set_quiet(false);
    }
    return finished;
}

bool poll() {
    const bool m = mailboxes.poll();
    const bool p = portals.poll();
    const bool r = rings_poll();
    return m || p || r;
}

void sync_release_process(Process *p);
void window_release_process(Process *p);

void release_process(Process *p) {
    mailboxes.release_process(p);
    portals.release_process(p);
    sync_release_process(p);
    window_release_process(p);
}

namespace {

// The count of events of the thread on `core`, as WAIT_ANY answers it.
long event_count(int core) { return static_cast<long>(events[core] & LONG_MAX); }

// WAIT_ANY's answer for the thread on `core`: its count of events once it
// differs from `seen`, the one it has seen.
long wait_any_result(int core, uint64_t seen) {
    const long count = event_count(core);
    return static_cast<uint64_t>(count) != seen ? count : pending;
}

// finish_posted's form of it, for a WAIT_ANY that sleeps on the master.
long posted_wait_any_result(int core, const Call &c) {
    ikc_wait_any_args a{};
    if (a.decode(c)) return pending;  // its arguments are plain integers: cannot fail
    return wait_any_result(core, a.seen);
}

}  // namespace

void add_event(int core) {
    ++events[core];
    if (core == hal::core_id()) return;  // awake: its next wait sees the count
    // Off the master, end the thread's wait here: the master would need a
    // wake-up and a pass for it.
    if (hal::core_id() != 0 && finish_posted(core, TS_SYS_IKC_WAIT_ANY, posted_wait_any_result)) return;
    serve_again();  // its wait ends on the master's next pass
}

// ---- statistics ------------------------------------------------------------------------

uint64_t elapsed_ns(const Progress &p) {
    if (!p.start) return 0;
    const unsigned __int128 ticks = hal::time() - p.start;
    return static_cast<uint64_t>(ticks * 1000000000u / hal::timebase());
}

void count_transfer(ts_ikc_stats &s, const Progress &p, size_t bytes, bool write) {
    s.bytes += bytes;
    ++(write ? s.writes : s.reads);
    s.transfer_ns += elapsed_ns(p);
}

// ---- asynchronous operations -------------------------------------------------------

long async_start(VirtualTable &t, Endpoint &e, const Call &c, Handler attempt, Handler cancel) {
    if (e.async.started) return -TS_EBUSY;  // WAIT for the last one first
    ++(e.input ? e.stats.areads : e.stats.awrites);
    Call kept = c;  // its registers, which each attempt decodes; a progress of its own
    kept.p = Progress{};
    kept.deadline = 0;
    e.async = Async{true, false, attempt, cancel, kept, 0, caller_core()};
    ++t.running;
    // Not finished: the caller tests it on its own core, or waits through
    // a call that the master serves, and whose passes attempt it.
    attempt_here(t, e);
    return 0;
}

long refuse_while_async(const Endpoint &e, const Progress &p) {
    return !p.start && e.async.started ? -TS_EBUSY : 0;
}

long sys_ikc_wait_any(const ikc_wait_any_args &a, Call &c) {
    const long count = wait_any_result(caller_core(), a.seen);
    if (count != pending) return count;
    if (c.p.step == 0) {  // the first attempt
        c.p.step = 1;
        if (a.timeout_ns) c.deadline = deadline_in(a.timeout_ns);
    }
    return c.deadline && hal::time() >= c.deadline ? event_count(caller_core()) : pending;
}

long sys_ikc_wake(const ikc_wake_args &a, Call &) {
    if (a.core >= hal::ncores() || !same_group(threads[a.core].proc, current_process())) return -TS_EINVAL;
    add_event(a.core);
    return 0;
}

long async_wait(VirtualTable &t, Endpoint &endpoint, int flags) {
    Endpoint *e = &endpoint;
    Async &a = e->async;
    const bool cancel = flags & TS_IKC_CANCEL;
    if (!a.started || (cancel && e->input)) return -TS_EINVAL;  // nothing to wait for, or to cancel
    attempt_here(t, *e);
    if (!a.finished && cancel && a.call.p.done == 0) {
        // No byte left yet (an attempt moves a whole message or chunk, or
        // nothing): the receiver has seen nothing of this write.
        a.started = false;
        --t.running;
        return -TS_ECANCELED;
    }
    if (!a.finished)  // poll() moves it on
        return flags & (TS_IKC_NOWAIT | TS_IKC_CANCEL) ? -TS_EAGAIN : pending;
    a.started = false;
    ++e->stats.waits;
    return a.result;
}

}  // namespace kernel::ikc
