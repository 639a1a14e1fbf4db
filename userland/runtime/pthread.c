/* POSIX threads: threads, their attributes, once and thread-specific data
 * over the runtime's threads (<pthread.h> says what is there; the
 * synchronisation objects are in pthread_sync.c). A pthread_t is the
 * kernel's thread id. Each thread started here has a record, found by its
 * id, that carries its result to pthread_join and says whether it was
 * detached; the record goes when the thread is joined, or when a detached
 * thread ends. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera/runtime.h>

#include "internal.h"

/* ---- threads ---- */

struct record {
    int tid;      /* -1 until ts_thread_create returned */
    int detached; /* nobody will join it */
    int joining;  /* a thread is in pthread_join for it */
    int finished; /* its start routine returned or it called pthread_exit */
    void *(*start)(void *);
    void *arg;
    void *result;
    struct record *next;
};

/* The process's records and the lock over them, over the threads each
 * rank runs and over the keys. */
static struct record *records;
static ts_mutex_t lock = TS_MUTEX_INIT;

/* Threads started here that hold (or are about to take) a core, per rank
 * of the process (its local index: with ranks as threads, a process holds
 * several). */
#define MAX_RANK_SLOTS 64
static int running[MAX_RANK_SLOTS];

static int *running_of_caller(void) {
    const int local = ts_local_index();
    return &running[local >= 0 && local < MAX_RANK_SLOTS ? local : 0];
}

/* The calling thread's record (null in a thread not started here). */
static __thread struct record *self_record;

static void unlink_record(struct record *r) {
    for (struct record **p = &records; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    free(r);
}

static void run_key_destructors(void);

/* The calling thread is done with `result`: keys' destructors run, and
 * its record keeps the result for a join, or goes if detached. */
static void finish(void *result) {
    run_key_destructors();
    struct record *r = self_record;
    if (!r) return;
    ts_mutex_lock(&lock);
    r->result = result;
    r->finished = 1;
    --*running_of_caller();
    if (r->detached) unlink_record(r);
    ts_mutex_unlock(&lock);
    self_record = 0;
}

static void trampoline(void *p) {
    struct record *r = p;
    self_record = r;
    finish(r->start(r->arg));
}

/* How long pthread_create waits for a core of the rank's share that a
 * finished thread has not left yet (leaving it is its very last step). */
#define CORE_WAIT_MS 1000

/* Says once per process why pthread_create found no core, and what leaves
 * a rank more (docs/programs.md, "Threads in MPI programs"): a program
 * that does not check the error would otherwise wait for its thread with
 * no word of why. */
static void say_no_core(void) {
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) return;
    char who[40], text[320];
    if (ts_rank() >= 0)
        snprintf(who, sizeof who, "rank %d (cluster %d)", ts_rank(), ts_job()->cluster_id);
    else
        snprintf(who, sizeof who, "cluster %d", ts_job()->cluster_id);
    const int n = snprintf(text, sizeof text,
                           "tessera: %s: pthread_create: EAGAIN: no free core in the %d core(s) of "
                           "this process's share, its own included (a mapping that leaves cores "
                           "free, such as mpirun --map-by scatter, gives threads room)\n",
                           who, ts__core_share());
    ts__console_write_through(text, n < (int)sizeof text ? (unsigned long)n : sizeof text - 1);
}

/* Starts the thread of r on a core of the caller's share: its tid,
 * -TS_EAGAIN when the rank's threads fill its share or the cluster has no
 * free core for CORE_WAIT_MS, or -TS_ENOMEM. With the lock held. */
static int start_in_share(struct record *r) {
    int *n = running_of_caller();
    if (*n + 1 >= ts__core_share()) return -TS_EAGAIN; /* the caller's own core is one */
    ++*n;                                              /* taken while the lock is let go below */
    const unsigned long until = ts__time_in(1000) + CORE_WAIT_MS;
    int tid;
    while ((tid = ts_thread_create(trampoline, r)) == -TS_EAGAIN && ts__time_in(1000) < until) {
        ts_mutex_unlock(&lock); /* a thread that ends says so under it */
        ts_thread_yield();
        ts_mutex_lock(&lock);
    }
    if (tid < 0) --*n;
    return tid;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
    if (!thread || !start || (attr && !attr->__initialized)) return EINVAL;
    struct record *r = calloc(1, sizeof *r);
    if (!r) return EAGAIN;
    r->tid = -1;
    r->start = start;
    r->arg = arg;
    r->detached = attr && attr->__detachstate == PTHREAD_CREATE_DETACHED;
    ts_mutex_lock(&lock);
    r->next = records;
    records = r;
    /* Under the lock: the thread may end before its id is known. */
    const int tid = start_in_share(r);
    if (tid < 0) {
        unlink_record(r);
        ts_mutex_unlock(&lock);
        if (tid == -TS_EAGAIN) say_no_core();
        return EAGAIN; /* no core (or no memory for its TLS) */
    }
    r->tid = tid;
    ts_mutex_unlock(&lock);
    *thread = (pthread_t)tid;
    return 0;
}

/* The joinable record of thread `t`, with the lock held. */
static struct record *find(pthread_t t) {
    for (struct record *r = records; r; r = r->next)
        if (r->tid == (int)t) return r;
    return 0;
}

