/* POSIX threads over the runtime's threads and futex-based locks
 * (<pthread.h> says what is there). A pthread_t is the kernel's thread
 * id. Each thread started here has a record, found by its id, that
 * carries its result to pthread_join and says whether it was detached;
 * the record goes when the thread is joined, or when a detached thread
 * ends. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
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

/* The process's records and the lock over them and over the keys. */
static struct record *records;
static ts_mutex_t lock = TS_MUTEX_INIT;

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
    if (r->detached) unlink_record(r);
    ts_mutex_unlock(&lock);
    self_record = 0;
}

static void trampoline(void *p) {
    struct record *r = p;
    self_record = r;
    finish(r->start(r->arg));
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
    if (!thread || !start || (attr && !attr->is_initialized)) return EINVAL;
    struct record *r = calloc(1, sizeof *r);
    if (!r) return EAGAIN;
    r->tid = -1;
    r->start = start;
    r->arg = arg;
    r->detached = attr && attr->detachstate == PTHREAD_CREATE_DETACHED;
    ts_mutex_lock(&lock);
    r->next = records;
    records = r;
    /* Under the lock: the thread may end before its id is known. */
    const int tid = ts_thread_create(trampoline, r);
    if (tid < 0) {
        unlink_record(r);
        ts_mutex_unlock(&lock);
        return EAGAIN; /* no free core (or no memory for its TLS) */
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
    attr->is_initialized = 1;
    attr->detachstate = PTHREAD_CREATE_JOINABLE;
    return 0;
}

int pthread_attr_destroy(pthread_attr_t *attr) {
    if (!attr || !attr->is_initialized) return EINVAL;
    attr->is_initialized = 0;
    return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *attr, int state) {
    if (!attr || !attr->is_initialized) return EINVAL;
    if (state != PTHREAD_CREATE_JOINABLE && state != PTHREAD_CREATE_DETACHED) return EINVAL;
    attr->detachstate = state;
    return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state) {
    if (!attr || !attr->is_initialized || !state) return EINVAL;
    *state = attr->detachstate;
    return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size) {
    if (!attr || !attr->is_initialized || size < 4096 || size > INT32_MAX) return EINVAL;
    attr->stacksize = (int)size;
    return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size) {
    if (!attr || !attr->is_initialized || !size) return EINVAL;
    *size = (size_t)attr->stacksize;
    return 0;
}

/* ---- mutexes and condition variables: the runtime's, one word each ---- */

_Static_assert(sizeof(pthread_mutex_t) == sizeof(ts_mutex_t), "a mutex is one word");
_Static_assert(sizeof(pthread_cond_t) == sizeof(ts_cond_t), "a condition variable is one word");

static ts_mutex_t *as_mutex(pthread_mutex_t *m) { return (ts_mutex_t *)m; }
static ts_cond_t *as_cond(pthread_cond_t *c) { return (ts_cond_t *)c; }

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr) {
    if (!mutex || (attr && !attr->is_initialized)) return EINVAL;
    ts_mutex_init(as_mutex(mutex));
    return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *mutex) {
    if (!mutex) return EINVAL;
    return *mutex ? EBUSY : 0;
}

int pthread_mutex_lock(pthread_mutex_t *mutex) {
    if (!mutex) return EINVAL;
    ts_mutex_lock(as_mutex(mutex));
    return 0;
}

int pthread_mutex_trylock(pthread_mutex_t *mutex) {
    if (!mutex) return EINVAL;
    return ts_mutex_trylock(as_mutex(mutex)) == 0 ? 0 : EBUSY;
}

int pthread_mutex_unlock(pthread_mutex_t *mutex) {
    if (!mutex) return EINVAL;
    return ts_mutex_unlock(as_mutex(mutex)) == 0 ? 0 : EPERM;
}

int pthread_mutexattr_init(pthread_mutexattr_t *attr) {
    if (!attr) return EINVAL;
    *attr = (pthread_mutexattr_t){0};
    attr->is_initialized = 1;
    return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *attr) {
    if (!attr || !attr->is_initialized) return EINVAL;
    attr->is_initialized = 0;
    return 0;
}

