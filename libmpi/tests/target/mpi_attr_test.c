/*
 * mpi_attr_test: attribute caching (MPI 3.1 section 6.7), the predefined
 * attributes (sections 8.1.2, 10.5), error classes and codes of the
 * program (section 8.5), and the MPI-1 names old programs still call.
 *
 *   Keyvals of communicators: values set, read, replaced and deleted;
 *   copy callbacks run on MPI_Comm_dup and MPI_Comm_dup_with_info (a
 *   changed value, MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN), delete
 *   callbacks on MPI_Comm_free, MPI_Comm_delete_attr and on a replaced
 *   value, each with the right communicator and value; a freed keyval
 *   (MPI_KEYVAL_INVALID) still keys its attributes, whose delete callback
 *   still runs, and can be read and deleted by the handle value the
 *   program saved; a failing copy or delete callback makes the call fail.
 *   The same for datatypes (MPI_Type_dup, MPI_Type_free; attributes on a
 *   predefined type). Errors for a keyval of the other kind, for
 *   MPI_KEYVAL_INVALID, for setting or freeing a predefined key.
 *   MPI_TAG_UB, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE.
 *   MPI_Add_error_class/code/string: new values above MPI_ERR_LASTCODE
 *   and MPI_LASTUSEDCODE following them, MPI_Error_class and
 *   MPI_Error_string of them (240 added), a user error handler called with one.
 *   MPI_Keyval_create/free, MPI_Attr_put/get/delete, MPI_DUP_FN; where
 *   the implementation still offers the names MPI 3.0 removed (all but
 *   Open MPI 4 built without MPI-1 compatibility): MPI_LB/MPI_UB in MPI_Type_struct (bounds, extent, a
 * message of two such elements), MPI_Type_hvector/hindexed, MPI_Type_extent/lb/ub, MPI_Address,
 * MPI_Errhandler_create/set/get. At MPI_Finalize the attributes of MPI_COMM_SELF are deleted first, last set
 * first, while MPI still works (section 8.7.1).
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes. Rank 0 prints "mpi_attr_test: OK (np=N, MPI-1 names
 * yes|no)" at the end; the first failed check prints
 * "FAIL mpi_attr_test.c:<line>: ..." and ends the job with a non-zero
 * status.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_attr_test"

#include "mpitest.h"

/* What the callbacks saw, per keyval (their extra_state). */
typedef struct {
    int copies, deletes;
    int fail;   /* callbacks return MPI_ERR_OTHER when set */
    int object; /* the last object (0: comm a, 1: comm b...) set by the test */
    void *last_value;
    MPI_Comm last_comm;
    MPI_Datatype last_type;
} Seen;

#define VALUE(n) ((void *)(intptr_t)(n))

