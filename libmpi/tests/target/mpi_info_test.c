/*
 * mpi_info_test: info objects (MPI 3.1 chapter 9), MPI_INFO_ENV (section
 * 10.5.5) and the calls of communicators that take info (sections 6.4.2,
 * 6.4.4).
 *
 *   MPI_Info_create/set/get/get_valuelen/get_nkeys/get_nthkey/delete/
 *   dup/free: values replaced in place, keys numbered in the order they
 *   were set and kept in order by a delete, values cut to valuelen with
 *   nothing written past them, missing keys (flag 0), a dup independent
 *   of its original, 3000 objects at once (a third freed and made anew). Errors with MPI_ERRORS_RETURN:
 *   MPI_ERR_INFO_KEY (empty key, key of MPI_MAX_INFO_KEY characters or
 *   more), MPI_ERR_INFO_VALUE (value of MPI_MAX_INFO_VAL characters or
 *   more), MPI_ERR_INFO_NOKEY (delete of a missing key), MPI_ERR_INFO
 *   (MPI_INFO_NULL); get_nthkey out of range fails. MPI_INFO_ENV
 *   readable ("maxprocs", if there, at least the number of processes).
 *   MPI_Comm_split_type with an info object gives what it gives with
 *   MPI_INFO_NULL; MPI_Comm_dup_with_info, MPI_Comm_set_info and
 *   MPI_Comm_get_info (an info object the program frees); a message
 *   around each new communicator.
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes. Rank 0 prints "mpi_info_test: OK (np=N)" at the end; the
 * first failed check prints "FAIL mpi_info_test.c:<line>: ..." and ends
 * the job with a non-zero status.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_info_test"

#include "mpitest.h"

/* The value of `key` in info, which must be there. */
static void expect_value_at(int line, MPI_Info info, const char *key, const char *value) {
    char got[64];
    int flag = 0, len = -1;
    if (MPI_Info_get(info, key, sizeof got - 1, got, &flag) != MPI_SUCCESS || !flag)
        fail_at(line, "key %s is missing", key);
    if (strcmp(got, value) != 0) fail_at(line, "key %s is \"%s\", expected \"%s\"", key, got, value);
    if (MPI_Info_get_valuelen(info, key, &len, &flag) != MPI_SUCCESS || !flag || len != (int)strlen(value))
        fail_at(line, "valuelen of %s is %d, expected %d", key, len, (int)strlen(value));
}
#define EXPECT_VALUE(info, key, value) expect_value_at(__LINE__, info, key, value)

/* info holds exactly `n` keys, keys[0..n-1] in that order. */
static void expect_keys_at(int line, MPI_Info info, int n, const char *const keys[]) {
    char key[MPI_MAX_INFO_KEY + 1];
    int nkeys = -1;
    if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS || nkeys != n)
        fail_at(line, "%d keys, expected %d", nkeys, n);
    for (int i = 0; i < n; ++i) {
        if (MPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS) fail_at(line, "no key %d", i);
        if (strcmp(key, keys[i]) != 0) fail_at(line, "key %d is %s, expected %s", i, key, keys[i]);
    }
}
#define EXPECT_KEYS(info, n, ...) expect_keys_at(__LINE__, info, n, (const char *const[]){__VA_ARGS__})

