/* MPI_THREAD_MULTIPLE (MPI 3.1 section 12.4) with POSIX threads: every
 * rank runs T threads, its main thread and T - 1 it starts (T: its share of
 * cores, sysconf(_SC_NPROCESSORS_ONLN), at most 4 and the same on every
 * rank), which call MPI at the same time. Needs an even number of ranks
 * (rank r plays with r ^ 1) and T >= 2. Phases, each started by all threads
 * of all ranks together:
 *
 * - pt2pt: thread t of each rank exchanges messages with thread t of its
 *   peer on tag t, small and large (eager and rendezvous or published),
 *   one at a time and in bursts of Isends; each message carries its
 *   sender thread and sequence number, which must arrive in order
 *   (non-overtaking per thread, section 3.5);
 * - coll: thread t runs Allreduce, Bcast (every root), Barrier and
 *   Iallreduce on its own duplicate of MPI_COMM_WORLD;
 * - wait: thread t posts receives, thread t + 1 waits for them (and a send
 *   request likewise);
 * - probe: thread t probes (MPI_Probe, MPI_Iprobe) for its tag, then
 *   receives; then every thread takes messages of any tag with MPI_Mprobe
 *   and MPI_Mrecv, or MPI_Improbe: each message goes to one thread only,
 *   and those a thread gets from one sender thread come in order;
 * - block: a blocking call blocks only its thread: on even ranks thread 0
 *   waits in MPI_Recv for a message the peer sends only after it received
 *   one from thread 1 of the same rank; thread 0 of every rank sends a
 *   synchronous message to itself, which thread 1 receives later.
 *
 * Rank 0 prints "mpi_multiple_test: OK (np=N, T threads)". With ranks as
 * threads of one program (mpirun --ranks threads on Tessera), an
 * implementation may provide less than MPI_THREAD_MULTIPLE: the program
 * then says so ("provides LEVEL") and checks that level's rules only. */
#define NAME "mpi_multiple_test"
#include "mpitest.h"

#include <pthread.h>
#include <unistd.h>

#define MAX_THREADS 4
#define ITERS       40
#define BURST       8
#define LARGE       6000 /* ints: above every eager threshold */
#define MPROBE_EACH 16

static int rank, size, peer, nthreads;
static MPI_Comm comms[MAX_THREADS];
static pthread_barrier_t all_threads;
/* wait phase: each thread's receive, filled by its peer's thread t */
static MPI_Request handed[MAX_THREADS];
static int handed_in[MAX_THREADS][2];
/* probe phase: how many times each (sender thread, sequence) arrived */
static int taken[MAX_THREADS][MPROBE_EACH];

/* A thread's identity for mpitest.h's reports. */
static void be(int t, const char *what) {
    me = rank;
    np = size;
    phase = what;
    (void)t;
}

static void fill(int *buf, int n, int t, int seq) {
    buf[0] = rank;
    buf[1] = t;
    buf[2] = seq;
    for (int i = 3; i < n; ++i)
        buf[i] = rank * 7 + t * 5 + seq * 3 + i;
}

static void check_from_peer(const int *buf, int n, int t, int seq) {
    CHECK_EQ(buf[0], peer);
    CHECK_EQ(buf[1], t);
    CHECK_EQ(buf[2], seq);
    for (int i = 3; i < n; ++i)
        if (buf[i] != peer * 7 + t * 5 + seq * 3 + i) FAIL("word %d of message %d of thread %d", i, seq, t);
}

