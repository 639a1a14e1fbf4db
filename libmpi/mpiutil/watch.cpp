// What the job monitor hears of a rank's waits, for the deadlock check and
// the report of a job that hangs (struct ts_mpi_state in
// <tessera/syscall.h> says how cluster 0's kernel uses it).
//
// Nothing here runs on the message path: the path only counts messages
// (isend(), take_posted()); a wait looks at the clock and speaks only from
// idle(), once it is about to sleep (or, spinning, every polls_per_clock
// polls), and only after watch_after_ns without progress: then one kernel
// call, and one more every watch_after_ns while the wait stays stuck.
#include <mpi.h>
#include <string.h>

#include "engine.hpp"
#include "os.hpp"

namespace lwmpi::util {

namespace {

/// How long a wait makes no progress before the job monitor hears of it,
/// and then how often it hears again.
constexpr unsigned long watch_after_ns = 500'000'000;

// The time base's ticks in ns, and back (timebase_hz: 10^9 on linux64).
unsigned long ticks(unsigned long ns) {
    const unsigned long hz = os::job()->timebase_hz;
    return hz ? ns / 1000 * hz / 1'000'000 : ns;
}
unsigned long ns_of(unsigned long t) {
    const unsigned long hz = os::job()->timebase_hz;
    return hz ? t / hz * 1'000'000'000 + t % hz * 1'000'000 / hz * 1000 : t;
}

// The state I send: my counts, what I wait for (my oldest posted receive,
// else my oldest send still running), and the messages that came for me
// and wait for a receive.
ts_mpi_state describe(const RankState &s, int kind, unsigned long now) {
    ts_mpi_state st{};
    st.now = now;
    st.state = kind;
    st.sent = s.watch.sent;
    st.arrived = s.watch.arrived;
    st.peer = MPI_PROC_NULL;
    if (kind == TS_MPI_STATE_BLOCKED)
        st.age_ms = static_cast<unsigned>(ns_of(now - s.watch.stuck_since) / 1'000'000);
    const Request *on = s.match.posted.head >= 0 ? &request(s.match.posted.head) : nullptr;
    for (int i = 0; !on && i < s.requests.size(); ++i) {
        const Request &r = s.requests[i];
        if (r.state == ReqState::active && r.is_send) on = &r;
    }
    if (on) {
        st.peer = on->peer;
        st.tag = on->tag;
        st.context = on->context;
    }
    for (const Unexpected *u = s.match.unexpected; u; u = u->next)
        if (st.unexpected++ == 0) {
            st.uq_source = u->env.source;
            st.uq_tag = u->env.tag;
            st.uq_context = u->env.context;
        }
    const char *call = s.watch.call && *s.watch.call ? *s.watch.call : "?";
    if (strncmp(call, "MPI_", 4) == 0) call += 4;
    strncpy(st.call, call, sizeof st.call);
    return st;
}

}  // namespace

unsigned long watch_wait(RankState &s) {
    const unsigned long now = os::time();
    Watch &w = s.watch;
    // A message sent or come since the wait began is progress: it starts anew.
    if (!w.stuck_since || w.sent != w.sent_then || w.arrived != w.arrived_then) {
        w.stuck_since = now;
        w.sent_then = w.sent;
        w.arrived_then = w.arrived;
        w.said = 0;
    }
    // A receive whose data flows through my portal is making progress,
    // however long it takes.
    if (s.rdv.incoming.head >= 0) w.stuck_since = now;
    const unsigned long after = ticks(watch_after_ns);
    const unsigned long since_said = w.said ? now - w.said : now - w.stuck_since;
    if (since_said < after) return ns_of(after - since_said);
    // At MPI_THREAD_MULTIPLE another thread of mine may be computing, and
    // send later what the others wait for: I am never blocked as a whole.
    if (!s.threads.multiple) {
        const ts_mpi_state st = describe(s, TS_MPI_STATE_BLOCKED, now);
        os::mpi_state_send(st);  // a failure only leaves the monitor less to go by
    }
    w.said = now;
    return watch_after_ns;
}

void watch_finalized(RankState &s) {
    const ts_mpi_state st = describe(s, TS_MPI_STATE_FINALIZED, os::time());
    os::mpi_state_send(st);
}

void watch_calls(const char *const *where) { self().watch.call = where; }

}  // namespace lwmpi::util
