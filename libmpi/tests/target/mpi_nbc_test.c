/* The non-blocking collectives of MPI 3.1 section 5.12 and MPI_Alltoallw
 * (5.8): each one with every root, counts 1 and N, MPI_IN_PLACE where
 * allowed, a derived datatype and a non-commutative user operation, every
 * result against a sequential computation; several outstanding at once on
 * one communicator and on two, completed in different orders (Waitall,
 * Testany, Wait in reverse), mixed with blocking collectives and with
 * point-to-point traffic; an Ibarrier that must not complete before every
 * rank entered it; MPI_Comm_idup (two outstanding, with an Iallreduce
 * between them, then messages on each new communicator, isolated from
 * the parent's); the error classes of bad arguments.
 *
 * usage: mpi_nbc_test [N]   (N >= 4, default 100) */
#define NAME "mpi_nbc_test"
#include "mpitest.h"

#include <string.h>

static _Thread_local int big; /* N */
static _Thread_local long checks;

/* The value rank r contributes at index i. */
static int val(int r, int i) { return r * 1000 + i + 1; }

static void expect_int(const int *got, int i, int want) {
    ++checks;
    if (got[i] != want) FAIL("element %d is %d, expected %d", i, got[i], want);
}

/* Waits for `req`, testing it now and then as a program that computes
 * would. */
static void finish(MPI_Request *req) {
    int done = 0;
    for (int k = 0; k < 3 && !done; ++k)
        MPI_OK(MPI_Test(req, &done, MPI_STATUS_IGNORE));
    if (!done) MPI_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    CHECK(*req == MPI_REQUEST_NULL);
}

/* ---- the affine maps x -> a*x + b (mod 2^32): a non-commutative user
 * operation on a derived type of two unsigned ints ---- */

static _Thread_local MPI_Datatype affine;
static _Thread_local MPI_Op compose;

static void compose_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    const unsigned *f = in;
    unsigned *g = inout;
    (void)type;
    for (int i = 0; i < *len; ++i) { /* g := f o g */
        unsigned a = f[2 * i] * g[2 * i], b = f[2 * i] * g[2 * i + 1] + f[2 * i + 1];
        g[2 * i] = a;
        g[2 * i + 1] = b;
    }
}

static void affine_of(int r, int i, unsigned *m) {
    m[0] = 2u * (unsigned)(r + i) + 1u;
    m[1] = (unsigned)(r * 7 + i * 3);
}

/* x_lo o ... o x_hi at element i, in rank order. */
static void affine_fold(int lo, int hi, int i, unsigned *m) {
    affine_of(hi, i, m);
    for (int r = hi - 1; r >= lo; --r) {
        unsigned f[2];
        affine_of(r, i, f);
        int one = 1;
        compose_fn(f, m, &one, NULL);
    }
}

/* ---- one of each, checked ---- */

