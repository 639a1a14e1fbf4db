/* rma_native put|get [--bw] [BATCHES [MAX_BYTES]]: one-sided latency and
 * bandwidth in portable MPI C, so the same source runs on Tessera (QEMU,
 * linux64) and on the Linux MPI libraries for `make bench`'s one-sided
 * comparison (bench/README.md).
 *
 * Rank 0 accesses rank 1's window (2 processes; MPI_Win_allocate of
 * MAX_BYTES each, one passive-target epoch MPI_Win_lock_all for the whole
 * run) with messages of 1 byte, twice that, and so on up to MAX_BYTES
 * (default 1 MiB):
 * - by default, latency: one MPI_Put (or MPI_Get) of the size, then
 *   MPI_Win_flush: the time until the data is at the target (or here);
 * - with --bw, bandwidth: a window of WINDOW of them, then one flush; a
 *   message takes a window's time / WINDOW.
 * Rank 1 makes no call while rank 0 times: one-sided communication needs
 * no action by its target. A size is timed by median_time (timing.h):
 * BATCHES (default 21) batches of about 2 ms. Then one more transfer, not
 * timed, checks every byte.
 *
 * Output: `row BYTES NS MB/s` per size (NS: a message's time in ns, the
 * median batch's; MB/s: BYTES / NS), then `rma_native: done`. Bad
 * arguments: what is wrong and a usage line on stderr, exit 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

#define WINDOW  16         /* --bw: messages per flush */
#define LARGEST (1l << 22) /* the largest MAX_BYTES */

struct access {
    int rank;
    int get;
    int messages; /* per flush: 1, or WINDOW with --bw */
    int bytes;
    unsigned char *buf;
    MPI_Win win;
};

/* *v from the whole of s, when it is a number in lo..hi. */
static int number(const char *s, long lo, long hi, long *v) {
    char *end;
    *v = strtol(s, &end, 10);
    return end != s && !*end && *v >= lo && *v <= hi;
}

/* NULL when the arguments make an access and its limits, else what is
 * wrong with them. */
static const char *parse(int argc, char **argv, struct access *a, long *batches, long *max_bytes) {
    int i = 1, n = 0;
    long v[2] = {21, 1l << 20};
    if (i == argc || (strcmp(argv[i], "put") != 0 && strcmp(argv[i], "get") != 0))
        return "put or get comes first";
    a->get = strcmp(argv[i++], "get") == 0;
    a->messages = 1;
    if (i < argc && strcmp(argv[i], "--bw") == 0) {
        a->messages = WINDOW;
        ++i;
    }
    for (; i < argc; ++i) {
        if (strncmp(argv[i], "--", 2) == 0) return "unknown option (--bw comes after put or get)";
        if (n == 2) return "too many arguments";
        if (!number(argv[i], 1, n == 0 ? 1001 : LARGEST, &v[n]))
            return n == 0 ? "BATCHES must be 1..1001" : "MAX_BYTES must be 1..4194304";
        ++n;
    }
    *batches = v[0];
    *max_bytes = v[1];
    return NULL;
}

/* One flush's worth of accesses by rank 0: a timed_op. */
static void trip(void *ctx) {
    const struct access *a = ctx;
    if (a->rank != 0) return;
    for (int i = 0; i < a->messages; ++i) {
        if (a->get)
            MPI_Get(a->buf, a->bytes, MPI_BYTE, 1, 0, a->bytes, MPI_BYTE, a->win);
        else
            MPI_Put(a->buf, a->bytes, MPI_BYTE, 1, 0, a->bytes, MPI_BYTE, a->win);
    }
    MPI_Win_flush(1, a->win);
}

static int filled(const unsigned char *p, int n, unsigned char value) {
    for (int i = 0; i < n; ++i)
        if (p[i] != value) return 0;
    return 1;
}

/* One checked access: rank 0 puts 0x5a into rank 1's window, which rank
 * 1 checks; or gets the 0xa5 rank 1 wrote there. 1 when the bytes came. */
static int checked(struct access *a, unsigned char *mine) {
    const int n = a->bytes;
    int ok = 1;
    if (a->rank == 1) memset(mine, a->get ? 0xa5 : 0, (size_t)n);
    MPI_Win_sync(a->win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (a->rank == 0) {
        memset(a->buf, a->get ? 0 : 0x5a, (size_t)n);
        trip(a);
        ok = !a->get || filled(a->buf, n, 0xa5);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(a->win);
    if (a->rank == 1 && !a->get) ok = filled(mine, n, 0x5a);
    return ok;
}

int main(int argc, char **argv) {
    struct access a;
    long batches = 0, max_bytes = 0;
    int np = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *wrong = parse(argc, argv, &a, &batches, &max_bytes);
    if (!wrong && np != 2) wrong = "run it with 2 processes";
    if (wrong) {
        if (a.rank == 0)
            fprintf(
                stderr,
                "rma_native: %s\nusage: rma_native put|get [--bw] [BATCHES 1..1001 [MAX_BYTES 1..4194304]] "
                "(2 processes)\n",
                wrong);
        MPI_Finalize();
        return 2;
    }
    unsigned char *mine;
    MPI_Win_allocate((MPI_Aint)max_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &a.win);
    a.buf = calloc((size_t)max_bytes, 1);
    double *times = malloc(sizeof(double) * (size_t)batches);
    if (!a.buf || !times) {
        fprintf(stderr, "rma_native: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Win_lock_all(0, a.win);
    for (long bytes = 1; bytes <= max_bytes; bytes *= 2) {
        a.bytes = (int)bytes;
        const double ns = median_time(trip, &a, (int)batches, times) / a.messages * 1e9;
        if (!checked(&a, mine)) {
            fprintf(stderr, "rma_native: rank %d: wrong data at %ld bytes\n", a.rank, bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (a.rank == 0) printf("row %ld %.0f %.2f\n", bytes, ns, ns > 0 ? bytes / ns * 1e3 : 0.0);
    }
    MPI_Win_unlock_all(a.win);
    MPI_Win_free(&a.win);
    free(a.buf);
    free(times);
    if (a.rank == 0) printf("rma_native: done\n");
    MPI_Finalize();
    return 0;
}
