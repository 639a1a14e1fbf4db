/* On-target test of <pthread.h> in MPI ranks (tests/target_tests.toml:
 * userland_pthread).
 *
 * Each rank asks for MPI_THREAD_SERIALIZED, then, one rank at a time:
 *   cores:   starts threads that wait on a condition variable until
 *            pthread_create fails, which must be with EAGAIN once the
 *            rank's share of cores is full (sysconf(_SC_NPROCESSORS_ONLN)
 *            less its own core), though the cluster may have free cores
 *            that other ranks' shares keep; prints how many it got
 *            ("rank R: N threads"), releases and joins them, and starts
 *            one more, which must work again if any did;
 * and, when it got a thread at all:
 *   join:    results through pthread_join and pthread_exit, ESRCH for a
 *            second join, EDEADLK for itself, pthread_self/equal;
 *   detach:  a detached thread runs to its end; join then gives ESRCH;
 *   mutex:   threads add to a counter under a mutex (trylock: EBUSY while
 *            held; unlock of a free mutex: EPERM);
 *   cond:    a producer and a consumer hand over items through a
 *            condition variable; timedwait gives ETIMEDOUT;
 *   once:    pthread_once runs its routine once for all threads;
 *   keys:    each thread's value, destructors run at its end;
 * and then all ranks at once:
 *   share:   every rank fills its share at the same time: each gets it
 *            whole, and no more;
 *   mpi:     a thread sends to the next rank, the main thread receives
 *            (needs a free core per rank).
 * (The other synchronisation objects: pthread_sync_test.c.)
 * Prints "pthread_test: rank R OK (N threads)" or "FAIL ..." lines; the
 * job ends with the first failing rank's status. */
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_THREADS 32

static int rank, size, failures;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            printf("FAIL pthread_test.c:%d: rank %d: %s\n", __LINE__, rank, #cond); \
            ++failures;                                                             \
        }                                                                           \
    } while (0)

/* ---- cores ---- */

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void *wait_at_gate(void *arg) {
    pthread_mutex_lock(&gate_lock);
    while (!gate_open)
        pthread_cond_wait(&gate, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
    return arg;
}

static int test_cores(void) {
    pthread_t t[MAX_THREADS];
    int n = 0, e = 0;
    while (n < MAX_THREADS && (e = pthread_create(&t[n], 0, wait_at_gate, (void *)(long)n)) == 0)
        ++n;
    CHECK(n == MAX_THREADS || e == EAGAIN);
    CHECK(n == sysconf(_SC_NPROCESSORS_ONLN) - 1);
    pthread_mutex_lock(&gate_lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate);
    pthread_mutex_unlock(&gate_lock);
    for (int i = 0; i < n; ++i) {
        void *v = 0;
        CHECK(pthread_join(t[i], &v) == 0);
        CHECK(v == (void *)(long)i);
    }
    if (n > 0) { /* the cores are free again */
        pthread_t again;
        CHECK(pthread_create(&again, 0, wait_at_gate, 0) == 0);
        CHECK(pthread_join(again, 0) == 0);
    }
    printf("rank %d: %d threads\n", rank, n);
    return n;
}

/* pthread_create, waiting for a core: a detached thread that has said it
 * is done may still hold its core for a moment. */
static int create(pthread_t *t, void *(*start)(void *), void *arg) {
    int e;
    for (int tries = 0; (e = pthread_create(t, 0, start, arg)) == EAGAIN && tries < 100000; ++tries)
        sched_yield();
    return e;
}

/* ---- join, detach ---- */

static pthread_t main_thread;

static void *exits_early(void *arg) {
    CHECK(!pthread_equal(pthread_self(), main_thread));
    pthread_exit((char *)arg + 1);
    return 0; /* not reached */
}

static volatile int detached_done;

static void *detached(void *arg) {
    (void)arg;
    __atomic_store_n(&detached_done, 1, __ATOMIC_RELEASE);
    return 0;
}

static void test_join_detach(void) {
    static char mark[2];
    main_thread = pthread_self();
    CHECK(pthread_equal(main_thread, pthread_self()));
    CHECK(pthread_join(pthread_self(), 0) == EDEADLK);
    pthread_t t;
    void *v = 0;
    CHECK(pthread_create(&t, 0, exits_early, mark) == 0);
    CHECK(pthread_join(t, &v) == 0);
    CHECK(v == mark + 1);
    CHECK(pthread_join(t, &v) == ESRCH);
    pthread_attr_t attr;
    int state = -1;
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0);
    CHECK(pthread_attr_getdetachstate(&attr, &state) == 0 && state == PTHREAD_CREATE_DETACHED);
    CHECK(pthread_attr_setdetachstate(&attr, 12345) == EINVAL);
    CHECK(pthread_create(&t, &attr, detached, 0) == 0);
    CHECK(pthread_attr_destroy(&attr) == 0);
    while (!__atomic_load_n(&detached_done, __ATOMIC_ACQUIRE))
        sched_yield();
    CHECK(pthread_join(t, 0) == ESRCH);
    /* Called once: the detached thread may end between two calls, turning
     * EINVAL (detached, still there) into ESRCH (gone). */
    const int again = pthread_detach(t);
    CHECK(again == ESRCH || again == EINVAL);
}