static void test_bcast(MPI_Comm comm, int n, int r) {
    phase = "Ibcast";
    int *buf = xmalloc(sizeof(int) * 2 * (size_t)big);
    for (int root = 0; root < n; ++root)
        for (int count = 1; count <= big; count += big - 1) {
            for (int i = 0; i < count; ++i)
                buf[i] = r == root ? val(root, i) : -1;
            MPI_Request req;
            MPI_OK(MPI_Ibcast(buf, count, MPI_INT, root, comm, &req));
            finish(&req);
            for (int i = 0; i < count; ++i)
                expect_int(buf, i, val(root, i));
        }
    /* A derived type: every other int of 2N. */
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_vector(big, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    for (int i = 0; i < 2 * big; ++i)
        buf[i] = r == n - 1 || i % 2 ? val(n - 1, i) : -1;
    MPI_Request req;
    MPI_OK(MPI_Ibcast(buf, 1, every_other, n - 1, comm, &req));
    MPI_OK(MPI_Type_free(&every_other)); /* the pending operation holds it */
    finish(&req);
    for (int i = 0; i < 2 * big; ++i)
        expect_int(buf, i, val(n - 1, i));
    free(buf);
}

static void test_gather_scatter(MPI_Comm comm, int n, int r) {
    int *mine = xmalloc(sizeof(int) * (size_t)big);
    int *all = xmalloc(sizeof(int) * (size_t)(big + 2) * (size_t)n);
    int *counts = xmalloc(sizeof(int) * (size_t)n), *displs = xmalloc(sizeof(int) * (size_t)n);
    int span = 0;
    for (int q = 0; q < n; ++q) { /* v-forms: counts 1.. with a gap of 2 */
        counts[q] = q % 3 + 1;
        displs[q] = span;
        span += counts[q] + 2;
    }
    for (int root = 0; root < n; ++root)
        for (int count = 1; count <= big; count += big - 1)
            for (int in_place = 0; in_place < 2; ++in_place) {
                MPI_Request req;
                phase = "Igather";
                for (int i = 0; i < count; ++i)
                    mine[i] = val(r, i);
                for (int i = 0; i < count * n; ++i)
                    all[i] = r == root && in_place && i / count == r ? val(r, i % count) : -1;
                const void *s = in_place && r == root ? MPI_IN_PLACE : mine;
                MPI_OK(MPI_Igather(s, count, MPI_INT, all, count, MPI_INT, root, comm, &req));
                finish(&req);
                for (int i = 0; r == root && i < count * n; ++i)
                    expect_int(all, i, val(i / count, i % count));

                phase = "Iscatter";
                for (int i = 0; i < count * n; ++i)
                    all[i] = r == root ? val(i / count, i % count) : -1;
                for (int i = 0; i < count; ++i)
                    mine[i] = -1;
                void *d = in_place && r == root ? MPI_IN_PLACE : mine;
                MPI_OK(MPI_Iscatter(all, count, MPI_INT, d, count, MPI_INT, root, comm, &req));
                finish(&req);
                for (int i = 0; d != MPI_IN_PLACE && i < count; ++i)
                    expect_int(mine, i, val(r, i));

                if (count != 1) continue;
                phase = "Igatherv";
                for (int i = 0; i < counts[r]; ++i)
                    mine[i] = val(r, i);
                for (int i = 0; i < span; ++i)
                    all[i] = -1;
                for (int i = 0; in_place && r == root && i < counts[r]; ++i)
                    all[displs[r] + i] = val(r, i);
                s = in_place && r == root ? MPI_IN_PLACE : mine;
                MPI_OK(MPI_Igatherv(s, counts[r], MPI_INT, all, counts, displs, MPI_INT, root, comm, &req));
                finish(&req);
                for (int q = 0; r == root && q < n; ++q) {
                    for (int i = 0; i < counts[q]; ++i)
                        expect_int(all, displs[q] + i, val(q, i));
                    expect_int(all, displs[q] + counts[q], -1); /* the gap is untouched */
                }

                phase = "Iscatterv";
                for (int q = 0; q < n; ++q)
                    for (int i = 0; i < counts[q]; ++i)
                        all[displs[q] + i] = r == root ? val(q, i) : -1;
                for (int i = 0; i < big; ++i)
                    mine[i] = -1;
                d = in_place && r == root ? MPI_IN_PLACE : mine;
                MPI_OK(MPI_Iscatterv(all, counts, displs, MPI_INT, d, counts[r], MPI_INT, root, comm, &req));
                finish(&req);
                for (int i = 0; d != MPI_IN_PLACE && i < counts[r]; ++i)
                    expect_int(mine, i, val(r, i));
            }
    free(mine);
    free(all);
    free(counts);
    free(displs);
}

static void test_allgather_alltoall(MPI_Comm comm, int n, int r) {
    int *mine = xmalloc(sizeof(int) * (size_t)big * (size_t)n);
    int *all = xmalloc(sizeof(int) * (size_t)(big + 2) * (size_t)n);
    int *counts = xmalloc(sizeof(int) * (size_t)n), *displs = xmalloc(sizeof(int) * (size_t)n);
    int *sc = xmalloc(sizeof(int) * (size_t)n), *sd = xmalloc(sizeof(int) * (size_t)n);
    MPI_Datatype *types = xmalloc(sizeof(MPI_Datatype) * (size_t)n);
    int span = 0;
    for (int q = 0; q < n; ++q) {
        counts[q] = (q + r) % 3 + 1; /* Alltoallv: what q sends me is (r+q)%3+1 */
        displs[q] = span;
        span += counts[q] + 1;
    }
    MPI_Request req;
    for (int count = 1; count <= big; count += big - 1)
        for (int in_place = 0; in_place < 2; ++in_place) {
            phase = "Iallgather";
            for (int i = 0; i < big; ++i)
                mine[i] = val(r, i);
            for (int i = 0; i < count * n; ++i)
                all[i] = in_place && i / count == r ? val(r, i % count) : -1;
            MPI_OK(MPI_Iallgather(in_place ? MPI_IN_PLACE : mine, count, MPI_INT, all, count, MPI_INT, comm,
                                  &req));
            finish(&req);
            for (int i = 0; i < count * n; ++i)
                expect_int(all, i, val(i / count, i % count));

            phase = "Iallgatherv";
            int vc[64], vd[64], vspan = 0; /* block q: q%3+1 elements, a gap of 1 */
            for (int q = 0; q < n && q < 64; ++q) {
                vc[q] = q % 3 + 1;
                vd[q] = vspan;
                vspan += vc[q] + 1;
            }
            for (int i = 0; i < vspan; ++i)
                all[i] = -1;
            for (int i = 0; in_place && i < vc[r]; ++i)
                all[vd[r] + i] = val(r, i);
            MPI_OK(MPI_Iallgatherv(in_place ? MPI_IN_PLACE : mine, vc[r], MPI_INT, all, vc, vd, MPI_INT, comm,
                                   &req));
            finish(&req);
            for (int q = 0; q < n; ++q) {
                for (int i = 0; i < vc[q]; ++i)
                    expect_int(all, vd[q] + i, val(q, i));
                expect_int(all, vd[q] + vc[q], -1);
            }

            phase = "Ialltoall"; /* block q of rank p: val(p, q*count + i) */
            int *src = in_place ? all : mine;
            for (int i = 0; i < count * n; ++i)
                src[i] = val(r, i);
            MPI_OK(MPI_Ialltoall(in_place ? MPI_IN_PLACE : mine, count, MPI_INT, all, count, MPI_INT, comm,
                                 &req));
            finish(&req);
            for (int i = 0; i < count * n; ++i)
                expect_int(all, i, val(i / count, r * count + i % count));
        }
    for (int in_place = 0; in_place < 2; ++in_place) {
        /* Alltoallv: rank p sends (p+q)%3+1 elements to q. In place, the
         * send and receive counts must agree: then both are counts[]. */
        phase = "Ialltoallv";
        int sspan = 0;
        for (int q = 0; q < n; ++q) {
            sc[q] = in_place ? counts[q] : (r + q) % 3 + 1;
            sd[q] = sspan;
            sspan += sc[q] + 1;
        }
        int *src = in_place ? all : mine;
        const int *sdispl = in_place ? displs : sd;
        for (int i = 0; i < span; ++i)
            all[i] = -1;
        for (int q = 0; q < n; ++q)
            for (int i = 0; i < sc[q]; ++i)
                src[sdispl[q] + i] = val(r, q * 10 + i);
        MPI_OK(MPI_Ialltoallv(in_place ? MPI_IN_PLACE : mine, sc, sd, MPI_INT, all, counts, displs, MPI_INT,
                              comm, &req));
        finish(&req);
        for (int q = 0; q < n; ++q) {
            for (int i = 0; i < counts[q]; ++i)
                expect_int(all, displs[q] + i, val(q, r * 10 + i));
            expect_int(all, displs[q] + counts[q], -1); /* the gap */
        }

        /* Alltoallw: to even ranks as ints, to odd ranks as one vector
         * type of 2 ints with a stride of 1 (the same signature); byte
         * displacements. Blocking and not. */
        for (int blocking = 0; blocking < 2; ++blocking) {
            phase = blocking ? "Alltoallw" : "Ialltoallw";
            MPI_Datatype pair;
            MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
            MPI_OK(MPI_Type_commit(&pair));
            int bspan = 0;
            for (int q = 0; q < n; ++q) { /* 2 ints between every pair */
                types[q] = q % 2 ? pair : MPI_INT;
                sc[q] = q % 2 ? 1 : 2;
                sd[q] = bspan * (int)sizeof(int);
                bspan += 3;
            }
            int *rc = counts, *rd = displs; /* reuse: what I receive from q is of types[q] too */
            int keep_c[64], keep_d[64];
            for (int q = 0; q < n; ++q) {
                keep_c[q] = counts[q];
                keep_d[q] = displs[q];
                rc[q] = sc[q];
                rd[q] = sd[q];
            }
            for (int i = 0; i < bspan; ++i) {
                all[i] = -1;
                (in_place ? all : mine)[i] = i % 3 == 2 ? -1 : val(r, (i / 3) * 10 + i % 3);
            }
            const void *s = in_place ? MPI_IN_PLACE : mine;
            if (blocking) {
                MPI_OK(MPI_Alltoallw(s, sc, sd, types, all, rc, rd, types, comm));
            } else {
                MPI_OK(MPI_Ialltoallw(s, sc, sd, types, all, rc, rd, types, comm, &req));
                finish(&req);
            }
            for (int q = 0; q < n; ++q) {
                expect_int(all, 3 * q, val(q, r * 10));
                expect_int(all, 3 * q + 1, val(q, r * 10 + 1));
                expect_int(all, 3 * q + 2, -1);
            }
            for (int q = 0; q < n; ++q) {
                counts[q] = keep_c[q];
                displs[q] = keep_d[q];
            }
            MPI_OK(MPI_Type_free(&pair));
        }
    }
    free(mine);
    free(all);
    free(counts);
    free(displs);
    free(sc);
    free(sd);
    free(types);
}

static void test_reductions(MPI_Comm comm, int n, int r) {
    int *in = xmalloc(sizeof(int) * (size_t)big * (size_t)n),
        *out = xmalloc(sizeof(int) * (size_t)big * (size_t)n);
    unsigned *fin = xmalloc(sizeof(unsigned) * 2 * (size_t)big),
             *fout = xmalloc(sizeof(unsigned) * 2 * (size_t)big);
    MPI_Request req;
    for (int count = 1; count <= big; count += big - 1) {
        for (int root = 0; root < n; ++root)
            for (int in_place = 0; in_place < 2; ++in_place) {
                phase = "Ireduce";
                for (int i = 0; i < count; ++i) {
                    in[i] = val(r, i);
                    out[i] = in_place && r == root ? val(r, i) : -1;
                }
                const void *s = in_place && r == root ? MPI_IN_PLACE : in;
                MPI_OK(MPI_Ireduce(s, out, count, MPI_INT, MPI_SUM, root, comm, &req));
                finish(&req);
                for (int i = 0; r == root && i < count; ++i)
                    expect_int(out, i, n * (i + 1) + 1000 * n * (n - 1) / 2);
                for (int i = 0; i < count; ++i)
                    expect_int(in, i, val(r, i)); /* the send buffer stays */

                phase = "Ireduce (user op)";
                for (int i = 0; i < count; ++i)
                    affine_of(r, i, fin + 2 * i);
                if (in_place && r == root) memcpy(fout, fin, sizeof(unsigned) * 2 * (size_t)count);
                s = in_place && r == root ? MPI_IN_PLACE : (const void *)fin;
                MPI_OK(MPI_Ireduce(s, fout, count, affine, compose, root, comm, &req));
                finish(&req);
                for (int i = 0; r == root && i < count; ++i) {
                    unsigned m[2];
                    affine_fold(0, n - 1, i, m);
                    ++checks;
                    if (fout[2 * i] != m[0] || fout[2 * i + 1] != m[1])
                        FAIL("element %d: wrong composition", i);
                }

                phase = "Ireduce (its type and operation freed while pending)";
                MPI_Datatype dup;
                MPI_Op again;
                MPI_OK(MPI_Type_dup(affine, &dup));
                MPI_OK(MPI_Op_create(compose_fn, 0, &again));
                MPI_OK(MPI_Ireduce(fin, fout, count, dup, again, root, comm, &req));
                MPI_OK(MPI_Type_free(&dup)); /* the pending operation holds them */
                MPI_OK(MPI_Op_free(&again));
                finish(&req);
                for (int i = 0; r == root && !in_place && i < count; ++i) {
                    unsigned m[2];
                    affine_fold(0, n - 1, i, m);
                    ++checks;
                    if (fout[2 * i] != m[0] || fout[2 * i + 1] != m[1])
                        FAIL("element %d: wrong composition", i);
                }
            }
        for (int in_place = 0; in_place < 2; ++in_place) {
            phase = "Iallreduce";
            for (int i = 0; i < count; ++i) {
                in[i] = val(r, i);
                out[i] = in_place ? in[i] : -1;
            }
            MPI_OK(MPI_Iallreduce(in_place ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_MAX, comm, &req));
            finish(&req);
            for (int i = 0; i < count; ++i)
                expect_int(out, i, val(n - 1, i));

            phase = "Ireduce_scatter_block";
            int *src = in_place ? out : in;
            for (int i = 0; i < count * n; ++i)
                src[i] = val(r, i);
            MPI_OK(MPI_Ireduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_SUM, comm,
                                             &req));
            finish(&req);
            for (int i = 0; i < count; ++i)
                expect_int(out, i, n * (r * count + i + 1) + 1000 * n * (n - 1) / 2);

            phase = "Ireduce_scatter";
            int rc[64], total = 0;
            for (int q = 0; q < n; ++q)
                total += rc[q] = (q % 2 ? count : 1);
            int before = 0;
            for (int q = 0; q < r; ++q)
                before += rc[q];
            for (int i = 0; i < total; ++i)
                src[i] = val(r, i);
            MPI_OK(MPI_Ireduce_scatter(in_place ? MPI_IN_PLACE : in, out, rc, MPI_INT, MPI_SUM, comm, &req));
            finish(&req);
            for (int i = 0; i < rc[r]; ++i)
                expect_int(out, i, n * (before + i + 1) + 1000 * n * (n - 1) / 2);

            phase = "Iscan and Iexscan (user op)";
            for (int i = 0; i < count; ++i) {
                affine_of(r, i, fin + 2 * i);
                fout[2 * i] = fout[2 * i + 1] = 7;
            }
            if (in_place) memcpy(fout, fin, sizeof(unsigned) * 2 * (size_t)count);
            MPI_OK(MPI_Iscan(in_place ? MPI_IN_PLACE : fin, fout, count, affine, compose, comm, &req));
            finish(&req);
            for (int i = 0; i < count; ++i) {
                unsigned m[2];
                affine_fold(0, r, i, m);
                ++checks;
                if (fout[2 * i] != m[0] || fout[2 * i + 1] != m[1]) FAIL("Iscan element %d", i);
            }
            for (int i = 0; i < count; ++i)
                fout[2 * i] = fout[2 * i + 1] = 7;
            if (in_place) memcpy(fout, fin, sizeof(unsigned) * 2 * (size_t)count);
            MPI_OK(MPI_Iexscan(in_place ? MPI_IN_PLACE : fin, fout, count, affine, compose, comm, &req));
            finish(&req);
            for (int i = 0; r > 0 && i < count; ++i) {
                unsigned m[2];
                affine_fold(0, r - 1, i, m);
                ++checks;
                if (fout[2 * i] != m[0] || fout[2 * i + 1] != m[1]) FAIL("Iexscan element %d", i);
            }
        }
    }
    free(in);
    free(out);
    free(fin);
    free(fout);
}

