/* What the two ping-pong benchmarks share, pingpong_bench (LWMPI) and
 * ikc_pingpong (raw IKC): the message sizes, the arguments, the content of
 * every message and its check, the timed loop and the table they print.
 * Each program brings only its round trip. See bench/README.md. */
#ifndef TESSERA_PINGPONG_H
#define TESSERA_PINGPONG_H

#define PINGPONG_DEFAULT_REPS 51
#define PINGPONG_MAX_REPS     501
#define PINGPONG_MAX_BYTES    (1024 * 1024) /* the largest size measured */

/* The command line: [REPS [MAX_BYTES]]. Sizes above max_bytes are skipped. */
struct pingpong_args {
    int reps;
    long max_bytes;
};

/* Parses argv[1..argc-1] into *a (defaults: PINGPONG_DEFAULT_REPS round
 * trips, every size): 0, or -1 for a bad or extra argument. */
int pingpong_parse(int argc, char **argv, struct pingpong_args *a);

/* Prints "usage: mpirun -np 2 PROGRAM [REPS [MAX_BYTES]]" with the limits. */
void pingpong_usage(const char *program);

/* What a program brings: how its two ranks exchange messages. A failed
 * transfer ends the job; the data is checked by pingpong_run. */
struct pingpong_ops {
    /* Before every round trip, untimed: rank 1 tells rank 0 it is about to
     * wait for the ping, rank 0 waits for that. So rank 0's clock never
     * runs while rank 1 still fills or checks a buffer. */
    void (*ready)(void *ctx, int rank);
    /* One round trip of `bytes` bytes: rank 0 sends out, then receives
     * into in; rank 1 receives into in, then sends out. `row` numbers the
     * sizes from 0 (pingpong_bench's message tag). */
    void (*trip)(void *ctx, int rank, int row, const unsigned char *out, unsigned char *in, int bytes);
};

/* The whole benchmark on rank 0 or 1: for every size up to a->max_bytes,
 * a->reps + 1 round trips through ops (the first one, which may resolve
 * the peer, is not timed), each message filled with its own pattern and
 * checked byte by byte on arrival. Rank 0 prints the clock line and the
 * table: a header starting with '#', then one row per size,
 *   "row BYTES CYCLES US MB/S"
 * (whitespace-separated; the median one-way time of the round trips, half
 * of one, in cycles and microseconds at `timebase` Hz of the time CSR).
 * Returns 0, or -1 after printing "PROGRAM: ..." (no memory, a wrong
 * byte): the caller then ends the job. */
int pingpong_run(const char *program, const struct pingpong_args *a, int rank, unsigned long timebase,
                 const struct pingpong_ops *ops, void *ctx);

#endif
