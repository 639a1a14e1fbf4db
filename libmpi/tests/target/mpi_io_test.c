/*
 * mpi_io_test: MPI-IO (MPI 3.1 chapter 13) from every process at once,
 * over the job folder's files.
 *
 * Phases: opening and its error classes (MPI_ERRORS_RETURN is the default
 * on files); explicit offsets; a block-distributed 2-D array of doubles
 * written through a subarray view collectively and read back
 * independently, and the reverse; the shared file pointer, unordered and
 * ordered; non-blocking and split collective access; sizes, seeks and
 * MPI_MODE_APPEND; atomic mode; external32; MPI_MODE_DELETE_ON_CLOSE.
 *
 * Arguments: N (the array's side, default 64). A portable MPI program
 * (mpi.h and the C library only). Rank 0 prints "mpi_io_test: OK (np=N)";
 * a failed check prints "FAIL mpi_io_test.c:<line>: ..." and ends the job
 * with a non-zero status.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_io_test"
#include "mpitest.h"

static const char *const file = "mpi_io_test.dat";

static int count_of(const MPI_Status *st, MPI_Datatype t) {
    int n = -1;
    MPI_OK(MPI_Get_count(st, t, &n));
    return n;
}

static MPI_File open_fresh(int amode) {
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, file, amode | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_size(fh, 0));
    return fh;
}

static void errors(void) {
    sync_all("errors");
    MPI_File fh = MPI_FILE_NULL;
    if (me == 0) MPI_File_delete(file, MPI_INFO_NULL);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_NO_SUCH_FILE);
    CHECK(fh == MPI_FILE_NULL);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);
    fh = open_fresh(MPI_MODE_RDWR);
    MPI_OK(MPI_File_close(&fh));
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_FILE_EXISTS);
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    char c = 0;
    EXPECT_CLASS(MPI_File_write(fh, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY);
    EXPECT_CLASS(MPI_File_read_at(fh, 0, &c, -1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-representation", MPI_INFO_NULL),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    MPI_OK(MPI_File_close(&fh));
    EXPECT_CLASS(MPI_File_get_amode(fh, (int *)&c), MPI_ERR_FILE);
    /* A name outside the job's folder is refused. */
    EXPECT_CLASS(
        MPI_File_open(MPI_COMM_SELF, "../outside.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        MPI_ERR_ACCESS);
}

static void explicit_offsets(void) {
    sync_all("explicit offsets");
    MPI_File fh = open_fresh(MPI_MODE_RDWR);
    int v[256];
    for (int i = 0; i < 256; ++i)
        v[i] = me * 1000 + i;
    MPI_Status st;
    MPI_OK(MPI_File_write_at(fh, (MPI_Offset)me * sizeof v, v, 256, MPI_INT, &st));
    CHECK_EQ(count_of(&st, MPI_INT), 256);
    MPI_OK(MPI_File_sync(fh));
    const int other = (me + 1) % np;
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)other * sizeof v, v, 256, MPI_INT, &st));
    for (int i = 0; i < 256; ++i)
        CHECK_EQ(v[i], other * 1000 + i);
    MPI_Offset size;
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK_EQ(size, (MPI_Offset)np * sizeof v);
    MPI_OK(MPI_File_read_at(fh, size - 4, v, 256, MPI_INT, &st));
    CHECK_EQ(count_of(&st, MPI_INT), 1);
    MPI_OK(MPI_File_close(&fh));
}

/* The n x n array of doubles, block-distributed over a px x py grid of
 * processes (a subarray view each): a(i, j) = i * n + j. */