static void test_objects(void) {
    MPI_Info info, copy;
    char value[16];
    int flag = -1, len = -1;

    MPI_OK(MPI_Info_create(&info));
    EXPECT_KEYS(info, 0, "");
    MPI_OK(MPI_Info_set(info, "color", "blue"));
    MPI_OK(MPI_Info_set(info, "size", "1234567"));
    MPI_OK(MPI_Info_set(info, "shape", "round"));
    EXPECT_KEYS(info, 3, "color", "size", "shape");
    EXPECT_VALUE(info, "size", "1234567");

    /* A new value keeps the key's place. */
    MPI_OK(MPI_Info_set(info, "color", "a much longer red"));
    EXPECT_KEYS(info, 3, "color", "size", "shape");
    EXPECT_VALUE(info, "color", "a much longer red");

    /* Values are cut to valuelen characters plus the NUL. */
    memset(value, 'x', sizeof value);
    MPI_OK(MPI_Info_get(info, "size", 3, value, &flag));
    CHECK(flag);
    CHECK(strcmp(value, "123") == 0);
    CHECK(value[4] == 'x');

    /* Missing keys (keys are case sensitive). */
    flag = -1;
    MPI_OK(MPI_Info_get(info, "Color", sizeof value - 1, value, &flag));
    CHECK_EQ(flag, 0);
    flag = -1;
    MPI_OK(MPI_Info_get_valuelen(info, "weight", &len, &flag));
    CHECK_EQ(flag, 0);

    /* A dup has the same keys in the same order and lives on its own. */
    MPI_OK(MPI_Info_dup(info, &copy));
    CHECK(copy != info);
    EXPECT_KEYS(copy, 3, "color", "size", "shape");
    MPI_OK(MPI_Info_delete(info, "size"));
    EXPECT_KEYS(info, 2, "color", "shape");
    EXPECT_VALUE(info, "shape", "round");
    MPI_OK(MPI_Info_set(copy, "shape", "square"));
    EXPECT_VALUE(info, "shape", "round");
    EXPECT_VALUE(copy, "size", "1234567");
    MPI_OK(MPI_Info_free(&copy));
    CHECK(copy == MPI_INFO_NULL);
    EXPECT_KEYS(info, 2, "color", "shape");

    /* Set again after a delete: at the end. */
    MPI_OK(MPI_Info_delete(info, "color"));
    MPI_OK(MPI_Info_set(info, "color", "green"));
    EXPECT_KEYS(info, 2, "shape", "color");
    MPI_OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL);
}

/* Thousands of objects at once (MPICH's infomany holds 4000), and the
 * middle third freed and made anew among the others. */
static void test_many(void) {
    enum { N = 3000 };
    static MPI_Info infos[N];
    char key[32], value[32];
    for (int i = 0; i < N; ++i) {
        MPI_OK(MPI_Info_create(&infos[i]));
        snprintf(key, sizeof key, "key%d", i);
        snprintf(value, sizeof value, "%d", i * 7);
        MPI_OK(MPI_Info_set(infos[i], key, value));
    }
    for (int i = N / 3; i < 2 * N / 3; ++i)
        MPI_OK(MPI_Info_free(&infos[i]));
    for (int i = N / 3; i < 2 * N / 3; ++i) {
        MPI_OK(MPI_Info_create(&infos[i]));
        snprintf(key, sizeof key, "key%d", i);
        snprintf(value, sizeof value, "%d", i * 7);
        MPI_OK(MPI_Info_set(infos[i], key, value));
    }
    for (int i = 0; i < N; ++i) {
        snprintf(key, sizeof key, "key%d", i);
        snprintf(value, sizeof value, "%d", i * 7);
        EXPECT_KEYS(infos[i], 1, key);
        EXPECT_VALUE(infos[i], key, value);
        MPI_OK(MPI_Info_free(&infos[i]));
    }
}

