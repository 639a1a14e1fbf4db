/*
 * ikc_api: the IKC kernel calls' behaviour and errors, on one cluster and
 * between two. Run as `mpirun -np 2 --map-by scatter ikc_api`: one process
 * on each of the first two compute clusters (A and B).
 *
 *   local (each cluster, loopback through its own NoC interface):
 *     bad ports and clusters, a taken port, closed and wrong-direction ids,
 *     another owner's object, oversized and truncated messages, the limit
 *     of virtual abstractions per hardware resource, aread/awrite/wait and
 *     their errors, ioctl statistics, portal reads without an allow,
 *     waiting for any of one's events (wait_any, wake) and their errors,
 *     a ring of arrivals (order, source, nothing lost when it is full, a
 *     corrupted tail, events, detaching) and trywrite;
 *   A <-> B: an asynchronous mailbox and portal exchange, two virtual
 *     portals multiplexed on one hardware portal, tagged portal transfers
 *     (allowed out of order, cut by their reader, cancelled), a mailbox
 *     write that goes on in the background while its caller computes, and
 *     a barrier.
 *
 * Prints "ikc_api ok cluster C" at the end, or "ikc_api FAIL ..." and
 * aborts the job with status 1.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define PORT_A       10
#define PORT_B       11
#define PORT_C       12
#define BARRIER_PORT 60

static int me;

static struct ts_ikc_stats mailbox_stats(int id) {
    struct ts_ikc_stats s;
    check(ts_mailbox_ioctl(id, TS_IKC_IOCTL_STATS, &s), "mailbox_ioctl");
    return s;
}

static void bad_arguments(void) {
    expect(ts_mailbox_create(0), -TS_EINVAL, "create on the kernel's port 0");
    expect(ts_mailbox_create(-1), -TS_EINVAL, "create on port -1");
    expect(ts_mailbox_create(TS_PORTS), -TS_EINVAL, "create on port TS_PORTS");
    expect(ts_portal_create(TS_PORTS + 5), -TS_EINVAL, "portal create on a bad port");
    expect(ts_mailbox_open(PORT_A, ts_job()->nclusters, PORT_A), -TS_EINVAL, "open to a bad cluster");
    expect(ts_mailbox_open(PORT_A, me, 0), -TS_EINVAL, "open to the kernel's port");
    expect(ts_portal_open(0, me, PORT_A), -TS_EINVAL, "open from the kernel's port");
    int in = check(ts_mailbox_create(PORT_A), "mailbox_create");
    expect(ts_mailbox_create(PORT_A), -TS_EBUSY, "create on a taken port");
    expect(ts_mailbox_write(in, "x", 1), -TS_EBADF, "write to an input mailbox");
    expect(ts_mailbox_close(in), -TS_EBADF, "close an input mailbox");
    check(ts_mailbox_unlink(in), "mailbox_unlink");
    char buf[8];
    expect(ts_mailbox_read(in, buf, sizeof buf), -TS_EBADF, "read an unlinked mailbox");
    expect(ts_mailbox_unlink(in), -TS_EBADF, "unlink twice");
    expect(ts_mailbox_read(9999, buf, sizeof buf), -TS_EBADF, "read a bad id");
    expect(ts_mailbox_read(-1, buf, sizeof buf), -TS_EBADF, "read id -1");
    in = check(ts_portal_create(PORT_A), "portal_create");
    expect(ts_portal_read(in, buf, sizeof buf, 0), -TS_EINVAL, "portal read without an allow");
    expect(ts_portal_allow(in, -3, PORT_A, 0), -TS_EINVAL, "allow a bad cluster");
    expect(ts_portal_allow(in, me, TS_PORTS, 0), -TS_EINVAL, "allow a bad port");
    check(ts_portal_unlink(in), "portal_unlink");
}

/* The kernel's own objects (e.g. the spawn server's ring sync) belong to
 * no process: using their ids is refused as not ours. */
static void not_owner(void) {
    struct ts_ikc_stats s;
    int eperm = 0;
    for (int id = 0; id < 32; ++id) {
        int r = ts_sync_ioctl(id, TS_IKC_IOCTL_STATS, &s);
        if (r == -TS_EPERM)
            ++eperm;
        else if (r != -TS_EBADF)
            fail("sync ioctl on an id that is not ours", r);
    }
    if (eperm == 0) fail("no sync of the kernel refused with EPERM", 0);
}

