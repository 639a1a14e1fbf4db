/*
 * mpi_p2p_test: MPI point-to-point communication (MPI 3.1 chapter 3).
 *
 *   every send mode, blocking and not (Send, Ssend, Bsend with
 *   Buffer_attach/detach, Rsend after a posted receive, Isend, Issend,
 *   Ibsend, Irsend), Recv and Irecv, for messages of 0 B, 1 B, < 100 B,
 *   ~1-4 KB, 64 KB and 256 KB (so an implementation's eager and
 *   rendezvous protocols both run); Issend and Irecv that cannot complete
 *   yet; Wait, Test and the multiple-completion calls with
 *   MPI_REQUEST_NULL entries and MPI_UNDEFINED results; Request_free;
 *   Probe and Iprobe; Sendrecv and Sendrecv_replace; persistent requests
 *   started several times; MPI_PROC_NULL; MPI_ANY_SOURCE and MPI_ANY_TAG;
 *   MPI_STATUS(ES)_IGNORE; Get_count and Get_elements (MPI_UNDEFINED);
 *   sends to oneself; non-overtaking order of mixed sizes; small blocking
 *   sends head to head.
 *
 * usage: mpi_p2p_test [MAX_BYTES [ORDER_MESSAGES]]
 *   MAX_BYTES       largest message (default 262144; sizes above it are
 *                   left out)
 *   ORDER_MESSAGES  messages of the ordering test (default 40)
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes (pair tests pair rank 2k with 2k+1; an odd last rank only
 * takes part in the tests of all ranks). Rank 0 prints
 * "mpi_p2p_test: OK" at the end; the first failed check prints
 * "FAIL mpi_p2p_test.c:<line>: ..." and ends the job with a non-zero
 * status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_p2p_test"

#include "mpitest.h"

static _Thread_local int peer = -1; /* partner of the pair tests, or -1 */
static _Thread_local long max_bytes = 262144;
static _Thread_local int order_messages = 40;

/* ---- Data patterns -------------------------------------------------- */

static unsigned char pattern(int seed, long i) {
    unsigned long x = (unsigned long)i * 2654435761UL + (unsigned long)seed * 40503UL;
    return (unsigned char)(x ^ (x >> 13) ^ (unsigned long)seed);
}

static void fill(void *buf, long n, int seed) {
    unsigned char *p = buf;
    for (long i = 0; i < n; ++i)
        p[i] = pattern(seed, i);
}

static void verify_at(int line, const void *buf, long n, int seed, const char *what) {
    const unsigned char *p = buf;
    for (long i = 0; i < n; ++i)
        if (p[i] != pattern(seed, i))
            fail_at(line, "%s: byte %ld of %ld is 0x%02x, expected 0x%02x", what, i, n, p[i],
                    pattern(seed, i));
}
#define VERIFY(buf, n, seed, what) verify_at(__LINE__, buf, n, seed, what)

#define GUARD 0xA5
/* A receive buffer: n bytes of 0xEE then a guard byte that must survive. */
static void prepare(unsigned char *buf, long n) {
    memset(buf, 0xEE, (size_t)n);
    buf[n] = GUARD;
}

static void check_status_at(int line, const MPI_Status *st, int src, int tag, long bytes) {
    int count = -2;
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag)
        fail_at(line, "status source %d tag %d, expected source %d tag %d", st->MPI_SOURCE, st->MPI_TAG, src,
                tag);
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count != bytes) fail_at(line, "MPI_Get_count: %d bytes, expected %ld", count, bytes);
}
#define CHECK_STATUS(st, src, tag, bytes) check_status_at(__LINE__, st, src, tag, bytes)

/* The status of an empty request (MPI_REQUEST_NULL, an inactive persistent
 * request): source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0 (3.7.3). */
static void check_empty_at(int line, const MPI_Status *st) {
    int count = -2;
    if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG)
        fail_at(line, "empty status expected, got source %d tag %d", st->MPI_SOURCE, st->MPI_TAG);
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count != 0) fail_at(line, "empty status expected, got a count of %d", count);
}
#define CHECK_EMPTY(st) check_empty_at(__LINE__, st)

/* The status of a communication with MPI_PROC_NULL (3.11). */
static void check_proc_null_at(int line, const MPI_Status *st) {
    int count = -2;
    if (st->MPI_SOURCE != MPI_PROC_NULL || st->MPI_TAG != MPI_ANY_TAG)
        fail_at(line, "MPI_PROC_NULL status expected, got source %d tag %d", st->MPI_SOURCE, st->MPI_TAG);
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count != 0) fail_at(line, "MPI_PROC_NULL status expected, got a count of %d", count);
}
#define CHECK_PROC_NULL(st) check_proc_null_at(__LINE__, st)

static void garble(MPI_Status *st) { memset(st, 0x5c, sizeof *st); }

/* Spin on MPI_Wtime for `seconds` (lets messages that should not arrive
 * have a chance to). */
static void pause_for(double seconds) {
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < seconds)
        ;
}

/* ---- Send modes ------------------------------------------------------ */

enum { M_SEND, M_SSEND, M_BSEND, M_RSEND, M_ISEND, M_ISSEND, M_IBSEND, M_IRSEND, NMODES };
static const char *const mode_names[NMODES] = {"Send",  "Ssend",  "Bsend",  "Rsend",
                                               "Isend", "Issend", "Ibsend", "Irsend"};
enum { T_READY = 90, T_MODES = 100 };