/* Copies value v as v + 1. */
static int comm_copy_plus_one(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
    Seen *s = extra;
    (void)keyval;
    ++s->copies;
    s->last_comm = comm;
    if (s->fail) return MPI_ERR_OTHER;
    *(void **)out = VALUE((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int comm_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    Seen *s = extra;
    (void)keyval;
    ++s->deletes;
    s->last_comm = comm;
    s->last_value = value;
    return s->fail ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int type_copy_plus_one(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag) {
    Seen *s = extra;
    (void)keyval;
    ++s->copies;
    s->last_type = type;
    *(void **)out = VALUE((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype type, int keyval, void *value, void *extra) {
    Seen *s = extra;
    (void)keyval;
    ++s->deletes;
    s->last_type = type;
    s->last_value = value;
    return MPI_SUCCESS;
}

/* comm's attribute keyval is `value` (NULL: not set). */
static void expect_attr_at(int line, MPI_Comm comm, int keyval, void *value) {
    void *got = NULL;
    int flag = -1;
    if (MPI_Comm_get_attr(comm, keyval, &got, &flag) != MPI_SUCCESS)
        fail_at(line, "MPI_Comm_get_attr failed");
    if (value && (!flag || got != value)) fail_at(line, "flag %d, value %p; expected %p", flag, got, value);
    if (!value && flag) fail_at(line, "attribute set (%p); expected none", got);
}
#define EXPECT_ATTR(comm, keyval, value) expect_attr_at(__LINE__, comm, keyval, value)

static void test_comm_attrs(void) {
    Seen plus = {0}, dup = {0};
    int k_plus, k_null, k_dup;
    MPI_Comm a, b, c;
    MPI_Info info;

    MPI_OK(MPI_Comm_create_keyval(comm_copy_plus_one, comm_delete, &k_plus, &plus));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k_null, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, comm_delete, &k_dup, &dup));
    CHECK(k_plus != k_null && k_plus != k_dup && k_null != k_dup);

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_attr(a, k_plus, VALUE(10)));
    MPI_OK(MPI_Comm_set_attr(a, k_null, VALUE(20)));
    MPI_OK(MPI_Comm_set_attr(a, k_dup, VALUE(30)));
    EXPECT_ATTR(a, k_plus, VALUE(10));
    EXPECT_ATTR(a, k_null, VALUE(20));
    EXPECT_ATTR(a, k_dup, VALUE(30));
    EXPECT_ATTR(MPI_COMM_WORLD, k_plus, NULL);
    CHECK_EQ(plus.deletes + dup.deletes, 0);

    /* Dup: each copy callback once, with the old communicator. */
    MPI_OK(MPI_Comm_dup(a, &b));
    CHECK_EQ(plus.copies, 1);
    CHECK(plus.last_comm == a);
    EXPECT_ATTR(b, k_plus, VALUE(11));
    EXPECT_ATTR(b, k_null, NULL);
    EXPECT_ATTR(b, k_dup, VALUE(30));
    EXPECT_ATTR(a, k_plus, VALUE(10));

    /* A new value: the old one is deleted first. */
    MPI_OK(MPI_Comm_set_attr(b, k_plus, VALUE(50)));
    CHECK_EQ(plus.deletes, 1);
    CHECK(plus.last_comm == b && plus.last_value == VALUE(11));
    EXPECT_ATTR(b, k_plus, VALUE(50));

    MPI_OK(MPI_Comm_delete_attr(b, k_dup));
    CHECK_EQ(dup.deletes, 1);
    CHECK(dup.last_comm == b && dup.last_value == VALUE(30));
    EXPECT_ATTR(b, k_dup, NULL);
    EXPECT_ATTR(a, k_dup, VALUE(30));

    /* Free: the attributes left are deleted. */
    MPI_OK(MPI_Comm_free(&b));
    CHECK_EQ(plus.deletes, 2);
    CHECK(plus.last_value == VALUE(50));
    CHECK_EQ(dup.deletes, 1);

    /* Dup with info copies too. */
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Comm_dup_with_info(a, info, &c));
    MPI_OK(MPI_Info_free(&info));
    CHECK_EQ(plus.copies, 2);
    EXPECT_ATTR(c, k_plus, VALUE(11));
    EXPECT_ATTR(c, k_dup, VALUE(30));
    MPI_OK(MPI_Comm_free(&c));
    CHECK_EQ(plus.deletes, 3);
    CHECK_EQ(dup.deletes, 2);

    /* A freed keyval keys its attributes until they are gone. */
    MPI_OK(MPI_Comm_free_keyval(&k_plus));
    CHECK(k_plus == MPI_KEYVAL_INVALID);
    MPI_OK(MPI_Comm_free(&a));
    CHECK_EQ(plus.deletes, 4);
    CHECK(plus.last_value == VALUE(10));
    CHECK_EQ(dup.deletes, 3);
    MPI_OK(MPI_Comm_free_keyval(&k_null));
    MPI_OK(MPI_Comm_free_keyval(&k_dup));
}

/* A freed keyval, by the value the program saved, still reads and
 * deletes (through its callback) the attributes it keys (section 6.7.2). */
static void test_freed_keyval(void) {
    Seen s = {0};
    int k, saved;
    void *got = NULL;
    int flag = 0;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &k, &s));
    saved = k;
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k, VALUE(7)));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k, VALUE(8)));
    MPI_OK(MPI_Comm_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_SELF, saved, &got, &flag));
    CHECK(flag && got == VALUE(7));
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, saved));
    CHECK_EQ(s.deletes, 1);
    CHECK(s.last_value == VALUE(7) && s.last_comm == MPI_COMM_SELF);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_SELF, saved, &got, &flag));
    CHECK(!flag);
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, saved));
    CHECK_EQ(s.deletes, 2);
    CHECK(s.last_value == VALUE(8) && s.last_comm == MPI_COMM_WORLD);
}

static void test_failing_callbacks(void) {
    Seen s = {0};
    int k;
    MPI_Comm a, b = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_create_keyval(comm_copy_plus_one, comm_delete, &k, &s));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_attr(a, k, VALUE(1)));
    s.fail = 1;
    CHECK(MPI_Comm_dup(a, &b) != MPI_SUCCESS);
    CHECK(MPI_Comm_delete_attr(a, k) != MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(a, k, VALUE(2)) != MPI_SUCCESS);
    s.fail = 0;
    EXPECT_ATTR(a, k, VALUE(1));
    MPI_OK(MPI_Comm_free(&a));
    CHECK(s.last_value == VALUE(1));
    MPI_OK(MPI_Comm_free_keyval(&k));
}