static void messages_and_stats(void) {
    const long payload = ts_job()->mailbox_payload;
    int in = check(ts_mailbox_create(PORT_A), "mailbox_create");
    int out = check(ts_mailbox_open(PORT_B, me, PORT_A), "mailbox_open to ourselves");
    char big[512];
    memset(big, 'm', sizeof big);
    expect(ts_mailbox_write(out, big, payload + 1), -TS_EINVAL, "write more than the payload");
    expect(ts_mailbox_write(out, (void *)16, 4), -TS_EFAULT, "write from a bad pointer");
    expect(ts_mailbox_write(out, big, payload), payload, "write a full message");
    char small[5] = {0};
    expect(ts_mailbox_read(in, small, 4), payload, "read truncated: returns the message's bytes");
    if (memcmp(small, "mmmm", 4) != 0) fail("truncated read copied the wrong bytes", 0);
    expect(ts_mailbox_write(out, "hi", 2), 2, "write 2 bytes");
    expect(ts_mailbox_read(in, big, sizeof big), 2, "read 2 bytes");
    struct ts_ikc_stats s = mailbox_stats(in);
    expect((long)s.reads, 2, "input stats: reads");
    expect((long)s.bytes, 4 + 2, "input stats: bytes copied");
    expect((long)s.writes, 0, "input stats: writes");
    s = mailbox_stats(out);
    expect((long)s.writes, 2, "output stats: writes");
    expect((long)s.bytes, payload + 2, "output stats: bytes");
    expect(ts_mailbox_ioctl(out, 77, &s), -TS_EINVAL, "ioctl with an unknown request");
    expect(ts_mailbox_ioctl(out, TS_IKC_IOCTL_STATS, (void *)8), -TS_EFAULT, "ioctl to a bad pointer");
    check(ts_mailbox_close(out), "mailbox_close");
    expect(ts_mailbox_write(out, "x", 1), -TS_EBADF, "write after close");
    check(ts_mailbox_unlink(in), "mailbox_unlink");
}

static void async_errors(void) {
    int in = check(ts_mailbox_create(PORT_A), "mailbox_create");
    int out = check(ts_mailbox_open(PORT_B, me, PORT_A), "mailbox_open");
    char buf[64];
    expect(ts_mailbox_wait(in), -TS_EINVAL, "wait with nothing started");
    expect(ts_mailbox_aread(in, (void *)16, 8), -TS_EFAULT, "aread into a bad buffer");
    expect(ts_mailbox_aread(out, buf, sizeof buf), -TS_EBADF, "aread on an output mailbox");
    check(ts_mailbox_aread(in, buf, sizeof buf), "aread");
    expect(ts_mailbox_test(in), -TS_EAGAIN, "test of an aread with nothing to read");
    expect(ts_mailbox_aread(in, buf, sizeof buf), -TS_EBUSY, "a second aread");
    expect(ts_mailbox_read(in, buf, sizeof buf), -TS_EBUSY, "read during an aread");
    expect(ts_mailbox_unlink(in), -TS_EBUSY, "unlink during an aread");
    check(ts_mailbox_awrite(out, "async", 5), "awrite");
    expect(ts_mailbox_wait(out), 5, "wait for the awrite");
    expect(ts_mailbox_wait(in), 5, "wait for the aread");
    if (memcmp(buf, "async", 5) != 0) fail("aread delivered the wrong bytes", 0);
    expect(ts_mailbox_wait(in), -TS_EINVAL, "wait twice");
    struct ts_ikc_stats s = mailbox_stats(in);
    expect((long)s.areads, 1, "stats: areads");
    expect((long)s.reads, 1, "stats: reads (the aread's)");
    expect((long)s.waits, 1, "stats: waits");
    check(ts_mailbox_close(out), "mailbox_close");
    check(ts_mailbox_unlink(in), "mailbox_unlink");
}

#define RING_SLOTS 4

/* The slot of ring r that holds its message number i. */
static const struct ts_ring_slot *ring_slot(const struct ts_ring *r, unsigned i) {
    const char *slots = (const char *)(r + 1);
    return (const struct ts_ring_slot *)(slots +
                                         (i % r->nslots) * TS_RING_SLOT_BYTES(ts_job()->mailbox_payload));
}

/* Takes the next message of ring r, which must be message `seq` from
 * (me, PORT_B): a byte seq repeated seq % 7 + 1 times. */
