// IKC windows: regions of a process's memory that other processes, on any
// cluster, write, read and update at an address of its address space, with
// no action by the owner (docs/ARCHITECTURE.md, "IKC windows").
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
// sends its request (a write: its data, with no answer unless it fails),
// then waits for the reply. Requests from one cluster reach a port in the
// order they were sent, and the agent serves them in that order, so a
// FLUSH answered means every earlier write has landed.
//
// Data travels in the messages themselves up to bulk_min bytes; from there
// on, through a portal: the agents' input portals on TS_PORT_WINDOW (a
// WRITE's data) and TS_PORT_WINDOW_REPLY (a READ's), in pieces of
// piece_bytes, each a portal transfer that the receiving agent allows,
// takes into a piece buffer of its own and stores in the owner's memory.
// The receiving side of replies never waits for the serving side, so no
// two agents can wait for each other.
#include <string.h>

#include "virtual.hpp"

namespace kernel::ikc {
namespace {

constexpr int max_windows = 32;
constexpr size_t max_message = 256;
/// Data of this size or more goes through a portal, in pieces.
constexpr size_t bulk_min = 256;
constexpr size_t piece_bytes = 4096;

/// What travels: the request kinds of enum ts_window_kind, then these.
enum : uint8_t {
    msg_data = 16,        ///< part of a READ's answer: bytes at `addr` (an offset into the read)
    msg_reply = 17,       ///< the end of a request: a = status, b = an atomic's old value
    msg_failed = 18,      ///< a WRITE failed: a = status (kept for the next FLUSH)
    msg_bulk_write = 19,  ///< request: a WRITE of `a` bytes, whose data follows through the target's portal
    msg_bulk_data = 20,   ///< a READ's answer: its `a` bytes follow through the requester's portal
};

struct Header {
    uint8_t kind;
    uint8_t reserved;
    uint16_t length;  ///< bytes of data after the header (WRITE, data)
    uint16_t origin_cluster;
    uint16_t target_cluster;
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
    // All-zero defaults keep the windows table in .bss.
    bool bulk = false;  ///< a WRITE whose data goes through a portal
    int portal = 0;     ///< a bulk WRITE: its output portal to the target's agent
    Progress piece{};   ///< a bulk WRITE: the portal write of its current piece
    long fault = 0;     ///< a bulk WRITE whose buffer failed midway: the rest goes as zeros
};

}  // namespace

struct Window {
    bool used = false;
    uint16_t generation = 0;  ///< tells a window from an earlier one in its entry
    Process *owner = nullptr;
    Region regions[TS_WINDOW_REGIONS];
    Request request;
    long write_error = 0;  ///< the first failure of a write since the last FLUSH
};

namespace {

/// The agent's answer that waits for room at its receiver.
struct Outgoing {
    bool held = false;
    int cluster = 0;
    Message m{};
};

/// A READ the agent answers in messages.
struct ReadJob {
    bool active = false;
    Header request{};  ///< the READ being answered
    uint64_t sent = 0;
};

/// A transfer the agent takes through one of its input portals, a piece
/// at a time, each stored where it belongs.
struct Inbound {
    bool active = false;
    bool allowed = false;  ///< the current piece's allow is given
    Header h{};            ///< the message that announced it (a: its bytes)
    uint64_t done = 0;
    long status = 0;  ///< the first failure to store a piece
    Progress p{};
    char *piece = nullptr;  ///< room for one piece
};

/// A READ the agent answers through the requester's portal.
struct Outbound {
    bool active = false;
    bool loaded = false;  ///< the current piece is in `piece`
    Header h{};
    int portal = 0;
    uint64_t done = 0;
    long status = 0;
    Progress p{};
    char *piece = nullptr;  ///< room for one piece
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
int request_portal = -1;
int reply_portal = -1;
Outgoing outgoing;
ReadJob read_job;
Inbound bulk_write;  ///< a WRITE for one of our windows
Outbound bulk_read;  ///< a READ of one of our windows
Inbound bulk_reply;  ///< the data of a READ one of our windows made
// Pieces: one for the request served (a bulk WRITE or READ, never both),
// one for the replies.
char request_piece[piece_bytes];
char reply_piece[piece_bytes];
const char zeros[piece_bytes] = {};
/// Messages and pieces the agent has moved: window_poll() tells the master
/// to pass again only when they moved (a wait is woken by the NoC).
uint64_t moves;

/// Starts taking the transfer `h` announces into `in` (no temporary: the
/// kernel's stack is small).
void start(Inbound &in, const Header &h, char *piece) {
    in.active = true;
    in.allowed = false;
    in.h = h;
    in.done = 0;
    in.status = 0;
    in.p = Progress{};
    in.piece = piece;
}

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

/// One access of the agent to a window owner's memory, run as the owner
/// (run_as): `addr` the owner's address, `kernel` a kernel buffer of
/// `size` bytes.
struct OwnerAccess {
    uint64_t addr;
    void *kernel;
    uint64_t size;
};

long store_work(const OwnerAccess &x, Call &) { return copy_to_user(x.addr, x.kernel, x.size); }
long load_work(const OwnerAccess &x, Call &) { return copy_from_user(x.kernel, x.addr, x.size); }

// addr the word's address, kernel the request's header (kind, operands; b
// gets the old value).
long atomic_work(const OwnerAccess &x, Call &) {
    if (long err = check_user(x.addr, sizeof(uint64_t), true)) return err;
    auto *word = reinterpret_cast<uint64_t *>(kernel_view(x.addr));
    Header &h = *static_cast<Header *>(x.kernel);
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

template <long (*F)(const OwnerAccess &, Call &)>
long in_owner(Window &w, uint64_t addr, const void *kernel, uint64_t size) {
    return run_as<OwnerAccess, F>(w.owner, OwnerAccess{addr, const_cast<void *>(kernel), size});
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
    if (send(m.h.origin_cluster, TS_PORT_WINDOW_REPLY, m)) {
        ++moves;
        return true;
    }
    outgoing = Outgoing{true, m.h.origin_cluster, m};
    return false;
}

size_t piece_of(uint64_t size, uint64_t done) {
    return size - done < piece_bytes ? size - done : piece_bytes;
}

/// Moves `in` on: takes its pieces from (cluster, TS_PORT_WINDOW, tag: the
/// origin's key) through input portal `portal`, and has `store` put each
/// where it belongs. False while a piece is on its way.
bool receive_pieces(int portal, int cluster, Inbound &in, long (*store)(const Inbound &, size_t)) {
    while (in.done < in.h.a) {
        const size_t n = piece_of(in.h.a, in.done);
        if (!in.allowed) {
            portal_allow(portal, cluster, TS_PORT_WINDOW, in.h.origin_key);
            in.allowed = true;
        }
        const long r = portal_read(portal, in.piece, n, 0, in.p, false);
        if (r == pending) return false;
        in.allowed = false;
        in.p = Progress{};
        const long stored = r < 0 ? r : store(in, n);
        if (in.status == 0) in.status = stored;
        in.done += n;
        ++moves;
    }
    in.active = false;
    return true;
}

// A piece of a bulk WRITE, into the target window.
long store_written(const Inbound &in, size_t n) {
    Header h = in.h;
    h.addr += in.done;
    Window *w;
    if (long err = target_of(h, n, w)) return err;
    return in_owner<store_work>(*w, h.addr, in.piece, n);
}

// A piece of a bulk READ's data, into the buffer of the window that asked
// (none: the window is gone, the piece is dropped).
long store_read(const Inbound &in, size_t n) {
    Window *w = find(in.h.origin_key);
    if (!w || !w->request.active || w->request.op.kind != TS_WINDOW_READ) return 0;
    const Request &r = w->request;
    if (in.done + n > r.op.size) return -TS_EINVAL;
    return in_owner<store_work>(*w, reinterpret_cast<uintptr_t>(r.op.buf) + in.done, in.piece, n);
}

/// Sends the READ being answered through the requester's portal, then its
/// reply: false while a piece or the reply waits. A piece that cannot be
/// loaded goes as zeros (the requester takes every byte announced) and
/// the reply carries the failure.
bool answer_pieces() {
    Outbound &o = bulk_read;
    while (o.done < o.h.a) {
        const size_t n = piece_of(o.h.a, o.done);
        if (!o.loaded) {
            Header h = o.h;
            h.addr += o.done;
            Window *w;
            long status = target_of(h, n, w);
            if (status == 0) status = in_owner<load_work>(*w, h.addr, o.piece, n);
            if (status != 0) {
                memset(o.piece, 0, n);
                if (o.status == 0) o.status = status;
            }
            o.loaded = true;
        }
        const long r = portal_write(o.portal, o.piece, n, o.h.origin_key, o.p, false);
        if (r == pending) return false;
        o.loaded = false;
        o.p = Progress{};
        o.done += n;
        ++moves;
    }
    portal_close(o.portal);
    o.active = false;
    return reply(answer(o.h, msg_reply, o.status, 0));
}

/// Sends the next parts of the READ being answered in messages, then its
/// reply: false while one waits for room.
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
            status = in_owner<load_work>(*w, j.request.addr + j.sent, m.data, m.h.length);
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

/// Moves the request being served on: false while it waits.
bool continue_request() {
    if (!continue_read()) return false;
    if (bulk_write.active) {
        if (!receive_pieces(request_portal, bulk_write.h.origin_cluster, bulk_write, store_written))
            return false;
        if (bulk_write.status != 0 && !reply(answer(bulk_write.h, msg_failed, bulk_write.status, 0)))
            return false;
    }
    return !bulk_read.active || answer_pieces();
}

/// Starts answering a READ: through the requester's portal from bulk_min
/// bytes on (when a portal can be had), else in messages.
bool serve_read(const Header &h) {
    Window *w;
    if (long err = target_of(h, h.a, w)) return reply(answer(h, msg_reply, err, 0));
    const long portal =
        h.a >= bulk_min ? portal_open(TS_PORT_WINDOW, h.origin_cluster, TS_PORT_WINDOW_REPLY) : -1;
    if (portal < 0) {
        read_job = ReadJob{true, h, 0};
        return continue_read();
    }
    Outbound &o = bulk_read;
    o.active = true;
    o.loaded = false;
    o.h = h;
    o.portal = static_cast<int>(portal);
    o.done = 0;
    o.status = 0;
    o.p = Progress{};
    o.piece = request_piece;
    // The announcement goes first; the pieces once it is out.
    Message m = answer(h, msg_bulk_data, 0, 0);
    m.h.a = h.a;
    return reply(m) && answer_pieces();
}

/// Serves one request: false when it, or its answer, waits.
bool serve(Message &m) {
    const Header &h = m.h;
    Window *w;
    switch (h.kind) {
    case TS_WINDOW_WRITE: {
        long status = target_of(h, h.length, w);
        if (status == 0) status = in_owner<store_work>(*w, h.addr, m.data, h.length);
        return status == 0 || reply(answer(h, msg_failed, status, 0));
    }
    case msg_bulk_write: start(bulk_write, h, request_piece); return continue_request();
    case TS_WINDOW_READ: return serve_read(h);
    case TS_WINDOW_FLUSH: return reply(answer(h, msg_reply, find(h.target_key) ? 0 : -TS_ENOENT, 0));
    case TS_WINDOW_CAS:
    case TS_WINDOW_FADD:
    case TS_WINDOW_SWAP: {
        long status = target_of(h, sizeof(uint64_t), w);
        if (status == 0) status = in_owner<atomic_work>(*w, h.addr, &m.h, 0);
        return reply(answer(h, msg_reply, status, status == 0 ? m.h.b : 0));
    }
    default: return true;  // not a request: dropped
    }
}

/// Takes a reply for one of our windows' requests (one whose window is
/// gone is dropped; a bulk READ's data is still taken, then dropped).
void take_reply(const Message &m) {
    if (m.h.kind == msg_bulk_data) {
        start(bulk_reply, m.h, reply_piece);
        return;
    }
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
            r.status = in_owner<store_work>(*w, reinterpret_cast<uintptr_t>(r.op.buf) + m.h.addr, m.data,
                                            m.h.length);
        return;
    }
    if (r.status == 0) r.status = static_cast<long>(m.h.a);
    r.result = m.h.b;
    r.replied = true;
}

/// The replies, in order, a bulk READ's data included (the next replies
/// wait behind that data while it is on its way).
void take_replies() {
    Message m;
    for (;;) {
        if (bulk_reply.active) {
            if (!receive_pieces(reply_portal, bulk_reply.h.target_cluster, bulk_reply, store_read)) return;
            Window *w = find(bulk_reply.h.origin_key);
            if (w && w->request.active && w->request.status == 0) w->request.status = bulk_reply.status;
        }
        if (!receive(reply_mailbox, m)) return;
        take_reply(m);
        ++moves;
    }
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
    h.target_cluster = static_cast<uint16_t>(op.cluster);
    h.origin_key = static_cast<uint32_t>(key_of(static_cast<int>(&w - windows)));
    h.target_key = static_cast<uint32_t>(op.target);
    h.addr = op.addr;
    h.a = op.kind == TS_WINDOW_READ ? op.size : op.operand;
    h.b = op.compare;
    return h;
}

/// A WRITE's data in messages from p.done on: false while one waits for
/// room (p.done: bytes sent).
bool send_data(const Window &w, const ts_window_op &op, Progress &p) {
    Message m{};
    m.h = request_header(w, op);
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

/// A bulk WRITE's pieces from p.done on, through r.portal: false while one
/// waits. A piece of the caller's buffer that can no longer be read goes
/// as zeros (the target takes every byte announced): r.fault says so.
bool send_pieces(Request &r, uint32_t tag, Progress &p) {
    while (p.done < r.op.size) {
        const size_t n = piece_of(r.op.size, p.done);
        const char *src = r.fault ? zeros : static_cast<const char *>(r.op.buf) + p.done;
        const long w = portal_write(r.portal, src, n, tag, r.piece, r.fault == 0);
        if (w == pending) return false;
        if (w < 0) {
            r.fault = w;  // again, from the same byte
            continue;
        }
        r.piece = Progress{};
        p.done += n;
    }
    return true;
}

// Steps: 0 check and start, 1 send the request (a WRITE in messages: its
// data, and it is done), 2 a bulk WRITE's pieces, 3 wait for the reply.
long access(Window *w, const kcall::UserRef<ts_window_op> &user_op, Call &c) {
    Request &r = w->request;
    if (c.p.step == 0) {
        if (r.active) return -TS_EBUSY;  // another thread of the process has a request out
        ts_window_op op;
        if (long err = user_op.load(op)) return err;
        if (long err = check_op(op)) return err;
        r = Request{};
        r.active = true;
        r.op = op;
        if (op.kind == TS_WINDOW_WRITE && op.size >= bulk_min) {
            const long portal = portal_open(TS_PORT_WINDOW, op.cluster, TS_PORT_WINDOW);
            r.bulk = portal >= 0;  // else in messages
            r.portal = static_cast<int>(portal);
        }
        c.p.step = 1;
    }
    const Header h = request_header(*w, r.op);
    if (c.p.step == 1) {
        if (r.op.kind == TS_WINDOW_WRITE && !r.bulk) {
            if (!send_data(*w, r.op, c.p)) return pending;
            return c.p.done < r.op.size ? -TS_EFAULT : 0;
        }
        Message m{};
        m.h = h;
        if (r.bulk) {
            m.h.kind = msg_bulk_write;
            m.h.a = r.op.size;
        }
        if (!send(r.op.cluster, TS_PORT_WINDOW, m)) return pending;
        c.p.step = r.bulk ? 2 : 3;
    }
    if (c.p.step == 2) {
        if (!send_pieces(r, h.origin_key, c.p)) return pending;
        return r.fault;
    }
    if (!r.replied) return pending;
    long status = r.status;
    if (r.op.kind == TS_WINDOW_FLUSH && status == 0) {
        status = w->write_error;
        w->write_error = 0;
    }
    if (status == 0 && is_atomic(r.op.kind))
        status = user_op.store(offsetof(ts_window_op, result), &r.result, sizeof r.result);
    return status;
}

/// Creates one of the agent's kernel objects: its id, or a panic.
int agent_object(long id, const char *what) {
    if (id < 0) panic(what);
    return static_cast<int>(id);
}

}  // namespace

void window_init() {
    if (mailbox_payload() < sizeof(Header) + 8 || mailbox_payload() > sizeof(Message))
        panic("mailbox messages do not fit the window agent");
    request_mailbox =
        agent_object(mailbox_create(TS_PORT_WINDOW), "cannot create the window agent's mailbox");
    reply_mailbox =
        agent_object(mailbox_create(TS_PORT_WINDOW_REPLY), "cannot create the window agent's mailbox");
    request_portal = agent_object(portal_create(TS_PORT_WINDOW), "cannot create the window agent's portal");
    reply_portal =
        agent_object(portal_create(TS_PORT_WINDOW_REPLY), "cannot create the window agent's portal");
}

bool window_poll() {
    if (request_mailbox < 0) return false;
    const uint64_t before = moves;
    // The replies never wait for the requests side, which goes on whatever
    // they do: a bulk READ's data may come from this very agent (a loopback).
    take_replies();
    if (outgoing.held) {
        if (!send(outgoing.cluster, TS_PORT_WINDOW_REPLY, outgoing.m)) return moves != before;
        outgoing.held = false;
        ++moves;
    }
    if (!continue_request()) return moves != before;
    // A bounded number per pass: the master has calls to serve too.
    Message m;
    for (int i = 0; i < 32 && receive(request_mailbox, m); ++i) {
        ++moves;
        if (!serve(m)) break;
    }
    return moves != before;
}

void window_release_process(Process *p) {
    for (Window &w : windows)
        if (w.used && w.owner == p) reset(w, nullptr);
}

long decode_window(int key, Window *&out) { return own(static_cast<uint64_t>(key), out); }

long sys_window_create(const window_create_args &, Call &) {
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

// The region was checked writable by this attempt's decoding. It becomes
// one with the regions it overlaps: their hull (the union of memory
// checked when each was exposed) replaces them in this one call, which the
// master makes between two requests it serves, so no access finds their
// memory unexposed meanwhile.
long sys_window_expose(const window_expose_args &a, Call &) {
    Window *w = a.key;
    uintptr_t lo = reinterpret_cast<uintptr_t>(a.base.data);
    uintptr_t hi = lo + a.base.size;
    if (a.base.size == 0) return -TS_EINVAL;
    const auto meets = [&](const Region &r) { return r.size && r.base < hi && lo < r.base + r.size; };
    for (bool grew = true; grew;) {  // the hull grows while it meets a region reaching past it
        grew = false;
        for (const Region &r : w->regions)
            if (meets(r) && (r.base < lo || r.base + r.size > hi)) {
                lo = r.base < lo ? r.base : lo;
                hi = r.base + r.size > hi ? r.base + r.size : hi;
                grew = true;
            }
    }
    Region *free = nullptr;
    bool merges = false;
    for (Region &r : w->regions) {
        merges = merges || meets(r);
        if (!r.size && !free) free = &r;
    }
    if (!free && !merges) return -TS_EINVAL;
    for (Region &r : w->regions)
        if (meets(r)) r = Region{};
    for (Region &r : w->regions)
        if (!r.size) {
            r = Region{lo, hi - lo};
            break;
        }
    return 0;
}

long sys_window_withdraw(const window_withdraw_args &a, Call &) {
    for (Region &r : a.key->regions) {
        if (r.size && r.base == a.base) {
            r = Region{};
            return 0;
        }
    }
    return -TS_ENOENT;
}

long sys_window_free(const window_free_args &a, Call &) {
    Window *w = a.key;
    if (w->request.active) return -TS_EBUSY;
    reset(*w, nullptr);
    return 0;
}

long sys_window_access(const window_access_args &a, Call &c) {
    Window *w = a.key;
    const long r = access(w, a.op, c);
    if (r == pending || c.p.step == 0) return r;
    // The request is over, however it ended.
    Request &req = w->request;
    if (req.bulk) portal_close(req.portal);
    req.bulk = false;
    req.active = false;
    return r;
}

}  // namespace kernel::ikc