static void send_in_mode(int mode, const void *buf, int n, int dest, int tag) {
    MPI_Request req = MPI_REQUEST_NULL;
    if (mode == M_RSEND || mode == M_IRSEND) /* the receive is posted: wait for word */
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, dest, T_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    switch (mode) {
    case M_SEND: MPI_OK(MPI_Send(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    case M_SSEND: MPI_OK(MPI_Ssend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    case M_BSEND: MPI_OK(MPI_Bsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    case M_RSEND: MPI_OK(MPI_Rsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    case M_ISEND: MPI_OK(MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)); break;
    case M_ISSEND: MPI_OK(MPI_Issend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)); break;
    case M_IBSEND: MPI_OK(MPI_Ibsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)); break;
    case M_IRSEND: MPI_OK(MPI_Irsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)); break;
    }
    if (mode >= M_ISEND) {
        CHECK(req != MPI_REQUEST_NULL);
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(req == MPI_REQUEST_NULL);
    }
}

static void recv_for_mode(int mode, unsigned char *buf, long cap, int src, int tag, long n, int seed,
                          int use_irecv) {
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    garble(&st);
    prepare(buf, cap);
    if (mode == M_RSEND || mode == M_IRSEND) {
        MPI_OK(MPI_Irecv(buf, (int)cap, MPI_BYTE, src, tag, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, src, T_READY, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&req, &st));
        CHECK(req == MPI_REQUEST_NULL);
    } else if (use_irecv) {
        MPI_OK(MPI_Irecv(buf, (int)cap, MPI_BYTE, src, tag, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Wait(&req, &st));
        CHECK(req == MPI_REQUEST_NULL);
    } else {
        MPI_OK(MPI_Recv(buf, (int)cap, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    }
    CHECK_STATUS(&st, src, tag, n);
    VERIFY(buf, n, seed, mode_names[mode]);
    if (buf[cap] != GUARD) FAIL("%s of %ld bytes wrote past the receive buffer", mode_names[mode], n);
    if (n < cap && buf[n] != 0xEE) FAIL("%s of %ld bytes wrote past the message", mode_names[mode], n);
}

static const long all_sizes[] = {0, 1, 60, 1000, 4096, 65536, 262144};
#define NSIZES ((int)(sizeof all_sizes / sizeof all_sizes[0]))

static void test_modes(void) {
    if (peer < 0) return;
    long cap = max_bytes;
    unsigned char *sbuf = xmalloc((size_t)cap), *rbuf = xmalloc((size_t)cap + 1);
    int packed = 0;
    MPI_OK(MPI_Pack_size((int)cap, MPI_BYTE, MPI_COMM_WORLD, &packed));
    /* Room for two buffered messages: a Bsend's may still be there when
     * the Ibsend two modes later starts. */
    int bsize = 2 * (packed + MPI_BSEND_OVERHEAD);
    void *bbuf = xmalloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(bbuf, bsize));

    for (int s = 0; s < NSIZES; ++s) {
        long n = all_sizes[s];
        if (n > max_bytes) continue;
        for (int mode = 0; mode < NMODES; ++mode)
            for (int dir = 0; dir < 2; ++dir) {
                int seed = s * 64 + mode * 2 + dir, tag = T_MODES + mode;
                int sender = (me % 2) == dir;
                if (sender) {
                    fill(sbuf, n, seed);
                    send_in_mode(mode, sbuf, (int)n, peer, tag);
                } else {
                    recv_for_mode(mode, rbuf, cap, peer, tag, n, seed, (s + mode) % 2);
                }
            }
    }

    void *addr = NULL;
    int size = -1;
    MPI_OK(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == bbuf);
    CHECK_EQ(size, bsize);
    free(bbuf);
    free(sbuf);
    free(rbuf);
}

/* MPI_Rsend after a barrier that follows the posted receive (the usual
 * way to know that the receive is there). All ranks take part. */
static void test_rsend_barrier(void) {
    long n = max_bytes < 65536 ? max_bytes : 65536;
    unsigned char *buf = xmalloc((size_t)n + 1);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    for (int dir = 0; dir < 2; ++dir) {
        int sender = peer >= 0 && (me % 2) == dir, receiver = peer >= 0 && !sender;
        long len = dir ? 12 : n;
        if (receiver) {
            prepare(buf, n);
            MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, peer, 110, MPI_COMM_WORLD, &req));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (sender) {
            fill(buf, len, 7 + dir);
            MPI_OK(MPI_Rsend(buf, (int)len, MPI_BYTE, peer, 110, MPI_COMM_WORLD));
        }
        if (receiver) {
            MPI_OK(MPI_Wait(&req, &st));
            CHECK_STATUS(&st, peer, 110, len);
            VERIFY(buf, len, 7 + dir, "Rsend after a barrier");
            CHECK(buf[n] == GUARD);
        }
    }
    free(buf);
}

/* ---- Requests that cannot complete yet ------------------------------ */

static void test_not_yet(void) {
    if (peer < 0) return;
    int a[16], b[16], flag = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    for (int dir = 0; dir < 2; ++dir) {
        int sender = (me % 2) == dir;
        /* An Issend cannot complete before its receive is posted; the
         * receiver posts it only after the word (tag 201) that the sender
         * sends after testing. */
        if (sender) {
            for (int i = 0; i < 16; ++i)
                a[i] = i * 3 + dir;
            MPI_OK(MPI_Issend(a, 16, MPI_INT, peer, 200, MPI_COMM_WORLD, &req));
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.005) {
                MPI_OK(MPI_Test(&req, &flag, &st));
                if (flag) FAIL("MPI_Issend completed before a matching receive was posted");
            }
            CHECK(req != MPI_REQUEST_NULL);
            MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 201, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Recv(NULL, 0, MPI_INT, peer, 201, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Recv(b, 16, MPI_INT, peer, 200, MPI_COMM_WORLD, &st));
            CHECK_STATUS(&st, peer, 200, 16 * (long)sizeof(int));
            for (int i = 0; i < 16; ++i)
                CHECK_EQ(b[i], i * 3 + dir);
        }
        /* An Irecv cannot complete before its message is sent; the sender
         * sends it only after the word (tag 203). */
        if (!sender) {
            MPI_OK(MPI_Irecv(b, 16, MPI_INT, peer, 202, MPI_COMM_WORLD, &req));
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.005) {
                MPI_OK(MPI_Test(&req, &flag, &st));
                if (flag) FAIL("MPI_Irecv completed before its message was sent");
            }
            MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 203, MPI_COMM_WORLD));
            flag = 0;
            while (!flag) /* MPI_Test alone must make progress (3.7.4) */
                MPI_OK(MPI_Test(&req, &flag, &st));
            CHECK(req == MPI_REQUEST_NULL);
            CHECK_STATUS(&st, peer, 202, 16 * (long)sizeof(int));
            for (int i = 0; i < 16; ++i)
                CHECK_EQ(b[i], 1000 + i);
        } else {
            MPI_OK(MPI_Recv(NULL, 0, MPI_INT, peer, 203, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < 16; ++i)
                a[i] = 1000 + i;
            MPI_OK(MPI_Send(a, 16, MPI_INT, peer, 202, MPI_COMM_WORLD));
        }
    }
}