static void ring_take(struct ts_ring *r, unsigned seq) {
    const unsigned tail = r->tail;
    if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == tail) fail("ring empty where a message was due", seq);
    const struct ts_ring_slot *s = ring_slot(r, tail);
    const unsigned char *data = (const unsigned char *)(s + 1);
    expect(s->length, seq % 7 + 1, "ring slot length");
    expect(s->src_cluster, me, "ring slot source cluster");
    expect(s->src_port, PORT_B, "ring slot source port");
    for (unsigned i = 0; i < s->length; ++i)
        if (data[i] != (unsigned char)seq) fail("ring slot data (message order)", data[i]);
    __atomic_store_n(&r->tail, tail + 1, __ATOMIC_RELEASE);
}

/* Sends message `seq` (see ring_take) with trywrite: its result. */
static long ring_send(int out, unsigned seq) {
    unsigned char msg[8];
    memset(msg, (int)seq, sizeof msg);
    return ts_mailbox_trywrite(out, msg, seq % 7 + 1);
}

/* Sends until the ring is full and stalled (a message of ours waits in
 * the kernel): messages sent. */
static unsigned ring_fill(struct ts_ring *r, int in, int out, long mode) {
    unsigned sent = 0;
    for (int tries = 0; tries < 1000; ++tries) {
        const long w = ring_send(out, sent);
        if (w >= 0) {
            ++sent;
            continue;
        }
        expect(w, -TS_EAGAIN, "trywrite to a full slot");
        if (mode == TS_RING_PULL) check(ts_mailbox_drain(in), "mailbox_drain");
        if (r->head - r->tail == r->nslots && r->stalled) return sent;
        ts_sleep_ns(1000000); /* the master fills the ring meanwhile */
    }
    fail("the ring never filled up", (long)sent);
    return 0;
}

static void rings(void) {
    static uint64_t space[TS_RING_BYTES(RING_SLOTS, 256) / 8 + 1];
    struct ts_ring *r = (struct ts_ring *)space;
    int in = check(ts_mailbox_create(PORT_A), "mailbox_create");
    int out = check(ts_mailbox_open(PORT_B, me, PORT_A), "mailbox_open");
    expect(ts_mailbox_ring(in, r, 3), -TS_EINVAL, "ring of 3 slots");
    expect(ts_mailbox_ring(in, r, 0), -TS_EINVAL, "ring of 0 slots");
    expect(ts_mailbox_ring(in, r, TS_RING_MAX_SLOTS * 2), -TS_EINVAL, "ring of too many slots");
    expect(ts_mailbox_ring(in, (struct ts_ring *)((char *)r + 4), RING_SLOTS), -TS_EINVAL, "misaligned ring");
    expect(ts_mailbox_ring(in, (struct ts_ring *)16, RING_SLOTS), -TS_EFAULT, "ring at a bad pointer");
    expect(ts_mailbox_ring(out, r, RING_SLOTS), -TS_EBADF, "ring on an output mailbox");
    expect(ts_mailbox_drain(in), -TS_EINVAL, "drain without a ring");
    expect(ts_mailbox_trywrite(in, "x", 1), -TS_EBADF, "trywrite to an input mailbox");
    const long mode = check(ts_mailbox_ring(in, r, RING_SLOTS), "mailbox_ring");
    if (mode != 0 && mode != TS_RING_PULL) fail("mailbox_ring's answer", mode);
    expect(r->nslots, RING_SLOTS, "ring nslots");
    char buf[8];
    expect(ts_mailbox_read(in, buf, sizeof buf), -TS_EBUSY, "read with a ring");
    expect(ts_mailbox_aread(in, buf, sizeof buf), -TS_EBUSY, "aread with a ring");

    /* Full: the ring and the hardware slot hold all, nothing is lost. */
    unsigned sent = ring_fill(r, in, out, mode);
    if (sent <= RING_SLOTS) fail("messages beyond the ring's room did not wait in the kernel", (long)sent);
    /* A full slot answers -TS_EAGAIN (without the master's lock) only to a
     * write that could go: a bad buffer or size still says what is wrong. */
    static char big[4096];
    long w;
    for (int i = 0; i < 1000 && (w = ring_send(out, sent)) >= 0; ++i)
        ++sent;
    expect(w, -TS_EAGAIN, "trywrite to a full slot");
    expect(ts_mailbox_trywrite(out, (void *)16, 1), -TS_EFAULT, "trywrite from a bad buffer to a full slot");
    expect(ts_mailbox_trywrite(out, big, sizeof big), -TS_EINVAL,
           "trywrite of too many bytes to a full slot");
    for (unsigned seq = 0, tries = 0; seq < sent; ++tries) {
        while (r->head != r->tail)
            ring_take(r, seq++);
        r->stalled = 0;
        /* The master may fill the ring meanwhile, wherever it runs. */
        const long moved = check(ts_mailbox_drain(in), "mailbox_drain");
        if (seq < sent && r->head == r->tail) {
            if (mode == TS_RING_PULL || tries == 1000) fail("a message that waited never came", seq);
            ts_sleep_ns(1000000);
        } else if (moved > 0 && r->head == r->tail) {
            fail("drain said it moved messages the ring does not have", moved);
        }
    }
    struct ts_ikc_stats s = mailbox_stats(in);
    expect((long)s.reads, (long)sent, "ring stats: reads");

    /* A tail that says more than the ring holds reads as a full ring. */
    const unsigned head = r->head;
    r->tail = head + 100;
    expect(ring_send(out, 1), 2, "trywrite one more");
    expect(ts_mailbox_drain(in), 0, "drain into a corrupted ring");
    expect(r->head, head, "nothing written past a corrupted tail");
    r->tail = head;

    /* An arrival in the ring is an event of the reader's (wait_any). */
    const unsigned long seen = (unsigned long)check(ts_ikc_wait_any(~0ul, 1), "wait_any for the count");
    __atomic_store_n(&r->wake, 1u, __ATOMIC_SEQ_CST);
    if (r->head == r->tail &&
        (unsigned long)check(ts_ikc_wait_any(seen, 1000000000ul), "wait_any for the arrival") == seen)
        fail("no event for an arrival in the ring", 0);
    r->wake = 0;
    ring_take(r, 1);

    /* Detached, the mailbox is read as before. */
    check(ts_mailbox_ring(in, NULL, 0), "detach the ring");
    expect(ts_mailbox_drain(in), -TS_EINVAL, "drain after detaching");
    expect(ring_send(out, 3), 4, "trywrite after detaching");
    expect(ts_mailbox_read(in, buf, sizeof buf), 4, "read after detaching");
    check(ts_mailbox_close(out), "mailbox_close");
    check(ts_mailbox_unlink(in), "mailbox_unlink");
}

