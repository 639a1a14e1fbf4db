// The virtual tables: the mailboxes and portals that programs (and the
// kernel itself) hold, each bound to a logical port and attached to an
// entry of the active table (active.hpp). Internal to ikc/.
#pragma once

#include "active.hpp"
#include "ikc/ikc.hpp"

namespace kernel::ikc {

enum class Kind { mailbox, portal };

/// An asynchronous read or write (AREAD/AWRITE): the synchronous form's
/// attempt, decoding the call's arguments afresh each time, attempted by
/// the master on every pass (poll()) in the owner's address space until it
/// finishes; WAIT collects `result`.
struct Async {
    bool started = false;
    bool finished = false;
    Handler attempt = nullptr;
    Handler cancel = nullptr;
    Call call{};
    long result = 0;
    int core = 0;  ///< the core whose thread started it (an event for its WAIT_ANY)
};

/// Input mailboxes: the ring in the owner's memory that its arrivals go
/// into (MAILBOX_RING). `head` is the kernel's own count: the process's
/// copy is never read back.
struct Ring {
    uintptr_t va = 0;  ///< struct ts_ring in the owner's address space; 0: none
    uint32_t slots = 0;
    uint32_t head = 0;
};

/// A virtual mailbox or portal: an input bound to a local port, or an
/// output from a local port to a remote (cluster, port).
struct Endpoint {
    // Read without the lock by a call's fast try (decode_endpoint): word
    // loads of a table that never moves.
    bool used = false;
    bool input = false;
    Process *owner = nullptr;  ///< nullptr: the kernel's own
    int core = 0;              ///< inputs: the core that last read or waited on it (at first, its creator's)
    // All-zero defaults keep the tables in .bss; the fields mean something
    // only while `used` (and `allowed`) say so.
    int local_port = 0;
    int remote_cluster = 0;  ///< outputs
    int remote_port = 0;     ///< outputs
    int active = 0;          ///< its active-table entry
    bool allowed = false;    ///< input portals: an allow waits for its read
    int16_t allow_cluster = 0;
    int16_t allow_port = 0;
    uint32_t allow_tag = 0;
    ts_ikc_stats stats{};
    Async async;
    Ring ring;
};

constexpr int max_virtual = 128;  ///< virtual mailboxes (and portals) per cluster
constexpr int max_active = 64;    ///< active-table entries per cluster

/// The cluster's active table (both kinds).
ActiveTable<max_active> &active_table();

class VirtualTable {
public:
    constexpr explicit VirtualTable(Kind kind) : kind_(kind) {}

    /// A new input on `port`: id, -TS_EINVAL (bad port), -TS_EBUSY (port
    /// taken), -TS_ENFILE (table or hardware resource full).
    long create(int port);
    /// A new output to (cluster, port): id, -TS_EINVAL, -TS_ENFILE.
    long open(int local_port, int cluster, int port);
    /// The caller's endpoint `id` of the given direction in `out`: 0,
    /// -TS_EBADF (no such open endpoint) or -TS_EPERM (another process's).
    long get(int id, Dir dir, Endpoint *&out);
    /// Closes (output) or unlinks (input) the caller's endpoint: 0,
    /// -TS_EBADF, -TS_EPERM, -TS_EBUSY (an asynchronous operation is running).
    long release(int id, bool input);
    /// The same for an endpoint already found: 0 or -TS_EBUSY.
    long release(Endpoint &e);
    /// The id of entry e.
    int id_of(const Endpoint &e) const { return static_cast<int>(&e - entries); }
    /// Frees every endpoint of p (p has ended), cancelling their operations.
    void release_process(Process *p);
    /// Attempts every running asynchronous operation once; true when one finished.
    bool poll();

    Endpoint entries[max_virtual];
    /// Asynchronous operations started and not finished (poll() skips the
    /// table when there are none: it runs on every pass of the master).
    int running = 0;

private:
    void free(Endpoint &e);
    Kind kind_;
};

VirtualTable &mailbox_table();
VirtualTable &portal_table();

/// Detaches e's ring, if it has one (its mailbox is freed).
void forget_ring(Endpoint &e);

/// One more event for the thread on `core` (IKC_WAIT_ANY): one of its
/// asynchronous operations finished, or its ring got a message.
void add_event(int core);

/// Nanoseconds since p.start; 0 when no start was marked (the operation
/// completed at its first attempt, at once).
uint64_t elapsed_ns(const Progress &p);
/// Counts a completed read or write of `bytes` that started at p.start.
void count_transfer(ts_ikc_stats &s, const Progress &p, size_t bytes, bool write);
/// Marks the start of an operation that has to wait (at its first attempt),
/// for count_transfer.
inline void mark_start(Progress &p) {
    if (!p.start) p.start = hal::time();
}

// ---- asynchronous operations and ioctl, shared by mailboxes and portals ----------

/// AREAD/AWRITE c on endpoint e of t, whose arguments were decoded: starts
/// `attempt` (the synchronous call's, run through c's decoder) in the
/// background: 0, or -TS_EBUSY while another one runs. `cancel` releases
/// what an unfinished attempt holds when the owner ends.
long async_start(VirtualTable &t, Endpoint &e, const Call &c, Handler attempt, Handler cancel);
/// A synchronous READ or WRITE is refused (-TS_EBUSY) at its start (p,
/// its progress, untouched yet) while an asynchronous operation runs on
/// e; 0 otherwise.
long refuse_while_async(const Endpoint &e, const Progress &p);
/// WAIT on e: the finished operation's result, or pending (-TS_EAGAIN
/// with TS_IKC_NOWAIT or TS_IKC_CANCEL in `flags`). TS_IKC_CANCEL ends an
/// AWRITE that has moved no byte (-TS_ECANCELED); -TS_EINVAL on an input,
/// or when nothing was started.
long async_wait(VirtualTable &t, Endpoint &e, int flags);

}  // namespace kernel::ikc
