/*
 * sync_test: on-target test of threads, futexes, the runtime's mutexes,
 * semaphores and condition variables, kernel call counters, the core a
 * thread runs on and memory info. Run alone (mpirun -np 1): it takes every free core of its cluster
 * and exhausts the heap.
 *
 * Prints "FAIL line L: ..." for each failed check and "sync checks: N
 * failed"; exits with N. Every wait is bounded, so that a kernel that gets
 * these calls wrong gives failures, not a hang: blocking waits have
 * timeouts, polling loops a deadline, and a helper thread that does not
 * finish within WATCHDOG_US ends the job (exit status: the failures so
 * far), since one stuck thread would keep the process alive.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <tessera/arch.h>
#include <tessera/runtime.h>

#define MS          1000000ul   /* ns */
#define WAIT_NS     (2000 * MS) /* for a wake-up that must come */
#define WATCHDOG_US 10000000ul  /* for a thread or a condition that must come */
#define MAX_THREADS 64
#define WORKERS     3 /* helper threads the tests below need at most */

static int failed;

static void fail(int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL line %d: ", line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    __atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
}

/* Both return whether the check passed, so callers can stop early. */
static int expect(long got, long want, const char *what, int line) {
    if (got != want) fail(line, "%s: got %ld, want %ld", what, got, want);
    return got == want;
}

#define EXPECT(expr, want) expect((long)(expr), (long)(want), #expr, __LINE__)
#define CHECK(cond, ...)   ((cond) ? 1 : (fail(__LINE__, __VA_ARGS__), 0))

static int summary(void) {
    int n = __atomic_load_n(&failed, __ATOMIC_RELAXED);
    printf("sync checks: %d failed\n", n);
    return n;
}

/* Microseconds since boot (the time CSR, not a kernel call). */
static unsigned long now_us(void) {
    struct timeval tv;
    gettimeofday(&tv, 0);
    return (unsigned long)tv.tv_sec * 1000000ul + (unsigned long)tv.tv_usec;
}

/* Checks that a wait with a timeout of ns, started at t0, timed out, and
 * not early. */
static void expect_timeout(long got, unsigned long t0, unsigned long ns, const char *what, int line) {
    unsigned long spent = now_us() - t0;
    if (expect(got, -TS_ETIMEDOUT, what, line) && spent < ns / 1000)
        fail(line, "%s: timed out after %lu us", what, spent);
}