/* ts_ikc_wait_any ends on the caller's own events only: an asynchronous
 * operation it started that finished, or a ts_ikc_wake for it. */
static void wait_any_and_wake(void) {
    const unsigned long second = 1000000000ul, ms = 1000000ul;
    const int self = ts_thread_self();
    const int idle_core = self == 1 ? 2 : 1; /* no thread of ours runs there */
    unsigned long seen = (unsigned long)check(ts_ikc_wait_any(0, 1), "wait_any: the count so far");
    expect(ts_ikc_wait_any(seen, ms), (long)seen, "wait_any with no event: the count at the timeout");
    expect(ts_ikc_wake(0), -TS_EINVAL, "wake the master core");
    expect(ts_ikc_wake(-1), -TS_EINVAL, "wake core -1");
    expect(ts_ikc_wake(ts_job()->ncores), -TS_EINVAL, "wake a core out of range");
    if (idle_core < (int)ts_job()->ncores)
        expect(ts_ikc_wake(idle_core), -TS_EINVAL, "wake a core without a thread of ours");
    check(ts_ikc_wake(self), "wake myself");
    expect(ts_ikc_wait_any(seen, second), (long)seen + 1, "wait_any after a wake");
    ++seen;

    int in = check(ts_mailbox_create(PORT_A), "mailbox_create");
    int out = check(ts_mailbox_open(PORT_B, me, PORT_A), "mailbox_open");
    char buf[16];
    check(ts_mailbox_aread(in, buf, sizeof buf), "aread");
    expect(ts_ikc_wait_any(seen, ms), (long)seen, "an aread with nothing to read is no event");
    expect(ts_mailbox_write(out, "ev", 2), 2, "write (synchronous: no event of its own)");
    expect(ts_ikc_wait_any(seen, second), (long)seen + 1, "wait_any once the aread has its message");
    expect(ts_mailbox_wait(in), 2, "wait for the aread");
    check(ts_mailbox_close(out), "mailbox_close");
    check(ts_mailbox_unlink(in), "mailbox_unlink");
}

/* Creates virtual mailboxes on every port until the one hardware mailbox
 * of a compute cluster carries its limit: ports taken by others (the
 * kernel's) count against the same hardware mailbox. */