/* ---- Completion calls ------------------------------------------------ */

static void test_null_requests(void) {
    MPI_Request reqs[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[4];
    int flag = -1, index = -1, outcount = -1, indices[4];

    garble(&st);
    MPI_OK(MPI_Wait(&reqs[0], &st));
    CHECK_EMPTY(&st);
    garble(&st);
    MPI_OK(MPI_Test(&reqs[0], &flag, &st));
    CHECK_EQ(flag, 1);
    CHECK_EMPTY(&st);

    garble(&st);
    MPI_OK(MPI_Waitany(4, reqs, &index, &st));
    CHECK_EQ(index, MPI_UNDEFINED);
    CHECK_EMPTY(&st);
    MPI_OK(MPI_Waitany(0, reqs, &index, MPI_STATUS_IGNORE));
    CHECK_EQ(index, MPI_UNDEFINED);

    garble(&st);
    flag = -1;
    MPI_OK(MPI_Testany(4, reqs, &index, &flag, &st));
    CHECK_EQ(flag, 1);
    CHECK_EQ(index, MPI_UNDEFINED);
    CHECK_EMPTY(&st);

    MPI_OK(MPI_Waitsome(4, reqs, &outcount, indices, sts));
    CHECK_EQ(outcount, MPI_UNDEFINED);
    outcount = -1;
    MPI_OK(MPI_Testsome(4, reqs, &outcount, indices, sts));
    CHECK_EQ(outcount, MPI_UNDEFINED);

    for (int i = 0; i < 4; ++i)
        garble(&sts[i]);
    MPI_OK(MPI_Waitall(4, reqs, sts));
    for (int i = 0; i < 4; ++i)
        CHECK_EMPTY(&sts[i]);
    flag = -1;
    MPI_OK(MPI_Testall(4, reqs, &flag, sts));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Waitall(0, reqs, MPI_STATUSES_IGNORE));
}

enum { NREQ = 8, T_COMPLETE = 300 };
enum { V_WAITANY, V_WAITSOME, V_TESTANY, V_TESTSOME, V_TESTALL, V_WAITALL, NVARIANTS };
static const char *const variant_names[NVARIANTS] = {"Waitany",  "Waitsome", "Testany",
                                                     "Testsome", "Testall",  "Waitall"};

/* The receiver posts NREQ receives (slots 0 and 5 stay MPI_REQUEST_NULL),
 * each with its own tag and size; the sender sends them in another order,
 * small and large. The receiver completes them with one of the
 * multiple-completion calls and checks each slot completes once, with its
 * own message. */
static void test_completion(void) {
    if (peer < 0) return;
    enum { SLOT_BYTES = 20000 };
    static const int order[NREQ] = {3, 7, 1, 4, 6, 2, 0, 5};
    unsigned char *buf = xmalloc((size_t)NREQ * (SLOT_BYTES + 1));
    for (int v = 0; v < NVARIANTS; ++v) {
        int tag0 = T_COMPLETE + 10 * v;
        long len[NREQ];
        for (int i = 0; i < NREQ; ++i)
            len[i] = (i % 3 == 0) ? SLOT_BYTES : 8 * i + v; /* some large, some small */
        if (me % 2 == v % 2) {
            /* Sender: Isend all, in `order`, then complete them with
             * Waitall or Testall. */
            MPI_Request sreq[NREQ];
            int nsend = 0;
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int k = 0; k < NREQ; ++k) {
                int i = order[k];
                if (i == 0 || i == 5) continue;
                unsigned char *p = buf + (size_t)i * (SLOT_BYTES + 1);
                fill(p, len[i], 1000 * v + i);
                MPI_OK(MPI_Isend(p, (int)len[i], MPI_BYTE, peer, tag0 + i, MPI_COMM_WORLD, &sreq[nsend++]));
            }
            if (v % 2) {
                int flag = 0;
                while (!flag)
                    MPI_OK(MPI_Testall(nsend, sreq, &flag, MPI_STATUSES_IGNORE));
            } else {
                MPI_OK(MPI_Waitall(nsend, sreq, MPI_STATUSES_IGNORE));
            }
            for (int k = 0; k < nsend; ++k)
                CHECK(sreq[k] == MPI_REQUEST_NULL);
            continue;
        }
        /* Receiver. */
        MPI_Request req[NREQ];
        MPI_Status sts[NREQ], all[NREQ], st;
        int done[NREQ] = {0}, ndone = 0, indices[NREQ], outcount = -1, index = -1, flag = 0;
        for (int i = 0; i < NREQ; ++i) {
            unsigned char *p = buf + (size_t)i * (SLOT_BYTES + 1);
            prepare(p, SLOT_BYTES);
            req[i] = MPI_REQUEST_NULL;
            if (i != 0 && i != 5)
                MPI_OK(MPI_Irecv(p, SLOT_BYTES, MPI_BYTE, peer, tag0 + i, MPI_COMM_WORLD, &req[i]));
        }
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, T_READY, MPI_COMM_WORLD));
        const int expected = NREQ - 2;
        while (ndone < expected) {
            int got[NREQ], ngot = 0;
            switch (v) {
            case V_WAITANY:
                garble(&st);
                MPI_OK(MPI_Waitany(NREQ, req, &index, &st));
                CHECK(index >= 0 && index < NREQ);
                got[ngot] = index;
                sts[ngot++] = st;
                break;
            case V_TESTANY:
                garble(&st);
                index = -7;
                MPI_OK(MPI_Testany(NREQ, req, &index, &flag, &st));
                if (!flag) {
                    CHECK_EQ(index, MPI_UNDEFINED);
                    break;
                }
                CHECK(index >= 0 && index < NREQ);
                got[ngot] = index;
                sts[ngot++] = st;
                break;
            case V_WAITSOME:
            case V_TESTSOME:
                if (v == V_WAITSOME)
                    MPI_OK(MPI_Waitsome(NREQ, req, &outcount, indices, sts));
                else
                    MPI_OK(MPI_Testsome(NREQ, req, &outcount, indices, sts));
                CHECK(outcount >= (v == V_WAITSOME ? 1 : 0) && outcount <= expected - ndone);
                for (int k = 0; k < outcount; ++k)
                    got[ngot++] = indices[k];
                break;
            case V_TESTALL:
            case V_WAITALL:
                if (v == V_TESTALL) {
                    MPI_OK(MPI_Testall(NREQ, req, &flag, all));
                    if (!flag) /* no request completes unless all do */
                        break;
                } else {
                    MPI_OK(MPI_Waitall(NREQ, req, all));
                }
                for (int i = 0; i < NREQ; ++i)
                    if (i != 0 && i != 5) {
                        got[ngot] = i;
                        sts[ngot++] = all[i];
                    } else {
                        CHECK_EMPTY(&all[i]);
                    }
                break;
            }
            for (int k = 0; k < ngot; ++k) {
                int i = got[k];
                CHECK(i >= 0 && i < NREQ);
                if (i == 0 || i == 5) FAIL("%s returned slot %d, a null request", variant_names[v], i);
                if (done[i]) FAIL("%s returned slot %d twice", variant_names[v], i);
                done[i] = 1;
                ++ndone;
                CHECK(req[i] == MPI_REQUEST_NULL);
                CHECK_STATUS(&sts[k], peer, tag0 + i, len[i]);
                unsigned char *p = buf + (size_t)i * (SLOT_BYTES + 1);
                VERIFY(p, len[i], 1000 * v + i, variant_names[v]);
                CHECK(p[SLOT_BYTES] == GUARD);
            }
        }
        /* All done: the calls now see only null requests. */
        if (v == V_WAITANY || v == V_TESTANY) {
            flag = -1;
            MPI_OK(MPI_Testany(NREQ, req, &index, &flag, MPI_STATUS_IGNORE));
            CHECK(flag == 1 && index == MPI_UNDEFINED);
        } else {
            MPI_OK(MPI_Waitsome(NREQ, req, &outcount, indices, MPI_STATUSES_IGNORE));
            CHECK_EQ(outcount, MPI_UNDEFINED);
        }
    }
    free(buf);
}

