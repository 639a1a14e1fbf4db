/*
 * mpi_env_test: MPI's environment calls (MPI 3.1 chapter 8, section
 * 12.4.3): MPI_Init_thread, MPI_Query_thread, MPI_Is_thread_main,
 * MPI_Initialized, MPI_Finalized, MPI_Wtime, MPI_Wtick,
 * MPI_Get_processor_name, MPI_Get_version, MPI_Get_library_version,
 * MPI_Error_string and MPI_Error_class of every error class, and the
 * predefined attributes of MPI_COMM_WORLD.
 *
 * A portable MPI program (mpi.h and the C library only): it runs on any
 * MPI implementation and any number of processes. Rank 0 prints
 * "mpi_env_test: OK" at the end; the first failed check prints
 * "FAIL mpi_env_test.c:<line>: ..." and ends the job with a non-zero
 * status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_env_test"

#include "mpitest.h"

/* Every error class of MPI 3.1 table 8.1. */
#define CLASS(c) \
    { c, #c }
static const struct {
    int code;
    const char *name;
} classes[] = {
    CLASS(MPI_SUCCESS),
    CLASS(MPI_ERR_BUFFER),
    CLASS(MPI_ERR_COUNT),
    CLASS(MPI_ERR_TYPE),
    CLASS(MPI_ERR_TAG),
    CLASS(MPI_ERR_COMM),
    CLASS(MPI_ERR_RANK),
    CLASS(MPI_ERR_REQUEST),
    CLASS(MPI_ERR_ROOT),
    CLASS(MPI_ERR_GROUP),
    CLASS(MPI_ERR_OP),
    CLASS(MPI_ERR_TOPOLOGY),
    CLASS(MPI_ERR_DIMS),
    CLASS(MPI_ERR_ARG),
    CLASS(MPI_ERR_UNKNOWN),
    CLASS(MPI_ERR_TRUNCATE),
    CLASS(MPI_ERR_OTHER),
    CLASS(MPI_ERR_INTERN),
    CLASS(MPI_ERR_IN_STATUS),
    CLASS(MPI_ERR_PENDING),
    CLASS(MPI_ERR_KEYVAL),
    CLASS(MPI_ERR_NO_MEM),
    CLASS(MPI_ERR_BASE),
    CLASS(MPI_ERR_INFO_KEY),
    CLASS(MPI_ERR_INFO_VALUE),
    CLASS(MPI_ERR_INFO_NOKEY),
    CLASS(MPI_ERR_SPAWN),
    CLASS(MPI_ERR_PORT),
    CLASS(MPI_ERR_SERVICE),
    CLASS(MPI_ERR_NAME),
    CLASS(MPI_ERR_WIN),
    CLASS(MPI_ERR_SIZE),
    CLASS(MPI_ERR_DISP),
    CLASS(MPI_ERR_INFO),
    CLASS(MPI_ERR_LOCKTYPE),
    CLASS(MPI_ERR_ASSERT),
    CLASS(MPI_ERR_RMA_CONFLICT),
    CLASS(MPI_ERR_RMA_SYNC),
    CLASS(MPI_ERR_RMA_RANGE),
    CLASS(MPI_ERR_RMA_ATTACH),
    CLASS(MPI_ERR_RMA_SHARED),
    CLASS(MPI_ERR_RMA_FLAVOR),
    CLASS(MPI_ERR_FILE),
    CLASS(MPI_ERR_NOT_SAME),
    CLASS(MPI_ERR_AMODE),
    CLASS(MPI_ERR_UNSUPPORTED_DATAREP),
    CLASS(MPI_ERR_UNSUPPORTED_OPERATION),
    CLASS(MPI_ERR_NO_SUCH_FILE),
    CLASS(MPI_ERR_FILE_EXISTS),
    CLASS(MPI_ERR_BAD_FILE),
    CLASS(MPI_ERR_ACCESS),
    CLASS(MPI_ERR_NO_SPACE),
    CLASS(MPI_ERR_QUOTA),
    CLASS(MPI_ERR_READ_ONLY),
    CLASS(MPI_ERR_FILE_IN_USE),
    CLASS(MPI_ERR_DUP_DATAREP),
    CLASS(MPI_ERR_CONVERSION),
    CLASS(MPI_ERR_IO),
};
#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

/* MPI_Get_library_version's result: resultlen characters and a NUL
 * (section 8.1.1). Open MPI 4.1 counts the NUL in resultlen too: that one
 * extra is accepted. */
static void check_library_version(int line, const char *lib, int len) {
    int n = 0;
    while (n < MPI_MAX_LIBRARY_VERSION_STRING && lib[n])
        ++n;
    if (n == 0 || n >= MPI_MAX_LIBRARY_VERSION_STRING || (len != n && len != n + 1))
        fail_at(line, "MPI_Get_library_version: resultlen %d, string length %d", len, n);
}

/* Before MPI_Init: only the calls MPI 3.1 allows then (section 8.7). */
static void test_before_init(void) {
    int flag = -1, version = -1, subversion = -1, len = -1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Initialized(&flag));
    CHECK_EQ(flag, 0);
    MPI_OK(MPI_Finalized(&flag));
    CHECK_EQ(flag, 0);
    MPI_OK(MPI_Get_version(&version, &subversion));
    CHECK_EQ(version, 3);
    CHECK_EQ(subversion, 1);
    CHECK_EQ(MPI_VERSION, 3);
    CHECK_EQ(MPI_SUBVERSION, 1);
    memset(lib, 0x7f, sizeof lib);
    MPI_OK(MPI_Get_library_version(lib, &len));
    check_library_version(__LINE__, lib, len);
}