/* ---- several at once ---- */

/* Five collectives outstanding on `a` and three on `b`, started in the
 * same order everywhere, completed in a rank-dependent order, mixed with
 * blocking collectives and with a ring of point-to-point messages. */
static void test_outstanding(MPI_Comm a, MPI_Comm b, int n, int r) {
    phase = "several outstanding";
    enum { K = 8 };
    int bc[K], ar[K], ga[K * 64], bar_done = 0, b1[K], b2[K], ring = -1;
    MPI_Request req[9];
    for (int i = 0; i < K; ++i) {
        bc[i] = r == 0 ? val(0, i) : -1;
        ar[i] = val(r, i);
        b1[i] = r == n - 1 ? val(n - 1, i) : -1;
    }
    MPI_OK(MPI_Ibcast(bc, K, MPI_INT, 0, a, &req[0]));
    MPI_OK(MPI_Ibcast(b1, K, MPI_INT, n - 1, b, &req[1])); /* another communicator */
    MPI_OK(MPI_Iallreduce(MPI_IN_PLACE, ar, K, MPI_INT, MPI_SUM, a, &req[2]));
    MPI_OK(MPI_Ibarrier(a, &req[3]));
    MPI_OK(MPI_Igather(&r, 1, MPI_INT, ga, 1, MPI_INT, n - 1, a, &req[4]));
    MPI_OK(MPI_Iallreduce(&r, b2, 1, MPI_INT, MPI_MAX, b, &req[5]));
    /* Blocking collectives while those are pending (5.12 orders them). */
    int x = r, y = -1;
    MPI_OK(MPI_Bcast(&x, 1, MPI_INT, n / 2, a));
    CHECK_EQ(x, n / 2);
    MPI_OK(MPI_Allreduce(&r, &y, 1, MPI_INT, MPI_MIN, a));
    CHECK_EQ(y, 0);
    /* A ring of messages on `a` (point-to-point: its own context). */
    MPI_OK(MPI_Irecv(&ring, 1, MPI_INT, (r + n - 1) % n, 5, a, &req[6]));
    MPI_OK(MPI_Isend(&r, 1, MPI_INT, (r + 1) % n, 5, a, &req[7]));
    MPI_OK(MPI_Ibarrier(b, &req[8]));
    if (r % 3 == 0) {
        MPI_OK(MPI_Waitall(9, req, MPI_STATUSES_IGNORE));
    } else if (r % 3 == 1) { /* the last ones first */
        for (int i = 8; i >= 0; --i)
            MPI_OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    } else { /* whichever is ready */
        for (int left = 9; left > 0;) {
            int idx = -1, flag = 0;
            MPI_OK(MPI_Testany(9, req, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                CHECK(idx >= 0 && idx < 9 && req[idx] == MPI_REQUEST_NULL);
                --left;
            }
        }
    }
    bar_done = 1;
    for (int i = 0; i < K; ++i) {
        expect_int(bc, i, val(0, i));
        expect_int(b1, i, val(n - 1, i));
        expect_int(ar, i, n * (i + 1) + 1000 * n * (n - 1) / 2);
    }
    for (int q = 0; r == n - 1 && q < n; ++q)
        expect_int(ga, q, q);
    CHECK_EQ(b2[0], n - 1);
    CHECK_EQ(ring, (r + n - 1) % n);
    CHECK(bar_done);

    /* Many of one kind at once: later ones may finish first. */
    phase = "a window of Iallreduce";
    enum { W = 24 };
    int win[W];
    MPI_Request wr[W];
    for (int k = 0; k < W; ++k) {
        win[k] = r + k;
        MPI_OK(MPI_Iallreduce(MPI_IN_PLACE, &win[k], 1, MPI_INT, MPI_SUM, a, &wr[k]));
    }
    for (int k = W - 1; k >= 0; --k)
        MPI_OK(MPI_Wait(&wr[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < W; ++k)
        expect_int(win, k, n * (n - 1) / 2 + n * k);

    /* Progress while waiting on something else: rank 0's receive is
     * satisfied only after rank n-1's Ibcast has completed, which needs
     * every rank's part. */
    phase = "progress through other requests";
    int v = r == 0 ? 42 : -1, token = -1;
    MPI_Request q;
    MPI_OK(MPI_Ibcast(&v, 1, MPI_INT, 0, a, &q));
    if (r == n - 1) {
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 9, a));
    }
    if (r == 0) {
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, n - 1, 9, a, MPI_STATUS_IGNORE));
        CHECK_EQ(token, 42);
    }
    if (r != n - 1) MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK_EQ(v, 42);
}