#define EXPECT_TIMEOUT(expr, ns)                                  \
    do {                                                          \
        unsigned long t0_ = now_us();                             \
        expect_timeout((long)(expr), t0_, (ns), #expr, __LINE__); \
    } while (0)

/* For polling loops: sleeps 1 ms and returns 1, or returns 0 once
 * WATCHDOG_US have passed since `start`. ts_sleep_ns is not under test. */
static int keep_polling(unsigned long start) {
    if (now_us() - start > WATCHDOG_US) return 0;
    ts_sleep_ns(MS);
    return 1;
}

/* ---- helper threads */

struct worker {
    void (*fn)(void *);
    void *arg;
    int tid;
    int done; /* fn has returned */
};

static void worker_main(void *p) {
    struct worker *w = p;
    w->fn(w->arg);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

/* Starts fn(arg) on a free core; returns whether it could. */
static int start(struct worker *w, void (*fn)(void *), void *arg) {
    w->fn = fn;
    w->arg = arg;
    w->done = 0;
    w->tid = ts_thread_create(worker_main, w);
    return CHECK(w->tid >= 0, "ts_thread_create: %d", w->tid);
}

typedef void (*worker_fn)(void *);

/* Starts w[i] on fn[i](arg[i]) (arg 0: all 0) for i < n, up to the first
 * that fails; returns how many started. */
static int start_all(struct worker *w, int n, const worker_fn *fn, void *const *arg) {
    int started = 0;
    while (started < n && start(&w[started], fn[started], arg ? arg[started] : 0))
        ++started;
    return started;
}

/* Waits for n started workers to finish, then joins them. One that is not
 * done within WATCHDOG_US ends the test (see the top). */
static void finish(struct worker *w, int n, const char *what) {
    unsigned long t0 = now_us();
    for (int i = 0; i < n; ++i) {
        while (!__atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
            if (!keep_polling(t0)) {
                fail(__LINE__, "%s: a thread is stuck", what);
                ts_job_abort(summary()); /* ends the stuck thread too */
            }
        EXPECT(ts_thread_join(w[i].tid, 0), 0);
    }
}

/* ---- (a) thread API: every free core, EAGAIN, join, and again */

static int release;                  /* parked threads may end */
static int parked_self[MAX_THREADS]; /* what ts_thread_self says in each */
static int parked_core[MAX_THREADS]; /* and ts_thread_core */

static void parked(void *arg) {
    int i = (int)(long)arg;
    parked_core[i] = ts_thread_core();
    __atomic_store_n(&parked_self[i], ts_thread_self(), __ATOMIC_RELEASE);
    unsigned long t0 = now_us();
    while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE) && keep_polling(t0))
        ;
    /* 0: a non-zero thread status would become the process's exit status;
     * join must still write it over the caller's -1. */
    ts_thread_exit(0);
}

/* Fills every free core with a parked thread and checks their tids and
 * cores (a tid is the number of the thread's core). */
static int fill_cores(int *tids, int nfree) {
    int n = 0, r = 0;
    while (n < MAX_THREADS && (r = ts_thread_create(parked, (void *)(long)n)) >= 0)
        tids[n++] = r;
    EXPECT(n, nfree);
    EXPECT(r, -TS_EAGAIN);

    int me = ts_thread_self();
    unsigned long t0 = now_us();
    for (int i = 0; i < n; ++i) {
        while (__atomic_load_n(&parked_self[i], __ATOMIC_ACQUIRE) < 0 && keep_polling(t0))
            ;
        CHECK(parked_self[i] == tids[i], "thread %d: self %d, created as %d", i, parked_self[i], tids[i]);
        CHECK(parked_core[i] == tids[i], "thread %d: on core %d, created as %d", i, parked_core[i], tids[i]);
        CHECK(tids[i] != me, "thread %d has the main thread's tid %d", i, me);
        for (int j = 0; j < i; ++j)
            CHECK(tids[i] != tids[j], "threads %d and %d share tid %d", i, j, tids[i]);
    }
    return n;
}

static void test_threads(int nfree) {
    int tids[MAX_THREADS];
    for (int round = 0; round < 2; ++round) { /* exhaustion, and back */
        __atomic_store_n(&release, 0, __ATOMIC_RELEASE);
        for (int i = 0; i < MAX_THREADS; ++i)
            parked_self[i] = -1;
        int n = fill_cores(tids, nfree);
        __atomic_store_n(&release, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < n; ++i) {
            int status = -1;
            EXPECT(ts_thread_join(tids[i], &status), 0);
            EXPECT(status, 0);
        }
    }
    EXPECT(ts_thread_join(-1, 0), -TS_EINVAL);
    EXPECT(ts_thread_join(1000, 0), -TS_EINVAL);
    EXPECT(ts_thread_join(ts_thread_self(), 0), -TS_EINVAL);
    EXPECT(ts_thread_yield(), 0);
}

/* ---- (b) futex calls */

static unsigned word;
static int wait_over; /* the main thread's wait has returned */

/* Wakes until it wakes someone: the waiter may not be asleep yet. */
static void waker(void *arg) {
    int *woke = arg;
    int r = 0;
    unsigned long t0 = now_us();
    while (!__atomic_load_n(&wait_over, __ATOMIC_ACQUIRE) && (r = ts_futex_wake(&word, 1)) == 0 &&
           keep_polling(t0))
        ;
    *woke = r;
}

static void test_futex(void) {
    word = 5;
    EXPECT(ts_futex_wait(&word, 4, WAIT_NS), -TS_EAGAIN);
    EXPECT_TIMEOUT(ts_futex_wait(&word, 5, MS), MS);
    EXPECT(ts_futex_wait((const unsigned *)((uintptr_t)&word + 1), 5, MS), -TS_EINVAL);
    EXPECT(ts_futex_wait((const unsigned *)0x10, 0, MS), -TS_EFAULT);
    EXPECT(ts_futex_wait((const unsigned *)0x80200000ul, 0, MS), -TS_EFAULT); /* kernel memory */
    EXPECT(ts_futex_wake(&word, 1), 0);

    /* *addr stays 5 throughout: only the wake can end the wait with 0. */
    struct worker w;
    int woke = -1;
    if (start(&w, waker, &woke)) {
        int r = ts_futex_wait(&word, 5, WAIT_NS);
        __atomic_store_n(&wait_over, 1, __ATOMIC_RELEASE);
        finish(&w, 1, "futex wake");
        if (CHECK(r == 0, "futex_wait for another thread's wake: got %d, want 0", r)) EXPECT(woke, 1);
    }
}

/* ---- (c) mutex */

#define INCREMENTS 20000

static ts_mutex_t counter_lock = TS_MUTEX_INIT;
static long counter; /* a plain read-modify-write: only the mutex makes it exact */

static void count_up(void *arg) {
    (void)arg;
    for (int i = 0; i < INCREMENTS; ++i) {
        ts_mutex_lock(&counter_lock);
        counter++;
        ts_mutex_unlock(&counter_lock);
    }
}

static ts_mutex_t held = TS_MUTEX_INIT;
static int got_it; /* the blocked locker has the mutex */

static void blocked_locker(void *arg) {
    (void)arg;
    ts_mutex_lock(&held);
    __atomic_store_n(&got_it, 1, __ATOMIC_RELEASE);
    ts_mutex_unlock(&held);
}

/* A locker that finds the mutex held marks it contended (2) before it
 * sleeps, and the unlock wakes it. */
static void test_mutex_sleep(void) {
    struct worker w;
    ts_mutex_lock(&held);
    if (start(&w, blocked_locker, 0)) {
        unsigned long t0 = now_us();
        while (__atomic_load_n(&held.state, __ATOMIC_ACQUIRE) != 2 && keep_polling(t0))
            ;
        EXPECT(held.state, 2);
        EXPECT(got_it, 0);
        ts_mutex_unlock(&held);
        finish(&w, 1, "mutex wake-up");
        EXPECT(got_it, 1);
    } else {
        ts_mutex_unlock(&held);
    }
}

static void test_mutex(void) {
    ts_mutex_t m;
    ts_mutex_init(&m);
    EXPECT(ts_mutex_unlock(&m), -TS_EPERM);
    EXPECT(ts_mutex_trylock(&m), 0);
    EXPECT(ts_mutex_trylock(&m), -TS_EBUSY);
    EXPECT(ts_mutex_unlock(&m), 0);
    test_mutex_sleep();

    const worker_fn fn[WORKERS] = {count_up, count_up, count_up};
    struct worker w[WORKERS];
    finish(w, start_all(w, WORKERS, fn, 0), "mutex");
    EXPECT(counter, (long)WORKERS * INCREMENTS);
}

/* ---- (d) semaphores: a bounded buffer, one producer, two consumers */

#define ITEMS 1000
#define SLOTS 8

static struct {
    ts_sem_t empty, full; /* free and filled slots */
    ts_mutex_t lock;      /* for the rest */
    int buf[SLOTS];
    unsigned head, tail;
    long sum, consumed;
} pc;

static void producer(void *arg) {
    (void)arg;
    for (int item = 1; item <= ITEMS; ++item) {
        if (!EXPECT(ts_sem_wait(&pc.empty), 0)) return;
        ts_mutex_lock(&pc.lock);
        pc.buf[pc.head++ % SLOTS] = item;
        ts_mutex_unlock(&pc.lock);
        ts_sem_post(&pc.full);
    }
}

/* Takes arg items; the timed wait keeps a lost wake-up from hanging. */
static void consumer(void *arg) {
    for (long k = 0; k < (long)arg; ++k) {
        if (!EXPECT(ts_sem_timedwait(&pc.full, WAIT_NS), 0)) return;
        ts_mutex_lock(&pc.lock);
        pc.sum += pc.buf[pc.tail++ % SLOTS];
        pc.consumed++;
        ts_mutex_unlock(&pc.lock);
        ts_sem_post(&pc.empty);
    }
}

static void test_semaphore(void) {
    ts_sem_t s;
    ts_sem_init(&s, 0);
    EXPECT(ts_sem_trywait(&s), -TS_EAGAIN);
    EXPECT_TIMEOUT(ts_sem_timedwait(&s, 2 * MS), 2 * MS);
    ts_sem_post(&s);
    EXPECT(ts_sem_trywait(&s), 0);

    ts_sem_init(&pc.empty, SLOTS);
    ts_sem_init(&pc.full, 0);
    ts_mutex_init(&pc.lock);
    const worker_fn fn[WORKERS] = {producer, consumer, consumer};
    void *const arg[WORKERS] = {0, (void *)(long)(ITEMS / 2), (void *)(long)(ITEMS - ITEMS / 2)};
    struct worker w[WORKERS];
    finish(w, start_all(w, WORKERS, fn, arg), "semaphore");
    EXPECT(pc.consumed, ITEMS);
    EXPECT(pc.sum, (long)ITEMS * (ITEMS + 1) / 2);
}

/* ---- (e) condition variable */

static struct {
    ts_mutex_t lock;
    ts_cond_t cond;
    int flag, ready, woken;
} cv = {TS_MUTEX_INIT, TS_COND_INIT, 0, 0, 0};

#define SPURIOUS_MAX 100 /* the test bumps the sequence once: no spurious wake-ups at all */

static void cond_waiter(void *arg) {
    (void)arg;
    ts_mutex_lock(&cv.lock);
    cv.ready++;
    for (int n = 0; !cv.flag; ++n)
        if (!EXPECT(ts_cond_wait(&cv.cond, &cv.lock), 0) ||
            !CHECK(n < SPURIOUS_MAX, "cond_wait: %d wake-ups without the flag", n))
            break;
    if (cv.flag) cv.woken++;
    ts_mutex_unlock(&cv.lock);
}

static int cond_waiters_ready(void) {
    ts_mutex_lock(&cv.lock);
    int n = cv.ready;
    ts_mutex_unlock(&cv.lock);
    return n;
}

static void test_cond(void) {
    const worker_fn fn[WORKERS] = {cond_waiter, cond_waiter, cond_waiter};
    struct worker w[WORKERS];
    int started = start_all(w, WORKERS, fn, 0);
    /* A waiter counted in ready has read the sequence under the lock, so
     * the broadcast below cannot miss it. */
    unsigned long t0 = now_us();
    while (cond_waiters_ready() < started && keep_polling(t0))
        ;
    ts_mutex_lock(&cv.lock);
    cv.flag = 1;
    ts_cond_broadcast(&cv.cond);
    ts_mutex_unlock(&cv.lock);
    finish(w, started, "condvar broadcast");
    EXPECT(cv.woken, WORKERS);

    ts_cond_t c;
    ts_cond_init(&c);
    ts_mutex_lock(&cv.lock);
    EXPECT_TIMEOUT(ts_cond_timedwait(&c, &cv.lock, 2 * MS), 2 * MS);
    EXPECT(ts_mutex_unlock(&cv.lock), 0); /* the wait locked it again */
}

/* ---- (f) ping-pong: two threads hand a turn back and forth by futex */

#define ROUNDS 2000

static struct {
    unsigned turn; /* whose turn: 0 or 1 */
    int stop;      /* one side failed: the other stops too */
    int rounds[2];
} pp;

static void pp_stop(void) {
    __atomic_store_n(&pp.stop, 1, __ATOMIC_RELEASE);
    ts_futex_wake(&pp.turn, 1);
}

/* Waits for turn == me; 0 when it came, else the partner stopped or the
 * wait failed (reported). stop is read before turn: a partner that ends
 * hands over its last turn before it sets stop, so that turn is seen. */
static int pp_wait_turn(unsigned me, int round) {
    for (;;) {
        int stop = __atomic_load_n(&pp.stop, __ATOMIC_ACQUIRE);
        unsigned t = __atomic_load_n(&pp.turn, __ATOMIC_ACQUIRE);
        if (t == me) return 0;
        if (stop) return -1;
        int r = ts_futex_wait(&pp.turn, t, WAIT_NS);
        if (r != 0 && r != -TS_EAGAIN) {
            if (!__atomic_load_n(&pp.stop, __ATOMIC_ACQUIRE))
                fail(__LINE__, "ping-pong side %u round %d: futex_wait gave %d", me, round, r);
            return -1;
        }
    }
}

static void pp_side(void *arg) {
    unsigned me = (unsigned)(long)arg;
    for (int i = 0; i < ROUNDS; ++i) {
        if (pp_wait_turn(me, i) != 0) break;
        pp.rounds[me]++;
        __atomic_store_n(&pp.turn, 1 - me, __ATOMIC_RELEASE);
        int r = ts_futex_wake(&pp.turn, 1);
        if (!CHECK(r == 0 || r == 1, "ping-pong side %u: futex_wake gave %d", me, r)) break;
    }
    pp_stop(); /* after the last round too: the partner has its last turn already */
}

static void test_ping_pong(void) {
    const worker_fn fn[2] = {pp_side, pp_side};
    void *const arg[2] = {(void *)0l, (void *)1l};
    struct worker w[2];
    finish(w, start_all(w, 2, fn, arg), "ping-pong");
    EXPECT(pp.rounds[0], ROUNDS);
    EXPECT(pp.rounds[1], ROUNDS);
}

/* ---- (g) memory: page frames, and the heap to exhaustion and back */

#define PAGE           4096ul
#define HEAP_STEP      (64ul << 10)
#define HEAP_STEPS_MAX 4096 /* 256 MiB: more than the test's window (--cluster-memory 16M) */

/* TS_SYS_BRK itself: sbrk never gives pages back. */
static long raw_brk(unsigned long end) { return ts_arch_kcall(TS_SYS_BRK, (long)end, 0, 0, 0); }

struct heap_run {
    long refusal;        /* what ended the growth: -TS_ENOMEM expected */
    unsigned long grown; /* bytes */
    int info_result;
    struct ts_mem_info at_top; /* with the heap exhausted */
    long back;                 /* the break after shrinking to base */
};

/* Grows the break from base by HEAP_STEP until the kernel refuses, writing
 * to every new page, reads the frame counts, then shrinks back to base.
 * Nothing in between may use malloc or stdio: the heap is exhausted. */
static void exhaust_heap(unsigned long base, struct heap_run *run) {
    unsigned long end = base;
    run->refusal = 0;
    for (int i = 0; i < HEAP_STEPS_MAX; ++i) {
        long r = raw_brk(end + HEAP_STEP);
        if (r != (long)(end + HEAP_STEP)) {
            run->refusal = r;
            break;
        }
        for (unsigned long p = end; p < end + HEAP_STEP; p += PAGE)
            *(volatile char *)p = 1;
        end += HEAP_STEP;
    }
    run->grown = end - base;
    run->info_result = ts_mem_info(&run->at_top);
    run->back = raw_brk(base);
}

/* `slack`: pages the kernel may keep after the heap shrank back (the page
 * tables it made for the heap's range stay). */
static void check_heap_run(const struct heap_run *run, long base, const struct ts_mem_info *before,
                           unsigned long slack) {
    EXPECT(run->refusal, -TS_ENOMEM);
    CHECK(run->grown >= (1ul << 20), "the heap grew by only %lu bytes", run->grown);
    EXPECT(run->info_result, 0);
    unsigned long pages = run->grown / PAGE;
    CHECK(run->at_top.free_pages + pages <= before->free_pages,
          "free pages: %lu before, %lu with %lu more heap pages", before->free_pages, run->at_top.free_pages,
          pages);
    EXPECT(run->back, base);
    struct ts_mem_info after = {0};
    EXPECT(ts_mem_info(&after), 0);
    CHECK(after.free_pages + slack >= before->free_pages,
          "free pages: %lu before, %lu after the heap shrank back", before->free_pages, after.free_pages);
}

static void test_memory(void) {
    struct ts_mem_info start = {0};
    EXPECT(ts_mem_info(&start), 0);
    EXPECT(start.page_size, PAGE);
    CHECK(start.total_pages > 0 && start.free_pages <= start.total_pages, "mem_info: %lu free of %lu pages",
          start.free_pages, start.total_pages);
    EXPECT(ts_mem_info((struct ts_mem_info *)0x10), -TS_EFAULT);

    long base = raw_brk(0);
    if (!CHECK(base > 0, "brk(0) = %ld", base)) return;
    struct heap_run first = {0}, second = {0};
    exhaust_heap((unsigned long)base, &first);
    /* One Sv39 leaf table per 2 MiB of heap, and one more above them. */
    check_heap_run(&first, base, &start, first.grown / (2ul << 20) + 2);
    struct ts_mem_info between = {0};
    EXPECT(ts_mem_info(&between), 0);
    exhaust_heap((unsigned long)base, &second); /* freed pages can be had again */
    check_heap_run(&second, base, &between, 0); /* and nothing more is kept */
    CHECK(second.grown + HEAP_STEP >= first.grown, "the heap grew by %lu bytes, then by %lu", first.grown,
          second.grown);
}

/* ---- (h) kernel call counters */

static void test_kcall_count(void) {
    int core = ts_thread_self();
    long before = ts_kcall_count(TS_SYS_THREAD_YIELD, core);
    CHECK(before >= 1, "yields on core %d so far: %ld", core, before); /* test_threads yielded */
    for (int i = 0; i < 10; ++i)
        ts_thread_yield();
    EXPECT(ts_kcall_count(TS_SYS_THREAD_YIELD, core) - before, 10);
    EXPECT(ts_kcall_count(-1, core), -TS_EINVAL);
    EXPECT(ts_kcall_count(1 << 20, core), -TS_EINVAL);
    EXPECT(ts_kcall_count(TS_SYS_THREAD_YIELD, -1), -TS_EINVAL);
    EXPECT(ts_kcall_count(TS_SYS_THREAD_YIELD, ts_job()->ncores), -TS_EINVAL);
}

/* ---- (i) the core a thread runs on */

static void test_thread_core(void) {
    int core = ts_thread_core();
    /* The runtime's placement (mpirun --report-bindings): local index l on core l + 1. */
    EXPECT(core, ts_local_index() + 1);
    EXPECT(core, ts_thread_self());
    long before = ts_kcall_count(TS_SYS_THREAD_CORE, core);
    EXPECT(ts_thread_core(), core);
    EXPECT(ts_kcall_count(TS_SYS_THREAD_CORE, core) - before, 1); /* served on that core */
}

int main(void) {
    int nfree = ts_job()->ncores - 2; /* the master runs no thread, main has one core */
    if (!CHECK(nfree >= WORKERS, "needs %d free cores, the cluster has %d", WORKERS, nfree)) return summary();
    test_threads(nfree);
    test_futex();
    test_mutex();
    test_semaphore();
    test_cond();
    test_ping_pong();
    test_kcall_count();
    test_thread_core();
    test_memory();    /* last: nothing else may allocate while the heap is exhausted */
    return summary(); /* every thread has been joined */
}
