/*
 * a2a [--verify] [STEPS [MSGS]]: CAP Bench All-to-All
 * (userland/apps/README.md).
 *
 * Superstep s (0..STEPS-1) is MSGS rounds; in each round every rank posts
 * a receive from and a send to every other rank, messages of 2^(s+7)
 * bytes, and waits for all of them; a barrier ends the superstep. Rank 0
 * times each superstep from the barrier before it to the barrier after it.
 *
 * A message's bytes follow from who sends it to whom, in which superstep
 * and round (pattern()), so the checksum (the sum, modulo 2^64, of the
 * capb_hash of every message received) is the same for any mapping, any
 * order of arrival and on Linux (0 with np = 1: no messages). With
 * --verify every rank also compares every byte it receives with the
 * pattern. A round's buffers are reused by the next one, so filling the
 * messages, hashing them and the --verify check happen inside the
 * supersteps and count in their times.
 *
 * Memory per rank: one round's messages in each direction at the largest
 * size, (np - 1) * 2^(STEPS+6) bytes each way, plus one message to compare
 * with.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capb_mpi.h"

#define MAX_STEPS      12
#define MAX_MSGS       64
#define SMALLEST_SHIFT 7 /* superstep s moves messages of 2^(s + 7) bytes */

/* One rank's state: everything in it is private to the rank (the ranks of
 * a Tessera cluster are threads that share globals). */
struct a2a {
    int rank, np;
    int steps, msgs, verify;
    unsigned char *out, *in; /* np - 1 slots of the largest message each */
    unsigned char *expected; /* --verify: the pattern of one message */
    MPI_Request *requests;   /* receives, then sends */
    uint64_t hash_sum;       /* of the messages received so far */
    long long mismatches;    /* --verify: messages received with a wrong byte */
};

/* Wall time and cycles of one span, for the a2a and time lines. */
struct span {
    unsigned long long ns, cycles;
};

static struct span span_between(struct capb_clock from, struct capb_clock to) {
    struct span s = {(unsigned long long)((to.wall - from.wall) * 1e9), to.cycles - from.cycles};
    return s;
}

static long message_bytes(int step) { return 1L << (step + SMALLEST_SHIFT); }

/* Message m of superstep s from src to dst: a splitmix64 sequence seeded
 * with the four of them (disjoint bit fields for np < 2^24), stored least
 * significant byte first. bytes is a multiple of 8. */
static void pattern(unsigned char *p, long bytes, int src, int dst, int s, int m) {
    uint64_t state = (uint64_t)src << 40 ^ (uint64_t)dst << 16 ^ (uint64_t)s << 8 ^ (uint64_t)m;
    for (long k = 0; k < bytes; k += 8) {
        const uint64_t w = capb_random(&state);
        for (int b = 0; b < 8; ++b)
            p[k + b] = (unsigned char)(w >> 8 * b);
    }
}

/* Peer j (0..np-2) of a round: sends go to rank + 1 + j, receives come
 * from rank - 1 - j, so that no rank is everyone's first destination. */
static int destination(const struct a2a *a, int j) { return (a->rank + 1 + j) % a->np; }
static int source(const struct a2a *a, int j) { return (a->rank - 1 - j + a->np) % a->np; }

/* Counts a received message into the checksum, and with --verify checks
 * every byte of it. */
static void take(struct a2a *a, const unsigned char *msg, long bytes, int src, int s, int m) {
    a->hash_sum += capb_hash(CAPB_HASH_INIT, msg, (unsigned long)bytes);
    if (!a->verify) return;
    pattern(a->expected, bytes, src, a->rank, s, m);
    if (memcmp(a->expected, msg, (size_t)bytes) != 0) ++a->mismatches;
}

/* Round m of superstep s: one message to and from every other rank. */
static void round_of(struct a2a *a, int s, int m) {
    const long bytes = message_bytes(s);
    const int peers = a->np - 1, tag = s * MAX_MSGS + m;
    for (int j = 0; j < peers; ++j)
        MPI_Irecv(a->in + j * bytes, (int)bytes, MPI_BYTE, source(a, j), tag, MPI_COMM_WORLD,
                  &a->requests[j]);
    for (int j = 0; j < peers; ++j) {
        unsigned char *msg = a->out + j * bytes;
        pattern(msg, bytes, a->rank, destination(a, j), s, m);
        MPI_Isend(msg, (int)bytes, MPI_BYTE, destination(a, j), tag, MPI_COMM_WORLD, &a->requests[peers + j]);
    }
    MPI_Waitall(2 * peers, a->requests, MPI_STATUSES_IGNORE);
    for (int j = 0; j < peers; ++j)
        take(a, a->in + j * bytes, bytes, source(a, j), s, m);
}

