/*
 * lwmpi_test: LWMPI's point-to-point, barrier and error paths on the
 * target, for any number of ranks and either mapping. Rank 0 prints
 * "lwmpi_test: all passed (np=N)" at the end; a failing rank prints the
 * check that failed and the job exits with a non-zero status.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            printf("lwmpi_test: rank %d: %s:%d: %s\n", rank, __func__, __LINE__, #cond); \
            return 1;                                                                    \
        }                                                                                \
    } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS)

/* Ranks are threads of one process per cluster: per-rank globals must be
 * thread-local. */
static _Thread_local int rank, size;

/* A token goes once around the ring; each rank adds its rank. */
static int test_ring(void) {
    int token = 0, expect = size * (size - 1) / 2;
    MPI_Status st;
    if (size == 1) return 0;
    if (rank == 0) {
        OK(MPI_Send(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD));
        OK(MPI_Recv(&token, 1, MPI_INT, size - 1, 11, MPI_COMM_WORLD, &st));
        CHECK(token == expect);
    } else {
        OK(MPI_Recv(&token, 1, MPI_INT, rank - 1, 11, MPI_COMM_WORLD, &st));
        token += rank;
        OK(MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 11, MPI_COMM_WORLD));
    }
    CHECK(st.MPI_SOURCE == (rank + size - 1) % size && st.MPI_TAG == 11);
    return 0;
}

/* Large messages (several portal chunks) between the first and last rank. */
static int test_large(void) {
    enum { N = 100000 }; /* 400 KB */
    int peer = size - 1, count = 0;
    MPI_Status st;
    if (size == 1) return 0;
    if (rank != 0 && rank != peer) return 0;
    int *v = malloc(N * sizeof *v);
    CHECK(v);
    for (int round = 0; round < 3; ++round) {
        if (rank == 0) {
            for (int i = 0; i < N; ++i)
                v[i] = i ^ round;
            OK(MPI_Send(v, N, MPI_INT, peer, round, MPI_COMM_WORLD));
            OK(MPI_Recv(v, N, MPI_INT, peer, round, MPI_COMM_WORLD, &st));
            for (int i = 0; i < N; ++i)
                CHECK(v[i] == ~(i ^ round));
        } else {
            memset(v, 0, N * sizeof *v);
            OK(MPI_Recv(v, N, MPI_INT, 0, round, MPI_COMM_WORLD, &st));
            OK(MPI_Get_count(&st, MPI_INT, &count));
            CHECK(count == N);
            for (int i = 0; i < N; ++i)
                v[i] = ~v[i];
            OK(MPI_Send(v, N, MPI_INT, 0, round, MPI_COMM_WORLD));
        }
    }
    free(v);
    return 0;
}

/* Every rank sends its rank to 0 with tag = rank; 0 takes them by tag in
 * reverse order with ANY_SOURCE, so most wait in the unexpected queue. */
static int test_unexpected(void) {
    MPI_Status st;
    long v = rank;
    if (rank != 0)
        OK(MPI_Send(&v, 1, MPI_LONG, 0, rank, MPI_COMM_WORLD));
    else
        for (int t = size - 1; t >= 1; --t) {
            OK(MPI_Recv(&v, 1, MPI_LONG, MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &st));
            CHECK(v == t && st.MPI_SOURCE == t && st.MPI_TAG == t);
        }
    return 0;
}

/* ANY_SOURCE + ANY_TAG: each rank's message arrives exactly once. */
static int test_any(void) {
    MPI_Status st;
    double v = rank * 0.5;
    if (rank != 0) {
        OK(MPI_Send(&v, 1, MPI_DOUBLE, 0, 100 + rank, MPI_COMM_WORLD));
        return 0;
    }
    char *seen = calloc((size_t)size, 1);
    CHECK(seen);
    for (int k = 1; k < size; ++k) {
        OK(MPI_Recv(&v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < size && !seen[st.MPI_SOURCE]);
        CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE && v == st.MPI_SOURCE * 0.5);
        seen[st.MPI_SOURCE] = 1;
    }
    free(seen);
    return 0;
}