static void test_keyval_errors(void) {
    Seen s = {0};
    int k_type, k_comm, tag_ub = MPI_TAG_UB;
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k_type, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, comm_delete, &k_comm, &s));
    /* A keyval of another kind, MPI_KEYVAL_INVALID, a predefined key set
     * or freed: errors, of a class the standard does not name (LWMPI:
     * MPI_ERR_KEYVAL; Open MPI: MPI_ERR_OTHER mostly). */
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, k_type, VALUE(1)) != MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(MPI_INT, k_comm, VALUE(1)) != MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, MPI_KEYVAL_INVALID, VALUE(1)) != MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, VALUE(1)) != MPI_SUCCESS);
    CHECK(MPI_Comm_free_keyval(&tag_ub) != MPI_SUCCESS);
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_NULL, k_comm, VALUE(1)), MPI_ERR_COMM);
    MPI_OK(MPI_Type_free_keyval(&k_type));
    MPI_OK(MPI_Comm_free_keyval(&k_comm));
    CHECK_EQ(s.deletes, 0);
}

static void test_type_attrs(void) {
    Seen s = {0};
    int k, flag = -1;
    void *v = NULL;
    MPI_Datatype t, u;
    MPI_OK(MPI_Type_create_keyval(type_copy_plus_one, type_delete, &k, &s));
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &t));
    MPI_OK(MPI_Type_set_attr(t, k, VALUE(100)));
    MPI_OK(MPI_Type_get_attr(t, k, &v, &flag));
    CHECK(flag && v == VALUE(100));
    MPI_OK(MPI_Type_dup(t, &u));
    CHECK_EQ(s.copies, 1);
    CHECK(s.last_type == t);
    MPI_OK(MPI_Type_get_attr(u, k, &v, &flag));
    CHECK(flag && v == VALUE(101));
    /* (The copy first: Open MPI deletes the attributes of a type when the
     * types built from it are gone too.) */
    MPI_OK(MPI_Type_free(&u));
    CHECK_EQ(s.deletes, 1);
    CHECK(s.last_value == VALUE(101));
    MPI_OK(MPI_Type_delete_attr(t, k));
    CHECK_EQ(s.deletes, 2);
    CHECK(s.last_type == t && s.last_value == VALUE(100));
    MPI_OK(MPI_Type_get_attr(t, k, &v, &flag));
    CHECK_EQ(flag, 0);
    MPI_OK(MPI_Type_free(&t));
    CHECK_EQ(s.deletes, 2);

    /* Predefined types hold attributes too. */
    MPI_OK(MPI_Type_set_attr(MPI_INT, k, VALUE(7)));
    MPI_OK(MPI_Type_get_attr(MPI_INT, k, &v, &flag));
    CHECK(flag && v == VALUE(7));
    MPI_OK(MPI_Type_delete_attr(MPI_INT, k));
    CHECK_EQ(s.deletes, 3);
    CHECK(s.last_type == MPI_INT);
    MPI_OK(MPI_Type_free_keyval(&k));
}

static void test_predefined(void) {
    int *v = NULL, flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v >= 32767);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    if (flag) CHECK(*v >= 1);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    if (flag) CHECK(*v >= 0);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *v >= MPI_ERR_LASTCODE);
}

static _Thread_local int handled = 0, handled_code = 0;

static void handler(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    ++handled;
    handled_code = *code;
}

