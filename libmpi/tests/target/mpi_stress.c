/*
 * mpi_stress: many point-to-point messages of mixed sizes between all
 * pairs of processes (oneself included), sent with MPI_Isend (a window of
 * them in flight per rank) and taken with MPI_Recv(MPI_ANY_SOURCE,
 * MPI_ANY_TAG) after an MPI_Iprobe, or, when nothing else moves, with an
 * MPI_Irecv waited for together with the sends. Every message carries its source, its sequence number
 * from that source to this destination, its size and a checksum (messages
 * under 16 bytes carry only bytes derived from them, and their tag); the
 * receiver checks that each arrives exactly once, intact, and in order per
 * sender. The schedule (who sends what to whom) is a deterministic
 * function of the arguments, so every rank knows what to expect.
 *
 * usage: mpi_stress [MESSAGES [MAX_SIZE [LARGE_SIZE [WINDOW [SEED]]]]]
 *   MESSAGES    total over all ranks (default 2000)
 *   MAX_SIZE    largest ordinary message in bytes (default 16384)
 *   LARGE_SIZE  size of the occasional large message, 2% of them (default
 *               65536; 0 for none)
 *   WINDOW      sends in flight per rank (default 8)
 *   SEED        changes the schedule (default 1)
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes. Rank 0 prints "mpi_stress: OK ..." with a summary at the
 * end; the first failed check prints "FAIL mpi_stress.c:<line>: ..." and
 * ends the job with a non-zero status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_stress"

#include "mpitest.h"
#define HEADER  16
#define TAG_MOD 32768 /* tags stay below the smallest MPI_TAG_UB allowed */

static _Thread_local long total = 2000, max_size = 16384, large_size = 65536, seed = 1;
static _Thread_local int window = 8;

/* ---- The schedule ----------------------------------------------------------- */

static uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* Messages rank s sends. */
static long sends_of(int s) { return total / np + (s < total % np ? 1 : 0); }

/* Destination of message k of rank s: every rank in turn, oneself too. */
static int dest_of(int s, long k) { return (int)((s + 1 + k) % np); }

/* Size of message k of rank s. */
static long size_of(int s, long k) {
    uint64_t h = mix(((uint64_t)seed << 40) ^ ((uint64_t)s << 32) ^ (uint64_t)k);
    uint64_t h2 = h >> 16;
    long n;
    switch (h % 100) {
    case 0:
    case 1: n = large_size > 0 ? large_size : 64; break;
    case 2:
    case 3:
    case 4:
    case 5:
    case 6: n = 0; break;
    default: {
        int r = (int)(h % 100);
        if (r < 35)
            n = 1 + (long)(h2 % 99);
        else if (r < 70)
            n = 100 + (long)(h2 % 924);
        else if (r < 92)
            n = 1024 + (long)(h2 % 3072);
        else
            n = 4096 + (long)(h2 % (uint64_t)(max_size > 4096 ? max_size - 4096 + 1 : 1));
        if (n > max_size) n = max_size;
    }
    }
    return n;
}

/* Byte i of the seq-th message from s to d. */
static unsigned char body(int s, int d, long seq, long i) {
    return (unsigned char)(s * 131 + d * 71 + seq * 29 + i * 17 + (i >> 8) + seed);
}

static uint32_t checksum(const unsigned char *p, long n) {
    uint32_t a = 1, b = 0;
    for (long i = 0; i < n; ++i) {
        a = (a + p[i]) % 65521;
        b = (b + a) % 65521;
    }
    return b << 16 | a;
}

static void build(unsigned char *buf, int d, long seq, long n) {
    for (long i = 0; i < n; ++i)
        buf[i] = body(me, d, seq, i);
    if (n >= HEADER) {
        int32_t h[4] = {me, (int32_t)seq, (int32_t)n, 0};
        h[3] = (int32_t)checksum(buf + HEADER, n - HEADER);
        memcpy(buf, h, sizeof h);
    }
}

/* ---- Receiving -------------------------------------------------------------------- */

static _Thread_local long *expect_count; /* messages from each source */
static _Thread_local long **expect_size; /* their sizes, in order */
static _Thread_local long *next_seq;     /* next expected from each source */
static _Thread_local long received, bytes_received;