/* No Ibarrier completes before every rank entered it: the last rank waits
 * a little before entering (probing for messages), and the others send
 * it a flag as soon as theirs completes: none may arrive before it entered. */
static void test_ibarrier(MPI_Comm comm, int n, int r) {
    phase = "Ibarrier";
    for (int round = 0; round < 3; ++round) {
        MPI_Request req;
        if (r == n - 1) {
            int flag = 0;
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.02) {
                MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 78, comm, &flag, MPI_STATUS_IGNORE));
                if (flag) FAIL("an Ibarrier completed before rank %d entered it", r);
            }
            MPI_OK(MPI_Ibarrier(comm, &req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int q = 0; q < n - 1; ++q)
                MPI_OK(MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 78, comm, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Ibarrier(comm, &req));
            int done = 0;
            while (!done)
                MPI_OK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Send(NULL, 0, MPI_INT, n - 1, 78, comm));
        }
        ++checks;
    }
}

/* ---- bad arguments ---- */

static void test_errors(MPI_Comm comm, int n) {
    phase = "error classes";
    int buf[4] = {0, 0, 0, 0};
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Ibcast(buf, 1, MPI_INT, n, comm, &req), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Ireduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, -1, comm, &req), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Iallreduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, comm, &req), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Iallreduce(buf, buf + 1, -1, MPI_INT, MPI_SUM, comm, &req), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Ibcast(buf, 1, MPI_DATATYPE_NULL, 0, comm, &req), MPI_ERR_TYPE);
    /* Open MPI does not check for NULL buffers here (it crashes): the check
     * is left out there, saying so. */
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_OK(MPI_Get_library_version(version, &len));
    if (strstr(version, "Open MPI")) {
        if (me == 0) printf(NAME ": note: no MPI_ERR_BUFFER check under Open MPI\n");
    } else {
        EXPECT_CLASS(MPI_Iallgather(NULL, 1, MPI_INT, buf, 1, MPI_INT, comm, &req), MPI_ERR_BUFFER);
    }
    EXPECT_CLASS(MPI_Iscan(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, comm, &req), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Ibarrier(MPI_COMM_NULL, &req), MPI_ERR_COMM);
    CHECK(req == MPI_REQUEST_NULL);
    MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

