// The job monitor's view of the ranks' waits. Why the check is sound: a
// rank sends its state only while a blocking call of its has made no
// progress since `since` (now - age_ms, or later), and progress is what every arrival (and every
// send) makes, so over [since, now] its counts did not change and it sent
// nothing. When the latest `since` of all the blocked ranks is no later
// than the earliest `now` (one clock for all clusters: the platform
// timer), there was a moment when all of them were blocked at once with
// these counts; if then every message sent had arrived, nothing was left
// that could wake any of them. A rank that finalized sends and receives
// no more from the `now` of its last state on: its counts are final from
// then, so that moment must come after it too (else a rank seen blocked
// may have been woken before the others finalized). A rank that sent
// nothing yet (running, or blocked for less than LWMPI's threshold) rules
// a deadlock out.
#include "watch.hpp"

#include <string.h>

#include "kernel.hpp"

namespace kernel {
namespace {

struct Seen {
    bool known;   ///< a state came from this rank
    int cluster;  ///< where the rank runs, for its name
    int core;
    unsigned long since;  ///< when its wait began making no progress (ticks)
    ts_mpi_state st;
};

constexpr int per_page = static_cast<int>(hal::page_size / sizeof(Seen));
constexpr int max_pages = (TS_MAX_CLUSTERS * TS_MAX_CORES + per_page - 1) / per_page;
Seen *pages[max_pages];  // frames, taken at watch_init
int nranks;
int nworld;  // ranks 0..nworld-1 are MPI_COMM_WORLD's; the one after, the I/O rank

Seen *seen(int rank) { return &pages[rank / per_page][rank % per_page]; }

// The communicator of LWMPI's context c, as a reader knows it.
void put_comm(char *buf, size_t size, unsigned c) {
    if (c <= 1)
        ksnprintf(buf, size, "MPI_COMM_WORLD%s", c == 1 ? " (collective)" : "");
    else if (c == 4 || c == 5)
        ksnprintf(buf, size, "MPIX_COMM_LOCAL%s", c == 5 ? " (collective)" : "");
    else
        ksnprintf(buf, size, "communicator of context %u", c);
}

// "rank 3" or "any source".
void put_peer(char *buf, size_t size, int peer) {
    if (peer < 0)
        ksnprintf(buf, size, "any source");
    else
        ksnprintf(buf, size, "rank %d", peer);
}

// "tag 7" or "any tag".
void put_tag(char *buf, size_t size, int tag) {
    if (tag < 0)
        ksnprintf(buf, size, "any tag");
    else
        ksnprintf(buf, size, "tag %d", tag);
}

/// A blocked rank says so again every 500 ms while it stays blocked
/// (libmpi/mpiutil/watch.cpp): silent for this long, it has left that wait.
constexpr unsigned long silent_after_ms = 1500;

// How long since rank state st was sent, in ms of the platform timer (one
// clock for every cluster).
unsigned long ms_since(const ts_mpi_state &st) {
    const unsigned long now = hal::time();
    return now > st.now ? (now - st.now) * 1000 / hal::timebase() : 0;
}

}  // namespace

bool watch_init(int np, int world) {
    if (np <= 0 || np > TS_MAX_CLUSTERS * TS_MAX_CORES) return false;
    for (int p = 0; p * per_page < np; ++p) {
        void *f = frame_alloc();
        if (!f) return false;
        memset(f, 0, hal::page_size);
        pages[p] = static_cast<Seen *>(f);
    }
    nranks = np;
    nworld = world;
    return true;
}

void watch_note(const Kmsg &r) {
    if (r.tag < 0 || r.tag >= nranks) return;
    Seen &s = *seen(r.tag);
    s.known = true;
    s.cluster = r.cluster;
    s.core = r.core;
    memcpy(&s.st, r.text, sizeof s.st);
    s.since = s.st.now - static_cast<unsigned long>(s.st.age_ms) * hal::timebase() / 1000;
}

bool watch_deadlocked() {
    if (nranks == 0) return false;
    unsigned long latest_since = 0, earliest_now = ~0ul;
    unsigned sent = 0, arrived = 0;
    int world_blocked = 0;
    for (int i = 0; i < nranks; ++i) {
        const Seen &s = *seen(i);
        if (!s.known) return false;
        sent += s.st.sent;
        arrived += s.st.arrived;
        if (s.st.state != TS_MPI_STATE_BLOCKED) {  // finalized: in that state from its `now` on
            if (s.st.now > latest_since) latest_since = s.st.now;
            continue;
        }
        world_blocked += i < nworld ? 1 : 0;
        if (s.since > latest_since) latest_since = s.since;
        if (s.st.now < earliest_now) earliest_now = s.st.now;
    }
    return world_blocked > 0 && latest_since <= earliest_now && sent == arrived;
}

void watch_report() {
    for (int i = 0; i < nranks; ++i) {
        const Seen &s = *seen(i);
        char who[thread_name_max];
        thread_name(who, s.cluster, s.core, i);
        if (!s.known) {
            kprintf("tessera: rank %d: running, or blocked for less than a second\n", i);
            continue;
        }
        char call[sizeof s.st.call + 1] = {};
        memcpy(call, s.st.call, sizeof s.st.call);
        const unsigned long silent = ms_since(s.st);
        if (s.st.state == TS_MPI_STATE_FINALIZED) {
            kprintf("tessera: %s: finalized\n", who);
        } else if (silent > silent_after_ms) {
            kprintf("tessera: %s: running, not blocked in MPI for %lu ms (it was blocked in MPI_%s before)\n",
                    who, silent, call);
        } else if (s.st.peer < -1) {  // no receive or send of its own pending
            kprintf("tessera: %s: blocked in MPI_%s for %lu ms\n", who, call, s.st.age_ms + silent);
        } else {
            char peer[24], tag[24], comm[48];
            put_peer(peer, sizeof peer, s.st.peer);
            put_tag(tag, sizeof tag, s.st.tag);
            put_comm(comm, sizeof comm, s.st.context);
            kprintf("tessera: %s: blocked in MPI_%s for %lu ms, waiting for %s, %s, %s\n", who, call,
                    s.st.age_ms + silent, peer, tag, comm);
        }
        if (s.st.unexpected) {
            char comm[48];
            put_comm(comm, sizeof comm, s.st.uq_context);
            kprintf(
                "tessera: %s: %u message%s sent to it and not yet received, the oldest from rank %d, tag %d, "
                "%s\n",
                who, s.st.unexpected, s.st.unexpected == 1 ? "" : "s", s.st.uq_source, s.st.uq_tag, comm);
        }
    }
}

}  // namespace kernel
