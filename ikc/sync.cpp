// Virtual syncs over the NoC's sync points.
//
// A sync joins a list of clusters; clusters[0] is "the one".
//   ALL_TO_ONE: the one creates it and waits for a signal from every other
//               cluster; the others open it and signal.
//   ONE_TO_ALL: every other cluster creates it and waits for the one's
//               signal; the one opens it and signals all.
// Signals are counted per (port, sender), so none is lost if a signal
// arrives before the wait. A barrier is ALL_TO_ONE followed by ONE_TO_ALL.
#include "virtual.hpp"

namespace kernel::ikc {

struct Sync {
    bool used = false;
    bool waiter = false;  // created (waits) or opened (signals)
    Process *owner = nullptr;
    int type = 0;
    int port = 0;
    int n = 0;
    int clusters[TS_MAX_CLUSTERS] = {};
    ts_ikc_stats stats{};
};

namespace {

constexpr int max_syncs = 32;

Sync syncs[max_syncs];

// Checks the list and the caller's role in it.
long make(const int *clusters, int n, int type, int port, bool waiter) {
    if (n < 2 || n > TS_MAX_CLUSTERS || !valid_port(port) ||
        (type != TS_SYNC_ALL_TO_ONE && type != TS_SYNC_ONE_TO_ALL))
        return -TS_EINVAL;
    int self = -1;
    for (int i = 0; i < n; ++i) {
        if (!valid_cluster(clusters[i])) return -TS_EINVAL;
        for (int j = 0; j < i; ++j)
            if (clusters[j] == clusters[i]) return -TS_EINVAL;
        if (clusters[i] == hal::cluster_id()) self = i;
    }
    // The one waits in ALL_TO_ONE and signals in ONE_TO_ALL.
    const bool is_one = self == 0;
    if (self < 0 || is_one != (waiter == (type == TS_SYNC_ALL_TO_ONE))) return -TS_EINVAL;
    int free = -1;
    for (int i = 0; i < max_syncs; ++i) {
        if (syncs[i].used && syncs[i].waiter && waiter && syncs[i].port == port) return -TS_EBUSY;
        if (!syncs[i].used && free < 0) free = i;
    }
    if (free < 0) return -TS_ENFILE;
    Sync &s = syncs[free];
    s = Sync{true, waiter, current_process(), type, port, n, {}, {}};
    for (int i = 0; i < n; ++i)
        s.clusters[i] = clusters[i];
    return free;
}

// The caller's sync `id` in out: 0, -TS_EBADF (no such sync of that side)
// or -TS_EPERM (another process's).
long get(int id, Dir dir, Sync *&out) {
    out = nullptr;
    if (id < 0 || id >= max_syncs) return -TS_EBADF;
    Sync &s = syncs[id];
    if (!s.used || (dir == Dir::input && !s.waiter) || (dir == Dir::output && s.waiter)) return -TS_EBADF;
    if (s.owner != current_process()) return -TS_EPERM;
    out = &s;
    return 0;
}

}  // namespace

long sync_create(const int *clusters, int n, int type, int port) {
    return make(clusters, n, type, port, true);
}

long sync_open(const int *clusters, int n, int type, int port) {
    return make(clusters, n, type, port, false);
}

long decode_sync(Dir dir, int id, Sync *&out) { return get(id, dir, out); }

namespace {

// p.done counts the signals consumed so far, in list order.
long wait_on(Sync *s, Progress &p) {
    mark_start(p);
    const int first = s->type == TS_SYNC_ALL_TO_ONE ? 1 : 0;
    const int last = s->type == TS_SYNC_ALL_TO_ONE ? s->n : 1;
    for (int i = first + static_cast<int>(p.done); i < last; ++i) {
        if (!hal::noc::sync_consume(s->port, s->clusters[i])) return pending;
        ++p.done;
    }
    ++s->stats.waits;
    s->stats.transfer_ns += elapsed_ns(p);
    return 0;
}

long signal(Sync &s) {
    ++s.stats.signals;
    if (s.type == TS_SYNC_ALL_TO_ONE) {
        hal::noc::sync_signal(s.clusters[0], s.port);
    } else {
        for (int i = 1; i < s.n; ++i)
            hal::noc::sync_signal(s.clusters[i], s.port);
    }
    return 0;
}

long forget(Sync &s) {
    s.used = false;
    return 0;
}

long release(int id, Dir dir) {
    Sync *s;
    if (long err = get(id, dir, s)) return err;
    return forget(*s);
}

}  // namespace

void sync_release_process(Process *p) {
    for (Sync &s : syncs)
        if (s.used && s.owner == p) s.used = false;
}

long sync_wait(int id, Progress &p) {
    Sync *s;
    if (long err = get(id, Dir::input, s)) return err;
    return wait_on(s, p);
}

long sync_signal(int id) {
    Sync *s;
    if (long err = get(id, Dir::output, s)) return err;
    return signal(*s);
}

long sync_close(int id) { return release(id, Dir::output); }
long sync_unlink(int id) { return release(id, Dir::input); }

long sys_sync_create(const sync_create_args &a, Call &) {
    return sync_create(a.clusters, a.n, a.type, a.port);
}
long sys_sync_open(const sync_open_args &a, Call &) { return sync_open(a.clusters, a.n, a.type, a.port); }
long sys_sync_wait(const sync_wait_args &a, Call &c) { return wait_on(a.id, c.p); }
long sys_sync_signal(const sync_signal_args &a, Call &) { return signal(*a.id); }
long sys_sync_close(const sync_close_args &a, Call &) { return forget(*a.id); }
long sys_sync_unlink(const sync_unlink_args &a, Call &) { return forget(*a.id); }
long sys_sync_ioctl(const sync_ioctl_args &a, Call &) {
    *a.arg = a.id->stats;
    return 0;
}

}  // namespace kernel::ikc