int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int type) {
    if (!attr || !attr->is_initialized) return EINVAL;
    if (type == PTHREAD_MUTEX_NORMAL || type == PTHREAD_MUTEX_DEFAULT) return 0;
    return type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK ? ENOTSUP : EINVAL;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *attr, int *type) {
    if (!attr || !attr->is_initialized || !type) return EINVAL;
    *type = PTHREAD_MUTEX_NORMAL;
    return 0;
}

int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr) {
    if (!cond || (attr && !attr->is_initialized)) return EINVAL;
    ts_cond_init(as_cond(cond));
    return 0;
}

int pthread_cond_destroy(pthread_cond_t *cond) { return cond ? 0 : EINVAL; }

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex) {
    if (!cond || !mutex) return EINVAL;
    return ts_cond_wait(as_cond(cond), as_mutex(mutex)) == 0 ? 0 : EINVAL;
}

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime) {
    if (!cond || !mutex || !abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L) return EINVAL;
    struct timeval now; /* CLOCK_REALTIME's clock */
    gettimeofday(&now, 0);
    const long long left =
        (long long)(abstime->tv_sec - now.tv_sec) * 1000000000LL + (abstime->tv_nsec - now.tv_usec * 1000LL);
    if (left <= 0) return ETIMEDOUT;
    const int e = ts_cond_timedwait(as_cond(cond), as_mutex(mutex), (unsigned long)left);
    return e == 0 ? 0 : e == -TS_ETIMEDOUT ? ETIMEDOUT : EINVAL;
}

int pthread_cond_signal(pthread_cond_t *cond) {
    if (!cond) return EINVAL;
    ts_cond_signal(as_cond(cond));
    return 0;
}

int pthread_cond_broadcast(pthread_cond_t *cond) {
    if (!cond) return EINVAL;
    ts_cond_broadcast(as_cond(cond));
    return 0;
}

int pthread_condattr_init(pthread_condattr_t *attr) {
    if (!attr) return EINVAL;
    *attr = (pthread_condattr_t){0};
    attr->is_initialized = 1;
    return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *attr) {
    if (!attr || !attr->is_initialized) return EINVAL;
    attr->is_initialized = 0;
    return 0;
}

/* ---- once ---- */

/* once->init_executed: 0 not run, 1 running, 2 done. The threads that come
 * while it runs wait on the word. */
int pthread_once(pthread_once_t *once, void (*init)(void)) {
    if (!once || !init) return EINVAL;
    int state = 0;
    if (__atomic_compare_exchange_n(&once->init_executed, &state, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        init();
        __atomic_store_n(&once->init_executed, 2, __ATOMIC_RELEASE);
        ts_futex_wake((const unsigned *)&once->init_executed, 0x7fffffff);
        return 0;
    }
    while ((state = __atomic_load_n(&once->init_executed, __ATOMIC_ACQUIRE)) != 2)
        ts_futex_wait((unsigned *)&once->init_executed, (unsigned)state, 0);
    return 0;
}

/* ---- thread-specific data ---- */

static struct {
    int used;
    void (*destructor)(void *);
} keys[PTHREAD_KEYS_MAX];

static __thread const void *values[PTHREAD_KEYS_MAX];

int pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
    if (!key) return EINVAL;
    ts_mutex_lock(&lock);
    int k = 0;
    while (k < PTHREAD_KEYS_MAX && keys[k].used)
        ++k;
    if (k < PTHREAD_KEYS_MAX) {
        keys[k].used = 1;
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

void *pthread_getspecific(pthread_key_t key) { return key < PTHREAD_KEYS_MAX ? (void *)values[key] : 0; }

int pthread_setspecific(pthread_key_t key, const void *value) {
    if (key >= PTHREAD_KEYS_MAX || !keys[key].used) return EINVAL;
    values[key] = value;
    return 0;
}

/* POSIX: destructors run while non-null values remain, up to
 * PTHREAD_DESTRUCTOR_ITERATIONS (4) rounds. */
static void run_key_destructors(void) {
    for (int round = 0; round < 4; ++round) {
        int ran = 0;
        for (int k = 0; k < PTHREAD_KEYS_MAX; ++k) {
            void *v = (void *)values[k];
            if (!v || !keys[k].used || !keys[k].destructor) continue;
            values[k] = 0;
            keys[k].destructor(v);
            ran = 1;
        }
        if (!ran) return;
    }
}
