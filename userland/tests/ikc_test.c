/*
 * ikc_test: raw IKC between the compute clusters of a job (no MPI).
 * Run with one MPI process per cluster (mpirun -np 4 --map-by scatter);
 * only local index 0 of a cluster takes part.
 *
 *   1. every cluster sends one mailbox message to every other and checks
 *      what it gets (sender, receiver, content, no duplicates);
 *   2. every ordered pair exchanges a portal transfer of 3 chunks + 123
 *      bytes with a known pattern, pairs taken in one global order so no
 *      two clusters ever wait on each other;
 *   3. barriers (ALL_TO_ONE to the first cluster, ONE_TO_ALL back) between
 *      the phases.
 *
 * Prints "ikc ok cluster C", or "ikc FAIL cluster C: ..." and aborts the
 * job with status 1 (the others would otherwise wait forever).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/runtime.h>

#define MAILBOX_PORT 20
#define PORTAL_PORT 21
#define SYNC_GATHER_PORT 22  /* ALL_TO_ONE */
#define SYNC_RELEASE_PORT 23 /* ONE_TO_ALL */
#define MAGIC 0x494b4331u    /* "IKC1" */

struct message {
    uint32_t magic;
    int32_t from, to;
    char text[32];
};

static int me;           /* this cluster */
static int nparts;       /* clusters taking part */
static int parts[64];    /* their ids, ascending; parts[0] is the sync's "one" */
static int gather_id, release_id;

static void __attribute__((noreturn)) fail(const char *what, long err)
{
    printf("ikc FAIL cluster %d: %s (%ld)\n", me, what, err);
    ts_sleep_ns(100000000); /* let the line reach the console */
    ts_job_abort(1);
}

static long check(long r, const char *what)
{
    if (r < 0)
        fail(what, r);
    return r;
}

/* Opening towards a cluster that has not created its end yet may be
 * refused for a while; anything else is an error. */
typedef int (*open_fn)(int, int, int);

static int open_retry(open_fn open, int a, int b, int c, const char *what)
{
    for (int tries = 0;; ++tries) {
        int id = open(a, b, c);
        if (id >= 0)
            return id;
        if ((id != -TS_ENOENT && id != -TS_EAGAIN) || tries == 5000)
            fail(what, id);
        ts_sleep_ns(1000000);
    }
}

static int sync_open_retry(int type, int port, const char *what)
{
    for (int tries = 0;; ++tries) {
        int id = ts_sync_open(parts, nparts, type, port);
        if (id >= 0)
            return id;
        if ((id != -TS_ENOENT && id != -TS_EAGAIN) || tries == 5000)
            fail(what, id);
        ts_sleep_ns(1000000);
    }
}

/* The waiting ends of both syncs are created before the first barrier, so
 * no signal can arrive for a sync that does not exist yet (but the first
 * gather, which the kernel has to hold until the first cluster creates it). */
static void setup_barrier(void)
{
    if (me == parts[0]) {
        gather_id = check(ts_sync_create(parts, nparts, TS_SYNC_ALL_TO_ONE, SYNC_GATHER_PORT),
                          "sync_create gather");
        release_id = sync_open_retry(TS_SYNC_ONE_TO_ALL, SYNC_RELEASE_PORT, "sync_open release");
    } else {
        release_id = check(ts_sync_create(parts, nparts, TS_SYNC_ONE_TO_ALL, SYNC_RELEASE_PORT),
                           "sync_create release");
        gather_id = sync_open_retry(TS_SYNC_ALL_TO_ONE, SYNC_GATHER_PORT, "sync_open gather");
    }
}

static void barrier(void)
{
    if (me == parts[0]) {
        check(ts_sync_wait(gather_id), "sync_wait gather");
        check(ts_sync_signal(release_id), "sync_signal release");
    } else {
        check(ts_sync_signal(gather_id), "sync_signal gather");
        check(ts_sync_wait(release_id), "sync_wait release");
    }
}