/* Two idups of comm outstanding with an Iallreduce between them, completed
 * in reverse order; then each new communicator carries its own messages
 * (a receive posted first on the parent must not take them). */
static void test_idup(MPI_Comm comm, int n, int r) {
    phase = "Comm_idup";
    MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
    MPI_Request req[3];
    int sum = -1, one = r;
    MPI_OK(MPI_Comm_idup(comm, &a, &req[0]));
    MPI_OK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm, &req[1]));
    MPI_OK(MPI_Comm_idup(comm, &b, &req[2]));
    for (int i = 2; i >= 0; --i)
        finish(&req[i]);
    ++checks;
    if (sum != n * (n - 1) / 2) FAIL("Iallreduce between idups gave %d", sum);
    int size = -1, rank = -1, result = -1;
    MPI_OK(MPI_Comm_size(a, &size));
    MPI_OK(MPI_Comm_rank(b, &rank));
    MPI_OK(MPI_Comm_compare(comm, a, &result));
    CHECK(size == n && rank == r && result == MPI_CONGRUENT);
    CHECK(a != b);
    const int next = (r + 1) % n, prev = (r + n - 1) % n;
    int on_parent = -1, on_a = -1, on_b = -1, va = 100 + r, vb = 200 + r;
    MPI_Request parent;
    MPI_OK(MPI_Irecv(&on_parent, 1, MPI_INT, MPI_ANY_SOURCE, 7, comm, &parent));
    MPI_OK(MPI_Sendrecv(&va, 1, MPI_INT, next, 7, &on_a, 1, MPI_INT, prev, 7, a, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Sendrecv(&vb, 1, MPI_INT, next, 7, &on_b, 1, MPI_INT, prev, 7, b, MPI_STATUS_IGNORE));
    CHECK(on_a == 100 + prev && on_b == 200 + prev);
    int done = 1;
    MPI_OK(MPI_Test(&parent, &done, MPI_STATUS_IGNORE));
    CHECK(!done);
    MPI_OK(MPI_Barrier(a)); /* every rank has tested before any sends on comm */
    MPI_OK(MPI_Send(&r, 1, MPI_INT, next, 7, comm));
    MPI_OK(MPI_Wait(&parent, MPI_STATUS_IGNORE));
    CHECK(on_parent == prev);
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_free(&b));
}

