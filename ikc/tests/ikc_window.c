/*
 * ikc_window: IKC windows (TS_SYS_WINDOW_*): their api, faults and a
 * stress of atomics, between every compute cluster of the job. Run as
 * `mpirun -np N --map-by scatter ikc_window` (N >= 2): one process on each
 * of the first N compute clusters.
 *
 *   api (each cluster, through its own agent): bad arguments and keys,
 *     regions that are empty, overlap or are not mapped, writes, reads
 *     and atomics at the addresses exposed, reads and writes of what is
 *     not exposed (-TS_EACCES, a write's at its FLUSH), a freed window;
 *   between clusters: each writes a pattern, in messages and through a
 *     portal, into the next one's window while that one only watches its own
 *     memory (no kernel call on its side), reads it back, and every
 *     cluster adds to one counter of the first cluster with FADD and CAS
 *     while that cluster adds to it with its own atomics: the total is
 *     exact.
 *
 * Prints "ikc_window ok cluster C" at the end, or "ikc_window FAIL ..."
 * and aborts the job with status 1.
 */
#include <stdint.h>
#include <string.h>

#include "testlib.h"

#define KEY_PORT     13
#define BARRIER_PORT 61
#define BYTES        10000 /* through a portal, in three pieces */
#define SMALL        200   /* in several messages */
#define ADDS         200   /* per cluster and per kind */

static int me, n, index_of_me;
static int parts[IKC_MAX_PARTS];
static int keys[IKC_MAX_PARTS]; /* every cluster's window key */

/* Every cluster exposes these, at the same addresses (one program). */
static char region[2 * BYTES];
static uint64_t counter;
static volatile uint64_t arrived; /* set by the previous cluster's write */
static char back[BYTES];

static unsigned long addr(const volatile void *p) { return (unsigned long)(uintptr_t)p; }

static char pattern(int i, int seed) { return (char)(i * 13 + seed); }