static void limit_per_hardware(void) {
    const struct ts_job_info *j = ts_job();
    if (j->hw_mailboxes != 1) fail("a compute cluster should have one hardware mailbox", j->hw_mailboxes);
    int ids[TS_PORTS];
    int made = 0, taken = 0, port = 1;
    for (; port < TS_PORTS; ++port) {
        int r = ts_mailbox_create(port);
        if (r == -TS_ENFILE) break;
        if (r == -TS_EBUSY) {
            ++taken;
            continue;
        }
        ids[made++] = check(r, "mailbox_create under the limit");
    }
    if (port == TS_PORTS) fail("no limit reached", made);
    expect(made + taken, j->virtual_per_hw, "virtual mailboxes on one hardware mailbox");
    check(ts_mailbox_unlink(ids[made - 1]), "mailbox_unlink");
    int again = check(ts_mailbox_create(port), "create once one is free");
    check(ts_mailbox_unlink(again), "mailbox_unlink");
    for (int i = 0; i < made - 1; ++i)
        check(ts_mailbox_unlink(ids[i]), "mailbox_unlink");
    /* Outputs to one remote hardware mailbox have the same limit. */
    for (made = 0; made < TS_PORTS; ++made) {
        int r = ts_mailbox_open(1 + made % (TS_PORTS - 1), me, PORT_A);
        if (r == -TS_ENFILE) break;
        ids[made] = check(r, "mailbox_open under the limit");
    }
    expect(made, j->virtual_per_hw, "virtual output mailboxes to one hardware mailbox");
    for (int i = 0; i < made; ++i)
        check(ts_mailbox_close(ids[i]), "mailbox_close");
}

/* Syncs: each side's role is checked, one waiter per port, and the
 * statistics count signals and waits. */
static void sync_roles_and_stats(int a, int b) {
    int both[2] = {a, b}, others[2] = {0, me == a ? b : a}; /* the I/O cluster and the other part */
    expect(ts_sync_create(others, 2, TS_SYNC_ALL_TO_ONE, PORT_C), -TS_EINVAL, "sync without us in the list");
    expect(ts_sync_create(both, 2, 7, PORT_C), -TS_EINVAL, "sync of an unknown type");
    expect(ts_sync_create(both, 1, TS_SYNC_ALL_TO_ONE, PORT_C), -TS_EINVAL, "sync of one cluster");
    int dup[2] = {me, me};
    expect(ts_sync_create(dup, 2, TS_SYNC_ALL_TO_ONE, PORT_C), -TS_EINVAL, "sync listing a cluster twice");
    /* ALL_TO_ONE: the one (a) waits, b signals; ONE_TO_ALL: b waits, a signals. */
    const int one = me == a;
    expect(ts_sync_create(both, 2, TS_SYNC_ALL_TO_ONE, PORT_C) < 0, !one, "ALL_TO_ONE: only the one waits");
    expect(ts_sync_open(both, 2, TS_SYNC_ONE_TO_ALL, PORT_C) < 0, !one, "ONE_TO_ALL: only the one signals");
    int w = check(one ? ts_sync_create(both, 2, TS_SYNC_ALL_TO_ONE, PORT_C + 1)
                      : ts_sync_create(both, 2, TS_SYNC_ONE_TO_ALL, PORT_C + 1),
                  "sync_create");
    expect(ts_sync_create(both, 2, one ? TS_SYNC_ALL_TO_ONE : TS_SYNC_ONE_TO_ALL, PORT_C + 1), -TS_EBUSY,
           "a second waiter on the port");
    int s = check(one ? ts_sync_open(both, 2, TS_SYNC_ONE_TO_ALL, PORT_C + 1)
                      : ts_sync_open(both, 2, TS_SYNC_ALL_TO_ONE, PORT_C + 1),
                  "sync_open");
    expect(ts_sync_wait(s), -TS_EBADF, "wait on the signalling side");
    expect(ts_sync_signal(w), -TS_EBADF, "signal on the waiting side");
    for (int round = 0; round < 3; ++round) {
        if (one) {
            check(ts_sync_wait(w), "sync_wait");
            check(ts_sync_signal(s), "sync_signal");
        } else {
            check(ts_sync_signal(s), "sync_signal");
            check(ts_sync_wait(w), "sync_wait");
        }
    }
    struct ts_ikc_stats st;
    check(ts_sync_ioctl(w, TS_IKC_IOCTL_STATS, &st), "sync_ioctl");
    expect((long)st.waits, 3, "sync stats: waits");
    check(ts_sync_ioctl(s, TS_IKC_IOCTL_STATS, &st), "sync_ioctl");
    expect((long)st.signals, 3, "sync stats: signals");
    check(ts_sync_unlink(w), "sync_unlink");
    check(ts_sync_close(s), "sync_close");
    expect(ts_sync_close(s), -TS_EBADF, "sync closed twice");
}