/* ---- mutex ---- */

#define ADDS 2000
static pthread_mutex_t counter_lock;
static long counter;

static void *add(void *arg) {
    (void)arg;
    for (int i = 0; i < ADDS; ++i) {
        pthread_mutex_lock(&counter_lock);
        long c = counter;
        if (i % 64 == 0) sched_yield(); /* let the other side try */
        counter = c + 1;
        pthread_mutex_unlock(&counter_lock);
    }
    return 0;
}

static void test_mutex(int threads) {
    pthread_mutexattr_t attr;
    int type = -1;
    CHECK(pthread_mutexattr_init(&attr) == 0);
    CHECK(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL) == 0);
    CHECK(pthread_mutexattr_gettype(&attr, &type) == 0 && type == PTHREAD_MUTEX_NORMAL);
    CHECK(pthread_mutex_init(&counter_lock, &attr) == 0);
    CHECK(pthread_mutexattr_destroy(&attr) == 0);
    CHECK(pthread_mutex_unlock(&counter_lock) == EPERM);
    CHECK(pthread_mutex_lock(&counter_lock) == 0);
    CHECK(pthread_mutex_trylock(&counter_lock) == EBUSY);
    CHECK(pthread_mutex_destroy(&counter_lock) == EBUSY);
    CHECK(pthread_mutex_unlock(&counter_lock) == 0);
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < threads; ++i)
        CHECK(create(&t[i], add, 0) == 0);
    add(0); /* the main thread too */
    for (int i = 0; i < threads; ++i)
        CHECK(pthread_join(t[i], 0) == 0);
    CHECK(counter == (long)ADDS * (threads + 1));
    CHECK(pthread_mutex_destroy(&counter_lock) == 0);
}

/* ---- cond ---- */

#define ITEMS 200
static pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t box_changed = PTHREAD_COND_INITIALIZER;
static int box, box_full;

static void *producer(void *arg) {
    (void)arg;
    for (int i = 1; i <= ITEMS; ++i) {
        pthread_mutex_lock(&box_lock);
        while (box_full)
            pthread_cond_wait(&box_changed, &box_lock);
        box = i;
        box_full = 1;
        pthread_cond_signal(&box_changed);
        pthread_mutex_unlock(&box_lock);
    }
    return 0;
}

static void test_cond(void) {
    pthread_t t;
    long sum = 0;
    CHECK(create(&t, producer, 0) == 0);
    for (int i = 1; i <= ITEMS; ++i) {
        pthread_mutex_lock(&box_lock);
        while (!box_full)
            pthread_cond_wait(&box_changed, &box_lock);
        CHECK(box == i);
        sum += box;
        box_full = 0;
        pthread_cond_signal(&box_changed);
        pthread_mutex_unlock(&box_lock);
    }
    CHECK(pthread_join(t, 0) == 0);
    CHECK(sum == (long)ITEMS * (ITEMS + 1) / 2);
    /* Nobody signals: timedwait runs out. */
    struct timespec when;
    struct timeval now;
    gettimeofday(&now, 0);
    when.tv_sec = now.tv_sec;
    when.tv_nsec = now.tv_usec * 1000L + 20000000L; /* +20 ms */
    if (when.tv_nsec >= 1000000000L) {
        when.tv_sec += 1;
        when.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&box_lock);
    CHECK(pthread_cond_timedwait(&box_changed, &box_lock, &when) == ETIMEDOUT);
    pthread_mutex_unlock(&box_lock);
}