static void phase_pt2pt(int t) {
    be(t, "pt2pt");
    int *out = xmalloc(LARGE * sizeof(int)), *in = xmalloc(LARGE * sizeof(int));
    for (int i = 0; i < ITERS; ++i) {
        const int n = i % 4 == 3 ? LARGE : 3 + i % 5;
        MPI_Request send;
        MPI_Status st;
        fill(out, n, t, i);
        MPI_OK(MPI_Isend(out, n, MPI_INT, peer, t, MPI_COMM_WORLD, &send));
        MPI_OK(MPI_Recv(in, LARGE, MPI_INT, peer, t, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
        int count = -1;
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_EQ(count, n);
        check_from_peer(in, n, t, i);
    }
    /* A burst: its messages must be matched in the order they were sent. */
    int *bout = xmalloc(BURST * LARGE * sizeof(int)), *bin = xmalloc(BURST * LARGE * sizeof(int));
    MPI_Request reqs[2 * BURST];
    for (int k = 0; k < BURST; ++k) {
        const int n = k % 2 ? LARGE : 4;
        fill(bout + k * LARGE, n, t, 1000 + k);
        MPI_OK(MPI_Isend(bout + k * LARGE, n, MPI_INT, peer, t, MPI_COMM_WORLD, &reqs[k]));
    }
    for (int k = 0; k < BURST; ++k)
        MPI_OK(MPI_Irecv(bin + k * LARGE, LARGE, MPI_INT, peer, t, MPI_COMM_WORLD, &reqs[BURST + k]));
    MPI_OK(MPI_Waitall(2 * BURST, reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < BURST; ++k)
        check_from_peer(bin + k * LARGE, k % 2 ? LARGE : 4, t, 1000 + k);
    free(bout);
    free(bin);
    free(out);
    free(in);
}

static void phase_coll(int t) {
    be(t, "coll");
    MPI_Comm c = comms[t];
    for (int i = 0; i < ITERS; ++i) {
        int mine = rank + t + i, sum = -1;
        MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK_EQ(sum, size * (t + i) + size * (size - 1) / 2);
        int value = rank == i % size ? 100 * t + i : -1;
        MPI_OK(MPI_Bcast(&value, 1, MPI_INT, i % size, c));
        CHECK_EQ(value, 100 * t + i);
        MPI_OK(MPI_Barrier(c));
        MPI_Request r;
        long long big = (long long)rank << 20 | t, max = 0;
        MPI_OK(MPI_Iallreduce(&big, &max, 1, MPI_LONG_LONG, MPI_MAX, c, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_EQ(max, (long long)(size - 1) << 20 | t);
    }
}

static void phase_wait(int t) {
    be(t, "wait");
    for (int i = 0; i < ITERS / 4; ++i) {
        MPI_OK(MPI_Irecv(handed_in[t], 2, MPI_INT, peer, 100 + t, MPI_COMM_WORLD, &handed[t]));
        pthread_barrier_wait(&all_threads);
        const int out[2] = {rank, 1000 * t + i};
        MPI_OK(MPI_Send(out, 2, MPI_INT, peer, 100 + t, MPI_COMM_WORLD));
        /* The receive thread t + 1 posted, waited for here. */
        const int other = (t + 1) % nthreads;
        MPI_Status st;
        MPI_OK(MPI_Wait(&handed[other], &st));
        CHECK_EQ(st.MPI_TAG, 100 + other);
        CHECK_EQ(handed_in[other][0], peer);
        CHECK_EQ(handed_in[other][1], 1000 * other + i);
        pthread_barrier_wait(&all_threads); /* before handed[] is reused */
    }
}

static void phase_probe(int t) {
    be(t, "probe");
    int out[3], in[3];
    for (int i = 0; i < ITERS / 4; ++i) {
        fill(out, 3, t, i);
        MPI_Request send;
        MPI_OK(MPI_Isend(out, 3, MPI_INT, peer, 200 + t, MPI_COMM_WORLD, &send));
        MPI_Status st;
        if (i % 2) {
            MPI_OK(MPI_Probe(peer, 200 + t, MPI_COMM_WORLD, &st));
        } else {
            int flag = 0;
            while (!flag)
                MPI_OK(MPI_Iprobe(peer, 200 + t, MPI_COMM_WORLD, &flag, &st));
        }
        CHECK_EQ(st.MPI_SOURCE, peer);
        CHECK_EQ(st.MPI_TAG, 200 + t);
        MPI_OK(MPI_Recv(in, 3, MPI_INT, peer, 200 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check_from_peer(in, 3, t, i);
        MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
    }
    pthread_barrier_wait(&all_threads);
    /* Messages of any tag, each taken by whichever thread matches it; the
     * large ones (rendezvous) may be received in another order than they
     * were probed in. */
    MPI_Request sends[MPROBE_EACH];
    int *outs = xmalloc(MPROBE_EACH * LARGE * sizeof(int)), *big = xmalloc(LARGE * sizeof(int));
    for (int i = 0; i < MPROBE_EACH; ++i) {
        fill(outs + i * LARGE, i % 2 ? LARGE : 3, t, i);
        MPI_OK(MPI_Isend(outs + i * LARGE, i % 2 ? LARGE : 3, MPI_INT, peer, 300 + t, MPI_COMM_WORLD,
                         &sends[i]));
    }
    int last[MAX_THREADS];
    for (int k = 0; k < MAX_THREADS; ++k)
        last[k] = -1;
    for (int i = 0; i < MPROBE_EACH; ++i) {
        MPI_Message msg;
        MPI_Status st;
        if (i % 2) {
            MPI_OK(MPI_Mprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
        } else {
            int flag = 0;
            while (!flag)
                MPI_OK(MPI_Improbe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
        }
        CHECK(st.MPI_TAG >= 300 && st.MPI_TAG < 300 + nthreads);
        int count = -1;
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        MPI_OK(MPI_Mrecv(big, LARGE, MPI_INT, &msg, MPI_STATUS_IGNORE));
        CHECK_EQ(msg, MPI_MESSAGE_NULL);
        const int from = st.MPI_TAG - 300;
        CHECK(big[2] > last[from]); /* one sender thread's messages in order */
        CHECK_EQ(count, big[2] % 2 ? LARGE : 3);
        check_from_peer(big, count, from, big[2]);
        last[from] = big[2];
        __atomic_add_fetch(&taken[from][big[2]], 1, __ATOMIC_SEQ_CST);
    }
    MPI_OK(MPI_Waitall(MPROBE_EACH, sends, MPI_STATUSES_IGNORE));
    free(outs);
    free(big);
    pthread_barrier_wait(&all_threads);
    for (int i = 0; i < MPROBE_EACH; ++i)
        if (taken[t][i] != 1) FAIL("message %d of thread %d was taken %d times", i, t, taken[t][i]);
}

static void phase_block(int t) {
    be(t, "block");
    int v = -1;
    if (t == 0 && rank % 2 == 0) {
        /* The peer answers only what thread 1 sends, later. */
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 400, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(v, 41);
    } else if (t == 1 && rank % 2 == 0) {
        usleep(20000);
        v = 40;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 401, MPI_COMM_WORLD));
    } else if (t == 0) {
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 401, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(v, 40);
        v = 41;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 400, MPI_COMM_WORLD));
    }
    pthread_barrier_wait(&all_threads);
    /* A synchronous send to oneself completes once another thread receives. */
    if (t == 0) {
        v = 42 + rank;
        MPI_OK(MPI_Ssend(&v, 1, MPI_INT, rank, 402, MPI_COMM_WORLD));
    } else if (t == 1) {
        usleep(20000);
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, rank, 402, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(v, 42 + rank);
    }
}

static void (*const phases[])(int) = {phase_pt2pt, phase_coll, phase_wait, phase_probe, phase_block};

static void run_phases(int t) {
    for (size_t p = 0; p < sizeof phases / sizeof phases[0]; ++p) {
        pthread_barrier_wait(&all_threads);
        if (t == 0) MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every rank's threads start together */
        pthread_barrier_wait(&all_threads);
        phases[p](t);
    }
}

static void *worker(void *arg) {
    run_phases((int)(long)arg);
    return NULL;
}

int main(int argc, char **argv) {
    int provided = -1, level = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    me = rank;
    np = size;
    phase = "init";
    MPI_OK(MPI_Query_thread(&level));
    CHECK_EQ(level, provided);
    if (size % 2) FAIL("needs an even number of ranks");
    if (provided != MPI_THREAD_MULTIPLE) {
        CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_SERIALIZED);
        if (rank == 0) printf(NAME ": provides %d, not MPI_THREAD_MULTIPLE (np=%d)\n", provided, size);
        MPI_Finalize();
        return 0;
    }
    peer = rank ^ 1;
    long share = sysconf(_SC_NPROCESSORS_ONLN);
    int want = share > MAX_THREADS ? MAX_THREADS : (int)share;
    MPI_OK(MPI_Allreduce(&want, &nthreads, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (nthreads < 2) FAIL("a share of %ld core(s): no core for a second thread (see the mapping)", share);
    for (int t = 0; t < nthreads; ++t)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    pthread_barrier_init(&all_threads, NULL, (unsigned)nthreads);
    pthread_t helpers[MAX_THREADS];
    for (int t = 1; t < nthreads; ++t)
        if (pthread_create(&helpers[t], NULL, worker, (void *)(long)t) != 0) FAIL("pthread_create %d", t);
    run_phases(0);
    for (int t = 1; t < nthreads; ++t)
        pthread_join(helpers[t], NULL);
    pthread_barrier_destroy(&all_threads);
    phase = "end";
    for (int t = 0; t < nthreads; ++t)
        MPI_OK(MPI_Comm_free(&comms[t]));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf(NAME ": OK (np=%d, %d threads)\n", size, nthreads);
    MPI_Finalize();
    return 0;
}