int pthread_join(pthread_t thread, void **value) {
    if (thread == pthread_self()) return EDEADLK;
    ts_mutex_lock(&lock);
    struct record *r = find(thread);
    const int ok = r && !r->detached && !r->joining && r->tid >= 0;
    if (ok) r->joining = 1; /* a second join finds it taken */
    ts_mutex_unlock(&lock);
    if (!ok) return ESRCH;
    int status;
    ts_thread_join(r->tid, &status);
    ts_mutex_lock(&lock);
    if (value) *value = r->result;
    unlink_record(r);
    ts_mutex_unlock(&lock);
    return 0;
}

int pthread_detach(pthread_t thread) {
    ts_mutex_lock(&lock);
    struct record *r = find(thread);
    int e = 0;
    if (!r || r->detached || r->joining)
        e = r ? EINVAL : ESRCH;
    else if (r->finished)
        unlink_record(r);
    else
        r->detached = 1;
    ts_mutex_unlock(&lock);
    return e;
}

void pthread_exit(void *value) {
    finish(value);
    ts_thread_exit(0);
}

int sched_yield(void) {
    ts_thread_yield();
    return 0;
}

pthread_t pthread_self(void) { return (pthread_t)ts_thread_self(); }

int pthread_equal(pthread_t a, pthread_t b) { return a == b; }

int pthread_attr_init(pthread_attr_t *attr) {
    if (!attr) return EINVAL;
    *attr = (pthread_attr_t){0};
    attr->__initialized = 1;
    attr->__detachstate = PTHREAD_CREATE_JOINABLE;
    attr->__stacksize = TS_USER_STACK_MAX;
    return 0;
}

int pthread_attr_destroy(pthread_attr_t *attr) {
    if (!attr || !attr->__initialized) return EINVAL;
    attr->__initialized = 0;
    return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *attr, int state) {
    if (!attr || !attr->__initialized) return EINVAL;
    if (state != PTHREAD_CREATE_JOINABLE && state != PTHREAD_CREATE_DETACHED) return EINVAL;
    attr->__detachstate = state;
    return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state) {
    if (!attr || !attr->__initialized || !state) return EINVAL;
    *state = attr->__detachstate;
    return 0;
}

/* Every thread's stack grows to TS_USER_STACK_MAX: a size up to that is
 * what the thread gets. */
int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size) {
    if (!attr || !attr->__initialized || size < PTHREAD_STACK_MIN || size > TS_USER_STACK_MAX) return EINVAL;
    attr->__stacksize = size;
    return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size) {
    if (!attr || !attr->__initialized || !size) return EINVAL;
    *size = attr->__stacksize;
    return 0;
}

/* ---- once ---- */

/* once->__state: 0 not run, 1 running, 2 done. The threads that come
 * while it runs wait on the word. */
int pthread_once(pthread_once_t *once, void (*init)(void)) {
    if (!once || !init) return EINVAL;
    unsigned state = 0;
    if (__atomic_compare_exchange_n(&once->__state, &state, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        init();
        __atomic_store_n(&once->__state, 2, __ATOMIC_RELEASE);
        ts_futex_wake(&once->__state, 0x7fffffff);
        return 0;
    }
    while ((state = __atomic_load_n(&once->__state, __ATOMIC_ACQUIRE)) != 2)
        ts_futex_wait(&once->__state, state, 0);
    return 0;
}

/* ---- thread-specific data ---- */

/* A key's generation changes each time it is created, so that a value a
 * thread set under a deleted key reads as NULL under its successor. */
static struct {
    int used;
    unsigned generation;
    void (*destructor)(void *);
} keys[PTHREAD_KEYS_MAX];

static __thread struct {
    const void *value;
    unsigned generation;
} values[PTHREAD_KEYS_MAX];

int pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
    if (!key) return EINVAL;
    ts_mutex_lock(&lock);
    int k = 0;
    while (k < PTHREAD_KEYS_MAX && keys[k].used)
        ++k;
    if (k < PTHREAD_KEYS_MAX) {
        keys[k].used = 1;
        ++keys[k].generation;
        keys[k].destructor = destructor;
    }
    ts_mutex_unlock(&lock);
    if (k == PTHREAD_KEYS_MAX) return EAGAIN;
    *key = (pthread_key_t)k;
    return 0;
}

int pthread_key_delete(pthread_key_t key) {
    ts_mutex_lock(&lock);
    const int ok = key < PTHREAD_KEYS_MAX && keys[key].used;
    if (ok) keys[key].used = 0;
    ts_mutex_unlock(&lock);
    return ok ? 0 : EINVAL;
}

/* The calling thread's value of key k: what it set under k's current
 * generation, if k is in use. */
static void *value_of(pthread_key_t k) {
    if (k >= PTHREAD_KEYS_MAX || !keys[k].used || values[k].generation != keys[k].generation) return 0;
    return (void *)values[k].value;
}

void *pthread_getspecific(pthread_key_t key) { return value_of(key); }

int pthread_setspecific(pthread_key_t key, const void *value) {
    if (key >= PTHREAD_KEYS_MAX || !keys[key].used) return EINVAL;
    values[key].value = value;
    values[key].generation = keys[key].generation;
    return 0;
}

/* POSIX: destructors run while non-null values remain, up to
 * PTHREAD_DESTRUCTOR_ITERATIONS rounds. */
static void run_key_destructors(void) {
    for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; ++round) {
        int ran = 0;
        for (pthread_key_t k = 0; k < PTHREAD_KEYS_MAX; ++k) {
            void *v = value_of(k);
            void (*destructor)(void *) = keys[k].destructor;
            if (!v || !destructor) continue;
            values[k].value = 0;
            destructor(v);
            ran = 1;
        }
        if (!ran) return;
    }
}