static void api(int key) {
    expect(ts_window_expose(key, region, 0), -TS_EINVAL, "expose an empty region");
    expect(ts_window_expose(key, (void *)16, 64), -TS_EFAULT, "expose unmapped memory");
    expect(ts_window_expose(key + 1000, region, 64), -TS_EBADF, "expose through a bad key");
    check(ts_window_expose(key, region, sizeof region), "expose the region");
    /* An overlapping region joins the one it overlaps: their hull, based
     * at region, which withdraws below; region + 8 is no base of its own. */
    check(ts_window_expose(key, region + 8, 8), "expose an overlapping region");
    expect(ts_window_withdraw(key, region + 8), -TS_ENOENT, "withdraw inside a merged region");
    check(ts_window_expose(key, &counter, sizeof counter), "expose the counter");
    check(ts_window_expose(key, (void *)&arrived, sizeof arrived), "expose the flag");
    expect(ts_window_withdraw(key, region + 1), -TS_ENOENT, "withdraw what is not a region's base");

    struct ts_window_op op = {TS_WINDOW_READ, me, key, 0, addr(region), back, 16, 0, 0, 0};
    expect(ts_window_access(-1, &op), -TS_EBADF, "access through a bad key");
    expect(ts_window_access(key, (void *)8), -TS_EFAULT, "access with a bad op pointer");
    op.kind = 99;
    expect(ts_window_access(key, &op), -TS_EINVAL, "an unknown kind");
    op.kind = TS_WINDOW_READ;
    op.cluster = ts_job()->nclusters;
    expect(ts_window_access(key, &op), -TS_EINVAL, "a bad cluster");
    op.cluster = me;
    op.buf = (void *)16;
    expect(ts_window_access(key, &op), -TS_EFAULT, "read into a bad buffer");
    expect(ts_window_write(key, me, key, addr(region), (void *)16, 16), -TS_EFAULT,
           "write from a bad buffer");
    uint64_t old;
    expect(ts_window_atomic(key, me, key, addr(region) + 4, TS_WINDOW_FADD, 1, 0, &old), -TS_EINVAL,
           "a misaligned atomic");
    expect(ts_window_read(key, me, key + 1000, addr(region), back, 16), -TS_ENOENT,
           "read a window nobody has");

    /* Through our own agent: in messages (SMALL) and through its portal. */
    for (int size = SMALL; size <= BYTES; size += BYTES - SMALL) {
        for (int i = 0; i < size; ++i)
            back[i] = pattern(i, size);
        check(ts_window_write(key, me, key, addr(region) + BYTES, back, size), "write to ourselves");
        check(ts_window_flush(key, me, key), "flush to ourselves");
        if (memcmp(region + BYTES, back, size) != 0) fail("our own write did not land", size);
        memset(back, 0, sizeof back);
        check(ts_window_read(key, me, key, addr(region) + BYTES + 1, back, size - 1), "read ourselves");
        for (int i = 0; i < size - 1; ++i)
            if (back[i] != pattern(i + 1, size)) fail("read ourselves: a wrong byte", i);
    }
    counter = 5;
    check(ts_window_atomic(key, me, key, addr(&counter), TS_WINDOW_FADD, 3, 0, &old), "fadd");
    expect((long)old, 5, "fadd's old value");
    check(ts_window_atomic(key, me, key, addr(&counter), TS_WINDOW_CAS, 100, 7, &old), "cas that fails");
    expect((long)old, 8, "failed cas's old value");
    check(ts_window_atomic(key, me, key, addr(&counter), TS_WINDOW_CAS, 100, 8, &old), "cas that succeeds");
    check(ts_window_atomic(key, me, key, addr(&counter), TS_WINDOW_SWAP, 0, 0, &old), "swap");
    expect((long)old, 100, "swap's old value");
    expect((long)counter, 0, "the counter after swap");

    /* What is not exposed. */
    expect(ts_window_read(key, me, key, addr(back), back, 8), -TS_EACCES, "read what is not exposed");
    expect(ts_window_read(key, me, key, addr(region) + sizeof region - 4, back, 8), -TS_EACCES,
           "read past a region's end");
    expect(ts_window_read(key, me, key, addr(region) + sizeof region - 8, back, sizeof back), -TS_EACCES,
           "a long read past a region's end");
    expect(ts_window_atomic(key, me, key, addr(back), TS_WINDOW_FADD, 1, 0, &old), -TS_EACCES,
           "an atomic on what is not exposed");
    check(ts_window_write(key, me, key, addr(back), region, 8), "a write to what is not exposed leaves");
    expect(ts_window_flush(key, me, key), -TS_EACCES, "its flush reports it");
    check(ts_window_flush(key, me, key), "the next flush is clean");
    check(ts_window_write(key, me, key, addr(region) + sizeof region - 8, back, sizeof back),
          "a long write past the end leaves");
    expect(ts_window_flush(key, me, key), -TS_EACCES, "its flush reports it");

    /* A withdrawn region, a freed window. */
    int other = check(ts_window_create(), "window_create");
    check(ts_window_expose(other, back, sizeof back), "expose");
    check(ts_window_withdraw(other, back), "withdraw");
    expect(ts_window_read(key, me, other, addr(back), region, 8), -TS_EACCES, "read a withdrawn region");
    check(ts_window_free(other), "window_free");
    expect(ts_window_expose(other, back, 8), -TS_EBADF, "expose through a freed window");
    expect(ts_window_read(key, me, other, addr(back), region, 8), -TS_ENOENT, "read a freed window");
    int again = check(ts_window_create(), "window_create again");
    if (again == other) fail("a new window took a freed window's key", again);
    check(ts_window_free(again), "window_free");
}