/* MPI_Request_free on an active send: the message still arrives; the
 * sender learns it through an acknowledgement. */
static void test_request_free(void) {
    if (peer < 0) return;
    long n = max_bytes < 65536 ? max_bytes : 65536;
    unsigned char *buf = xmalloc((size_t)n + 1);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    for (int round = 0; round < 2; ++round) {
        long len = round ? n : 40;
        if (me % 2 == 0) {
            fill(buf, len, 55 + round);
            MPI_OK(MPI_Isend(buf, (int)len, MPI_BYTE, peer, 350, MPI_COMM_WORLD, &req));
            MPI_OK(MPI_Request_free(&req));
            CHECK(req == MPI_REQUEST_NULL);
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 351, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            prepare(buf, n);
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, peer, 350, MPI_COMM_WORLD, &st));
            CHECK_STATUS(&st, peer, 350, len);
            VERIFY(buf, len, 55 + round, "message of a freed request");
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 351, MPI_COMM_WORLD));
        }
    }
    free(buf);
}

/* ---- Probe ----------------------------------------------------------- */

static void test_probe(void) {
    MPI_Status st;
    int flag = -1, count = -2;

    /* MPI_PROC_NULL: at once, with the MPI_PROC_NULL status (3.11). */
    garble(&st);
    MPI_OK(MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    CHECK_PROC_NULL(&st);
    garble(&st);
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK_EQ(flag, 1);
    CHECK_PROC_NULL(&st);

    /* Nothing is ever sent with tag 399. */
    flag = -1;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 399, MPI_COMM_WORLD, &flag, &st));
    CHECK_EQ(flag, 0);

    if (peer < 0) return;
    long big = max_bytes < 65536 ? max_bytes : 65536;
    if (me % 2 == 0) {
        /* Sender: three messages, non-blocking so the receiver may take
         * them in any order. */
        unsigned char five[5];
        int ints[40];
        unsigned char *large = xmalloc((size_t)big);
        MPI_Request reqs[3];
        fill(five, 5, 31);
        for (int i = 0; i < 40; ++i)
            ints[i] = -i * 1001;
        fill(large, big, 33);
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Isend(five, 5, MPI_BYTE, peer, 300, MPI_COMM_WORLD, &reqs[0]));
        MPI_OK(MPI_Isend(ints, 40, MPI_INT, peer, 301, MPI_COMM_WORLD, &reqs[1]));
        MPI_OK(MPI_Isend(large, (int)big, MPI_BYTE, peer, 302, MPI_COMM_WORLD, &reqs[2]));
        MPI_OK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
        free(large);
        return;
    }
    /* Receiver: before the word, nothing from the peer. */
    flag = -1;
    MPI_OK(MPI_Iprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK_EQ(flag, 0);
    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, T_READY, MPI_COMM_WORLD));

    /* Probe by tag, twice: the message stays. */
    for (int k = 0; k < 2; ++k) {
        garble(&st);
        MPI_OK(MPI_Probe(peer, 301, MPI_COMM_WORLD, &st));
        CHECK_STATUS(&st, peer, 301, 40 * (long)sizeof(int));
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_EQ(count, 40);
        MPI_OK(MPI_Get_elements(&st, MPI_INT, &count));
        CHECK_EQ(count, 40);
    }
    /* MPI_ANY_TAG: the earliest message sent, tag 300 (non-overtaking). */
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK_STATUS(&st, peer, 300, 5);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, MPI_UNDEFINED);
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &count));
    CHECK_EQ(count, MPI_UNDEFINED);
    MPI_OK(MPI_Get_count(&st, MPI_CHAR, &count));
    CHECK_EQ(count, 5);

    unsigned char five[6];
    int ints[41];
    prepare(five, 5);
    MPI_OK(MPI_Recv(five, 5, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
    CHECK_STATUS(&st, peer, 300, 5);
    VERIFY(five, 5, 31, "probed message");
    ints[40] = 12345;
    MPI_OK(MPI_Recv(ints, 40, MPI_INT, peer, 301, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 40; ++i)
        CHECK_EQ(ints[i], -i * 1001);
    CHECK_EQ(ints[40], 12345);

    /* The large one: its size from the probe, then a buffer just that big. */
    garble(&st);
    MPI_OK(MPI_Probe(MPI_ANY_SOURCE, 302, MPI_COMM_WORLD, &st));
    CHECK_STATUS(&st, peer, 302, big);
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    unsigned char *large = xmalloc((size_t)count + 1);
    prepare(large, count);
    MPI_OK(MPI_Recv(large, count, MPI_BYTE, peer, 302, MPI_COMM_WORLD, &st));
    CHECK_STATUS(&st, peer, 302, big);
    VERIFY(large, big, 33, "probed large message");
    CHECK(large[count] == GUARD);
    free(large);
    /* Nothing left. */
    flag = -1;
    MPI_OK(MPI_Iprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK_EQ(flag, 0);
}

/* ---- Sendrecv -------------------------------------------------------- */

static void test_sendrecv(void) {
    int right = (me + 1) % np, left = (me + np - 1) % np;
    long big = max_bytes < 65536 ? max_bytes : 65536;
    unsigned char *sbuf = xmalloc((size_t)big + 1), *rbuf = xmalloc((size_t)big + 1);
    MPI_Status st;
    const long lens[] = {0, 1, 100, 4000, big};

    /* Around the ring, each size. */
    for (int k = 0; k < 5; ++k) {
        long n = lens[k];
        fill(sbuf, n, 400 + me * 8 + k);
        prepare(rbuf, big);
        garble(&st);
        MPI_OK(MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, right, 400 + k, rbuf, (int)big, MPI_BYTE, left, 400 + k,
                            MPI_COMM_WORLD, &st));
        CHECK_STATUS(&st, left, 400 + k, n);
        VERIFY(rbuf, n, 400 + left * 8 + k, "Sendrecv");
        CHECK(rbuf[big] == GUARD);
    }
    /* MPI_ANY_SOURCE, MPI_ANY_TAG on the receive side. */
    fill(sbuf, 64, 500 + me);
    garble(&st);
    MPI_OK(MPI_Sendrecv(sbuf, 64, MPI_BYTE, right, 410 + me, rbuf, (int)big, MPI_BYTE, MPI_ANY_SOURCE,
                        MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_STATUS(&st, left, 410 + left, 64);
    VERIFY(rbuf, 64, 500 + left, "Sendrecv from MPI_ANY_SOURCE");

    /* Replace, small and large. */
    for (int k = 0; k < 2; ++k) {
        long n = k ? big : 24;
        fill(sbuf, n, 600 + me * 2 + k);
        sbuf[n] = GUARD;
        garble(&st);
        MPI_OK(MPI_Sendrecv_replace(sbuf, (int)n, MPI_BYTE, right, 420, left, 420, MPI_COMM_WORLD, &st));
        CHECK_STATUS(&st, left, 420, n);
        VERIFY(sbuf, n, 600 + left * 2 + k, "Sendrecv_replace");
        CHECK(sbuf[n] == GUARD);
    }

    /* A chain that is not a ring: the ends talk to MPI_PROC_NULL. */
    int up = me + 1 < np ? me + 1 : MPI_PROC_NULL, down = me > 0 ? me - 1 : MPI_PROC_NULL;
    int v = 1000 + me, w = -1;
    garble(&st);
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, up, 430, &w, 1, MPI_INT, down, 430, MPI_COMM_WORLD, &st));
    if (down == MPI_PROC_NULL) {
        CHECK_PROC_NULL(&st);
        CHECK_EQ(w, -1);
    } else {
        CHECK_STATUS(&st, down, 430, sizeof(int));
        CHECK_EQ(w, 1000 + down);
    }
    v = 2000 + me;
    garble(&st);
    MPI_OK(MPI_Sendrecv_replace(&v, 1, MPI_INT, down, 431, up, 431, MPI_COMM_WORLD, &st));
    if (up == MPI_PROC_NULL) {
        CHECK_PROC_NULL(&st);
        CHECK_EQ(v, 2000 + me);
    } else {
        CHECK_STATUS(&st, up, 431, sizeof(int));
        CHECK_EQ(v, 2000 + up);
    }

    /* With oneself. */
    fill(sbuf, 300, 700 + me);
    prepare(rbuf, 300);
    MPI_OK(MPI_Sendrecv(sbuf, 300, MPI_BYTE, me, 440, rbuf, 300, MPI_BYTE, me, 440, MPI_COMM_WORLD, &st));
    CHECK_STATUS(&st, me, 440, 300);
    VERIFY(rbuf, 300, 700 + me, "Sendrecv with oneself");
    free(sbuf);
    free(rbuf);
}

/* ---- Persistent requests --------------------------------------------- */

/* A persistent send of `kind` (0 Send_init, 1 Ssend_init, 2 Bsend_init,
 * 3 Rsend_init) to the peer. */
static void persistent_send(int kind, void *buf, int n, int tag, MPI_Request *req) {
    switch (kind) {
    case 0: MPI_OK(MPI_Send_init(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, req)); break;
    case 1: MPI_OK(MPI_Ssend_init(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, req)); break;
    case 2: MPI_OK(MPI_Bsend_init(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, req)); break;
    case 3: MPI_OK(MPI_Rsend_init(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, req)); break;
    }
}

/* Open MPI before 4.1.x's fix (ompi PRs 12797, 14366) sends the first
 * start's data again on every restart of a persistent buffered send larger
 * than its eager limit. With it, the large Bsend_init request is made anew
 * for each start (the small one is still restarted). */
static int restarted_bsend_is_broken(void) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    return strstr(lib, "Open MPI v4.") != NULL || strstr(lib, "Open MPI v3.") != NULL;
}

static void test_persistent(void) {
    MPI_Request inactive = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = -1, dummy = 0;

    /* An inactive persistent request: Wait and Test return at once with an
     * empty status, and it stays allocated until freed. */
    MPI_OK(MPI_Recv_init(&dummy, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &inactive));
    CHECK(inactive != MPI_REQUEST_NULL);
    garble(&st);
    MPI_OK(MPI_Wait(&inactive, &st));
    CHECK(inactive != MPI_REQUEST_NULL);
    CHECK_EMPTY(&st);
    garble(&st);
    MPI_OK(MPI_Test(&inactive, &flag, &st));
    CHECK_EQ(flag, 1);
    CHECK_EMPTY(&st);
    /* Started, it completes as a receive from MPI_PROC_NULL. */
    MPI_OK(MPI_Start(&inactive));
    garble(&st);
    MPI_OK(MPI_Wait(&inactive, &st));
    CHECK(inactive != MPI_REQUEST_NULL);
    CHECK_PROC_NULL(&st);
    MPI_OK(MPI_Request_free(&inactive));
    CHECK(inactive == MPI_REQUEST_NULL);

    if (peer < 0) return;
    long big = max_bytes < 65536 ? max_bytes : 65536;
    unsigned char *small_s = xmalloc(64), *small_r = xmalloc(65);
    unsigned char *big_s = xmalloc((size_t)big), *big_r = xmalloc((size_t)big + 1);
    int packed = 0;
    MPI_OK(MPI_Pack_size((int)big + 64, MPI_BYTE, MPI_COMM_WORLD, &packed));
    int bsize = packed + 2 * MPI_BSEND_OVERHEAD;
    void *bbuf = xmalloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(bbuf, bsize));
    int fresh_big_bsend = restarted_bsend_is_broken();
    if (fresh_big_bsend && me == 0)
        printf(NAME
               ": note: Open MPI 4 resends stale data on restarted large Bsend_init "
               "requests; that case is left out\n");

    /* One kind of persistent send per variant: Send_init, Ssend_init,
     * Bsend_init, Rsend_init; a small and a large message, 4 starts. */
    for (int kind = 0; kind < 4; ++kind) {
        MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        int sender = me % 2 == kind % 2, tag = 450 + kind;
        if (sender) {
            persistent_send(kind, small_s, 64, tag, &r[0]);
            persistent_send(kind, big_s, (int)big, tag + 10, &r[1]);
        } else {
            MPI_OK(MPI_Recv_init(small_r, 64, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]));
            MPI_OK(MPI_Recv_init(big_r, (int)big, MPI_BYTE, peer, tag + 10, MPI_COMM_WORLD, &r[1]));
        }
        for (int iter = 0; iter < 4; ++iter) {
            int seed = 800 + kind * 16 + iter * 2;
            MPI_Status sts[2];
            if (sender) {
                fill(small_s, 64, seed);
                fill(big_s, big, seed + 1);
                /* Rsend: the receives must be started. Bsend: the last
                 * round's messages must have left the buffer. */
                if (kind >= 2)
                    MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                if (kind == 2 && iter > 0 && fresh_big_bsend) {
                    MPI_OK(MPI_Request_free(&r[1]));
                    persistent_send(kind, big_s, (int)big, tag + 10, &r[1]);
                }
                if (iter % 2) {
                    MPI_OK(MPI_Startall(2, r));
                } else {
                    MPI_OK(MPI_Start(&r[0]));
                    MPI_OK(MPI_Start(&r[1]));
                }
                MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
                CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL);
            } else {
                prepare(small_r, 64);
                prepare(big_r, big);
                if (iter % 2) {
                    MPI_OK(MPI_Startall(2, r));
                } else {
                    MPI_OK(MPI_Start(&r[1])); /* either order */
                    MPI_OK(MPI_Start(&r[0]));
                }
                if (kind >= 2) MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, T_READY, MPI_COMM_WORLD));
                if (iter < 2) {
                    MPI_OK(MPI_Waitall(2, r, sts));
                } else {
                    int outcount = 0, indices[2], got = 0;
                    MPI_Status two[2];
                    while (got < 2) {
                        MPI_OK(MPI_Waitsome(2, r, &outcount, indices, two));
                        CHECK(outcount >= 1 && outcount <= 2 - got);
                        for (int k = 0; k < outcount; ++k)
                            sts[indices[k]] = two[k];
                        got += outcount;
                    }
                }
                CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL);
                CHECK_STATUS(&sts[0], peer, tag, 64);
                CHECK_STATUS(&sts[1], peer, tag + 10, big);
                VERIFY(small_r, 64, seed, "persistent small message");
                VERIFY(big_r, big, seed + 1, "persistent large message");
                CHECK(small_r[64] == GUARD && big_r[big] == GUARD);
            }
        }
        MPI_OK(MPI_Request_free(&r[0]));
        MPI_OK(MPI_Request_free(&r[1]));
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL);
    }
    void *addr = NULL;
    int size = -1;
    MPI_OK(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == bbuf && size == bsize);
    free(bbuf);
    free(small_s);
    free(small_r);
    free(big_s);
    free(big_r);
}