static void mailbox_phase(int inbox)
{
    for (int i = 0; i < nparts; ++i) {
        if (parts[i] == me)
            continue;
        struct message m = {MAGIC, me, parts[i], ""};
        snprintf(m.text, sizeof m.text, "from %d to %d", me, parts[i]);
        int out = open_retry(ts_mailbox_open, MAILBOX_PORT, parts[i], MAILBOX_PORT, "mailbox_open");
        if (check(ts_mailbox_write(out, &m, sizeof m), "mailbox_write") != (long)sizeof m)
            fail("mailbox_write: short write", 0);
        check(ts_mailbox_close(out), "mailbox_close");
    }
    int seen[64] = {0};
    for (int k = 0; k < nparts - 1; ++k) {
        struct message m;
        char want[32];
        long n = check(ts_mailbox_read(inbox, &m, sizeof m), "mailbox_read");
        if (n != (long)sizeof m || m.magic != MAGIC || m.to != me)
            fail("mailbox: bad message", n);
        int from = -1;
        for (int i = 0; i < nparts; ++i)
            if (parts[i] == m.from && m.from != me)
                from = i;
        if (from < 0 || seen[from]++)
            fail("mailbox: unexpected or repeated sender", m.from);
        snprintf(want, sizeof want, "from %d to %d", m.from, me);
        if (strncmp(m.text, want, sizeof want) != 0)
            fail("mailbox: bad text", m.from);
    }
}

static unsigned char pattern(int from, int to, size_t k)
{
    return (unsigned char)(k * 7 + (k >> 9) + (size_t)from * 13 + (size_t)to * 29);
}

static void portal_send(int to, unsigned char *buf, size_t size)
{
    for (size_t k = 0; k < size; ++k)
        buf[k] = pattern(me, to, k);
    int out = open_retry(ts_portal_open, PORTAL_PORT, to, PORTAL_PORT, "portal_open");
    if (check(ts_portal_write(out, buf, size), "portal_write") != (long)size)
        fail("portal_write: short write", to);
    check(ts_portal_close(out), "portal_close");
}

static void portal_receive(int inbox, int from, unsigned char *buf, size_t size)
{
    memset(buf, 0, size);
    check(ts_portal_allow(inbox, from, PORTAL_PORT), "portal_allow");
    if (check(ts_portal_read(inbox, buf, size), "portal_read") != (long)size)
        fail("portal_read: short read", from);
    for (size_t k = 0; k < size; ++k)
        if (buf[k] != pattern(from, me, k))
            fail("portal: bad data at byte", (long)k);
}

/* Pairs (a < b) in one global order; in each, a sends first. The first
 * unfinished pair always has both its clusters at it, so all pairs end. */
static void portal_phase(int inbox)
{
    int chunk = ts_job()->portal_chunk > 0 ? ts_job()->portal_chunk : 4096;
    size_t size = 3 * (size_t)chunk + 123;
    unsigned char *buf = malloc(size);
    if (!buf)
        fail("out of memory", 0);
    for (int a = 0; a < nparts; ++a) {
        for (int b = a + 1; b < nparts; ++b) {
            if (parts[a] == me) {
                portal_send(parts[b], buf, size);
                portal_receive(inbox, parts[b], buf, size);
            } else if (parts[b] == me) {
                portal_receive(inbox, parts[a], buf, size);
                portal_send(parts[a], buf, size);
            }
        }
    }
    free(buf);
}

/* The compute clusters that host at least one rank of this job. */
static void find_parts(const struct ts_job_info *job)
{
    int ncompute = job->nclusters - job->nio_clusters;
    for (int c = 0; c < ncompute && nparts < 64; ++c) {
        int hosts = job->map_policy == TS_MAP_SCATTER ? c < job->np
                                                       : c * job->slots_per_cluster < job->np;
        if (hosts)
            parts[nparts++] = job->nio_clusters + c;
    }
}

int main(void)
{
    const struct ts_job_info *job = ts_job();
    me = job->cluster_id;
    if (job->np <= 0)
        fail("run me with mpirun", 0);
    if (ts_local_index() != 0)
        return 0; /* one participant per cluster */
    find_parts(job);
    if (nparts < 2)
        fail("needs at least 2 compute clusters", nparts);

    int mailbox = check(ts_mailbox_create(MAILBOX_PORT), "mailbox_create");
    int portal = check(ts_portal_create(PORTAL_PORT), "portal_create");
    setup_barrier();
    barrier(); /* every inbox exists */

    mailbox_phase(mailbox);
    barrier();
    portal_phase(portal);
    barrier();

    check(ts_mailbox_unlink(mailbox), "mailbox_unlink");
    check(ts_portal_unlink(portal), "portal_unlink");
    /* The waiting end of a sync is unlinked, the signalling end closed. */
    check(me == parts[0] ? ts_sync_unlink(gather_id) : ts_sync_close(gather_id), "sync gather end");
    check(me == parts[0] ? ts_sync_close(release_id) : ts_sync_unlink(release_id), "sync release end");
    printf("ikc ok cluster %d\n", me);
    return 0;
}