static void test_error_codes(void) {
    int cls, code, code2, got = -1, len = -1, *last = NULL, flag = 0;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Errhandler h;
    MPI_Comm comm;

    MPI_OK(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_LASTCODE);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= cls);
    MPI_OK(MPI_Add_error_code(cls, &code));
    MPI_OK(MPI_Add_error_code(cls, &code2));
    CHECK(code != cls && code2 != cls && code != code2);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= code && *last >= code2);
    MPI_OK(MPI_Error_class(code, &got));
    CHECK_EQ(got, cls);
    MPI_OK(MPI_Error_class(code2, &got));
    CHECK_EQ(got, cls);

    MPI_OK(MPI_Error_string(code, text, &len)); /* no string yet: empty */
    CHECK_EQ(len, 0);
    MPI_OK(MPI_Add_error_string(code, "the frobnicator jammed"));
    MPI_OK(MPI_Add_error_string(cls, "frobnicator errors"));
    MPI_OK(MPI_Error_string(code, text, &len));
    CHECK(strcmp(text, "the frobnicator jammed") == 0 && len == (int)strlen(text));
    MPI_OK(MPI_Error_string(cls, text, &len));
    CHECK(strcmp(text, "frobnicator errors") == 0);
    EXPECT_CLASS(MPI_Add_error_string(MPI_ERR_ARG, "no"), MPI_ERR_ARG);

    /* Hundreds of them (MPICH's adderr adds 192), each keeping its class
     * and its text. */
    {
        enum { CLASSES = 40, CODES = 5 };
        int classes[CLASSES], codes[CLASSES][CODES];
        char want[64];
        for (int i = 0; i < CLASSES; ++i) {
            MPI_OK(MPI_Add_error_class(&classes[i]));
            for (int j = 0; j < CODES; ++j) {
                MPI_OK(MPI_Add_error_code(classes[i], &codes[i][j]));
                snprintf(want, sizeof want, "code %d of class %d", j, i);
                MPI_OK(MPI_Add_error_string(codes[i][j], want));
            }
        }
        for (int i = 0; i < CLASSES; ++i)
            for (int j = 0; j < CODES; ++j) {
                MPI_OK(MPI_Error_class(codes[i][j], &got));
                CHECK_EQ(got, classes[i]);
                MPI_OK(MPI_Error_string(codes[i][j], text, &len));
                snprintf(want, sizeof want, "code %d of class %d", j, i);
                CHECK(strcmp(text, want) == 0);
            }
        MPI_OK(MPI_Error_string(code, text, &len)); /* the first ones keep theirs */
        CHECK(strcmp(text, "the frobnicator jammed") == 0);
    }

    /* Handlers get the program's codes like any other. */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Comm_create_errhandler(handler, &h));
    MPI_OK(MPI_Comm_set_errhandler(comm, h));
    MPI_OK(MPI_Errhandler_free(&h));
    MPI_OK(MPI_Comm_call_errhandler(comm, code));
    CHECK_EQ(handled, 1);
    CHECK_EQ(handled_code, code);
    MPI_OK(MPI_Comm_free(&comm));
}

/* The MPI-2 names MPI 3.1 still has (deprecated). */
static void test_mpi2_names(void) {
    int k, flag = -1;
    void *v = NULL;
    MPI_Comm a;
    MPI_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL));
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, k, VALUE(5)));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Attr_get(a, k, &v, &flag));
    CHECK(flag && v == VALUE(5));
    MPI_OK(MPI_Attr_delete(a, k));
    MPI_OK(MPI_Attr_get(a, k, &v, &flag));
    CHECK_EQ(flag, 0);
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, k));
    MPI_OK(MPI_Keyval_free(&k));
    CHECK(k == MPI_KEYVAL_INVALID);
}

/* Open MPI 4 offers the names MPI 3.0 removed only when built with
 * --enable-mpi1-compatibility. */
#if !defined(OPEN_MPI) || OMPI_ENABLE_MPI1_COMPAT
#define HAVE_MPI1_NAMES 1
#endif

#ifdef HAVE_MPI1_NAMES
#define MPI1_NAMES "yes"
static void expect_bounds_at(int line, MPI_Datatype t, MPI_Aint lb, MPI_Aint ub) {
    MPI_Aint got_lb = -1, got_ub = -1, extent = -1;
    if (MPI_Type_lb(t, &got_lb) || MPI_Type_ub(t, &got_ub) || MPI_Type_extent(t, &extent))
        fail_at(line, "MPI_Type_lb/ub/extent failed");
    if (got_lb != lb || got_ub != ub || extent != ub - lb)
        fail_at(line, "lb %ld ub %ld extent %ld; expected lb %ld ub %ld", (long)got_lb, (long)got_ub,
                (long)extent, (long)lb, (long)ub);
}
#define EXPECT_BOUNDS(t, lb, ub) expect_bounds_at(__LINE__, t, lb, ub)

static _Thread_local int old_handled = 0;

static void old_handler(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    (void)code;
    ++old_handled;
}