/* A's AWRITE that finds its slot at B full is written by A's master once
 * B takes the message before it, while A computes and makes no kernel
 * call: B has it before A's computation ends (the times are the platform
 * clock, which both clusters share). */
static void awrite_while_computing(int a, int b) {
    const int in = check(ts_mailbox_create(PORT_C), "mailbox_create");
    parts_barrier(BARRIER_PORT);
    if (me == a) {
        const int out = check(ts_mailbox_open(PORT_C, b, PORT_C), "mailbox_open");
        expect(ts_mailbox_write(out, "1", 1), 1, "write the message that fills the slot");
        check(ts_mailbox_awrite(out, "2", 1), "awrite behind a full slot");
        const unsigned long end = ts_time() + ts_job()->timebase_hz / 2;
        while (ts_time() < end) {}
        expect(ts_mailbox_wait(out), 1, "wait for the awrite");
        expect(ts_mailbox_write(out, &end, sizeof end), sizeof end, "write the end of the computation");
        check(ts_mailbox_close(out), "mailbox_close");
    } else if (me == b) {
        char c = 0;
        unsigned long end = 0;
        expect(ts_mailbox_read(in, &c, 1), 1, "read the first message");
        expect(ts_mailbox_read(in, &c, 1), 1, "read the awrite's message");
        const unsigned long got = ts_time();
        if (c != '2') fail("the awrite's message", c);
        expect(ts_mailbox_read(in, &end, sizeof end), sizeof end, "read the end of the computation");
        if (got >= end) fail("the awrite waited for its caller to stop computing", (long)(got - end));
    }
    check(ts_mailbox_unlink(in), "mailbox_unlink");
}

static char pattern(int i, int seed) { return (char)(i * 7 + seed); }

static void fill(char *buf, long n, int seed) {
    for (long i = 0; i < n; ++i)
        buf[i] = pattern((int)i, seed);
}

static void verify(const char *buf, long n, int seed, const char *what) {
    for (long i = 0; i < n; ++i)
        if (buf[i] != pattern((int)i, seed)) fail(what, i);
}

/* A portal write whose buffer runs off the end of the heap: the chunks
 * before the unmapped page go, then the write fails with -TS_EFAULT; the
 * reader (loopback, asynchronous) is not disturbed and gets the rest from
 * a second write. */
static void portal_fault_midway(void) {
    static char rest[8192], got[3 * 4096];
    const long chunk = ts_job()->portal_chunk;
    if (chunk != 4096) fail("this check assumes 4 KiB portal chunks", chunk);
    /* A page of our own at the very end of the heap (malloc's own pages
     * stay untouched): one mapped page, then none. */
    char *brk = sbrk(0);
    char *edge = (char *)(((uintptr_t)brk + 4095) & ~(uintptr_t)4095);
    if (sbrk(edge + 4096 - brk) == (void *)-1) fail("sbrk", -1);
    memset(edge, 'e', 4096);
    memset(rest, 'r', sizeof rest);
    int in = check(ts_portal_create(PORT_C), "portal_create");
    int out = check(ts_portal_open(PORT_C, me, PORT_C), "portal_open");
    check(ts_portal_allow(in, me, PORT_C, 0), "portal_allow");
    check(ts_portal_aread(in, got, sizeof got, 0), "portal_aread");
    expect(ts_portal_write(out, edge, sizeof got, 0), -TS_EFAULT, "write running off the heap");
    expect(ts_portal_write(out, rest, sizeof rest, 0), sizeof rest, "write the rest");
    expect(ts_portal_wait(in), sizeof got, "the reader gets every byte");
    for (int i = 0; i < (int)sizeof got; ++i)
        if (got[i] != (i < 4096 ? 'e' : 'r')) fail("portal data after a fault", i);
    expect(ts_portal_read(in, (void *)16, 8, 0), -TS_EINVAL, "read without a new allow");
    check(ts_portal_allow(in, me, PORT_C, 0), "portal_allow");
    expect(ts_portal_read(in, (void *)16, 8, 0), -TS_EFAULT, "read into a bad buffer");
    check(ts_portal_close(out), "portal_close");

    /* The reader's buffer runs off the heap: the read fails after the
     * first chunk and the transfer is closed. Its sender's awrite has ended
     * (both its chunks went into the portal's ring of chunk buffers), and
     * the close dropped the chunk the reader did not take: the next
     * transfer on the same hardware portal, from another port, arrives
     * whole and unmixed. */
    static char ys[4096 + 5];
    memset(rest, 'x', sizeof rest);
    memset(ys, 'y', sizeof ys);
    int abandoned = check(ts_portal_open(PORT_C + 1, me, PORT_C), "portal_open");
    int next = check(ts_portal_open(PORT_C + 2, me, PORT_C), "portal_open");
    check(ts_portal_allow(in, me, PORT_C + 1, 0), "portal_allow");
    check(ts_portal_awrite(abandoned, rest, sizeof rest, 0), "portal_awrite");
    expect(ts_portal_read(in, edge, sizeof got, 0), -TS_EFAULT, "read running off the heap");
    check(ts_portal_allow(in, me, PORT_C + 2, 0), "portal_allow");
    check(ts_portal_awrite(next, ys, sizeof ys, 0), "portal_awrite");
    expect(ts_portal_read(in, got, sizeof ys, 0), sizeof ys, "the next transfer");
    for (int i = 0; i < (int)sizeof ys; ++i)
        if (got[i] != 'y') fail("a closed transfer's data got into the next one", i);
    expect(ts_portal_wait(next), sizeof ys, "wait for the next transfer's awrite");
    expect(ts_portal_wait(abandoned), sizeof rest, "the abandoned transfer's awrite");
    check(ts_portal_close(abandoned), "portal_close");
    check(ts_portal_close(next), "portal_close");
    check(ts_portal_unlink(in), "portal_unlink");
}

