// The kernel-call path of an asymmetric kernel.
//
// A user thread traps into the kernel on its own core. A call that only
// touches that core's state runs there. A call of the IKC data path runs
// there too, under master_lock, as long as it need not wait: when another
// core's such call holds the lock, it spins a moment for it (those calls are
// short); when the master holds it, the call goes to the master. Any other
// call, and a data-path call that has to wait, is posted in the core's
// request slot, the master is interrupted, and the core sleeps until the
// master marks the slot done. The master serves posted slots one at a
// time, in the address space of the caller's process, so that the tables
// have a single writer. A handler that has to wait (a message not yet
// arrived, a full slot at the receiver) returns `pending`: its slot stays
// posted and the master tries it again on its next event, so one waiting
// call never holds up the others.
#include "kernel/core.hpp"

namespace kernel {
namespace {

enum class SlotState : uint32_t { idle, posted, done };

struct Slot {
    SlotState state = SlotState::idle;  ///< written with release, read with acquire
    Handler handler = nullptr;
    uint64_t number = 0;  ///< the kernel call number (0: the kernel's own)
    Handler cancel = nullptr;
    bool survives_kill = false;  ///< served even if the process was killed
    bool flush_tlb = false;      ///< the call unmapped pages of the caller
    Process *proc = nullptr;
    uint64_t seq = 0;  ///< order of first attempt (0: not tried yet)
    Call call;
    long result = 0;
};

/// A call cut short because its process was killed.
constexpr long call_killed = LONG_MIN + 1;
constexpr uint64_t max_number = TS_KCALL_NUMBERS;

Slot slots[TS_MAX_CORES];
/// The address space active on the master. Every space maps the kernel, so
/// it stays in whatever space served the last call.
const hal::AddressSpace *active_space;  // master only
uint64_t next_seq;                      // master only
bool again;                             // master only: serve another pass
bool timer_armed;                       // master only
uint64_t calls_deadline;                // master only: the earliest deadline of a waiting call (0: none)
uint64_t own_deadline;                  // master only: master_wake_at's (0: none)
/// The master waits for master_lock: shared calls are posted meanwhile, so
/// that a cluster of polling ranks cannot keep it from its work.
bool master_waiting;
/// The master holds master_lock (it is awake): a shared call need not spin.
bool master_holds_lock;
/// Turns a shared call spins for master_lock while another core's holds it
/// before it goes to the master: enough for a short call on a host that
/// runs cores in parallel (linux64), little waste where a holder may not
/// run meanwhile (QEMU's single-threaded TCG).
constexpr int shared_spins = 256;
Process *serving;  // master only: the caller of the call being served
int serving_core;  // master only: its core
/// counts[core][number]: written only by `core` itself.
uint64_t counts[TS_MAX_CORES][max_number];

// The generic __atomic_load/__atomic_store: GCC and clang (clang-tidy
// parses this file too, tools/tidy.py) both take them on an enum.
SlotState load_state(const Slot &s) {
    SlotState v;
    __atomic_load(&s.state, &v, __ATOMIC_ACQUIRE);
    return v;
}
void store_state(Slot &s, SlotState v) { __atomic_store(&s.state, &v, __ATOMIC_RELEASE); }

// Posts a call in the calling core's slot and sleeps until it is served.
long post_and_wait(Handler handler, uint64_t number, Handler cancel, bool survives_kill, const Call &c) {
    Slot &s = slots[hal::core_id()];
    s.handler = handler;
    s.number = number;
    s.cancel = cancel;
    s.survives_kill = survives_kill;
    s.seq = 0;
    s.call = c;
    s.proc = current_process();
    s.result = 0;
    store_state(s, SlotState::posted);
    hal::notify_core(hal::cluster_id(), 0);
    for (;;) {
        hal::clear_event();
        if (load_state(s) == SlotState::done) break;
        hal::wait_event();
    }
    store_state(s, SlotState::idle);
    if (s.flush_tlb) {
        s.flush_tlb = false;
        hal::flush_tlb();
    }
    if (s.result == call_killed) thread_exit(0);
    return s.result;
}

void finish(int core, Slot &s, long result) {
    s.result = result;
    store_state(s, SlotState::done);
    hal::notify_core(hal::cluster_id(), core);
}

// One attempt at the call in slot `core`. True when it finished.
bool serve_one(int core, Slot &s) {
    if (s.proc->killed && !s.survives_kill) {
        if (s.cancel) run_as(s.proc, s.cancel, s.call);
        finish(core, s, call_killed);
        return true;
    }
    if (s.seq == 0) s.seq = ++next_seq;
    serving_core = core;
    const long r = run_as(s.proc, s.handler, s.call);
    serving_core = 0;
    if (r == pending) return false;
    finish(core, s, r);
    return true;
}

// Takes master_lock for a shared call of the calling core: at once, or
// after a short spin while another core's shared call holds it. False when
// the master holds it or waits for it: the call is posted instead.
bool lock_for_shared_call() {
    for (int spin = 0;; ++spin) {
        if (__atomic_load_n(&master_waiting, __ATOMIC_ACQUIRE)) return false;
        if (master_lock.try_lock()) return true;
        if (spin == shared_spins || __atomic_load_n(&master_holds_lock, __ATOMIC_RELAXED)) return false;
        hal::spin_hint();
    }
}

}  // namespace

long run_as(Process *p, Handler handler, Call &c) {
    if (p && active_space != &p->space) {
        p->space.activate();  // user pointers are the caller's
        active_space = &p->space;
    }
    serving = p;
    const long r = handler(c);
    serving = nullptr;
    return r;
}

Process *current_process() { return hal::core_id() == 0 ? serving : threads[hal::core_id()].proc; }

int caller_core() { return hal::core_id() == 0 ? serving_core : hal::core_id(); }

constinit Upper upper;

void register_upper(const Upper &u) { upper = u; }

namespace {

// Serves a call (kernel_call without the trace).
long dispatch(uint64_t number, const uint64_t args[4]) {
    const int core = hal::core_id();
    if (number >= max_number) return -TS_ENOSYS;
    ++counts[core][number];
    const CallEntry *e = &upper.calls[number];
    if (!e->handler) return -TS_ENOSYS;
    Call c;
    for (int i = 0; i < 4; ++i)
        c.regs[i] = args[i];
    if (e->where == Where::local) return e->handler(c);
    if (e->fast)
        if (const long r = e->fast(c); r != pending) return r;
    if (e->where == Where::shared && lock_for_shared_call()) {
        const long r = e->handler(c);
        master_lock.unlock();
        // The master may have found the lock taken and gone to sleep.
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (__atomic_load_n(&master_waiting, __ATOMIC_RELAXED)) hal::notify_core(hal::cluster_id(), 0);
        if (r != pending) return r;
        // It has to wait: the master tries again on its events, from where
        // this attempt left off (c.p).
    }
    return post_and_wait(e->handler, number, e->cancel, false, c);
}

}  // namespace

// A traced job records each call, but for TRACE_RECORD, whose event is
// the MPI event it records. A call that does not return (THREAD_EXIT) is
// not recorded.
long kernel_call(uint64_t number, const uint64_t args[4]) {
    if (!tracing || number == TS_SYS_TRACE_RECORD) [[likely]]
        return dispatch(number, args);
    const uint64_t start = hal::time();
    const long r = dispatch(number, args);
    trace_kcall(start, number, r);
    return r;
}

namespace {

// The master: the timer set for the earliest of the waiting calls'
// deadline and master_wake_at's (a past one of those is done with).
void arm_timer() {
    if (own_deadline && own_deadline <= hal::time()) own_deadline = 0;
    uint64_t earliest = calls_deadline;
    if (own_deadline && (!earliest || own_deadline < earliest)) earliest = own_deadline;
    if (earliest) {
        hal::set_timer(earliest);
        timer_armed = true;
    } else if (timer_armed) {
        hal::set_timer(0);
        timer_armed = false;
    }
}

}  // namespace

long call_on_master(Handler handler, Call c) { return post_and_wait(handler, 0, nullptr, true, c); }

void serve_calls() {
    uint64_t earliest = 0;
    do {
        again = false;
        earliest = 0;
        for (int core = 1; core < hal::ncores(); ++core) {
            Slot &s = slots[core];
            if (load_state(s) != SlotState::posted) continue;
            if (serve_one(core, s)) {
                again = true;  // its completion may unblock another call
            } else if (s.call.deadline && (!earliest || s.call.deadline < earliest)) {
                earliest = s.call.deadline;
            }
        }
        if (upper.poll(!again)) again = true;  // e.g. an asynchronous transfer finished: a WAIT may go on
    } while (again);
    calls_deadline = earliest;
    arm_timer();
}

void master_wake_at(uint64_t when) {
    own_deadline = when;
    arm_timer();
}

// Never spins: a core that holds the lock may not be running at all (QEMU
// runs every hart in one host thread), so the master sleeps until the
// holder's unlock wakes it (kernel_call).
void master_relock() {
    __atomic_store_n(&master_waiting, true, __ATOMIC_SEQ_CST);
    for (;;) {
        hal::clear_event();
        if (master_lock.try_lock()) break;
        hal::wait_event();
    }
    __atomic_store_n(&master_holds_lock, true, __ATOMIC_RELAXED);
    __atomic_store_n(&master_waiting, false, __ATOMIC_RELAXED);
}

void master_unlock() {
    __atomic_store_n(&master_holds_lock, false, __ATOMIC_RELAXED);
    master_lock.unlock();
}

void serve_again() {
    if (hal::core_id() == 0)
        again = true;
    else
        hal::notify_core(hal::cluster_id(), 0);  // its next pass sees the change
}

void caller_flushes_tlb() { slots[serving_core].flush_tlb = true; }

bool core_waits_on_master(int core) { return load_state(slots[core]) == SlotState::posted; }

bool finish_posted(int core, uint64_t number, long (*result)(int core, const Call &c)) {
    Slot &s = slots[core];
    if (load_state(s) != SlotState::posted || s.number != number) return false;
    const long r = result(core, s.call);
    if (r == pending) return false;
    finish(core, s, r);
    return true;
}

int waiting_calls(uint64_t number, Call **out, int max) {
    int n = 0;
    // Oldest first: select by posting order.
    uint64_t after = 0;
    while (n < max) {
        Slot *next = nullptr;
        for (int core = 1; core < hal::ncores(); ++core) {
            Slot &s = slots[core];
            if (load_state(s) == SlotState::posted && s.number == number && s.proc == serving &&
                s.seq > after && (!next || s.seq < next->seq))
                next = &s;
        }
        if (!next) break;
        out[n++] = &next->call;
        after = next->seq;
    }
    return n;
}

uint64_t deadline_in(uint64_t ns) {
    const unsigned __int128 ticks = static_cast<unsigned __int128>(ns) * hal::timebase() / 1000000000u;
    const uint64_t now = hal::time();
    if (ticks >= UINT64_MAX - 1 - now) return UINT64_MAX - 1;
    return now + (ticks ? static_cast<uint64_t>(ticks) : 1);
}

long kcall_count(uint64_t number, uint64_t core) {
    if (number >= max_number || core >= static_cast<uint64_t>(hal::ncores())) return -TS_EINVAL;
    return static_cast<long>(__atomic_load_n(&counts[core][number], __ATOMIC_RELAXED));
}

}  // namespace kernel