/* The names MPI 3.0 removed. */
static void test_mpi1_names(void) {
    int lens[3] = {1, 1, 1}, buf[12], got[2] = {-1, -1}, size = -1;
    MPI_Aint disps[3] = {-8, 0, 16}, addr = 0, addr2 = 0;
    MPI_Datatype types[3] = {MPI_LB, MPI_INT, MPI_UB}, t, t2;
    MPI_Errhandler h, h2;
    MPI_Comm comm;

    MPI_OK(MPI_Address(&buf[3], &addr));
    MPI_OK(MPI_Get_address(&buf[3], &addr2));
    CHECK(addr == addr2);

    /* Explicit bounds: lb -8, ub 16, one int of data. */
    MPI_OK(MPI_Type_struct(3, lens, disps, types, &t));
    MPI_OK(MPI_Type_size(t, &size));
    CHECK_EQ(size, (int)sizeof(int));
    EXPECT_BOUNDS(t, -8, 16);
    /* The bounds stick in a type built from it. */
    MPI_OK(MPI_Type_contiguous(2, t, &t2));
    EXPECT_BOUNDS(t2, -8, 40);
    MPI_OK(MPI_Type_free(&t2));
    /* Two elements are 24 bytes apart: ints 0 and 6. */
    MPI_OK(MPI_Type_commit(&t));
    for (int i = 0; i < 12; ++i)
        buf[i] = 100 + i;
    MPI_OK(MPI_Sendrecv(buf, 2, t, 0, 3, got, 2, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(got[0] == 100 && got[1] == 106);
    MPI_OK(MPI_Type_free(&t));

    /* Only a lower bound marker: the upper bound is the data's, padded
     * to the int alignment: data 0..5, lb -4, extent 9 -> 12. */
    {
        int l2[3] = {1, 1, 1};
        MPI_Aint d2[3] = {-4, 0, 4};
        MPI_Datatype ty2[3] = {MPI_LB, MPI_INT, MPI_CHAR};
        MPI_OK(MPI_Type_struct(3, l2, d2, ty2, &t));
        EXPECT_BOUNDS(t, -4, 8);
        MPI_OK(MPI_Type_free(&t));
    }

    MPI_OK(MPI_Type_hvector(3, 1, 2 * sizeof(int), MPI_INT, &t));
    EXPECT_BOUNDS(t, 0, 5 * (MPI_Aint)sizeof(int));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_hindexed(2, lens, disps + 1, MPI_INT, &t)); /* ints at 0 and 16 */
    EXPECT_BOUNDS(t, 0, 16 + (MPI_Aint)sizeof(int));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Errhandler_create(old_handler, &h));
    MPI_OK(MPI_Errhandler_set(comm, h));
    MPI_OK(MPI_Errhandler_get(comm, &h2));
    CHECK(h2 == h);
    MPI_OK(MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER));
    CHECK_EQ(old_handled, 1);
    MPI_OK(MPI_Errhandler_free(&h2));
    MPI_OK(MPI_Errhandler_free(&h));
    MPI_OK(MPI_Comm_free(&comm));
}
#else
#define MPI1_NAMES "no"
#endif

/* ---- MPI_Finalize ---------------------------------------------------------- */

static _Thread_local int deleted[8], finalized_then[8], ndeleted = 0;

static int log_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm;
    (void)keyval;
    (void)extra;
    if (ndeleted == 8) return MPI_SUCCESS;
    MPI_Finalized(&finalized_then[ndeleted]);
    deleted[ndeleted++] = (int)(intptr_t)value;
    return MPI_SUCCESS;
}

static void set_finalize_attrs(void) {
    int k[4];
    for (int i = 0; i < 4; ++i)
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, log_delete, &k[i], NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k[0], VALUE(1)));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k[3], VALUE(4)));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k[1], VALUE(2)));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k[2], VALUE(3)));
    for (int i = 0; i < 4; ++i) /* they live on for their attributes */
        MPI_OK(MPI_Comm_free_keyval(&k[i]));
}

static void check_finalize_attrs(void) {
    phase = "after MPI_Finalize";
    CHECK(ndeleted >= 3);
    CHECK(deleted[0] == 3 && deleted[1] == 2 && deleted[2] == 1);
    CHECK(ndeleted == 3 || (ndeleted == 4 && deleted[3] == 4));
    CHECK(!finalized_then[0] && !finalized_then[1] && !finalized_then[2]);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    sync_all("communicator attributes");
    test_comm_attrs();
    sync_all("freed keyval");
    test_freed_keyval();
    sync_all("failing callbacks");
    test_failing_callbacks();
    sync_all("keyval errors");
    test_keyval_errors();
    sync_all("datatype attributes");
    test_type_attrs();
    sync_all("predefined attributes");
    test_predefined();
    sync_all("error codes");
    test_error_codes();
    sync_all("MPI-2 names");
    test_mpi2_names();
#ifdef HAVE_MPI1_NAMES
    sync_all("MPI-1 names");
    test_mpi1_names();
#endif
    sync_all("finalize");
    set_finalize_attrs();

    MPI_Finalize();
    check_finalize_attrs();
    if (me == 0) printf(NAME ": OK (np=%d, MPI-1 names " MPI1_NAMES ")\n", np);
    return 0;
}