static void array_2d(int n) {
    sync_all("2-D array");
    int dims[2] = {0, 0};
    MPI_OK(MPI_Dims_create(np, 2, dims));
    const int px = me / dims[1], py = me % dims[1];
    const int rows = n / dims[0] + (px < n % dims[0]), cols = n / dims[1] + (py < n % dims[1]);
    const int row0 = px * (n / dims[0]) + (px < n % dims[0] ? px : n % dims[0]);
    const int col0 = py * (n / dims[1]) + (py < n % dims[1] ? py : n % dims[1]);
    int sizes[2] = {n, n}, sub[2] = {rows, cols}, starts[2] = {row0, col0};
    MPI_Datatype block;
    MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &block));
    MPI_OK(MPI_Type_commit(&block));
    double *mine = xmalloc(sizeof(double) * (size_t)(rows * cols + 1));
    double *all = xmalloc(sizeof(double) * (size_t)n * n);
    for (int way = 0; way < 2; ++way) {
        MPI_File fh = open_fresh(MPI_MODE_RDWR);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                mine[i * cols + j] = (double)(row0 + i) * n + (col0 + j);
        MPI_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, block, "native", MPI_INFO_NULL));
        MPI_Status st;
        if (way == 0)
            MPI_OK(MPI_File_write_all(fh, mine, rows * cols, MPI_DOUBLE, &st));
        else
            MPI_OK(MPI_File_write(fh, mine, rows * cols, MPI_DOUBLE, &st));
        CHECK_EQ(count_of(&st, MPI_DOUBLE), rows * cols);
        MPI_OK(MPI_File_sync(fh));
        /* The whole file is the array in row-major order. */
        MPI_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
        if (way == 0)
            MPI_OK(MPI_File_read_at(fh, 0, all, n * n, MPI_DOUBLE, &st));
        else
            MPI_OK(MPI_File_read_at_all(fh, 0, all, n * n, MPI_DOUBLE, &st));
        CHECK_EQ(count_of(&st, MPI_DOUBLE), n * n);
        for (int k = 0; k < n * n; ++k)
            if (all[k] != (double)k) FAIL("element %d is %g", k, all[k]);
        /* Each block back through its view, the other way. */
        MPI_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, block, "native", MPI_INFO_NULL));
        memset(mine, 0, sizeof(double) * (size_t)(rows * cols));
        if (way == 0)
            MPI_OK(MPI_File_read(fh, mine, rows * cols, MPI_DOUBLE, &st));
        else
            MPI_OK(MPI_File_read_all(fh, mine, rows * cols, MPI_DOUBLE, &st));
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                CHECK(mine[i * cols + j] == (double)(row0 + i) * n + (col0 + j));
        MPI_OK(MPI_File_close(&fh));
    }
    free(mine);
    free(all);
    MPI_OK(MPI_Type_free(&block));
}

