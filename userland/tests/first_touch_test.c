/* On-target test: threads of one process, on different cores, first-touch
 * the same fresh pages at once (tests/target_tests.toml:
 * userland_first_touch).
 *
 * In round r, every thread (r included) writes its own byte into each
 * page of an area of thread r's stack that no thread has reached yet (well
 * below thread r's stack pointer, past the part of a stack mapped when a
 * thread starts), each starting at another page, all at once, while it
 * keeps many running values live across the touches. The first
 * touch of a page grows thread r's stack whichever thread makes it; the
 * faults of the others find the page mapped meanwhile by another core, and
 * their threads must carry on with every register as it was. Each thread
 * then compares its running values with those of the same walk over
 * memory that was mapped already, and thread r checks every byte.
 * Prints "first_touch_test: OK (N threads, N rounds)" or "FAIL ..." lines,
 * and exits with 1 on a failure. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define PAGE        4096
#define PAGES       160 /* 640 KiB: with DEPTH, within the 960 KiB a stack grows to */
#define MAX_THREADS 16

static int nthreads, failures;
static volatile unsigned char *volatile shared_area;

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            printf("FAIL first_touch_test.c:%d: %s\n", __LINE__, #cond); \
            __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);          \
        }                                                                \
    } while (0)

/* ---- a barrier of every thread, over a mutex and a condition variable ---- */

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate = PTHREAD_COND_INITIALIZER;
static int arrived, generation;

static void wait_all(void) {
    pthread_mutex_lock(&gate_lock);
    const int mine = generation;
    if (++arrived == nthreads) {
        arrived = 0;
        ++generation;
        pthread_cond_broadcast(&gate);
    }
    while (generation == mine)
        pthread_cond_wait(&gate, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
}

/* ---- the walk ---- */

static unsigned char tag(int id, int page) { return (unsigned char)(1 + id * 31 + page * 7); }

/* Writes thread id's byte into every page of area, from page `first` on,
 * wrapping, with twelve running values live across each write (some of
 * them in caller-saved registers, whichever the compiler picks). Returns
 * their mix, which depends only on id, first and seed. */
static unsigned long __attribute__((noinline))
walk(volatile unsigned char *area, int id, int first, unsigned long seed) {
    unsigned long v0 = seed, v1 = seed ^ 0x9e3779b97f4a7c15ul, v2 = seed * 3, v3 = seed + 11, v4 = ~seed,
                  v5 = seed << 7, v6 = seed >> 3, v7 = seed * 0x5851f42d4c957f2dul, v8 = seed ^ 0xa5a5,
                  v9 = seed + 0x1234567, v10 = seed * 77, v11 = seed ^ (seed >> 29);
    for (int k = 0; k < PAGES; ++k) {
        const int page = (first + k) % PAGES;
        area[(long)page * PAGE + id] = tag(id, page); /* the touch: may fault */
        v0 = v0 * 3 + v11;
        v1 = (v1 ^ v0) * 5;
        v2 += v1 ^ (unsigned long)page;
        v3 = v3 * 7 + v2;
        v4 ^= v3 + 13;
        v5 = v5 * 11 + v4;
        v6 += v5 >> 5;
        v7 = (v7 ^ v6) * 3;
        v8 += v7 * 17;
        v9 ^= v8 + (unsigned long)k;
        v10 = v10 * 5 + v9;
        v11 += v10 ^ v0;
    }
    return v0 ^ v1 ^ v2 ^ v3 ^ v4 ^ v5 ^ v6 ^ v7 ^ v8 ^ v9 ^ v10 ^ v11;
}

/* Memory every thread has written already: the same walk without faults. */
static unsigned char mapped[MAX_THREADS][PAGES * PAGE];

static void take_part(int id, volatile unsigned char *area) {
    const int first = id * PAGES / nthreads;
    const unsigned long seed = 0x1000u + (unsigned long)id;
    const unsigned long got = walk(area, id, first, seed);
    CHECK(got == walk(mapped[id], id, first, seed));
}

/* Round `owner`, on the owner's thread: the area lies DEPTH below its
 * frame, deeper than any call it makes goes, and deeper than the stack a
 * thread starts with (128 KiB at most), so that only the walks touch it.
 * (Not an array of this frame: a compiler that probes large frames, for
 * stack clash protection, would touch every page of it first.) */
#define DEPTH (192 * 1024)
static void __attribute__((noinline)) own_round(int owner) {
    const unsigned long frame = (unsigned long)__builtin_frame_address(0) & ~(unsigned long)(PAGE - 1);
    volatile unsigned char *area = (volatile unsigned char *)(frame - DEPTH - PAGES * PAGE);
    shared_area = area;
    wait_all(); /* A: the array is known */
    take_part(owner, area);
    wait_all(); /* B: every thread has written */
    for (int page = 0; page < PAGES; ++page)
        for (int id = 0; id < nthreads; ++id)
            CHECK(area[(long)page * PAGE + id] == tag(id, page));
    wait_all(); /* C: nobody needs the array any more */
}

static void *run(void *arg) {
    const int id = (int)(long)arg;
    for (int round = 0; round < nthreads; ++round) {
        if (round == id) {
            own_round(id);
            continue;
        }
        wait_all(); /* A */
        take_part(id, shared_area);
        wait_all(); /* B */
        wait_all(); /* C */
    }
    return 0;
}

int main(void) {
    /* Every core the process may have: the main thread's and one thread
     * on each other. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = cores < 2 ? 2 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
    pthread_t t[MAX_THREADS];
    for (int id = 1; id < nthreads; ++id)
        if (pthread_create(&t[id], 0, run, (void *)(long)id) != 0) {
            printf("FAIL first_touch_test: no core for thread %d of %d\n", id, nthreads);
            return 1;
        }
    run(0);
    for (int id = 1; id < nthreads; ++id)
        CHECK(pthread_join(t[id], 0) == 0);
    if (!failures) printf("first_touch_test: OK (%d threads, %d rounds)\n", nthreads, nthreads);
    fflush(stdout);
    return failures ? 1 : 0;
}