static void plan_receives(void) {
    expect_count = xmalloc(sizeof(long) * (size_t)np);
    expect_size = xmalloc(sizeof(long *) * (size_t)np);
    next_seq = xmalloc(sizeof(long) * (size_t)np);
    for (int s = 0; s < np; ++s) {
        long m = sends_of(s), c = 0;
        for (long k = 0; k < m; ++k)
            c += dest_of(s, k) == me;
        expect_count[s] = c;
        expect_size[s] = xmalloc(sizeof(long) * (size_t)(c + 1));
        c = 0;
        for (long k = 0; k < m; ++k)
            if (dest_of(s, k) == me) expect_size[s][c++] = size_of(s, k);
        next_seq[s] = 0;
    }
}

static void check_message(const unsigned char *buf, const MPI_Status *st) {
    int s = st->MPI_SOURCE, count = -1;
    if (s < 0 || s >= np) FAIL("a message from source %d", s);
    long seq = next_seq[s];
    if (seq >= expect_count[s])
        FAIL("an extra message from rank %d (tag %d): all %ld came already", s, st->MPI_TAG, expect_count[s]);
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    long n = expect_size[s][seq];
    if (st->MPI_TAG != seq % TAG_MOD || count != n)
        FAIL(
            "from rank %d: tag %d, %d bytes; expected message %ld: tag %ld, %ld bytes "
            "(lost, repeated or out of order?)",
            s, st->MPI_TAG, count, seq, seq % TAG_MOD, n);
    if (n >= HEADER) {
        int32_t h[4];
        memcpy(h, buf, sizeof h);
        if (h[0] != s || h[1] != seq || h[2] != n)
            FAIL("from rank %d, message %ld: header says source %d, message %d, %d bytes", s, seq, h[0], h[1],
                 h[2]);
        if ((uint32_t)h[3] != checksum(buf + HEADER, n - HEADER))
            FAIL("from rank %d, message %ld of %ld bytes: bad checksum", s, seq, n);
    }
    for (long i = n >= HEADER ? HEADER : 0; i < n; ++i)
        if (buf[i] != body(s, me, seq, i))
            FAIL("from rank %d, message %ld of %ld bytes: byte %ld is 0x%02x, expected 0x%02x", s, seq, n, i,
                 buf[i], body(s, me, seq, i));
    next_seq[s] = seq + 1;
    ++received;
    bytes_received += n;
}

/* After a Testsome or Waitsome over the sends and the receive (index
 * `window`): checks the message the receive got, if it ended. Whether
 * anything ended. */