static void test_thread_level(int provided) {
    int q = -1, flag = -1;
    /* The levels are ordered (section 12.4.3). */
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED);
    CHECK(MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED);
    CHECK(MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE);
    if (provided != MPI_THREAD_SINGLE && provided != MPI_THREAD_FUNNELED &&
        provided != MPI_THREAD_SERIALIZED && provided != MPI_THREAD_MULTIPLE)
        FAIL("MPI_Init_thread provided %d, not a thread level", provided);
    MPI_OK(MPI_Query_thread(&q));
    CHECK_EQ(q, provided);
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Initialized(&flag));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Finalized(&flag));
    CHECK_EQ(flag, 0);
}

static void test_versions(void) {
    int version = -1, subversion = -1, len = -1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Get_version(&version, &subversion));
    CHECK(version == 3 && subversion == 1);
    memset(lib, 0x7f, sizeof lib);
    MPI_OK(MPI_Get_library_version(lib, &len));
    check_library_version(__LINE__, lib, len);
    if (me == 0) {
        /* The first line, short (consoles may cut long lines). */
        char shown[61];
        int n = 0;
        while (n < 60 && lib[n] && lib[n] != '\n')
            ++n;
        memcpy(shown, lib, (size_t)n);
        shown[n] = 0;
        printf(NAME ": library: %s\n", shown);
    }
}

static void test_time(void) {
    double tick = MPI_Wtick(), t0 = MPI_Wtime(), prev = t0, t = t0;
    long spins = 0;
    CHECK(tick > 0.0 && tick <= 1.0);
    /* Monotonic, and it advances: spin until 2 ms have passed (bounded). */
    while (t - t0 < 0.002) {
        t = MPI_Wtime();
        if (t < prev) FAIL("MPI_Wtime went back from %.9f to %.9f", prev, t);
        prev = t;
        if (++spins > 200000000L) FAIL("MPI_Wtime does not advance (%.9f after %ld calls)", t - t0, spins);
    }
    CHECK(t > t0);
}

static void test_processor_name(void) {
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    memset(name, 0x7f, sizeof name);
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME);
    CHECK_EQ(strlen(name), len);
}