#define PORTAL_BYTES (3 * 4096 + 99)
static char send_a[PORTAL_BYTES], send_b[PORTAL_BYTES], recv_a[PORTAL_BYTES], recv_b[PORTAL_BYTES];

/* A receives from B on two virtual portals (ports A and B) that share its
 * one hardware portal, both reads running at once (aread); B writes both
 * at once (awrite). The kernel lets one transfer hold the hardware portal
 * at a time; both must arrive whole. */
static void multiplexed_portals(int a, int b) {
    if (me == a) {
        int p1 = check(ts_portal_create(PORT_A), "portal_create 1");
        int p2 = check(ts_portal_create(PORT_B), "portal_create 2");
        check(ts_portal_allow(p1, b, PORT_A, 0), "allow 1");
        check(ts_portal_allow(p2, b, PORT_B, 0), "allow 2");
        check(ts_portal_aread(p1, recv_a, PORTAL_BYTES, 0), "aread 1");
        check(ts_portal_aread(p2, recv_b, PORTAL_BYTES, 0), "aread 2");
        parts_barrier(BARRIER_PORT);
        expect(ts_portal_wait(p2), PORTAL_BYTES, "wait 2");
        expect(ts_portal_wait(p1), PORTAL_BYTES, "wait 1");
        verify(recv_a, PORTAL_BYTES, 1, "portal 1 data");
        verify(recv_b, PORTAL_BYTES, 2, "portal 2 data");
        struct ts_ikc_stats s;
        check(ts_portal_ioctl(p1, TS_IKC_IOCTL_STATS, &s), "portal_ioctl");
        expect((long)s.allows, 1, "portal stats: allows");
        expect((long)s.bytes, PORTAL_BYTES, "portal stats: bytes");
        expect((long)(s.reads + s.areads * 10 + s.waits * 100), 111, "portal stats: reads, areads, waits");
        if (s.transfer_ns == 0) fail("portal stats: no transfer time", 0);
        check(ts_portal_unlink(p1), "portal_unlink");
        check(ts_portal_unlink(p2), "portal_unlink");
    } else {
        fill(send_a, PORTAL_BYTES, 1);
        fill(send_b, PORTAL_BYTES, 2);
        int o1 = check(ts_portal_open(PORT_A, a, PORT_A), "portal_open 1");
        int o2 = check(ts_portal_open(PORT_B, a, PORT_B), "portal_open 2");
        parts_barrier(BARRIER_PORT);
        check(ts_portal_awrite(o1, send_a, PORTAL_BYTES, 0), "awrite 1");
        check(ts_portal_awrite(o2, send_b, PORTAL_BYTES, 0), "awrite 2");
        expect(ts_portal_wait(o1), PORTAL_BYTES, "wait awrite 1");
        expect(ts_portal_wait(o2), PORTAL_BYTES, "wait awrite 2");
        check(ts_portal_close(o1), "portal_close");
        check(ts_portal_close(o2), "portal_close");
    }
}

/* Tagged transfers from B to A, each on its own output portal from the
 * same port: an allow takes the write of its tag only, whatever the order
 * the writes started in; a read that keeps fewer bytes than the transfer
 * drops the rest, and the next transfer arrives unmixed; an AWRITE that
 * no allow let move is cancelled, and its portal takes a new write. */
