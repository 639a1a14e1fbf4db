/* p2p_native [--bw [--window N]|--memcpy] [--min-bytes MIN_BYTES] [BATCHES
 * [MAX_BYTES]]: point-to-point latency and bandwidth in portable MPI C, so
 * the same source runs on Tessera (linux64) and on the Linux MPI libraries
 * (Open MPI, MPICH) for `make bench`'s native comparison, and on QEMU for
 * its streaming experiment (bench/README.md).
 *
 * Messages of MIN_BYTES (default 1), twice that, and so on up to MAX_BYTES
 * (default 4 MiB), between ranks 0 and 1 (2 processes):
 * - by default, ping-pong: rank 0 sends the message (MPI_Send), rank 1
 *   receives it (MPI_Recv) and sends it back; a message takes half a round
 *   trip (the one-way time, or latency);
 * - with --bw, streaming: rank 0 starts a window of N MPI_Isend of the
 *   message (N: --window, default WINDOW, osu_bw's) and waits for them
 *   (MPI_Waitall), rank 1 starts N MPI_Irecv, waits for them and sends a
 *   1-byte acknowledgement that rank 0 receives before the next window; a
 *   message takes a window's time / N (its inverse is the bandwidth). A
 *   smaller window suits a slow transport: on QEMU one window of 64
 *   messages of 4 MiB takes close to a second;
 * - with --memcpy (1 process, MPI only for its timer): two memcpy calls of
 *   the size per round trip (there and back), the floor of any transport
 *   that copies through shared memory.
 * Each rank has one message buffer, which every message of a round trip or
 * window is sent from and received into (as OSU's osu_bw does): 4 MiB per
 * rank fits a 16 MiB cluster of Tessera's default profile with both ranks.
 * A size is timed by median_time (timing.h): BATCHES (default 21) batches
 * of about 2 ms (at least one round trip or window). Then one more round
 * trip, not timed, checks every byte of the message, both ways.
 *
 * Output: `row BYTES NS MB/s` per size (NS: a message's time in ns, the
 * median batch's; MB/s: BYTES / NS, 10^6 bytes per second), then
 * `p2p_native: done`. Bad arguments: what is wrong and a usage line on
 * stderr, exit 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

#define WINDOW  64         /* --bw's default window, and the largest --window */
#define LARGEST (1l << 24) /* the largest MIN_BYTES and MAX_BYTES */

enum mode { PINGPONG, STREAM, MEMCPY };

struct options {
    enum mode mode;
    int window; /* messages per window of --bw */
    int batches;
    long min_bytes, max_bytes;
};

/* What trip() moves: `bytes` of buf (and of copy, for memcpy), as
 * `messages` messages (2 for a round trip, or a window). */
struct message {
    enum mode mode;
    int rank;
    unsigned char *buf, *copy;
    int bytes;
    int messages;
};

/* *v from the whole of s, when it is a number in lo..hi. */
static int number(const char *s, long lo, long hi, long *v) {
    char *end;
    *v = strtol(s, &end, 10);
    return end != s && !*end && *v >= lo && *v <= hi;
}

/* NULL when the arguments make options *o, else what is wrong with them. */
static const char *parse(int argc, char **argv, struct options *o) {
    int i = 1, n = 0;
    long window = 0, min_bytes = 1, v[2] = {21, 4l << 20};
    o->mode = PINGPONG;
    if (i < argc && strcmp(argv[i], "--bw") == 0) {
        o->mode = STREAM;
        ++i;
    } else if (i < argc && strcmp(argv[i], "--memcpy") == 0) {
        o->mode = MEMCPY;
        ++i;
    }
    for (; i < argc; ++i) {
        if (strcmp(argv[i], "--window") == 0) {
            if (o->mode != STREAM) return "--window needs --bw before it";
            if (++i == argc || !number(argv[i], 1, WINDOW, &window)) return "--window takes 1..64";
        } else if (strcmp(argv[i], "--min-bytes") == 0) {
            if (++i == argc || !number(argv[i], 1, LARGEST, &min_bytes))
                return "--min-bytes takes 1..16777216";
        } else if (strncmp(argv[i], "--", 2) == 0) {
            return "unknown option (--bw or --memcpy comes first)";
        } else if (n == 2) {
            return "too many arguments";
        } else if (!number(argv[i], 1, n == 0 ? 1001 : LARGEST, &v[n])) {
            return n == 0 ? "BATCHES must be 1..1001" : "MAX_BYTES must be 1..16777216";
        } else {
            ++n;
        }
    }
    if (min_bytes > v[1]) return "MIN_BYTES is larger than MAX_BYTES";
    o->window = window ? (int)window : WINDOW;
    o->batches = (int)v[0];
    o->min_bytes = min_bytes;
    o->max_bytes = v[1];
    return NULL;
}