static void test_errors(void) {
    char(*text)[MPI_MAX_ERROR_STRING] = malloc(NCLASSES * sizeof *text);
    CHECK(text != NULL);
    for (int i = 0; i < NCLASSES; ++i) {
        int cls = -1, len = -1;
        MPI_OK(MPI_Error_class(classes[i].code, &cls));
        if (cls != classes[i].code)
            FAIL("MPI_Error_class(%s) is %d, expected %d (itself)", classes[i].name, cls, classes[i].code);
        memset(text[i], 0x7f, MPI_MAX_ERROR_STRING);
        MPI_OK(MPI_Error_string(classes[i].code, text[i], &len));
        int n = 0;
        while (n < MPI_MAX_ERROR_STRING && text[i][n])
            ++n;
        if (len <= 0 || len >= MPI_MAX_ERROR_STRING || n != len)
            FAIL("MPI_Error_string(%s): resultlen %d, string length %d", classes[i].name, len, n);
    }
    /* The classes are all different, and so are their texts. */
    for (int i = 0; i < NCLASSES; ++i)
        for (int j = 0; j < i; ++j) {
            CHECK(classes[i].code != classes[j].code);
            if (strcmp(text[i], text[j]) == 0)
                FAIL("%s and %s have the same text '%s'", classes[j].name, classes[i].name, text[i]);
        }
    /* MPI_ERR_LASTCODE is at least the largest class. */
    for (int i = 0; i < NCLASSES; ++i)
        CHECK(classes[i].code <= MPI_ERR_LASTCODE);
    free(text);
}

static void test_attributes(void) {
    int *val = NULL, flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    CHECK_EQ(flag, 1);
    CHECK(val != NULL);
    if (*val < 32767) FAIL("MPI_TAG_UB is %d, less than 32767", *val);
    int tag_ub = *val;

    val = NULL;
    flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag));
    CHECK_EQ(flag, 1);
    CHECK(val != NULL);
    if (*val != 0 && *val != 1) FAIL("MPI_WTIME_IS_GLOBAL is %d, not 0 or 1", *val);
    int global = *val;

    val = NULL;
    flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &val, &flag));
    CHECK_EQ(flag, 1);
    CHECK(val != NULL);
    if (*val != MPI_PROC_NULL && (*val < 0 || *val >= np))
        FAIL("MPI_HOST is %d: neither MPI_PROC_NULL nor a rank", *val);

    val = NULL;
    flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag));
    CHECK_EQ(flag, 1);
    CHECK(val != NULL);
    if (*val != MPI_PROC_NULL && *val != MPI_ANY_SOURCE && (*val < 0 || *val >= np))
        FAIL("MPI_IO is %d: not MPI_PROC_NULL, MPI_ANY_SOURCE or a rank", *val);

    /* The largest tag works; every rank sends one message to itself. */
    int out = 77, in = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, me, tag_ub, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Send(&out, 1, MPI_INT, me, tag_ub, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&req, &st));
    CHECK_EQ(in, 77);
    CHECK_EQ(st.MPI_TAG, tag_ub);
    CHECK_EQ(st.MPI_SOURCE, me);

    /* A global clock: every rank's time after a barrier is no earlier than
     * any rank's time before it. Checked only where the attribute says so. */
    if (global) {
        double t[2], all[2] = {0, 0};
        t[0] = MPI_Wtime();
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        t[1] = MPI_Wtime();
        if (me != 0) {
            MPI_OK(MPI_Send(t, 2, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD));
        } else {
            double max_before = t[0], min_after = t[1];
            for (int r = 1; r < np; ++r) {
                MPI_OK(MPI_Recv(all, 2, MPI_DOUBLE, r, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                if (all[0] > max_before) max_before = all[0];
                if (all[1] < min_after) min_after = all[1];
            }
            if (max_before > min_after + MPI_Wtick())
                FAIL(
                    "MPI_WTIME_IS_GLOBAL is 1 but a rank entered the barrier at %.9f, "
                    "after another left it at %.9f",
                    max_before, min_after);
        }
    }
}

int main(int argc, char **argv) {
    int provided = -1, flag = -1;
    test_before_init();
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    CHECK(np >= 1 && me >= 0 && me < np);

    test_thread_level(provided);
    test_versions();
    test_time();
    test_processor_name();
    test_errors();
    test_attributes();

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());
    MPI_OK(MPI_Finalized(&flag));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Initialized(&flag));
    CHECK_EQ(flag, 1); /* stays true after MPI_Finalize (section 8.7) */
    int version = -1, subversion = -1;
    MPI_OK(MPI_Get_version(&version, &subversion)); /* callable at any time */
    CHECK(version == 3 && subversion == 1);
    if (me == 0) printf(NAME ": OK (np=%d, thread level %d)\n", np, provided);
    return 0;
}