static int ended(int outcount, const int *done, const MPI_Status *stats, const unsigned char *rbuf) {
    if (outcount == MPI_UNDEFINED) return 0;
    for (int i = 0; i < outcount; ++i)
        if (done[i] == window) check_message(rbuf, &stats[i]);
    return outcount > 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 1) total = atol(argv[1]);
    if (argc > 2) max_size = atol(argv[2]);
    if (argc > 3) large_size = atol(argv[3]);
    if (argc > 4) window = atoi(argv[4]);
    if (argc > 5) seed = atol(argv[5]);
    if (total < 0 || max_size < 0 || max_size > (1L << 26) || large_size < 0 || large_size > (1L << 26) ||
        window < 1 || window > 1024) {
        if (me == 0) printf("usage: " NAME " [MESSAGES [MAX_SIZE [LARGE_SIZE [WINDOW [SEED]]]]]\n");
        MPI_Finalize();
        return 2;
    }
    long biggest = max_size > large_size ? max_size : large_size;
    if (biggest < 64) biggest = 64;
    unsigned char **slot = xmalloc(sizeof *slot * (size_t)window);
    /* reqs[0..window-1]: the sends in flight; reqs[window]: a receive into
     * rbuf, posted only while the rank waits (below). */
    MPI_Request *reqs = xmalloc(sizeof *reqs * (size_t)(window + 1));
    int *done = xmalloc(sizeof(int) * (size_t)(window + 1));
    MPI_Status *stats = xmalloc(sizeof *stats * (size_t)(window + 1));
    for (int w = 0; w < window; ++w)
        slot[w] = xmalloc((size_t)biggest);
    for (int w = 0; w <= window; ++w)
        reqs[w] = MPI_REQUEST_NULL;
    unsigned char *rbuf = xmalloc((size_t)biggest);
    long *seq_to = xmalloc(sizeof(long) * (size_t)np);
    for (int d = 0; d < np; ++d)
        seq_to[d] = 0;
    plan_receives();
    long nsend = sends_of(me), nrecv = 0, sent = 0, bytes_sent = 0;
    for (int s = 0; s < np; ++s)
        nrecv += expect_count[s];

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    MPI_Status st;
    while (sent < nsend || received < nrecv) {
        int progressed = 0, free_slot = -1, flag = 0, outcount = 0;
        for (int w = 0; w < window && free_slot < 0; ++w)
            if (reqs[w] == MPI_REQUEST_NULL) free_slot = w;
        if (sent < nsend && free_slot >= 0) {
            int d = dest_of(me, sent);
            long n = size_of(me, sent), seq = seq_to[d]++;
            build(slot[free_slot], d, seq, n);
            MPI_OK(MPI_Isend(slot[free_slot], (int)n, MPI_BYTE, d, (int)(seq % TAG_MOD), MPI_COMM_WORLD,
                             &reqs[free_slot]));
            ++sent;
            bytes_sent += n;
            progressed = 1;
        }
        /* (While the receive is posted, it takes the next message: a Recv
         * here would take a later one first.) */
        if (received < nrecv && reqs[window] == MPI_REQUEST_NULL) {
            MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                MPI_OK(
                    MPI_Recv(rbuf, (int)biggest, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                check_message(rbuf, &st);
                progressed = 1;
            }
        }
        MPI_OK(MPI_Testsome(window + 1, reqs, &outcount, done, stats));
        if (ended(outcount, done, stats, rbuf) || progressed) continue;
        /* Nothing moved: wait for a message or the end of a send. Not for a
         * message alone: the ones still due may be this rank's own, which
         * wait for a free slot in the window. */
        if (received < nrecv && reqs[window] == MPI_REQUEST_NULL)
            MPI_OK(MPI_Irecv(rbuf, (int)biggest, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                             &reqs[window]));
        MPI_OK(MPI_Waitsome(window + 1, reqs, &outcount, done, stats));
        ended(outcount, done, stats, rbuf);
    }
    MPI_OK(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE));
    for (int s = 0; s < np; ++s)
        if (next_seq[s] != expect_count[s])
            FAIL("%ld of %ld messages from rank %d", next_seq[s], expect_count[s], s);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    double t = MPI_Wtime() - t0;
    /* Nothing left over. */
    int flag = 1;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    if (flag) FAIL("a message more from rank %d, tag %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* everyone looked before the summary is sent */

    /* Summary at rank 0 (point-to-point only). */
    long mine[4] = {sent, received, bytes_sent, bytes_received}, sum[4] = {0, 0, 0, 0};
    if (me == 0) {
        for (int r = 0; r < np; ++r) {
            long v[4];
            if (r == 0)
                memcpy(v, mine, sizeof v);
            else
                MPI_OK(MPI_Recv(v, 4, MPI_LONG, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < 4; ++i)
                sum[i] += v[i];
        }
        if (sum[0] != total || sum[1] != total || sum[2] != sum[3])
            FAIL("%ld messages sent, %ld received (of %ld); %ld bytes sent, %ld received", sum[0], sum[1],
                 total, sum[2], sum[3]);
    } else {
        MPI_OK(MPI_Send(mine, 4, MPI_LONG, 0, 1, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int w = 0; w < window; ++w)
        free(slot[w]);
    free(slot);
    free(reqs);
    free(done);
    free(stats);
    free(rbuf);
    free(seq_to);
    MPI_Finalize();
    if (me == 0)
        printf(NAME ": OK (np=%d, %ld messages, %ld bytes, window %d, %.2f s)\n", np, sum[1], sum[3], window,
               t);
    return 0;
}
