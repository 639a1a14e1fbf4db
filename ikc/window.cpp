// IKC windows: regions of a process's memory that other processes, on any
// cluster, write, read and update at an address of its address space, with
// no action by the owner (DESIGN section 3, "One-sided").
//
// Each cluster's kernel runs a window agent on its master, over two
// kernel mailboxes: requests for the cluster's windows arrive on
// TS_PORT_WINDOW, and the replies to requests its own windows made on
// TS_PORT_WINDOW_REPLY. The agent carries a request out in the owner's
// address space (run_as) and answers it; a reply is always taken at once,
// so two agents that wait to answer each other cannot block each other.
// A request whose answer finds no room yet stays with the agent, and the
// agent takes no new request until it is out: the requesters wait,
// nothing is dropped.
//
// The requester's side is the WINDOW_ACCESS call, written as attempts: it
// sends its request (a write: its data, chunk by chunk, with no answer
// unless it fails), then waits for the reply. Requests from one cluster
// reach a port in the order they were sent, and the agent serves them in
// that order, so a FLUSH answered means every earlier write has landed.
#include <string.h>

#include "virtual.hpp"

namespace kernel::ikc {
namespace {

constexpr int max_windows = 32;
constexpr size_t max_message = 256;

/// What travels: the request kinds of enum ts_window_kind, then these.
enum : uint8_t {
    msg_data = 16,    ///< part of a READ's answer: bytes at `addr` (an offset into the read)
    msg_reply = 17,   ///< the end of a request: a = status, b = an atomic's old value
    msg_failed = 18,  ///< a WRITE failed: a = status (kept for the next FLUSH)
};

struct Header {
    uint8_t kind;
    uint8_t reserved;
    uint16_t length;  ///< bytes of data after the header (WRITE, data)
    uint16_t origin_cluster;
    uint16_t reserved2;
    uint32_t origin_key;
    uint32_t target_key;
    uint64_t addr;  ///< in the target owner's address space; data: offset in the read
    uint64_t a;     ///< READ: bytes; atomics: operand; reply, failed: status
    uint64_t b;     ///< CAS: compare; reply: old value
};

struct Message {
    Header h;
    char data[max_message - sizeof(Header)];
};

struct Region {
    uintptr_t base = 0;
    uintptr_t size = 0;  ///< 0: a free entry
};

/// The request a window has made and waits for (one at a time).
struct Request {
    bool active = false;
    bool replied = false;
    ts_window_op op{};
    long status = 0;
    uint64_t result = 0;
};

struct Window {
    bool used = false;
    uint16_t generation = 0;  ///< tells a window from an earlier one in its entry
    Process *owner = nullptr;
    Region regions[TS_WINDOW_REGIONS];
    Request request;
    long write_error = 0;  ///< the first failure of a write since the last FLUSH
};

/// The agent's answer that waits for room at its receiver, and the READ
/// whose data it is sending.
struct Outgoing {
    bool held = false;
    int cluster = 0;
    size_t size = 0;
    Message m{};
};

struct ReadJob {
    bool active = false;
    Header request{};  ///< the READ being answered
    uint64_t sent = 0;
};

Window windows[max_windows];

/// Empties w, in use by `owner` from now on (nullptr: free); its
/// generation stays.
void reset(Window &w, Process *owner) {
    const uint16_t generation = w.generation;
    w = Window{};
    w.generation = generation;
    w.used = owner != nullptr;
    w.owner = owner;
}
int request_mailbox = -1;
int reply_mailbox = -1;
Outgoing outgoing;
ReadJob read_job;

size_t data_room() { return mailbox_payload() - sizeof(Header); }

// Keys: the entry and its generation, so that a key outlives no window.
int key_of(int index) { return windows[index].generation * max_windows + index + 1; }

Window *find(uint64_t key) {
    if (key == 0 || key > INT32_MAX) return nullptr;
    const uint64_t index = (key - 1) % max_windows;
    Window &w = windows[index];
    return w.used && key_of(static_cast<int>(index)) == static_cast<int>(key) ? &w : nullptr;
}

/// The caller's window `key`: 0, or -TS_EBADF.
long own(uint64_t key, Window *&out) {
    out = find(key);
    return out && out->owner == current_process() ? 0 : -TS_EBADF;
}

bool exposes(const Window &w, uint64_t addr, uint64_t size) {
    for (const Region &r : w.regions)
        if (r.size && addr >= r.base && size <= r.size && addr - r.base <= r.size - size) return true;
    return false;
}

bool send(int cluster, int port, const Message &m) {
    const size_t size = sizeof(Header) + m.h.length;
    return mailbox_send(TS_PORT_WINDOW, cluster, port, &m, size) != pending;
}

/// The next message of one of the agent's mailboxes. Any process may send
/// to these ports: a message whose header claims more data than it
/// carries is dropped.
bool receive(int mailbox, Message &m) {
    for (;;) {
        const long n = mailbox_read(mailbox, &m, sizeof m);
        if (n < 0) return false;  // pending: nothing more has arrived
        if (static_cast<size_t>(n) >= sizeof(Header) && m.h.length <= static_cast<size_t>(n) - sizeof(Header))
            return true;
    }
}

// ---- the agent: serving requests in the owner's address space --------------------

// run_as handlers: a0 the owner's address, a1 a kernel buffer, a2 bytes.
long store_call(Call &c) { return copy_to_user(c.a[0], reinterpret_cast<const void *>(c.a[1]), c.a[2]); }
long load_call(Call &c) { return copy_from_user(reinterpret_cast<void *>(c.a[1]), c.a[0], c.a[2]); }

// a0 the word's address, a1 the request's header (kind, operands; b gets
// the old value).
long atomic_call(Call &c) {
    if (long err = check_user(c.a[0], sizeof(uint64_t), true)) return err;
    auto *word = reinterpret_cast<uint64_t *>(c.a[0]);
    Header &h = *reinterpret_cast<Header *>(c.a[1]);
    switch (h.kind) {
    case TS_WINDOW_CAS: {
        uint64_t expected = h.b;
        __atomic_compare_exchange_n(word, &expected, h.a, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        h.b = expected;
        return 0;
    }
    case TS_WINDOW_FADD: h.b = __atomic_fetch_add(word, h.a, __ATOMIC_SEQ_CST); return 0;
    default: h.b = __atomic_exchange_n(word, h.a, __ATOMIC_SEQ_CST); return 0;
    }
}

long in_owner(Window &w, Handler h, uint64_t a0, const void *a1, uint64_t a2) {
    Call c{};
    c.a[0] = a0;
    c.a[1] = reinterpret_cast<uint64_t>(a1);
    c.a[2] = a2;
    return run_as(w.owner, h, c);
}

/// The target of a request for `size` bytes at its address: 0, -TS_ENOENT
/// (no such window), -TS_EACCES (not exposed).
long target_of(const Header &h, uint64_t size, Window *&w) {
    w = find(h.target_key);
    if (!w || w->owner->killed) return -TS_ENOENT;
    return exposes(*w, h.addr, size) ? 0 : -TS_EACCES;
}

Message answer(const Header &request, uint8_t kind, long status, uint64_t old) {
    Message m{};
    m.h = request;
    m.h.kind = kind;
    m.h.length = 0;
    m.h.a = static_cast<uint64_t>(status);
    m.h.b = old;
    return m;
}

/// Sends m to the requester, or keeps it until there is room: false then.
bool reply(const Message &m) {
    if (send(m.h.origin_cluster, TS_PORT_WINDOW_REPLY, m)) return true;
    outgoing = Outgoing{true, m.h.origin_cluster, 0, m};
    return false;
}

/// Sends the next parts of the READ being answered, then its reply: false
/// while one waits for room.
bool continue_read() {
    ReadJob &j = read_job;
    while (j.active) {
        Window *w;
        long status = target_of(j.request, j.request.a, w);
        if (status == 0 && j.sent < j.request.a) {
            Message m{};
            m.h = j.request;
            m.h.kind = msg_data;
            const uint64_t left = j.request.a - j.sent;
            m.h.length = static_cast<uint16_t>(left < data_room() ? left : data_room());
            m.h.addr = j.sent;
            status = in_owner(*w, load_call, j.request.addr + j.sent, m.data, m.h.length);
            if (status == 0) {
                j.sent += m.h.length;
                if (!reply(m)) return false;
                continue;
            }
        }
        j.active = false;
        if (!reply(answer(j.request, msg_reply, status, 0))) return false;
    }
    return true;
}

/// Serves one request: false when its answer waits for room.
bool serve(Message &m) {
    const Header &h = m.h;
    Window *w;
    switch (h.kind) {
    case TS_WINDOW_WRITE: {
        long status = target_of(h, h.length, w);
        if (status == 0) status = in_owner(*w, store_call, h.addr, m.data, h.length);
        return status == 0 || reply(answer(h, msg_failed, status, 0));
    }
    case TS_WINDOW_READ: read_job = ReadJob{true, h, 0}; return continue_read();
    case TS_WINDOW_FLUSH: return reply(answer(h, msg_reply, find(h.target_key) ? 0 : -TS_ENOENT, 0));
    case TS_WINDOW_CAS:
    case TS_WINDOW_FADD:
    case TS_WINDOW_SWAP: {
        long status = target_of(h, sizeof(uint64_t), w);
        if (status == 0) status = in_owner(*w, atomic_call, h.addr, &m.h, 0);
        return reply(answer(h, msg_reply, status, status == 0 ? m.h.b : 0));
    }
    default: return true;  // not a request: dropped
    }
}

/// Takes a reply for one of our windows' requests (one whose window is
/// gone is dropped).
void take_reply(const Message &m) {
    Window *w = find(m.h.origin_key);
    if (!w) return;
    Request &r = w->request;
    if (m.h.kind == msg_failed) {
        if (w->write_error == 0) w->write_error = static_cast<long>(m.h.a);
        return;
    }
    if (!r.active || r.replied) return;
    if (m.h.kind == msg_data) {
        if (r.status == 0 && m.h.addr + m.h.length <= r.op.size)
            r.status = in_owner(*w, store_call, reinterpret_cast<uintptr_t>(r.op.buf) + m.h.addr, m.data,
                                m.h.length);
        return;
    }
    if (r.status == 0) r.status = static_cast<long>(m.h.a);
    r.result = m.h.b;
    r.replied = true;
}

// ---- the requester ---------------------------------------------------------------

bool is_atomic(unsigned kind) {
    return kind == TS_WINDOW_CAS || kind == TS_WINDOW_FADD || kind == TS_WINDOW_SWAP;
}

long check_op(const ts_window_op &op) {
    if (op.kind < TS_WINDOW_WRITE || op.kind > TS_WINDOW_SWAP || !valid_cluster(op.cluster) || op.target <= 0)
        return -TS_EINVAL;
    if (is_atomic(op.kind) && op.addr % sizeof(uint64_t)) return -TS_EINVAL;
    if (op.kind == TS_WINDOW_WRITE || op.kind == TS_WINDOW_READ)
        return check_user(reinterpret_cast<uintptr_t>(op.buf), op.size, op.kind == TS_WINDOW_READ);
    return 0;
}

Header request_header(const Window &w, const ts_window_op &op) {
    Header h{};
    h.kind = static_cast<uint8_t>(op.kind);
    h.origin_cluster = static_cast<uint16_t>(hal::cluster_id());
    h.origin_key = static_cast<uint32_t>(key_of(static_cast<int>(&w - windows)));
    h.target_key = static_cast<uint32_t>(op.target);
    h.addr = op.addr;
    h.a = op.kind == TS_WINDOW_READ ? op.size : op.operand;
    h.b = op.compare;
    return h;
}

/// The request's messages from p.done on: false while one waits for room.
/// A write sends its data in parts (p.done: bytes sent), the others one
/// message.
bool send_request(const Window &w, const ts_window_op &op, Progress &p) {
    Message m{};
    m.h = request_header(w, op);
    if (op.kind != TS_WINDOW_WRITE) {
        if (p.done == 0 && !send(op.cluster, TS_PORT_WINDOW, m)) return false;
        p.done = 1;
        return true;
    }
    while (p.done < op.size) {
        const uint64_t left = op.size - p.done;
        m.h.length = static_cast<uint16_t>(left < data_room() ? left : data_room());
        m.h.addr = op.addr + p.done;
        // The buffer was checked at the start, but another thread may
        // unmap it between two attempts.
        if (copy_from_user(m.data, reinterpret_cast<uintptr_t>(op.buf) + p.done, m.h.length)) return true;
        if (!send(op.cluster, TS_PORT_WINDOW, m)) return false;
        p.done += m.h.length;
    }
    return true;
}

// Steps: 0 check and start, 1 send, 2 wait for the reply.
long access(Call &c) {
    Window *w;
    if (long err = own(c.a[0], w)) return err;
    Request &r = w->request;
    if (c.p.step == 0) {
        if (r.active) return -TS_EBUSY;  // another thread of the process has a request out
        ts_window_op op;
        if (long err = copy_from_user(&op, c.a[1], sizeof op)) return err;
        if (long err = check_op(op)) return err;
        r = Request{true, false, op, 0, 0};
        c.p.step = 1;
    }
    if (c.p.step == 1) {
        if (!send_request(*w, r.op, c.p)) return pending;
        if (r.op.kind == TS_WINDOW_WRITE) return c.p.done < r.op.size ? -TS_EFAULT : 0;
        c.p.step = 2;
    }
    if (!r.replied) return pending;
    long status = r.status;
    if (r.op.kind == TS_WINDOW_FLUSH && status == 0) {
        status = w->write_error;
        w->write_error = 0;
    }
    if (status == 0 && is_atomic(r.op.kind))
        status = copy_to_user(c.a[1] + offsetof(ts_window_op, result), &r.result, sizeof r.result);
    return status;
}

}  // namespace

void window_init() {
    if (mailbox_payload() < sizeof(Header) + 8 || mailbox_payload() > sizeof(Message))
        panic("mailbox messages do not fit the window agent");
    const long requests = mailbox_create(TS_PORT_WINDOW);
    const long replies = mailbox_create(TS_PORT_WINDOW_REPLY);
    if (requests < 0 || replies < 0) panic("cannot create the window agent's mailboxes");
    request_mailbox = static_cast<int>(requests);
    reply_mailbox = static_cast<int>(replies);
}

bool window_poll() {
    if (request_mailbox < 0) return false;
    bool moved = false;
    Message m;
    while (receive(reply_mailbox, m)) {
        take_reply(m);
        moved = true;
    }
    if (outgoing.held) {
        if (!send(outgoing.cluster, TS_PORT_WINDOW_REPLY, outgoing.m)) return moved;
        outgoing.held = false;
        moved = true;
    }
    if (!continue_read()) return true;
    // A bounded number per pass: the master has calls to serve too.
    for (int i = 0; i < 32 && receive(request_mailbox, m); ++i) {
        moved = true;
        if (!serve(m)) break;
    }
    return moved;
}

void window_release_process(Process *p) {
    for (Window &w : windows)
        if (w.used && w.owner == p) reset(w, nullptr);
}

long sys_window_create(Call &) {
    for (int i = 0; i < max_windows; ++i) {
        Window &w = windows[i];
        if (w.used) continue;
        // The generation moves on, so that the new key is not the old one.
        ++w.generation;
        reset(w, current_process());
        return key_of(i);
    }
    return -TS_ENFILE;
}

long sys_window_expose(Call &c) {
    Window *w;
    if (long err = own(c.a[0], w)) return err;
    const uintptr_t base = c.a[1];
    const uintptr_t size = c.a[2];
    if (size == 0 || base + size < base) return -TS_EINVAL;
    Region *free = nullptr;
    for (Region &r : w->regions) {
        if (r.size && base < r.base + r.size && r.base < base + size) return -TS_EINVAL;
        if (!r.size && !free) free = &r;
    }
    if (!free) return -TS_EINVAL;
    if (long err = check_user(base, size, true)) return err;
    *free = Region{base, size};
    return 0;
}

long sys_window_withdraw(Call &c) {
    Window *w;
    if (long err = own(c.a[0], w)) return err;
    for (Region &r : w->regions) {
        if (r.size && r.base == c.a[1]) {
            r = Region{};
            return 0;
        }
    }
    return -TS_ENOENT;
}

long sys_window_free(Call &c) {
    Window *w;
    if (long err = own(c.a[0], w)) return err;
    if (w->request.active) return -TS_EBUSY;
    reset(*w, nullptr);
    return 0;
}

long sys_window_access(Call &c) {
    const long r = access(c);
    // A request that ended early (a bad buffer) is over as well.
    if (r != pending) {
        Window *w = find(c.a[0]);
        if (w && w->owner == current_process() && c.p.step > 0) w->request.active = false;
    }
    return r;
}

}  // namespace kernel::ikc