/* ---- MPI_PROC_NULL ----------------------------------------------------- */

static void test_proc_null(void) {
    int v[4] = {1, 2, 3, 4}, w[4] = {-1, -1, -1, -1};
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_OK(MPI_Send(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Ssend(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Rsend(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    garble(&st);
    MPI_OK(MPI_Recv(w, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK_PROC_NULL(&st);
    CHECK(w[0] == -1 && w[3] == -1);
    MPI_OK(MPI_Isend(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL);
    MPI_OK(MPI_Irecv(w, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
    garble(&st);
    MPI_OK(MPI_Wait(&req, &st));
    CHECK_PROC_NULL(&st);
    CHECK(w[0] == -1 && w[3] == -1);
    int flag = 0;
    MPI_OK(MPI_Irecv(w, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req));
    garble(&st);
    while (!flag)
        MPI_OK(MPI_Test(&req, &flag, &st));
    CHECK_PROC_NULL(&st);
    garble(&st);
    MPI_OK(
        MPI_Sendrecv(v, 4, MPI_INT, MPI_PROC_NULL, 1, w, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK_PROC_NULL(&st);
    CHECK(w[0] == -1 && w[3] == -1);
}

/* ---- MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_STATUS_IGNORE ------------------- */

static void test_any(void) {
    MPI_Status st;
    if (me != 0) {
        int v[2] = {me, me * me};
        MPI_OK(MPI_Send(v, 2, MPI_INT, 0, 500 + me, MPI_COMM_WORLD));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* rank 0 has them all */
        /* Rank 0 takes the 511s first: the 510 must not block (non-blocking
         * send; a blocking one would rely on buffering). */
        int w = -me;
        MPI_Request req;
        MPI_OK(MPI_Isend(&w, 1, MPI_INT, 0, 510, MPI_COMM_WORLD, &req));
        v[0] = me + 10000;
        MPI_OK(MPI_Send(v, 1, MPI_INT, 0, 511, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        return;
    }
    char *seen = calloc((size_t)np, 1);
    CHECK(seen != NULL);
    for (int k = 1; k < np; ++k) {
        int v[2] = {-1, -1};
        garble(&st);
        MPI_OK(MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE;
        if (s < 1 || s >= np || seen[s])
            FAIL("MPI_ANY_SOURCE receive %d: source %d (seen before: %d)", k, s,
                 s >= 1 && s < np ? seen[s] : -1);
        seen[s] = 1;
        CHECK_STATUS(&st, s, 500 + s, 2 * sizeof(int));
        CHECK(v[0] == s && v[1] == s * s);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Tag 511 from everyone first, though each sent its 510 before. */
    memset(seen, 0, (size_t)np);
    for (int k = 1; k < np; ++k) {
        int v = -1;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 511, MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE;
        CHECK(s >= 1 && s < np && !seen[s]);
        seen[s] = 1;
        CHECK_EQ(st.MPI_TAG, 511);
        CHECK_EQ(v, s + 10000);
    }
    for (int s = 1; s < np; ++s) { /* then by source, MPI_ANY_TAG, ignoring the status */
        int v = 0;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(v, -s);
    }
    free(seen);
}

static void test_status_ignore(void) {
    if (peer < 0) return;
    int a[8], b[8] = {0};
    MPI_Request reqs[2];
    for (int i = 0; i < 8; ++i)
        a[i] = me * 100 + i;
    MPI_OK(MPI_Irecv(b, 8, MPI_INT, peer, 520, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Isend(a, 8, MPI_INT, peer, 520, MPI_COMM_WORLD, &reqs[1]));
    MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 8; ++i)
        CHECK_EQ(b[i], peer * 100 + i);
    MPI_OK(MPI_Irecv(b, 8, MPI_INT, peer, 521, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Isend(a, 4, MPI_INT, peer, 521, MPI_COMM_WORLD, &reqs[1]));
    int flag = 0;
    while (!flag)
        MPI_OK(MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; ++i)
        CHECK_EQ(b[i], peer * 100 + i);
    int index = -1, outcount = -1, indices[2];
    MPI_OK(MPI_Irecv(b, 8, MPI_INT, peer, 522, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Isend(a, 2, MPI_INT, peer, 522, MPI_COMM_WORLD, &reqs[1]));
    MPI_OK(MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE));
    CHECK(index == 0 || index == 1);
    MPI_OK(MPI_Waitsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
    CHECK_EQ(outcount, 1);
    CHECK_EQ(indices[0], 1 - index);
    MPI_OK(
        MPI_Sendrecv(a, 1, MPI_INT, peer, 523, b, 8, MPI_INT, peer, 523, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ(b[0], peer * 100);
}

/* ---- Get_count, Get_elements ----------------------------------------- */

static void test_counts(void) {
    if (peer < 0) return;
    MPI_Status st;
    int count = -2, flag = -1;
    MPI_Count xcount = -2;
    unsigned char six[6], got[16];
    fill(six, 6, 9);
    if (me % 2 == 0) {
        MPI_OK(MPI_Send(six, 6, MPI_BYTE, peer, 530, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 531, MPI_COMM_WORLD));
        return;
    }
    garble(&st);
    MPI_OK(MPI_Recv(got, 16, MPI_BYTE, peer, 530, MPI_COMM_WORLD, &st));
    VERIFY(got, 6, 9, "6-byte message");
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, 6);
    MPI_OK(MPI_Get_count(&st, MPI_SHORT, &count));
    CHECK_EQ(count, 3);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, MPI_UNDEFINED);
    MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK_EQ(count, MPI_UNDEFINED);
    MPI_OK(MPI_Get_elements(&st, MPI_SHORT, &count));
    CHECK_EQ(count, 3);
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &count));
    CHECK_EQ(count, MPI_UNDEFINED);
    MPI_OK(MPI_Get_elements_x(&st, MPI_BYTE, &xcount));
    CHECK_EQ(xcount, 6);
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK_EQ(flag, 0);
    garble(&st);
    MPI_OK(MPI_Recv(got, 4, MPI_INT, peer, 531, MPI_COMM_WORLD, &st));
    CHECK_STATUS(&st, peer, 531, 0);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 0);
    MPI_OK(MPI_Get_elements(&st, MPI_DOUBLE, &count));
    CHECK_EQ(count, 0);
}

/* ---- Sends to oneself ------------------------------------------------- */

static void test_self(void) {
    long big = max_bytes < 65536 ? max_bytes : 65536;
    const long lens[] = {0, 100, 4096, big};
    unsigned char *sbuf = xmalloc((size_t)big), *rbuf = xmalloc((size_t)big + 1);
    MPI_Request reqs[2];
    MPI_Status st, sts[2];
    for (int k = 0; k < 4; ++k) {
        long n = lens[k];
        /* Receive first, then a blocking send of every size. */
        fill(sbuf, n, 900 + k);
        prepare(rbuf, big);
        MPI_OK(MPI_Irecv(rbuf, (int)big, MPI_BYTE, me, 540 + k, MPI_COMM_WORLD, &reqs[0]));
        MPI_OK(MPI_Send(sbuf, (int)n, MPI_BYTE, me, 540 + k, MPI_COMM_WORLD));
        garble(&st);
        MPI_OK(MPI_Wait(&reqs[0], &st));
        CHECK_STATUS(&st, me, 540 + k, n);
        VERIFY(rbuf, n, 900 + k, "send to self");
        CHECK(rbuf[big] == GUARD);
        /* Non-blocking send first, then the receive (MPI_COMM_SELF). */
        fill(sbuf, n, 950 + k);
        prepare(rbuf, big);
        MPI_OK(MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, 550 + k, MPI_COMM_SELF, &reqs[1]));
        garble(&st);
        MPI_OK(MPI_Recv(rbuf, (int)big, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st));
        CHECK_STATUS(&st, 0, 550 + k, n);
        MPI_OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
        VERIFY(rbuf, n, 950 + k, "send to self on MPI_COMM_SELF");
        /* Synchronous, both non-blocking. */
        fill(sbuf, n, 970 + k);
        prepare(rbuf, big);
        MPI_OK(MPI_Issend(sbuf, (int)n, MPI_BYTE, me, 560, MPI_COMM_WORLD, &reqs[1]));
        MPI_OK(MPI_Irecv(rbuf, (int)big, MPI_BYTE, me, 560, MPI_COMM_WORLD, &reqs[0]));
        MPI_OK(MPI_Waitall(2, reqs, sts));
        CHECK_STATUS(&sts[0], me, 560, n);
        VERIFY(rbuf, n, 970 + k, "Issend to self");
    }
    free(sbuf);
    free(rbuf);
}

/* ---- Non-overtaking ---------------------------------------------------- */

static long order_len(int i) {
    static const long lens[] = {0, 8, 100, 2000, 70000, 16, 4096, 1, 300, 20000, 5, 1024};
    long n = lens[i % (int)(sizeof lens / sizeof lens[0])];
    long big = max_bytes < 70000 ? max_bytes : 70000;
    return n > big ? big : n;
}

static void test_order(void) {
    if (peer < 0) return;
    int n = order_messages;
    long cap = max_bytes < 70000 ? max_bytes : 70000;
    MPI_Status st;
    if (me % 2 == 0) {
        /* Phase 1: blocking standard sends (the receiver takes them in
         * order, so none can wait forever). */
        unsigned char *buf = xmalloc((size_t)cap);
        for (int i = 0; i < n; ++i) {
            long len = order_len(i);
            fill(buf, len, 2000 + i);
            MPI_OK(MPI_Send(buf, (int)len, MPI_BYTE, peer, 600 + i % 3, MPI_COMM_WORLD));
        }
        free(buf);
        /* Phase 2: all at once, non-blocking. */
        unsigned char **bufs = xmalloc((size_t)n * sizeof *bufs);
        MPI_Request *reqs = xmalloc((size_t)n * sizeof *reqs);
        for (int i = 0; i < n; ++i) {
            long len = order_len(i + 1);
            bufs[i] = xmalloc((size_t)len);
            fill(bufs[i], len, 3000 + i);
            MPI_OK(MPI_Isend(bufs[i], (int)len, MPI_BYTE, peer, 610 + i % 3, MPI_COMM_WORLD, &reqs[i]));
        }
        MPI_OK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; ++i)
            free(bufs[i]);
        free(bufs);
        free(reqs);
        return;
    }
    unsigned char *buf = xmalloc((size_t)cap + 1);
    /* Phase 1: MPI_ANY_TAG takes them in the order sent. */
    for (int i = 0; i < n; ++i) {
        long len = order_len(i);
        prepare(buf, cap);
        garble(&st);
        MPI_OK(MPI_Recv(buf, (int)cap, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (st.MPI_TAG != 600 + i % 3 || count != len)
            FAIL("message %d: tag %d, %d bytes; expected tag %d, %ld bytes (overtaken?)", i, st.MPI_TAG,
                 count, 600 + i % 3, len);
        VERIFY(buf, len, 2000 + i, "ordered message");
    }
    /* Phase 2: by tag (1, then 0, then 2), and within a tag in order. */
    pause_for(0.002);
    for (int t = 0; t < 3; ++t) {
        int tag = (t + 1) % 3;
        for (int i = tag; i < n; i += 3) {
            long len = order_len(i + 1);
            prepare(buf, cap);
            MPI_OK(MPI_Recv(buf, (int)cap, MPI_BYTE, MPI_ANY_SOURCE, 610 + tag, MPI_COMM_WORLD, &st));
            int count = -1;
            MPI_Get_count(&st, MPI_BYTE, &count);
            if (st.MPI_SOURCE != peer || count != len)
                FAIL("tag %d message %d: source %d, %d bytes; expected %d, %ld bytes", 610 + tag, i,
                     st.MPI_SOURCE, count, peer, len);
            VERIFY(buf, len, 3000 + i, "ordered message by tag");
        }
    }
    free(buf);
}

/* ---- Head to head ------------------------------------------------------ */

/* Both ranks of a pair send small messages to each other with blocking
 * standard sends before receiving. MPI does not promise this completes
 * (3.5, "unsafe"), but every implementation buffers messages this small
 * (eager protocol); LWMPI documents it for sizes up to its eager limit. */
static void test_head_to_head(void) {
    if (peer < 0) return;
    unsigned char a[64], b[65];
    MPI_Status st;
    for (int round = 0; round < 3; ++round) {
        fill(a, 64, 1100 + me * 4 + round);
        MPI_OK(MPI_Send(a, 4, MPI_BYTE, peer, 700, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(a, 64, MPI_BYTE, peer, 701, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 702, MPI_COMM_WORLD));
        prepare(b, 64);
        MPI_OK(MPI_Recv(b, 64, MPI_BYTE, peer, 700, MPI_COMM_WORLD, &st));
        CHECK_STATUS(&st, peer, 700, 4);
        VERIFY(b, 4, 1100 + peer * 4 + round, "head-to-head message");
        prepare(b, 64);
        MPI_OK(MPI_Recv(b, 64, MPI_BYTE, peer, 701, MPI_COMM_WORLD, &st));
        CHECK_STATUS(&st, peer, 701, 64);
        VERIFY(b, 64, 1100 + peer * 4 + round, "head-to-head message");
        MPI_OK(MPI_Recv(b, 64, MPI_BYTE, peer, 702, MPI_COMM_WORLD, &st));
        CHECK_STATUS(&st, peer, 702, 0);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 1) max_bytes = atol(argv[1]);
    if (argc > 2) order_messages = atoi(argv[2]);
    if (max_bytes < 64 || max_bytes > (1L << 30) || order_messages < 1) {
        if (me == 0) printf("usage: " NAME " [MAX_BYTES >= 64 [ORDER_MESSAGES >= 1]]\n");
        MPI_Finalize();
        return 2;
    }
    peer = (me ^ 1) < np ? (me ^ 1) : -1;
    double t0 = MPI_Wtime();

    sync_all("modes");
    test_modes();
    sync_all("rsend after barrier");
    test_rsend_barrier();
    sync_all("not yet complete");
    test_not_yet();
    sync_all("null requests");
    test_null_requests();
    sync_all("completion calls");
    test_completion();
    sync_all("request free");
    test_request_free();
    sync_all("probe");
    test_probe();
    sync_all("sendrecv");
    test_sendrecv();
    sync_all("persistent");
    test_persistent();
    sync_all("proc null");
    test_proc_null();
    sync_all("any source/tag");
    test_any();
    sync_all("status ignore");
    test_status_ignore();
    sync_all("counts");
    test_counts();
    sync_all("self");
    test_self();
    sync_all("order");
    test_order();
    sync_all("head to head");
    test_head_to_head();
    sync_all("finalize");

    double t = MPI_Wtime() - t0;
    MPI_Finalize();
    if (me == 0) printf(NAME ": OK (np=%d, max %ld bytes, %.2f s)\n", np, max_bytes, t);
    return 0;
}