/* Every superstep, each ended by a barrier; times[s] is superstep s, from
 * the barrier before it, and *all the whole run. */
static void run(struct a2a *a, struct span *times, struct span *all) {
    MPI_Barrier(MPI_COMM_WORLD);
    const struct capb_clock start = capb_clock_now();
    struct capb_clock before = start;
    for (int s = 0; s < a->steps; ++s) {
        for (int m = 0; m < a->msgs; ++m)
            round_of(a, s, m);
        MPI_Barrier(MPI_COMM_WORLD);
        const struct capb_clock after = capb_clock_now();
        times[s] = span_between(before, after);
        before = after;
    }
    *all = span_between(start, before);
}

static void alloc_buffers(struct a2a *a) {
    const long largest = message_bytes(a->steps - 1);
    const unsigned long round = (unsigned long)(a->np - 1) * (unsigned long)largest;
    a->out = capb_alloc(round, "a2a send buffers");
    a->in = capb_alloc(round, "a2a receive buffers");
    a->expected = a->verify ? capb_alloc((unsigned long)largest, "a2a verify buffer") : NULL;
    a->requests = capb_alloc(2 * (unsigned long)(a->np - 1) * sizeof *a->requests, "a2a requests");
}

static void free_buffers(struct a2a *a) {
    free(a->out);
    free(a->in);
    free(a->expected);
    free(a->requests);
}

/* [STEPS [MSGS]] after --verify was taken out: 0, or -1. */
static int parse_args(struct a2a *a, int argc, char **argv) {
    long steps = 9, msgs = 4;
    if (argc > 3 || (argc > 1 && capb_parse_long(argv[1], 1, MAX_STEPS, &steps)) ||
        (argc > 2 && capb_parse_long(argv[2], 1, MAX_MSGS, &msgs)))
        return -1;
    a->steps = (int)steps;
    a->msgs = (int)msgs;
    return 0;
}

/* Collective: sums the hashes on rank 0 and the --verify mismatches on
 * every rank; rank 0 prints every superstep, the checksum, the check and
 * the time. Returns the exit status: 1 when --verify found a wrong
 * message on any rank. */
static int report(const struct a2a *a, const struct span *times, struct span all) {
    unsigned long long sum = 0, mismatches = 0, mine = (unsigned long long)a->mismatches, hash = a->hash_sum;
    MPI_Reduce(&hash, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (a->verify) MPI_Allreduce(&mine, &mismatches, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (a->rank != 0) return mismatches ? 1 : 0;
    for (int s = 0; s < a->steps; ++s)
        printf("a2a: step=%d bytes=%ld messages=%d ns=%llu cycles=%llu\n", s, message_bytes(s), a->msgs,
               times[s].ns, times[s].cycles);
    printf("a2a: steps=%d checksum=0x%016llx\n", a->steps, sum);
    if (a->verify && mismatches)
        printf("verify: MISMATCH %llu of %lld received messages differ from the pattern\n", mismatches,
               (long long)a->np * (a->np - 1) * a->steps * a->msgs);
    else if (a->verify)
        printf("verify: OK\n");
    capb_print_time(all.ns, all.cycles);
    return mismatches ? 1 : 0;
}

int main(int argc, char **argv) {
    struct a2a a = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &a.np);
    a.verify = capb_take_verify(&argc, argv);
    if (parse_args(&a, argc, argv)) { /* every rank sees the same arguments */
        if (a.rank == 0)
            fprintf(stderr, "usage: a2a [--verify] [STEPS 1..%d [MSGS 1..%d]]\n", MAX_STEPS, MAX_MSGS);
        MPI_Finalize();
        return 2;
    }
    alloc_buffers(&a);
    struct span times[MAX_STEPS], all;
    run(&a, times, &all);
    const int status = report(&a, times, all);
    free_buffers(&a);
    MPI_Finalize();
    return status;
}