/* ---- once, keys ---- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;
static pthread_key_t key;
static int destroyed;

static void init_once(void) { __atomic_add_fetch(&once_runs, 1, __ATOMIC_RELAXED); }

static void destroy(void *v) {
    CHECK(*(int *)v == 7);
    __atomic_add_fetch(&destroyed, 1, __ATOMIC_RELAXED);
}

static void *once_and_key(void *arg) {
    static int seven[MAX_THREADS];
    const int i = (int)(long)arg;
    CHECK(pthread_once(&once, init_once) == 0);
    CHECK(pthread_getspecific(key) == 0);
    seven[i] = 7;
    CHECK(pthread_setspecific(key, &seven[i]) == 0);
    CHECK(pthread_getspecific(key) == &seven[i]);
    return 0;
}

static void test_once_keys(int threads) {
    CHECK(pthread_key_create(&key, destroy) == 0);
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < threads; ++i)
        CHECK(create(&t[i], once_and_key, (void *)(long)i) == 0);
    CHECK(pthread_once(&once, init_once) == 0);
    for (int i = 0; i < threads; ++i)
        CHECK(pthread_join(t[i], 0) == 0);
    CHECK(once_runs == 1);
    CHECK(destroyed == threads);
    CHECK(pthread_getspecific(key) == 0); /* the main thread's value */
    CHECK(pthread_key_delete(key) == 0);
    CHECK(pthread_setspecific(key, &once_runs) == EINVAL);
}

/* ---- every rank's share at once ---- */

static pthread_barrier_t share_full;

static void *hold_core(void *arg) {
    (void)arg;
    pthread_barrier_wait(&share_full); /* every thread of the rank started */
    pthread_barrier_wait(&share_full); /* every rank checked */
    return 0;
}

static void test_share(int threads) {
    pthread_t t[MAX_THREADS];
    CHECK(pthread_barrier_init(&share_full, 0, (unsigned)threads + 1) == 0);
    for (int i = 0; i < threads; ++i)
        CHECK(create(&t[i], hold_core, 0) == 0);
    pthread_barrier_wait(&share_full);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank holds its share now */
    pthread_t extra;
    CHECK(pthread_create(&extra, 0, hold_core, 0) == EAGAIN);
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_barrier_wait(&share_full);
    for (int i = 0; i < threads; ++i)
        CHECK(pthread_join(t[i], 0) == 0);
    CHECK(pthread_barrier_destroy(&share_full) == 0);
}

/* ---- MPI from a thread ---- */

static void *send_to_next(void *arg) {
    (void)arg;
    const int v = 1000 + rank;
    CHECK(MPI_Send(&v, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD) == MPI_SUCCESS);
    return 0;
}

static void test_mpi(void) {
    pthread_t t;
    int got = -1;
    CHECK(create(&t, send_to_next, 0) == 0);
    CHECK(pthread_join(t, 0) == 0); /* SERIALIZED: one thread in MPI at a time */
    CHECK(MPI_Recv(&got, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    CHECK(got == 1000 + (rank + size - 1) % size);
}

int main(int argc, char **argv) {
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided >= MPI_THREAD_FUNNELED);
    /* One rank at a time (the others wait in MPI_Barrier, which holds no
     * core): a rank gets its share, not the cores the others leave free. */
    int threads = 0;
    for (int turn = 0; turn < size; ++turn) {
        if (turn == rank) {
            threads = test_cores();
            if (threads > 0) {
                test_join_detach();
                test_mutex(threads);
                test_cond();
                test_once_keys(threads);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* All at once. */
    test_share(threads);
    if (threads > 0 && provided == MPI_THREAD_SERIALIZED) test_mpi();
    if (!failures) printf("pthread_test: rank %d OK (%d threads)\n", rank, threads);
    fflush(stdout);
    MPI_Finalize();
    return failures ? 1 : 0;
}