static void run_all(MPI_Comm comm) {
    int n, r;
    MPI_OK(MPI_Comm_size(comm, &n));
    MPI_OK(MPI_Comm_rank(comm, &r));
    MPI_Comm other;
    MPI_OK(MPI_Comm_dup(comm, &other));
    test_bcast(comm, n, r);
    test_gather_scatter(comm, n, r);
    test_allgather_alltoall(comm, n, r);
    test_reductions(comm, n, r);
    test_outstanding(comm, other, n, r);
    test_ibarrier(comm, n, r);
    MPI_OK(MPI_Comm_free(&other));
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    big = argc > 1 ? atoi(argv[1]) : 100;
    if (big < 4 || np > 64) {
        if (me == 0) printf("usage: " NAME " [N >= 4] (at most 64 processes)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &affine));
    MPI_OK(MPI_Type_commit(&affine));
    MPI_OK(MPI_Op_create(compose_fn, 0, &compose));
    double t0 = MPI_Wtime();

    run_all(MPI_COMM_WORLD);
    /* Even and odd ranks, in reverse order. */
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &half));
    run_all(half);
    MPI_OK(MPI_Comm_free(&half));
    test_idup(MPI_COMM_WORLD, np, me);
    test_errors(MPI_COMM_WORLD, np);

    long all_checks = 0;
    MPI_OK(MPI_Reduce(&checks, &all_checks, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    double t = MPI_Wtime() - t0;
    MPI_OK(MPI_Op_free(&compose));
    MPI_OK(MPI_Type_free(&affine));
    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d, N=%d, %ld checks, %.2f s)\n", np, big, all_checks, t);
    return 0;
}