/* Truncation, zero-byte messages, MPI_PROC_NULL, MPI_COMM_SELF. */
static int test_edges(void) {
    MPI_Status st;
    int v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, small[3] = {0, 0, -1}, count = -1;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (size > 1 && rank == 1) {
        OK(MPI_Send(v, 8, MPI_INT, 0, 1, MPI_COMM_WORLD));
        OK(MPI_Send(NULL, 0, MPI_INT, 0, 2, MPI_COMM_WORLD));
    } else if (size > 1 && rank == 0) {
        CHECK(MPI_Recv(small, 2, MPI_INT, 1, 1, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
        CHECK(small[0] == 1 && small[1] == 2 && small[2] == -1);
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == 2);
        OK(MPI_Recv(small, 3, MPI_INT, 1, 2, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == 0 && st.MPI_TAG == 2);
    }
    OK(MPI_Send(v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    OK(MPI_Recv(v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    int r = -1, n = -1;
    OK(MPI_Comm_rank(MPI_COMM_SELF, &r));
    OK(MPI_Comm_size(MPI_COMM_SELF, &n));
    CHECK(r == 0 && n == 1);
    OK(MPI_Barrier(MPI_COMM_SELF));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return 0;
}

/* Argument errors come back with MPI_ERRORS_RETURN. */
static int test_errors(void) {
    int v = 0;
    MPI_Status st;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL) == MPI_ERR_COMM);
    CHECK(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
    CHECK(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    CHECK(MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD) == MPI_ERR_TAG);
    CHECK(MPI_Recv(&v, 1, MPI_INT, 0, -2, MPI_COMM_WORLD, &st) == MPI_ERR_TAG);
    CHECK(MPI_Recv(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD, &st) == MPI_ERR_RANK);
    CHECK(MPI_Init(NULL, NULL) == MPI_ERR_OTHER);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    OK(MPI_Error_string(MPI_ERR_TRUNCATE, text, &len));
    CHECK(strcmp(text, "message truncated on receive") == 0 && len == (int)strlen(text));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return 0;
}

static int test_barrier_and_time(void) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < 20; ++i)
        OK(MPI_Barrier(MPI_COMM_WORLD));
    double t1 = MPI_Wtime();
    CHECK(t1 >= t0 && MPI_Wtick() > 0.0 && MPI_Wtick() < 1.0);
    return 0;
}

/* Sends no receive has matched are cancelled (MPI 3.1 section 3.8.4):
 * standard, synchronous, buffered and persistent, eager and rendezvous,
 * from rank 0 to the last rank (itself when alone), which then finds none
 * of them; a send whose receive was posted first is not. */
static int test_cancel_send(void) {
    enum { SMALL = 4, LARGE = 65536 };
    const int peer = size - 1;
    char *buf = calloc(LARGE + MPI_BSEND_OVERHEAD, 2);
    CHECK(buf);
    char *attached = buf + LARGE;
    MPI_Status st;
    int flag = -1;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 0) {
        OK(MPI_Buffer_attach(attached, LARGE + MPI_BSEND_OVERHEAD));
        for (int k = 0; k < 8; ++k) {
            const int n = k < 4 ? SMALL : LARGE, tag = 30 + k;
            MPI_Request r;
            switch (k % 4) {
            case 0: OK(MPI_Isend(buf, n, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &r)); break;
            case 1: OK(MPI_Issend(buf, n, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &r)); break;
            case 2: OK(MPI_Ibsend(buf, n, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &r)); break;
            default: OK(MPI_Send_init(buf, n, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &r)); OK(MPI_Start(&r));
            }
            OK(MPI_Cancel(&r));
            OK(MPI_Wait(&r, &st));
            OK(MPI_Test_cancelled(&st, &flag));
            CHECK(flag == 1);
            if (k % 4 == 3) OK(MPI_Request_free(&r));
        }
        void *b;
        int bsize;
        OK(MPI_Buffer_detach(&b, &bsize));
        OK(MPI_Send(NULL, 0, MPI_CHAR, peer, 39, MPI_COMM_WORLD));
    }
    if (rank == peer) {
        OK(MPI_Recv(NULL, 0, MPI_CHAR, 0, 39, MPI_COMM_WORLD, &st));
        OK(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag == 0);
    }
    /* Matched on arrival, before its cancel comes. */
    MPI_Request recv = MPI_REQUEST_NULL, send = MPI_REQUEST_NULL;
    if (rank == peer) OK(MPI_Irecv(buf, SMALL, MPI_CHAR, 0, 40, MPI_COMM_WORLD, &recv));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        OK(MPI_Isend(attached, SMALL, MPI_CHAR, peer, 40, MPI_COMM_WORLD, &send));
        OK(MPI_Cancel(&send));
        OK(MPI_Wait(&send, &st));
        OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag == 0);
        CHECK(MPI_Cancel(&send) == MPI_ERR_REQUEST); /* MPI_REQUEST_NULL now */
    }
    if (rank == peer) {
        OK(MPI_Wait(&recv, &st));
        OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag == 0 && st.MPI_TAG == 40);
    }
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    int failed = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int (*tests[])(void) = {test_ring,  test_large,  test_unexpected,       test_any,
                            test_edges, test_errors, test_barrier_and_time, test_cancel_send};
    for (unsigned i = 0; i < sizeof tests / sizeof tests[0]; ++i) {
        failed |= tests[i]();
        if (failed) break;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (failed) MPI_Abort(MPI_COMM_WORLD, 1); /* the others may wait in a barrier */
    MPI_Finalize();
    if (rank == 0) printf("lwmpi_test: all passed (np=%d)\n", size);
    return 0;
}