static void test_errors(void) {
    MPI_Info info;
    char *long_text = xmalloc(MPI_MAX_INFO_VAL + 16), key[MPI_MAX_INFO_KEY + 1];
    int flag = -1, nkeys = -1;

    MPI_OK(MPI_Info_create(&info));
    /* The longest key that fits an MPI_MAX_INFO_KEY buffer does. */
    memset(long_text, 'k', MPI_MAX_INFO_KEY - 1);
    long_text[MPI_MAX_INFO_KEY - 1] = '\0';
    MPI_OK(MPI_Info_set(info, long_text, "v"));
    MPI_OK(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, long_text) == 0);
    MPI_OK(MPI_Info_delete(info, long_text));

    memset(long_text, 'k', MPI_MAX_INFO_KEY + 10);
    long_text[MPI_MAX_INFO_KEY + 10] = '\0';
    EXPECT_CLASS(MPI_Info_set(info, long_text, "v"), MPI_ERR_INFO_KEY);
    EXPECT_CLASS(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    memset(long_text, 'v', MPI_MAX_INFO_VAL + 10);
    long_text[MPI_MAX_INFO_VAL + 10] = '\0';
    EXPECT_CLASS(MPI_Info_set(info, "k", long_text), MPI_ERR_INFO_VALUE);
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK_EQ(nkeys, 0); /* nothing was set */

    EXPECT_CLASS(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY);
    MPI_OK(MPI_Info_set(info, "k", "v"));
    /* An error; the standard names no class (LWMPI: MPI_ERR_ARG). */
    CHECK(MPI_Info_get_nthkey(info, 1, key) != MPI_SUCCESS);
    CHECK(MPI_Info_get_nthkey(info, -1, key) != MPI_SUCCESS);
    EXPECT_CLASS(MPI_Info_set(MPI_INFO_NULL, "k", "v"), MPI_ERR_INFO);
    EXPECT_CLASS(MPI_Info_get(MPI_INFO_NULL, "k", 1, key, &flag), MPI_ERR_INFO);
    EXPECT_CLASS(MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys), MPI_ERR_INFO);
    EXPECT_CLASS(MPI_Info_dup(MPI_INFO_NULL, &info), MPI_ERR_INFO);
    MPI_OK(MPI_Info_free(&info));
    free(long_text);
}

static void test_env(void) {
    char key[MPI_MAX_INFO_KEY + 1], *value;
    int nkeys = -1, flag = 0, len = -1;
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    CHECK(nkeys >= 0);
    for (int i = 0; i < nkeys; ++i) {
        MPI_OK(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
        MPI_OK(MPI_Info_get_valuelen(MPI_INFO_ENV, key, &len, &flag));
        CHECK(flag && len >= 0 && len < MPI_MAX_INFO_VAL);
        value = xmalloc((size_t)len + 1);
        MPI_OK(MPI_Info_get(MPI_INFO_ENV, key, len, value, &flag));
        CHECK(flag && (int)strlen(value) == len);
        if (strcmp(key, "maxprocs") == 0) CHECK(atoi(value) >= np);
        free(value);
    }
}

/* A message around comm: each rank sends its rank in comm to the next. */
static void ring(MPI_Comm comm) {
    int rank, size, got = -1;
    MPI_OK(MPI_Comm_rank(comm, &rank));
    MPI_OK(MPI_Comm_size(comm, &size));
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT, (rank + size - 1) % size,
                        7, comm, MPI_STATUS_IGNORE));
    CHECK_EQ(got, (rank + size - 1) % size);
}

static void test_comms(void) {
    MPI_Info info, used;
    MPI_Comm shared, shared_null, dup;
    int result = -1, nkeys = -1;

    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "no_such_hint", "true"));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, info, &shared));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared_null));
    MPI_OK(MPI_Comm_compare(shared, shared_null, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    ring(shared);

    MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup));
    MPI_OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    ring(dup);
    MPI_OK(MPI_Comm_set_info(dup, info));
    MPI_OK(MPI_Comm_get_info(dup, &used));
    CHECK(used != MPI_INFO_NULL);
    MPI_OK(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys >= 0);
    MPI_OK(MPI_Info_free(&used));
    /* The communicator does not depend on the info object. */
    MPI_OK(MPI_Info_free(&info));
    ring(dup);

    EXPECT_CLASS(MPI_Comm_set_info(MPI_COMM_NULL, MPI_INFO_ENV), MPI_ERR_COMM);
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Comm_free(&shared));
    MPI_OK(MPI_Comm_free(&shared_null));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    sync_all("objects");
    test_objects();
    sync_all("many");
    test_many();
    sync_all("errors");
    test_errors();
    sync_all("MPI_INFO_ENV");
    test_env();
    sync_all("communicators");
    test_comms();
    sync_all("finalize");

    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d)\n", np);
    return 0;
}