/* Every cluster's key, by mailbox from every other. */
static void exchange_keys(int key) {
    int in = check(ts_mailbox_create(KEY_PORT), "mailbox_create");
    parts_barrier(BARRIER_PORT);
    for (int i = 0; i < n; ++i) {
        if (parts[i] == me) continue;
        int out = check(ts_mailbox_open(KEY_PORT, parts[i], KEY_PORT), "mailbox_open");
        int msg[2] = {index_of_me, key};
        check(ts_mailbox_write(out, msg, sizeof msg), "send our key");
        check(ts_mailbox_close(out), "mailbox_close");
    }
    keys[index_of_me] = key;
    for (int got = 1; got < n; ++got) {
        int msg[2];
        expect(ts_mailbox_read(in, msg, sizeof msg), sizeof msg, "a key");
        keys[msg[0]] = msg[1];
    }
    check(ts_mailbox_unlink(in), "mailbox_unlink");
}

/* Writes a pattern into the next cluster's region and reads it back; our
 * region gets the previous cluster's while we only watch our memory. */
static void ring_of_writes(int key) {
    const int next = (index_of_me + 1) % n;
    char out[BYTES];
    for (int i = 0; i < BYTES; ++i)
        out[i] = pattern(i, index_of_me);
    memset(region, 0, sizeof region);
    arrived = 0;
    parts_barrier(BARRIER_PORT);
    check(ts_window_write(key, parts[next], keys[next], addr(region), out, SMALL),
          "write its start in messages");
    check(ts_window_write(key, parts[next], keys[next], addr(region) + SMALL, out + SMALL, BYTES - SMALL),
          "write the rest through its portal");
    check(ts_window_flush(key, parts[next], keys[next]), "flush it");
    const uint64_t one = 1;
    check(ts_window_write(key, parts[next], keys[next], addr(&arrived), &one, sizeof one), "raise its flag");
    memset(back, 0, sizeof back);
    check(ts_window_read(key, parts[next], keys[next], addr(region), back, SMALL), "read its start back");
    check(ts_window_read(key, parts[next], keys[next], addr(region) + SMALL, back + SMALL, BYTES - SMALL),
          "read the rest back");
    if (memcmp(back, out, BYTES) != 0) fail("the next cluster's region reads back wrong", 0);
    const int prev = (index_of_me + n - 1) % n;
    while (!arrived)
        ts_thread_yield();
    for (int i = 0; i < BYTES; ++i)
        if (region[i] != pattern(i, prev)) fail("the previous cluster's write is wrong", i);
}

/* Every cluster adds ADDS with FADD and ADDS with CAS to the first
 * cluster's counter; the first adds ADDS more with its own atomics. */
static void shared_counter(int key) {
    counter = 0;
    parts_barrier(BARRIER_PORT);
    const int c0 = parts[0], k0 = keys[0];
    for (int i = 0; i < ADDS; ++i) {
        uint64_t old;
        check(ts_window_atomic(key, c0, k0, addr(&counter), TS_WINDOW_FADD, 1, 0, &old), "fadd the counter");
        uint64_t seen = 0;
        do {
            const uint64_t want = seen;
            check(ts_window_atomic(key, c0, k0, addr(&counter), TS_WINDOW_CAS, want + 1, want, &seen), "cas");
            if (seen == want) break;
        } while (1);
        if (me == c0) __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
    }
    parts_barrier(BARRIER_PORT);
    if (me == c0) expect((long)counter, (long)(2 * ADDS * n + ADDS), "the counter's total");
}

int main(void) {
    n = ikc_parts(parts, "ikc_window");
    me = ts_job()->cluster_id;
    if (n < 2) fail("run with -np 2 or more, --map-by scatter", n);
    for (int i = 0; i < n; ++i)
        if (parts[i] == me) index_of_me = i;
    int key = check(ts_window_create(), "window_create");
    if (key <= 0) fail("a key is positive", key);
    api(key);
    exchange_keys(key);
    ring_of_writes(key);
    shared_counter(key);
    parts_barrier(BARRIER_PORT);
    check(ts_window_free(key), "window_free");
    printf("ikc_window ok cluster %d\n", me);
    return 0;
}
