/*
 * ikc_stress: IKC under load between every pair of compute clusters. Run
 * as `mpirun -np N --map-by scatter ikc_stress [MESSAGES]`: one process on
 * each of the first N compute clusters.
 *
 *   mailboxes  every cluster sends MESSAGES (default 250) sequence-numbered
 *              messages to every other cluster on each of NPORTS ports at
 *              once; a reader thread per port checks that every message
 *              arrives exactly once and in order per (sender, port);
 *   portals    every ordered pair of clusters moves transfers of 1 byte to
 *              1 MiB, synchronous and asynchronous, checked byte by byte;
 *   buffers    the first cluster lets the kernel's buffers table fill to
 *              its limit with messages for a port it does not read, checks
 *              that exactly that many are parked and that the next one is
 *              held back, then drains them all in order.
 *
 * Prints "ikc_stress ok cluster C" at the end, or "ikc_stress FAIL ..."
 * and aborts the job with status 1.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define NPORTS       3
#define MAILBOX_PORT 20 /* ports 20..20+NPORTS-1 */
#define PORTAL_PORT  30
#define PARK_PORT    40 /* the port nobody reads for a while */
#define GO_PORT      41
#define BARRIER_PORT 60

struct message {
    int32_t src, port, seq;
};

static int me, nparts, parts[IKC_MAX_PARTS], messages;

/* ---- mailboxes ----------------------------------------------------------- */

static int inbox[NPORTS];

static void reader(void *arg) {
    const int k = (int)(intptr_t)arg;
    int next[IKC_MAX_PARTS] = {0};
    for (long got = 0; got < (long)messages * (nparts - 1); ++got) {
        struct message m;
        expect(ts_mailbox_read(inbox[k], &m, sizeof m), sizeof m, "mailbox_read");
        int from = -1;
        for (int i = 0; i < nparts; ++i)
            if (parts[i] == m.src && m.src != me) from = i;
        if (from < 0 || m.port != MAILBOX_PORT + k)
            fail("message from an unexpected sender or for another port", m.src * 100 + m.port);
        if (m.seq != next[from]) fail("message out of order, lost or twice", m.seq - next[from]);
        ++next[from];
    }
    ts_thread_exit(0);
}

static void mailbox_phase(void) {
    int tids[NPORTS], out[IKC_MAX_PARTS][NPORTS];
    for (int k = 0; k < NPORTS; ++k)
        inbox[k] = check(ts_mailbox_create(MAILBOX_PORT + k), "mailbox_create");
    for (int i = 0; i < nparts; ++i)
        for (int k = 0; k < NPORTS; ++k)
            out[i][k] = parts[i] == me ? -1
                                       : check(ts_mailbox_open(MAILBOX_PORT + k, parts[i], MAILBOX_PORT + k),
                                               "mailbox_open");
    for (int k = 0; k < NPORTS; ++k)
        tids[k] = check(ts_thread_create(reader, (void *)(intptr_t)k), "thread_create");
    parts_barrier(BARRIER_PORT);
    for (int seq = 0; seq < messages; ++seq)
        for (int i = 0; i < nparts; ++i)
            for (int k = 0; k < NPORTS && out[i][k] >= 0; ++k) {
                struct message m = {me, MAILBOX_PORT + k, seq};
                expect(ts_mailbox_write(out[i][k], &m, sizeof m), sizeof m, "mailbox_write");
            }
    for (int k = 0; k < NPORTS; ++k) {
        int status;
        check(ts_thread_join(tids[k], &status), "thread_join");
        expect(status, 0, "reader status");
        check(ts_mailbox_unlink(inbox[k]), "mailbox_unlink");
    }
    for (int i = 0; i < nparts; ++i)
        for (int k = 0; k < NPORTS && out[i][k] >= 0; ++k)
            check(ts_mailbox_close(out[i][k]), "mailbox_close");
}

/* ---- portals ----------------------------------------------------------------- */

static const long sizes[] = {1, 100, 4095, 4096, 4097, 65536 + 13, 1 << 20};
#define NSIZES   (int)(sizeof sizes / sizeof sizes[0])
#define MAX_SIZE (1 << 20)

static char *send_buf, *recv_buf;

static char pattern(long i, int src, int dst, long size) { return (char)(i * 31 + src * 7 + dst * 3 + size); }

/* In round r, cluster i sends to part (i + r) % n and receives from part
 * (i - r) % n: every reader waits for a writer that is in the same round,
 * so no two clusters ever wait for each other. Odd sizes go asynchronous. */
static void portal_reader(void *arg) {
    (void)arg;
    const int self = (int)(parts[0] <= me ? me - parts[0] : 0);
    int in = check(ts_portal_create(PORTAL_PORT), "portal_create");
    for (int r = 1; r < nparts; ++r) {
        const int src = parts[(self - r + nparts) % nparts];
        for (int s = 0; s < NSIZES; ++s) {
            memset(recv_buf, 0, (size_t)sizes[s]);
            check(ts_portal_allow(in, src, PORTAL_PORT, 0), "portal_allow");
            if (s % 2) {
                check(ts_portal_aread(in, recv_buf, (unsigned long)sizes[s], 0), "portal_aread");
                expect(ts_portal_wait(in), sizes[s], "portal_wait (read)");
            } else {
                expect(ts_portal_read(in, recv_buf, (unsigned long)sizes[s], 0), sizes[s], "portal_read");
            }
            for (long i = 0; i < sizes[s]; ++i)
                if (recv_buf[i] != pattern(i, src, me, sizes[s])) fail("portal data differs at byte", i);
        }
    }
    check(ts_portal_unlink(in), "portal_unlink");
    ts_thread_exit(0);
}