static void tagged_transfers(int a, int b) {
    if (me == a) {
        int in = check(ts_portal_create(PORT_A), "portal_create");
        parts_barrier(BARRIER_PORT);
        check(ts_portal_allow(in, b, PORT_A, 2), "allow tag 2");
        expect(ts_portal_read(in, recv_b, PORTAL_BYTES, 0), PORTAL_BYTES, "read tag 2");
        verify(recv_b, PORTAL_BYTES, 2, "the write of tag 2, started second");
        check(ts_portal_allow(in, b, PORT_A, 1), "allow tag 1");
        expect(ts_portal_read(in, recv_a, PORTAL_BYTES, 0), PORTAL_BYTES, "read tag 1");
        verify(recv_a, PORTAL_BYTES, 1, "the write of tag 1");
        memset(recv_a, 0, sizeof recv_a);
        check(ts_portal_allow(in, b, PORT_A, 3), "allow tag 3");
        expect(ts_portal_read(in, recv_a, 100, 50), -TS_EINVAL, "a transfer smaller than the read");
        expect(ts_portal_read(in, recv_a, 100, PORTAL_BYTES), 100, "keep 100 bytes of a transfer");
        verify(recv_a, 100, 1, "the kept bytes");
        for (int i = 100; i < PORTAL_BYTES; ++i)
            if (recv_a[i]) fail("a read wrote past the bytes it keeps", i);
        parts_barrier(BARRIER_PORT);
        check(ts_portal_allow(in, b, PORT_A, 6), "allow tag 6");
        check(ts_portal_aread(in, recv_b, PORTAL_BYTES, 0), "aread tag 6");
        expect(ts_portal_cancel(in), -TS_EINVAL, "cancel a read");
        expect(ts_portal_wait(in), PORTAL_BYTES, "read tag 6");
        verify(recv_b, PORTAL_BYTES, 2, "the write after a cancelled one");
        check(ts_portal_unlink(in), "portal_unlink");
    } else {
        fill(send_a, PORTAL_BYTES, 1);
        fill(send_b, PORTAL_BYTES, 2);
        int o1 = check(ts_portal_open(PORT_A, a, PORT_A), "portal_open 1");
        int o2 = check(ts_portal_open(PORT_A, a, PORT_A), "portal_open 2");
        check(ts_portal_awrite(o1, send_a, PORTAL_BYTES, 1), "awrite tag 1");
        check(ts_portal_awrite(o2, send_b, PORTAL_BYTES, 2), "awrite tag 2");
        parts_barrier(BARRIER_PORT);
        expect(ts_portal_wait(o2), PORTAL_BYTES, "wait tag 2");
        expect(ts_portal_wait(o1), PORTAL_BYTES, "wait tag 1");
        expect(ts_portal_write(o1, send_a, PORTAL_BYTES, 3), PORTAL_BYTES, "write tag 3, cut by its reader");
        check(ts_portal_awrite(o2, send_a, PORTAL_BYTES, 5), "awrite tag 5");
        expect(ts_portal_cancel(o2), -TS_ECANCELED, "cancel a write no allow let move");
        expect(ts_portal_cancel(o2), -TS_EINVAL, "cancel with no write");
        check(ts_portal_awrite(o2, send_b, PORTAL_BYTES, 6), "awrite tag 6");
        parts_barrier(BARRIER_PORT);
        expect(ts_portal_wait(o2), PORTAL_BYTES, "wait tag 6");
        check(ts_portal_close(o1), "portal_close");
        check(ts_portal_close(o2), "portal_close");
    }
}

int main(void) {
    int parts[IKC_MAX_PARTS];
    const int n = ikc_parts(parts, "ikc_api");
    me = ts_job()->cluster_id;
    if (n < 2) fail("run with -np 2 --map-by scatter", n);
    bad_arguments();
    not_owner();
    messages_and_stats();
    async_errors();
    wait_any_and_wake();
    rings();
    limit_per_hardware();
    portal_fault_midway();
    parts_barrier(BARRIER_PORT);
    sync_roles_and_stats(parts[0], parts[1]);
    parts_barrier(BARRIER_PORT);
    multiplexed_portals(parts[0], parts[1]);
    parts_barrier(BARRIER_PORT);
    tagged_transfers(parts[0], parts[1]);
    parts_barrier(BARRIER_PORT);
    awrite_while_computing(parts[0], parts[1]);
    parts_barrier(BARRIER_PORT);
    printf("ikc_api ok cluster %d\n", me);
    return 0;
}