/* One window of the streaming mode. Statuses as osu_bw's: with
 * MPI_STATUSES_IGNORE and a count it cannot bound, GCC warns about MPICH's
 * MPI_Waitall. */
static void window(const struct message *m) {
    MPI_Request reqs[WINDOW];
    MPI_Status statuses[WINDOW];
    unsigned char ack = 0;
    for (int i = 0; i < m->messages; ++i) {
        if (m->rank == 0)
            MPI_Isend(m->buf, m->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &reqs[i]);
        else
            MPI_Irecv(m->buf, m->bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &reqs[i]);
    }
    MPI_Waitall(m->messages, reqs, statuses);
    if (m->rank == 0)
        MPI_Recv(&ack, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&ack, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
}

/* One round trip (or window) of the mode: a timed_op. */
static void trip(void *ctx) {
    const struct message *m = ctx;
    if (m->mode == MEMCPY) {
        memcpy(m->copy, m->buf, (size_t)m->bytes);
        memcpy(m->buf, m->copy, (size_t)m->bytes);
    } else if (m->mode == STREAM) {
        window(m);
    } else if (m->rank == 0) {
        MPI_Send(m->buf, m->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(m->buf, m->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(m->buf, m->bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(m->buf, m->bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
}

static int filled(const unsigned char *p, int n, unsigned char value) {
    for (int i = 0; i < n; ++i)
        if (p[i] != value) return 0;
    return 1;
}

/* A round trip that checks every byte: 0x5a there, 0xa5 back. 1 when
 * this rank received what it should. */
static int round_trip_checked(const struct message *m) {
    const int n = m->bytes;
    if (m->rank == 0) {
        memset(m->buf, 0x5a, (size_t)n);
        MPI_Send(m->buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        MPI_Recv(m->buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return filled(m->buf, n, 0xa5);
    }
    memset(m->buf, 0, (size_t)n);
    MPI_Recv(m->buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const int ok = filled(m->buf, n, 0x5a);
    memset(m->buf, 0xa5, (size_t)n);
    MPI_Send(m->buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    return ok;
}

int main(int argc, char **argv) {
    struct options o;
    int rank = 0, np = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *wrong = parse(argc, argv, &o);
    if (!wrong && np != (o.mode == MEMCPY ? 1 : 2))
        wrong = o.mode == MEMCPY ? "run --memcpy with 1 process" : "run it with 2 processes";
    if (wrong) {
        if (rank == 0)
            fprintf(stderr,
                    "p2p_native: %s\n"
                    "usage: p2p_native [--bw [--window 1..64]|--memcpy] [--min-bytes 1..16777216] "
                    "[BATCHES 1..1001 [MAX_BYTES 1..16777216]] (2 processes; 1 with --memcpy)\n",
                    wrong);
        MPI_Finalize();
        return 2;
    }
    struct message m = {.mode = o.mode,
                        .rank = rank,
                        .buf = calloc((size_t)o.max_bytes, 1),
                        .copy = o.mode == MEMCPY ? calloc((size_t)o.max_bytes, 1) : NULL,
                        .messages = o.mode == STREAM ? o.window : 2};
    double *times = malloc(sizeof(double) * (size_t)o.batches);
    if (!m.buf || (o.mode == MEMCPY && !m.copy) || !times) {
        fprintf(stderr, "p2p_native: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
        m.bytes = (int)bytes;
        const double ns = median_time(trip, &m, o.batches, times) / m.messages * 1e9;
        if (o.mode != MEMCPY && !round_trip_checked(&m)) {
            fprintf(stderr, "p2p_native: rank %d: wrong data at %ld bytes\n", rank, bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0) {
            printf("row %ld %.1f %.1f\n", bytes, ns, ns > 0 ? bytes / ns * 1e3 : 0.0);
            fflush(stdout);
        }
    }
    if (rank == 0) printf("p2p_native: done\n");
    free(m.buf);
    free(m.copy);
    free(times);
    MPI_Finalize();
    return 0;
}