static void portal_phase(void) {
    send_buf = malloc(MAX_SIZE);
    recv_buf = malloc(MAX_SIZE);
    if (!send_buf || !recv_buf) fail("no memory for the portal buffers", 0);
    const int self = me - parts[0];
    int tid = check(ts_thread_create(portal_reader, 0), "thread_create");
    parts_barrier(BARRIER_PORT);
    for (int r = 1; r < nparts; ++r) {
        const int dst = parts[(self + r) % nparts];
        int out = check(ts_portal_open(PORTAL_PORT, dst, PORTAL_PORT), "portal_open");
        for (int s = 0; s < NSIZES; ++s) {
            for (long i = 0; i < sizes[s]; ++i)
                send_buf[i] = pattern(i, me, dst, sizes[s]);
            if (s % 2) {
                check(ts_portal_awrite(out, send_buf, (unsigned long)sizes[s], 0), "portal_awrite");
                expect(ts_portal_wait(out), sizes[s], "portal_wait (write)");
            } else {
                expect(ts_portal_write(out, send_buf, (unsigned long)sizes[s], 0), sizes[s], "portal_write");
            }
        }
        check(ts_portal_close(out), "portal_close");
    }
    int status;
    check(ts_thread_join(tid, &status), "thread_join");
    expect(status, 0, "portal reader status");
}

/* ---- the buffers table ------------------------------------------------------ */

static long parked(int id) {
    struct ts_ikc_stats s;
    check(ts_mailbox_ioctl(id, TS_IKC_IOCTL_STATS, &s), "mailbox_ioctl");
    return (long)s.parked;
}

/* parts[1] sends `limit` messages to PARK_PORT, one to GO_PORT, one more
 * to PARK_PORT and a last one to GO_PORT. parts[0] reads GO_PORT: the
 * kernel must park all `limit` messages to reach the first GO. */
static void buffers_phase(void) {
    const int limit = ts_job()->ikc_buffers;
    if (me == parts[0]) {
        int park = check(ts_mailbox_create(PARK_PORT), "mailbox_create park");
        int go = check(ts_mailbox_create(GO_PORT), "mailbox_create go");
        parts_barrier(BARRIER_PORT);
        struct message m;
        expect(ts_mailbox_read(go, &m, sizeof m), sizeof m, "read the first go");
        expect(m.seq, limit, "the first go comes after `limit` parked messages");
        expect(parked(park), limit, "messages parked: the table's limit");
        ts_sleep_ns(20000000); /* the sender's next message reaches our hardware slot */
        expect(parked(park), limit, "the table holds no more than its limit");
        check(ts_mailbox_aread(go, &m, sizeof m), "aread the second go");
        for (int i = 0; i <= limit; ++i) { /* seqs 0..limit-1, then limit+1 (limit was a go) */
            struct message p;
            expect(ts_mailbox_read(park, &p, sizeof p), sizeof p, "read a parked message");
            expect(p.seq, i < limit ? i : limit + 1, "parked messages come out in order");
        }
        expect(ts_mailbox_wait(go), sizeof m, "wait for the second go");
        expect(m.seq, limit + 2, "the second go");
        expect(parked(park), 0, "the table drained");
        check(ts_mailbox_unlink(park), "mailbox_unlink");
        check(ts_mailbox_unlink(go), "mailbox_unlink");
    } else if (me == parts[1]) {
        int park = check(ts_mailbox_open(PARK_PORT, parts[0], PARK_PORT), "mailbox_open park");
        int go = check(ts_mailbox_open(GO_PORT, parts[0], GO_PORT), "mailbox_open go");
        parts_barrier(BARRIER_PORT);
        for (int seq = 0; seq <= limit + 2; ++seq) {
            struct message m = {me, 0, seq};
            int to = seq == limit || seq == limit + 2 ? go : park;
            expect(ts_mailbox_write(to, &m, sizeof m), sizeof m, "mailbox_write");
        }
        check(ts_mailbox_close(park), "mailbox_close");
        check(ts_mailbox_close(go), "mailbox_close");
    } else {
        parts_barrier(BARRIER_PORT);
    }
}

int main(int argc, char **argv) {
    nparts = ikc_parts(parts, "ikc_stress");
    me = ts_job()->cluster_id;
    messages = argc > 1 ? atoi(argv[1]) : 250;
    if (nparts < 2 || messages < 1)
        fail("run with -np 2 or more --map-by scatter, and MESSAGES >= 1", messages);
    mailbox_phase();
    parts_barrier(BARRIER_PORT);
    portal_phase();
    parts_barrier(BARRIER_PORT);
    buffers_phase();
    parts_barrier(BARRIER_PORT);
    printf("ikc_stress ok cluster %d (%d messages per sender and port)\n", me, messages);
    return 0;
}
