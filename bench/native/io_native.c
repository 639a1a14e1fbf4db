/* io_native [N [REPS]]: MPI-IO's bandwidth on a block-distributed 2-D
 * array, against the file system's own streaming rate, in one run.
 *
 * The N x N array of doubles (default N = 1024: 8 MiB) is split into
 * blocks over a 2-D grid of the ranks (MPI_Dims_create); each rank's
 * block is a subarray view of one file. Rows, each the median of REPS
 * runs (default 5) of the whole operation (from a barrier to the last
 * rank's end), in MB/s of the whole array:
 *
 *   stream write / read   rank 0 alone, the whole array in 1 MiB write()s
 *                         and read()s of the C library: the file system's
 *                         (on Tessera, the file server's) streaming rate
 *   independent write / read   MPI_File_write / MPI_File_read, each rank
 *                              its block through its view
 *   collective write / read    MPI_File_write_all / MPI_File_read_all
 *
 * Every read is checked against the array. Portable MPI C (mpi.h and
 * POSIX), so that bench/run_bench.py builds it with Open MPI and MPICH
 * too. Output: "io_native: <row> <bytes> <MB/s>" lines, then
 * "io_native: done (np=N)". */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILE_NAME "io_native.dat"
#define MAX_REPS  31
#define CHUNK     (1 << 20)

static int me, np;

static void fail(const char *what) {
    printf("io_native: FAIL rank %d: %s\n", me, what);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The block of the array a rank owns: rows [row0, row0 + rows), columns
 * [col0, col0 + cols). */
struct block {
    int row0, rows, col0, cols;
};

static struct block block_of(int n) {
    int dims[2] = {0, 0};
    MPI_Dims_create(np, 2, dims);
    const int px = me / dims[1], py = me % dims[1];
    struct block b;
    b.rows = n / dims[0] + (px < n % dims[0]);
    b.cols = n / dims[1] + (py < n % dims[1]);
    b.row0 = px * (n / dims[0]) + (px < n % dims[0] ? px : n % dims[0]);
    b.col0 = py * (n / dims[1]) + (py < n % dims[1] ? py : n % dims[1]);
    return b;
}

static double element(int n, int i, int j) { return (double)i * n + j; }

enum op { STREAM_WRITE, STREAM_READ, INDEPENDENT_WRITE, INDEPENDENT_READ, COLLECTIVE_WRITE, COLLECTIVE_READ };
static const char *const op_names[] = {"stream write",     "stream read",      "independent write",
                                       "independent read", "collective write", "collective read"};

/* Rank 0's stream of the whole array (buf: n * n doubles). */
static void stream(int write_it, double *buf, long long bytes) {
    if (me != 0) return;
    const int fd = write_it ? open(FILE_NAME, O_WRONLY | O_CREAT | O_TRUNC, 0644) : open(FILE_NAME, O_RDONLY);
    if (fd < 0) fail("open");
    char *p = (char *)buf;
    for (long long done = 0; done < bytes;) {
        const size_t n = bytes - done < CHUNK ? (size_t)(bytes - done) : CHUNK;
        const ssize_t r = write_it ? write(fd, p + done, n) : read(fd, p + done, n);
        if (r <= 0) fail(write_it ? "write" : "read");
        done += r;
    }
    close(fd);
}

/* One run of `op`: its time, the slowest rank's. */
static double run(enum op op, int n, double *all, double *mine, const struct block *b, MPI_Datatype view) {
    const long long bytes = (long long)n * n * sizeof(double);
    MPI_File fh = MPI_FILE_NULL;
    const int writing = op == INDEPENDENT_WRITE || op == COLLECTIVE_WRITE;
    if (op >= INDEPENDENT_WRITE) {
        if (MPI_File_open(MPI_COMM_WORLD, FILE_NAME,
                          writing ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL,
                          &fh) != MPI_SUCCESS)
            fail("MPI_File_open");
        if (MPI_File_set_view(fh, 0, MPI_DOUBLE, view, "native", MPI_INFO_NULL) != MPI_SUCCESS)
            fail("MPI_File_set_view");
    }
    const int count = b->rows * b->cols;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    int rc = MPI_SUCCESS;
    switch (op) {
    case STREAM_WRITE: stream(1, all, bytes); break;
    case STREAM_READ: stream(0, all, bytes); break;
    case INDEPENDENT_WRITE: rc = MPI_File_write(fh, mine, count, MPI_DOUBLE, MPI_STATUS_IGNORE); break;
    case INDEPENDENT_READ: rc = MPI_File_read(fh, mine, count, MPI_DOUBLE, MPI_STATUS_IGNORE); break;
    case COLLECTIVE_WRITE: rc = MPI_File_write_all(fh, mine, count, MPI_DOUBLE, MPI_STATUS_IGNORE); break;
    case COLLECTIVE_READ: rc = MPI_File_read_all(fh, mine, count, MPI_DOUBLE, MPI_STATUS_IGNORE); break;
    }
    double t = MPI_Wtime() - t0;
    if (rc != MPI_SUCCESS) fail(op_names[op]);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (fh != MPI_FILE_NULL) MPI_File_close(&fh);
    return t;
}

/* Whether what a read brought back is the array. */
static void check(enum op op, int n, const double *all, const double *mine, const struct block *b) {
    if (op == STREAM_READ && me == 0) {
        for (int k = 0; k < n * n; ++k)
            if (all[k] != (double)k) fail("stream read: wrong data");
    }
    if (op == INDEPENDENT_READ || op == COLLECTIVE_READ) {
        for (int i = 0; i < b->rows; ++i)
            for (int j = 0; j < b->cols; ++j)
                if (mine[i * b->cols + j] != element(n, b->row0 + i, b->col0 + j)) fail("read: wrong data");
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const int n = argc > 1 ? atoi(argv[1]) : 1024;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 1 || reps < 1) fail("usage: io_native [N [REPS]]");
    if (reps > MAX_REPS) reps = MAX_REPS;
    const struct block b = block_of(n);
    int sizes[2] = {n, n}, sub[2] = {b.rows, b.cols}, starts[2] = {b.row0, b.col0};
    MPI_Datatype view;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &view);
    MPI_Type_commit(&view);
    double *all = malloc(me == 0 ? sizeof(double) * (size_t)n * n : sizeof(double));
    double *mine = malloc(sizeof(double) * (size_t)(b.rows * b.cols + 1));
    if (!all || !mine) fail("out of memory");
    const long long bytes = (long long)n * n * sizeof(double);
    for (int op = STREAM_WRITE; op <= COLLECTIVE_READ; ++op) {
        double times[MAX_REPS];
        for (int r = 0; r < reps; ++r) {
            if (me == 0)
                for (int k = 0; k < n * n; ++k)
                    all[k] = op == STREAM_READ ? -1 : (double)k;
            for (int i = 0; i < b.rows; ++i)
                for (int j = 0; j < b.cols; ++j)
                    mine[i * b.cols + j] = op % 2 ? -1 : element(n, b.row0 + i, b.col0 + j);
            times[r] = run((enum op)op, n, all, mine, &b, view);
            check((enum op)op, n, all, mine, &b);
        }
        qsort(times, (size_t)reps, sizeof times[0], compare_double);
        if (me == 0) printf("io_native: %s %lld %.1f\n", op_names[op], bytes, bytes / times[reps / 2] / 1e6);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        unlink(FILE_NAME);
        printf("io_native: done (np=%d)\n", np);
    }
    free(all);
    free(mine);
    MPI_Type_free(&view);
    MPI_Finalize();
    return 0;
}
