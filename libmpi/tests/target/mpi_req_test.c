/*
 * mpi_req_test: cancelling, request status and generalized requests (MPI
 * 3.1 sections 3.7.3, 3.8.4, 12.2, 12.3).
 *
 *   Cancel of a receive no message matches (Wait, Test, Request_free
 *   after it; a later message goes to the next receive), of a started
 *   persistent receive (started again, it receives), of a send, eager
 *   and large (either cancelled, and then never received, or completed
 *   and received: the receiver learns which), Test_cancelled,
 *   Status_set_cancelled;
 *   Request_get_status (pending, complete without freeing, then Wait;
 *   MPI_REQUEST_NULL); generalized requests: query and free functions
 *   called as 12.2 says (get_status: query only; wait/test: query then
 *   free, once), the status query_fn sets, cancel_fn with `complete`,
 *   Request_free before completion, errors of query_fn in Wait and
 *   Waitall (MPI_ERR_IN_STATUS), and generalized requests mixed with
 *   point-to-point ones in Waitall, Waitany, Testsome.
 *
 * A portable MPI program (mpi.h and the C library only), for any number
 * of processes (pair tests pair rank 2k with 2k+1). Rank 0 prints
 * "mpi_req_test: OK" at the end; the first failed check prints
 * "FAIL mpi_req_test.c:<line>: ..." and ends the job with a non-zero
 * status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "mpi_req_test"

#include "mpitest.h"

/* The partner of a pair, or MPI_PROC_NULL for the last rank of an odd job. */
static _Thread_local int peer = MPI_PROC_NULL;

static int cancelled(const MPI_Status *st) {
    int flag = -1;
    MPI_OK(MPI_Test_cancelled(st, &flag));
    return flag;
}

/* ---- Cancel ----------------------------------------------------------------------- */

static void test_cancel_recv(void) {
    phase = "cancel a receive";
    int buf = -1;
    MPI_Request r;
    MPI_Status st;
    /* Nobody sends tag 77: the receive is cancelled, and Wait returns. */
    MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL);
    CHECK(cancelled(&st));
    CHECK_EQ(buf, -1);
    /* With Test. */
    MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, me, 77, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    int flag = 0;
    while (!flag)
        MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(cancelled(&st));
    /* Freed after the cancel. */
    MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, me, 77, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Request_free(&r));

    /* A message sent after the cancel goes to the next receive. */
    int first = -1, second = -1;
    MPI_Request r1, r2;
    MPI_OK(MPI_Irecv(&first, 1, MPI_INT, me, 78, MPI_COMM_WORLD, &r1));
    MPI_OK(MPI_Irecv(&second, 1, MPI_INT, me, 78, MPI_COMM_WORLD, &r2));
    MPI_OK(MPI_Cancel(&r1));
    const int v = 4242;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, me, 78, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r1, &st));
    CHECK(cancelled(&st));
    MPI_OK(MPI_Wait(&r2, &st));
    CHECK(!cancelled(&st));
    CHECK_EQ(first, -1);
    CHECK_EQ(second, 4242);

    /* A cancelled receive that a message already matched is not cancelled. */
    MPI_OK(MPI_Send(&v, 1, MPI_INT, me, 79, MPI_COMM_WORLD));
    MPI_OK(MPI_Irecv(&first, 1, MPI_INT, me, 79, MPI_COMM_WORLD, &r1));
    MPI_OK(MPI_Wait(&r1, &st)); /* (matched at once or in the wait) */
    CHECK(!cancelled(&st));
    CHECK_EQ(first, 4242);

    phase = "cancel a persistent receive";
    MPI_OK(MPI_Recv_init(&buf, 1, MPI_INT, me, 80, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r != MPI_REQUEST_NULL);
    CHECK(cancelled(&st));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, me, 80, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(!cancelled(&st));
    CHECK_EQ(buf, 4242);
    MPI_OK(MPI_Request_free(&r));

    /* Cancelling a null request is an error. */
    r = MPI_REQUEST_NULL;
    CHECK_EQ(MPI_Cancel(&r), MPI_ERR_REQUEST);
}