static void shared_pointer(void) {
    sync_all("shared file pointer");
    MPI_File fh = open_fresh(MPI_MODE_RDWR);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int pair[2] = {me, me};
    MPI_OK(MPI_File_write_shared(fh, pair, 2, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Offset pos;
    MPI_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_EQ(pos, 2 * np);
    int *mine = xmalloc(sizeof(int) * (size_t)(me + 1));
    for (int k = 0; k <= me; ++k)
        mine[k] = 100 + me;
    MPI_OK(MPI_File_write_ordered(fh, mine, me + 1, MPI_INT, MPI_STATUS_IGNORE));
    const int total = 2 * np + np * (np + 1) / 2;
    int *all = xmalloc(sizeof(int) * (size_t)total);
    int *seen = xmalloc(sizeof(int) * (size_t)np);
    memset(seen, 0, sizeof(int) * (size_t)np);
    MPI_OK(MPI_File_read_at_all(fh, 0, all, total, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2 * np; i += 2) {
        CHECK(all[i] == all[i + 1] && all[i] >= 0 && all[i] < np);
        ++seen[all[i]];
    }
    for (int r = 0; r < np; ++r)
        CHECK_EQ(seen[r], 1);
    for (int r = 0, at = 2 * np; r < np; ++r)
        for (int k = 0; k <= r; ++k)
            CHECK_EQ(all[at++], 100 + r);
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_ordered(fh, pair, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(pair[0] == all[2 * me] && pair[1] == all[2 * me + 1]);
    MPI_OK(MPI_File_close(&fh));
    free(mine);
    free(all);
    free(seen);
}

static void nonblocking_and_split(void) {
    sync_all("non-blocking and split collective");
    MPI_File fh = open_fresh(MPI_MODE_RDWR);
    double d[32], back[32];
    for (int i = 0; i < 32; ++i)
        d[i] = me + i / 64.0;
    MPI_Request req[2];
    MPI_Status st[2];
    MPI_OK(MPI_File_iwrite_at(fh, (MPI_Offset)me * sizeof d, d, 32, MPI_DOUBLE, &req[0]));
    MPI_OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)(np + me) * sizeof d, d, 32, MPI_DOUBLE, &req[1]));
    MPI_OK(MPI_Waitall(2, req, st));
    CHECK_EQ(count_of(&st[0], MPI_DOUBLE), 32);
    CHECK_EQ(count_of(&st[1], MPI_DOUBLE), 32);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_File_read_at_all_begin(fh, (MPI_Offset)(np + me) * sizeof d, back, 32, MPI_DOUBLE));
    MPI_OK(MPI_File_read_at_all_end(fh, back, &st[0]));
    CHECK_EQ(count_of(&st[0], MPI_DOUBLE), 32);
    CHECK(memcmp(back, d, sizeof d) == 0);
    MPI_OK(MPI_File_iread_at(fh, (MPI_Offset)me * sizeof d, back, 32, MPI_DOUBLE, &req[0]));
    MPI_OK(MPI_Wait(&req[0], &st[0]));
    CHECK(memcmp(back, d, sizeof d) == 0);
    MPI_OK(MPI_File_close(&fh));
}

static void sizes_and_modes(void) {
    sync_all("sizes, seeks, append, atomic mode, external32");
    MPI_File fh = open_fresh(MPI_MODE_RDWR);
    MPI_OK(MPI_File_set_size(fh, 4096));
    MPI_OK(MPI_File_preallocate(fh, 100));
    MPI_Offset size, pos;
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK_EQ(size, 4096);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_seek(fh, -1, MPI_SEEK_END));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK_EQ(pos, 1023);
    /* Atomic mode: every process writes the same strided ints, many times;
     * the file ends up all one process's. */
    MPI_OK(MPI_File_set_atomicity(fh, 1));
    MPI_Datatype strided;
    MPI_OK(MPI_Type_vector(32, 1, 2, MPI_INT, &strided));
    MPI_OK(MPI_Type_commit(&strided));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, strided, "native", MPI_INFO_NULL));
    int v[32], back[32];
    for (int i = 0; i < 32; ++i)
        v[i] = me + 1;
    for (int k = 0; k < 4; ++k)
        MPI_OK(MPI_File_write_at(fh, 0, v, 32, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_read_at(fh, 0, back, 32, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 32; ++i)
        CHECK(back[i] == back[0] && back[0] >= 1 && back[0] <= np);
    MPI_OK(MPI_File_set_atomicity(fh, 0));
    MPI_OK(MPI_Type_free(&strided));
    /* external32: big-endian in the file. */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    const int x = 0x01020304;
    MPI_OK(MPI_File_write_at_all(fh, me, &x, 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char raw[4];
    MPI_OK(MPI_File_read_at(fh, 4 * me, raw, 4, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_WRONLY | MPI_MODE_APPEND | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK_EQ(pos, 4096);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    EXPECT_CLASS(MPI_File_open(MPI_COMM_SELF, file, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_NO_SUCH_FILE);
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const int n = argc > 1 ? atoi(argv[1]) : 64;
    errors();
    explicit_offsets();
    array_2d(n);
    shared_pointer();
    nonblocking_and_split();
    sizes_and_modes();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf(NAME ": OK (np=%d)\n", np);
    MPI_OK(MPI_Finalize());
    return 0;
}
