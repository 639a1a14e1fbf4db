// MPIUtil's engine: the request pool, matching in arrival order (MPI 3.1
// section 3.5), and the progress and idle loops shared by the protocols.
//
// Every message of a sender reaches a receiver through one FIFO channel:
// its mailbox (eager and rendezvous) or, inside a cluster, the receiver's
// shared-memory inbox (local). The receiver matches arrivals against its
// posted receives oldest first; the unmatched ones wait in the unexpected
// list in arrival order, which a new receive searches first. So messages
// of one sender never overtake each other.
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "engine.hpp"
#include "os.hpp"

namespace lwmpi::util {

namespace {

int alloc_request(bool is_send, int *out) {
    RankState &s = self();
    const int i = s.requests.find_free(0, [](const Request &r) { return r.state == ReqState::free; });
    if (i < 0) return fail(MPI_ERR_NO_MEM, "too many requests in flight");
    Request &r = s.requests[i];
    const uint16_t gen = static_cast<uint16_t>(r.gen + 1);
    r = Request{};
    r.gen = gen;
    r.index = i;
    r.state = ReqState::active;
    r.is_send = is_send;
    r.next = -1;
    r.portal = -1;
    r.out_portal = -1;
    *out = i;
    return MPI_SUCCESS;
}

bool accepts(const Request &r, const Envelope &e) { return matches(Pattern{r.peer, r.tag, r.context}, e); }

// Receive `r` gets a message with envelope `e` and `bytes` bytes: its
// status (a message longer than the buffer is cut: MPI_ERR_TRUNCATE).
void set_status(Request &r, const Envelope &e, uint64_t bytes) {
    r.status.source = e.source;
    r.status.tag = e.tag;
    r.status.offered = bytes;
    r.status.bytes = bytes < r.size ? bytes : r.size;
}

// Receive `r`, its status set, takes message `u`.
int deliver(Request &r, Unexpected *u) {
    if (u->protocol == Protocol::local) {
        local_accept(r, u);
        return MPI_SUCCESS;
    }
    return ikc_accept(r, u);
}

// Receive `r` takes message `u`.
int accept(Request &r, Unexpected *u) {
    set_status(r, u->env, u->bytes);
    return deliver(r, u);
}

}  // namespace

Request &request(int i) { return self().requests[i]; }
int request_index(const Request &r) { return r.index; }

void complete(Request &r, int error) {
    r.state = ReqState::done;
    r.phase = Phase::none;
    r.status.error = error;
}

void queue_push(RequestQueue &q, int i) {
    request(i).next = -1;
    if (q.head < 0)
        q.head = i;
    else
        request(q.tail).next = i;
    q.tail = i;
}

int queue_pop(RequestQueue &q) {
    const int i = q.head;
    if (i >= 0) q.head = request(i).next;
    return i;
}

Unexpected *new_unexpected(uint64_t data) {
    RankState &s = self();
    Unexpected *u = data == 0 ? s.match.spare_nodes.take(sizeof(Unexpected), &s.allocations)
                              : static_cast<Unexpected *>(malloc(sizeof(Unexpected) + data));
    if (!u) return nullptr;
    if (data) ++s.allocations;
    memset(u, 0, sizeof *u);
    u->spare = data == 0;
    return u;
}

void free_unexpected(Unexpected *u) { self().match.spare_nodes.give_or_free(u, u->spare); }

void drop_unexpected() {
    RankState &s = self();
    free_all(s.match.unexpected);
    free_all(s.match.held);
    s.match.unexpected_tail = &s.match.unexpected;
    s.match.spare_nodes.drop();
}

uint64_t heap_allocations() { return self().allocations; }

namespace {

// Takes the oldest posted receive `accept(i)` says yes to off the posted
// queue; returns its index, or -1.
template <typename Accept>
int unpost(Accept accept) {
    RankState &s = self();
    for (int *link = &s.match.posted.head, prev = -1; *link >= 0; prev = *link, link = &request(*link).next) {
        const int i = *link;
        if (!accept(i)) continue;
        *link = request(i).next;
        if (s.match.posted.tail == i) s.match.posted.tail = prev;
        return i;
    }
    return -1;
}

}  // namespace

int take_posted(const Envelope &env, uint64_t bytes) {
    ++self().watch.arrived;  // every arrival comes here first
    const int i = unpost([&](int k) { return accepts(request(k), env); });
    if (i >= 0) {
        set_status(request(i), env, bytes);
        if (tracing()) trace_match(env, bytes);
    }
    return i;
}

int cancel(int req) {
    Request &r = request(req);
    if (r.is_send) return r.withdrawal == Withdrawal::none ? withdraw(r) : MPI_SUCCESS;
    // A receive on the posted queue has no message yet (take_posted takes
    // it off when one matches), and nothing else refers to it.
    if (r.state != ReqState::active || unpost([&](int k) { return k == req; }) < 0) return MPI_SUCCESS;
    r.status = Status{};
    r.status.cancelled = true;
    complete(r, MPI_SUCCESS);
    return MPI_SUCCESS;
}

Unexpected *take_unexpected(int source, uint32_t seq) {
    RankState &s = self();
    for (Unexpected **link = &s.match.unexpected; *link; link = &(*link)->next) {
        Unexpected *u = *link;
        if (u->env.source != source || u->seq != seq) continue;
        *link = u->next;
        if (s.match.unexpected_tail == &u->next) s.match.unexpected_tail = link;
        return u;
    }
    return nullptr;
}

void add_unexpected(Unexpected *u) {
    RankState &s = self();
    u->next = nullptr;
    *s.match.unexpected_tail = u;
    s.match.unexpected_tail = &u->next;
}

int arrive(Unexpected *u) {
    const int i = take_posted(u->env, u->bytes);
    if (i < 0) {
        add_unexpected(u);
        return -1;
    }
    Request &r = request(i);
    if (int e = deliver(r, u)) complete(r, e);
    return i;
}

int isend(Protocol protocol, SendMode mode, int dst, int tag, uint32_t context, const void *buf,
          uint64_t bytes, int *req) {
    RankState &s = self();
    if (!s.ready) return fail(MPI_ERR_OTHER, "MPI is not initialized");
    if (int e = alloc_request(true, req)) return e;
    Request &r = request(*req);
    r.protocol = protocol;
    r.peer = dst;
    r.tag = tag;
    r.context = context;
    r.mode = mode;
    r.sbuf = buf;
    r.size = bytes;
    // A synchronous send completes only once matched: never eager.
    if (mode == SendMode::synchronous && protocol == Protocol::eager) r.protocol = Protocol::rendezvous;
    // Recorded before it starts: its receiver may match it at once.
    if (tracing()) trace_send(dst, tag, context, bytes);
    const int e = r.protocol == Protocol::local ? local_send(r) : ikc_send(r);
    if (e) {
        r.state = ReqState::free;
        return e;
    }
    ++s.watch.sent;
    return MPI_SUCCESS;
}

namespace {

// Takes the oldest unexpected message that matches `p` off the list; nullptr if none.
Unexpected *take_unexpected(const Pattern &p) {
    RankState &s = self();
    for (Unexpected **link = &s.match.unexpected; *link; link = &(*link)->next) {
        Unexpected *u = *link;
        if (!matches(p, u->env)) continue;
        *link = u->next;
        if (s.match.unexpected_tail == &u->next) s.match.unexpected_tail = link;
        if (tracing()) trace_match(u->env, u->bytes);
        return u;
    }
    return nullptr;
}

}  // namespace

int irecv(int source, int tag, uint32_t context, void *buf, uint64_t capacity, int *req) {
    RankState &s = self();
    if (!s.ready) return fail(MPI_ERR_OTHER, "MPI is not initialized");
    if (int e = alloc_request(false, req)) return e;
    Request &r = request(*req);
    r.peer = source;
    r.tag = tag;
    r.context = context;
    r.rbuf = buf;
    r.size = capacity;
    // The oldest unexpected message it accepts, else wait for one.
    if (Unexpected *u = take_unexpected(Pattern{source, tag, context})) {
        if (int e = accept(r, u)) complete(r, e);
        return MPI_SUCCESS;
    }
    queue_push(s.match.posted, *req);
    return MPI_SUCCESS;
}

int mprobe(int source, int tag, uint32_t context, Status *st, int *req) {
    RankState &s = self();
    if (!s.ready) return fail(MPI_ERR_OTHER, "MPI is not initialized");
    *req = -1;
    const Pattern p{source, tag, context};
    const Unexpected *first = s.match.unexpected;
    while (first && !matches(p, first->env))
        first = first->next;
    if (!first) return MPI_SUCCESS;
    if (int e = alloc_request(false, req)) return e;
    Unexpected *u = take_unexpected(p);
    // Kept where the rendezvous sees it: a message received after it
    // overtakes it (overtakes(), ikc_rendezvous.cpp).
    u->next = s.match.held;
    s.match.held = u;
    Request &r = request(*req);
    r.peer = u->env.source;
    r.tag = u->env.tag;
    r.context = context;
    r.held = u;
    *st = Status{u->env.source, u->env.tag, u->bytes, u->bytes, MPI_SUCCESS};
    return MPI_SUCCESS;
}

int mrecv(int req, void *buf, uint64_t capacity) {
    Request &r = request(req);
    Unexpected *u = r.held;
    r.held = nullptr;
    Unexpected **link = &self().match.held;
    while (*link != u)
        link = &(*link)->next;
    *link = u->next;
    r.rbuf = buf;
    r.size = capacity;
    if (int e = accept(r, u)) complete(r, e);
    return MPI_SUCCESS;
}

int progress() {
    RankState &s = self();
    bool did = false;
    if (int e = local_progress(&did)) return e;
    if (int e = ikc_progress(&did)) return e;
    if (did) {
        s.waiting.progressed = true;
        s.waiting.failed_tests = 0;
        s.waiting.testing_since = 0;
        if (s.threads.multiple) wake_threads();
    }
    s.waiting.last_pass_did = did;
    return MPI_SUCCESS;
}

namespace {

// True once the polls counted in `polls`, the first of them at `since`
// (0: not yet), have gone on for `ns`. The clock is a system call on
// linux64: it is read every few polls (a poll takes far less than
// ns / polls_per_clock).
bool polled_for(uint32_t &polls, double &since, unsigned long ns) {
    if (polls++ % polls_per_clock) return false;
    const double now = wtime();
    if (since == 0) {
        since = now;
        return false;
    }
    return (now - since) * 1e9 >= static_cast<double>(ns);
}

// True while the wait policy says to poll again rather than sleep.
bool keep_polling(RankState &s) {
    switch (s.limits.wait) {
    case WaitPolicy::spin: return true;
    case WaitPolicy::block: return false;
    case WaitPolicy::adaptive: break;
    }
    return !polled_for(s.waiting.polls, s.waiting.polling_since, adaptive_poll_ns);
}

// True once the tests that found nothing since my last progress have
// gone on for test_poll_ns.
bool tests_polled_enough(RankState &s) {
    Waiting &w = s.waiting;
    constexpr uint32_t enough = ~0u;  // (known already)
    if (w.failed_tests == enough) return true;
    if (!polled_for(w.failed_tests, w.testing_since, test_poll_ns)) return false;
    w.failed_tests = enough;
    return true;
}

// Sleeps until an event of mine, at most timeout_ns (0: no limit), unless
// local work is already there.
void sleep_on_events(unsigned long timeout_ns) {
    if (local_sleep_begin()) return;
    ikc_wait_any(timeout_ns);  // an error shows again in the next progress()
    local_sleep_end();
}

// Gives the host's CPU away a moment, letting my rank's other threads in.
void give_way() {
    Unlocked unlocked;
    os::yield();  // ranks may outnumber the host's CPUs
}

}  // namespace

void idle() {
    RankState &s = self();
    // Something happened since the caller last looked at its requests
    // (completing a request it had already checked, maybe): look again
    // before sleeping, or that completion would wait for another message.
    if (s.waiting.progressed) {
        s.waiting.progressed = false;
        s.watch.stuck_since = 0;
        s.waiting.polling_since = 0;
        s.waiting.polls = 0;
        return;
    }
    if (keep_polling(s) || ikc_retrying()) {
        // A rank that never sleeps still says when it is stuck.
        if (s.limits.wait == WaitPolicy::spin && ++s.watch.spins % polls_per_clock == 0) watch_wait(s);
        give_way();
        return;
    }
    s.waiting.polling_since = 0;
    s.waiting.polls = 0;
    const unsigned long limit = watch_wait(s);
    if (s.threads.multiple)
        sleep_among_threads(limit, sleep_on_events);
    else
        sleep_on_events(limit);
}

void test_failed() {
    RankState &s = self();
    if (s.waiting.last_pass_did) return;
    // A program that tests in a loop and finds nothing polls, as an
    // adaptive wait does, then sleeps a little each time: on a host with
    // fewer CPUs than ranks, a rank that only tests would keep the CPU
    // from those it waits for. Its next message wakes it.
    if (s.limits.wait != WaitPolicy::spin && tests_polled_enough(s)) {
        if (s.threads.multiple)
            sleep_among_threads(test_sleep_ns, sleep_on_events);
        else
            sleep_on_events(test_sleep_ns);
        return;
    }
    give_way();
}

bool done(int req, Status *st) {
    const Request &r = request(req);
    if (r.state != ReqState::done || r.withdrawal == Withdrawal::asked) return false;
    if (st) *st = r.status;
    return true;
}

void release(int req) { request(req).state = ReqState::free; }

bool probe(int source, int tag, uint32_t context, Status *st) {
    const Pattern p{source, tag, context};
    for (const Unexpected *u = self().match.unexpected; u; u = u->next)
        if (matches(p, u->env)) {
            *st = Status{u->env.source, u->env.tag, u->bytes, u->bytes, MPI_SUCCESS};
            return true;
        }
    return false;
}

}  // namespace lwmpi::util