static void test_cancel_send(void) {
    phase = "cancel a send";
    if (peer == MPI_PROC_NULL) return;
    /* Small and large: either the send is cancelled and the peer's receive
     * finds nothing (the peer cancels it), or the send completes because
     * the peer's receive got it. The peer posts its receive once the
     * sender has cancelled (tag 89), and learns which happened (tag 91). */
    const int sizes[2] = {4, 65536};
    for (int k = 0; k < 2; ++k) {
        const int n = sizes[k] / (int)sizeof(int);
        int *buf = xmalloc(sizeof(int) * (size_t)n);
        int was = -1;
        MPI_Request r;
        MPI_Status st;
        if (me % 2 == 0) {
            for (int i = 0; i < n; ++i)
                buf[i] = i + k;
            MPI_OK(MPI_Isend(buf, n, MPI_INT, peer, 90, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Cancel(&r));
            MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 89, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&r, &st));
            was = cancelled(&st);
            MPI_OK(MPI_Send(&was, 1, MPI_INT, peer, 91, MPI_COMM_WORLD));
        } else {
            for (int i = 0; i < n; ++i)
                buf[i] = -1;
            MPI_OK(MPI_Recv(NULL, 0, MPI_INT, peer, 89, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Irecv(buf, n, MPI_INT, peer, 90, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Recv(&was, 1, MPI_INT, peer, 91, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (was) MPI_OK(MPI_Cancel(&r));
            MPI_OK(MPI_Wait(&r, &st));
            CHECK_EQ(cancelled(&st), was);
            for (int i = 0; i < n; ++i)
                if (buf[i] != (was ? -1 : i + k)) FAIL("%d bytes: int %d is %d", sizes[k], i, buf[i]);
        }
        free(buf);
        /* The receive of tag 90 is over before the next send of tag 90. */
        MPI_OK(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 93, NULL, 0, MPI_INT, peer, 93, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    }
    /* A message after them still arrives. */
    int v = me;
    MPI_OK(MPI_Sendrecv_replace(&v, 1, MPI_INT, peer, 92, peer, 92, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ(v, peer);
}

static void test_status_set_cancelled(void) {
    phase = "Status_set_cancelled";
    MPI_Status st;
    MPI_OK(MPI_Status_set_cancelled(&st, 1));
    CHECK(cancelled(&st));
    MPI_OK(MPI_Status_set_cancelled(&st, 0));
    CHECK(!cancelled(&st));
}

/* ---- Request_get_status --------------------------------------------------------- */

static void test_get_status(void) {
    phase = "Request_get_status";
    int flag = -1, count = -1;
    MPI_Status st;
    MPI_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag);
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);
    /* A receive from oneself: pending until the message is sent, then
     * complete but still there for MPI_Wait. */
    int buf[3] = {0};
    MPI_Request r;
    MPI_OK(MPI_Irecv(buf, 3, MPI_INT, me, 60, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(!flag);
    const int data[2] = {5, 6};
    MPI_OK(MPI_Send(data, 2, MPI_INT, me, 60, MPI_COMM_WORLD));
    do
        MPI_OK(MPI_Request_get_status(r, &flag, &st));
    while (!flag);
    CHECK(r != MPI_REQUEST_NULL);
    CHECK_EQ(st.MPI_SOURCE, me);
    CHECK_EQ(st.MPI_TAG, 60);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 2);
    MPI_OK(MPI_Request_get_status(r, &flag, &st)); /* again: the same */
    CHECK(flag);
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_EQ(st.MPI_TAG, 60);
    CHECK(buf[0] == 5 && buf[1] == 6);
}

/* ---- Generalized requests --------------------------------------------------------- */

typedef struct {
    int queries, frees, cancels;
    int cancel_complete; /* the `complete` of the last cancel_fn call */
    int query_error;     /* what query_fn returns */
    int cancelled;       /* query_fn marks the status cancelled */
} Greq;

static int query_fn(void *extra, MPI_Status *st) {
    Greq *g = extra;
    ++g->queries;
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 33;
    MPI_Status_set_elements(st, MPI_INT, 4);
    MPI_Status_set_cancelled(st, g->cancelled);
    return g->query_error;
}

static int free_fn(void *extra) {
    ++((Greq *)extra)->frees;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
    Greq *g = extra;
    ++g->cancels;
    g->cancel_complete = complete;
    g->cancelled = 1;
    return MPI_SUCCESS;
}

static MPI_Request start(Greq *g) {
    memset(g, 0, sizeof *g);
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, g, &r));
    CHECK(r != MPI_REQUEST_NULL);
    return r;
}

static void test_grequest(void) {
    phase = "generalized requests";
    Greq g;
    MPI_Status st;
    int flag = -1, count = -1;
    MPI_Request r = start(&g);
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(!flag);
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(!flag);
    CHECK(g.queries == 0 && g.frees == 0);
    MPI_Request keep = r;
    MPI_OK(MPI_Grequest_complete(keep));
    /* get_status: query only, the request stays. */
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag);
    CHECK(g.queries == 1 && g.frees == 0);
    CHECK_EQ(st.MPI_SOURCE, 3);
    /* Wait: query then free, once. */
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL);
    CHECK(g.queries == 2 && g.frees == 1);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 33);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 4);
    CHECK(!cancelled(&st));
    /* With MPI_STATUS_IGNORE query_fn still gets a status. */
    r = start(&g);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(g.queries == 1 && g.frees == 1);

    phase = "cancel a generalized request";
    r = start(&g);
    MPI_OK(MPI_Cancel(&r));
    CHECK(g.cancels == 1 && g.cancel_complete == 0);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(cancelled(&st));
    r = start(&g);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Cancel(&r));
    CHECK(g.cancels == 1 && g.cancel_complete == 1);
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag && r == MPI_REQUEST_NULL);

    phase = "free a generalized request";
    /* Freed before completion: free_fn at Grequest_complete, no query. */
    r = start(&g);
    keep = r;
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_EQ(g.frees, 0);
    MPI_OK(MPI_Grequest_complete(keep));
    CHECK(g.frees == 1 && g.queries == 0);
    /* Freed after completion: free_fn at once. */
    r = start(&g);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Request_free(&r));
    CHECK(g.frees == 1 && g.queries == 0);

    phase = "errors of query_fn";
    r = start(&g);
    g.query_error = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_complete(r));
    CHECK_EQ(MPI_Wait(&r, &st), MPI_ERR_OTHER);
    CHECK(r == MPI_REQUEST_NULL && g.frees == 1);
    Greq g2;
    MPI_Request two[2] = {start(&g), start(&g2)};
    g2.query_error = MPI_ERR_OTHER;
    MPI_Status sts[2];
    MPI_OK(MPI_Grequest_complete(two[0]));
    MPI_OK(MPI_Grequest_complete(two[1]));
    CHECK_EQ(MPI_Waitall(2, two, sts), MPI_ERR_IN_STATUS);
    CHECK_EQ(sts[0].MPI_ERROR, MPI_SUCCESS);
    CHECK_EQ(sts[1].MPI_ERROR, MPI_ERR_OTHER);
    CHECK(g.frees == 1 && g2.frees == 1);

    phase = "generalized requests among others";
    /* Waitall over a receive from oneself, a send and two generalized
     * requests, the ones completed from a Testsome loop. */
    Greq ga, gb;
    int in = -1, out = 31;
    MPI_Request reqs[4];
    reqs[0] = start(&ga);
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, me, 61, MPI_COMM_WORLD, &reqs[1]));
    reqs[2] = start(&gb);
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, me, 61, MPI_COMM_WORLD, &reqs[3]));
    int outcount = -1, indices[4];
    MPI_Status ss[4];
    int done = 0, seen[4] = {0};
    MPI_OK(MPI_Grequest_complete(reqs[2]));
    while (done < 3) { /* the receive, the send, gb */
        MPI_OK(MPI_Testsome(4, reqs, &outcount, indices, ss));
        CHECK(outcount != MPI_UNDEFINED);
        for (int i = 0; i < outcount; ++i) {
            CHECK(indices[i] != 0); /* ga is not complete */
            CHECK(!seen[indices[i]]);
            seen[indices[i]] = 1;
            if (indices[i] == 2) CHECK(ss[i].MPI_TAG == 33);
            if (indices[i] == 1) CHECK(ss[i].MPI_TAG == 61);
        }
        done += outcount;
    }
    CHECK_EQ(in, 31);
    MPI_OK(MPI_Grequest_complete(reqs[0]));
    int index = -1;
    MPI_OK(MPI_Waitany(4, reqs, &index, &st));
    CHECK_EQ(index, 0);
    CHECK_EQ(st.MPI_TAG, 33);
    CHECK(ga.frees == 1 && gb.frees == 1);
    /* Waitall with one generalized request among receives. */
    reqs[0] = start(&ga);
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, me, 62, MPI_COMM_WORLD, &reqs[1]));
    MPI_OK(MPI_Send(&out, 1, MPI_INT, me, 62, MPI_COMM_WORLD));
    MPI_OK(MPI_Grequest_complete(reqs[0]));
    MPI_OK(MPI_Waitall(2, reqs, ss));
    CHECK(ss[0].MPI_TAG == 33 && ss[1].MPI_TAG == 62);
    CHECK(ga.queries == 1 && ga.frees == 1);
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    peer = me % 2 == 0 ? (me + 1 < np ? me + 1 : MPI_PROC_NULL) : me - 1;
    /* Error classes are checked where calls must fail; MPI_OK elsewhere. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_cancel_recv();
    sync_all("cancel a send");
    test_cancel_send();
    test_status_set_cancelled();
    sync_all("Request_get_status");
    test_get_status();
    test_grequest();
    sync_all("finalize");
    if (me == 0) printf(NAME ": OK (np=%d)\n", np);
    MPI_OK(MPI_Finalize());
    return 0;
}
