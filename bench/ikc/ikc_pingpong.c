/* ikc_pingpong [REPS [MAX_BYTES]]: what raw IKC costs for one message
 * between two ranks, the floor under pingpong_bench's figures: the same
 * sizes, round trips and table, without LWMPI.
 *
 *   tools/mpirun -np 2 --map-by scatter ikc_pingpong   # two clusters
 *   tools/mpirun -np 2 --map-by compact ikc_pingpong   # two ranks of one
 *
 * A message of at most the mailbox payload (ts_job()->mailbox_payload)
 * goes as one mailbox message, a larger one as one portal transfer: the
 * receiver allows the sender and reads, the sender writes. Rank r's input
 * mailbox and portal are on port PORT + r of its cluster, and so are the
 * local ends of its outputs; in compact both ranks' ports share their
 * cluster's hardware mailbox and portal.
 *
 * Both ranks allow their peer as a round trip starts (rank 0 before it
 * sends the ping) but read only once they have nothing left to send: a
 * read holds the cluster's one hardware input portal for its sender until
 * the data comes, so a read posted ahead of one's own send (an aread)
 * would, in compact, lock that send out of the same hardware portal.
 *
 * Each row is the median over REPS round trips (default 51) of half a
 * round trip; every byte of every message is checked on arrival. The loop
 * and the table are pingpong.h's. See bench/README.md. */
#include <stdio.h>

#include <tessera/runtime.h>

#include "bench.h"
#include "pingpong.h"

#define PORT 20 /* rank r's mailbox and portal ports: PORT + r */

/* A rank's IKC objects and where its peer is. */
struct link {
    int payload; /* bytes a mailbox message carries */
    int peer_cluster, peer_port;
    int mailbox_in, mailbox_out;
    int portal_in, portal_out;
};

static int by_portal(const struct link *l, int bytes) { return bytes > l->payload; }

static void send(const struct link *l, const unsigned char *out, int bytes) {
    if (by_portal(l, bytes))
        bench_expect(ts_portal_write(l->portal_out, out, (unsigned long)bytes, 0), bytes, "portal_write");
    else
        bench_expect(ts_mailbox_write(l->mailbox_out, out, (unsigned long)bytes), bytes, "mailbox_write");
}

/* As a round trip starts: the input portal accepts the peer's next
 * transfer (the hardware portal is given to it when the read starts). */
static void allow(const struct link *l, int bytes) {
    if (by_portal(l, bytes))
        bench_check(ts_portal_allow(l->portal_in, l->peer_cluster, l->peer_port, 0), "portal_allow");
}

static void receive(const struct link *l, unsigned char *in, int bytes) {
    if (by_portal(l, bytes))
        bench_expect(ts_portal_read(l->portal_in, in, (unsigned long)bytes, 0), bytes, "portal_read");
    else
        bench_expect(ts_mailbox_read(l->mailbox_in, in, (unsigned long)bytes), bytes, "mailbox_read");
}

/* Rank 1's empty mailbox message: it is about to receive the ping. */
static void ready(void *ctx, int rank) {
    const struct link *l = ctx;
    char none[1] = {0};
    if (rank == 1)
        bench_expect(ts_mailbox_write(l->mailbox_out, none, 0), 0, "mailbox_write ready");
    else
        bench_expect(ts_mailbox_read(l->mailbox_in, none, sizeof none), 0, "mailbox_read ready");
}

static void trip(void *ctx, int rank, int row, const unsigned char *out, unsigned char *in, int bytes) {
    const struct link *l = ctx;
    (void)row;
    allow(l, bytes);
    if (rank == 0) {
        send(l, out, bytes);
        receive(l, in, bytes);
    } else {
        receive(l, in, bytes);
        send(l, out, bytes);
    }
}

static const struct pingpong_ops ops = {ready, trip};

/* Messages to the peer leave before its inputs may exist: the kernel
 * parks a mailbox message for a port nobody reads yet, and a portal write
 * waits for the reader. */
static void open_link(struct link *l, int rank) {
    const int port = PORT + rank;
    int local;
    bench_check(ts_rank_place(1 - rank, &l->peer_cluster, &local), "rank_place");
    l->payload = ts_job()->mailbox_payload;
    l->peer_port = PORT + 1 - rank;
    l->mailbox_in = bench_check(ts_mailbox_create(port), "mailbox_create");
    l->mailbox_out = bench_check(ts_mailbox_open(port, l->peer_cluster, l->peer_port), "mailbox_open");
    l->portal_in = bench_check(ts_portal_create(port), "portal_create");
    l->portal_out = bench_check(ts_portal_open(port, l->peer_cluster, l->peer_port), "portal_open");
}

static void close_link(const struct link *l) {
    bench_check(ts_mailbox_unlink(l->mailbox_in), "mailbox_unlink");
    bench_check(ts_mailbox_close(l->mailbox_out), "mailbox_close");
    bench_check(ts_portal_unlink(l->portal_in), "portal_unlink");
    bench_check(ts_portal_close(l->portal_out), "portal_close");
}

int main(int argc, char **argv) {
    const struct ts_job_info *job = ts_job();
    const int rank = ts_rank();
    struct pingpong_args args;
    if (job->np != 2 || pingpong_parse(argc, argv, &args)) {
        if (rank <= 0) /* rank 0, or the program run without mpirun */
            pingpong_usage("ikc_pingpong");
        return 2;
    }
    struct link l;
    open_link(&l, rank);
    if (rank == 0) {
        int here, local;
        bench_check(ts_rank_place(0, &here, &local), "rank_place");
        printf(
            "ikc_pingpong: rank 0 on cluster %d, rank 1 on cluster %d; up to %d B in one "
            "mailbox message, more in one portal transfer (chunks of %d B)\n",
            here, l.peer_cluster, l.payload, job->portal_chunk);
    }
    if (pingpong_run("ikc_pingpong", &args, rank, job->timebase_hz, &ops, &l))
        bench_fail("the benchmark failed", 1);
    close_link(&l);
    return 0;
}
