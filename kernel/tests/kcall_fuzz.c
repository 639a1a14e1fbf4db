/* On-target test: random kernel calls. Makes CALLS kernel calls (default
 * 5000) with random numbers below TS_KCALL_NUMBERS (unknown ones included, plus a few
 * numbers with high bits set) and random arguments: small ints, huge
 * values, kernel and other clusters' memory, devices, NULL and low pages,
 * valid buffers, read-only memory (in processes mode also through the
 * ranks' aliases), pointers that straddle the end of mapped memory,
 * lengths. Every call must return, with a result >= 0 or a known -TS_E*
 * code (-TS_ENOSYS exactly for unknown numbers), and keep a1..a5 and a7 as
 * they were. Before and after, ordinary calls must still work.
 *
 *   kcall_fuzz [CALLS [SEED [END]]]
 *
 * Prints a table of results per call number, then
 * "kcall_fuzz: N calls, M unexpected", and exits with M (at most 255).
 * Rank r draws from SEED + r, so that copies do not make the same calls
 * in step. END, for tests of how the kernel's reports name a rank:
 * "exit:R" or "fault:R": rank R, once done, tries to relabel itself
 * (ts_thread_tag(R + 100)), then returns 77 (or M if M > 0; the runtime
 * then ends the job, as for any rank that fails before MPI_Init), or
 * loads from address 0x10 (killed by a fault).
 *
 * Who may run it: alone on its cluster (-np 1, or one rank per cluster),
 * in either --ranks mode; or several ranks on one cluster, up to every
 * rank of a full cluster at once, in processes mode (mpirun --ranks
 * processes, each copy a process of its own). In threads mode ranks that
 * share a cluster would share its globals, break and thread label, so the
 * fuzzer refuses to run there. When copies share a cluster, each keeps to
 * its own logical port (see OWN_PORT) in its checks and random creates,
 * skips its thread checks when the ranks leave it no free core, and
 * leaves out the page-frame count, which the other copies change. It never
 * calls MPI_Init.
 *
 * It never makes a call that may legitimately end the thread or block for
 * good: no thread exit, job abort or thread create (a random pc runs
 * garbage); sleeps, futex waits and IKC waits get short timeouts; and whatever a
 * random create/open makes is released at once, so no mailbox, portal or
 * sync of ours is ever open when a random read, write or wait comes, and
 * no thread of ours runs when a random join comes: those fail at once. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/arch.h>
#include <tessera/runtime.h>
#include <tessera/image.h>
#include <tessera/trace.h>

#define DEFAULT_CALLS 5000
#define DEFAULT_SEED  0x7e55e7a0c0ffee01ul
#define NUMBERS       TS_KCALL_NUMBERS /* call numbers drawn: 0..NUMBERS-1 */
#define MAX_REPORTS   20               /* unexpected results printed in full */
#define PAGE          4096ul
#define HEAP_SLACK    (64ul << 10) /* random brk may move the break this far */
#define SLEEP_MAX_NS  100000ul     /* longest random sleep or futex timeout */
#define STACK_BUF     2048         /* bytes of the buffer on main's stack */

/* The kernel's layout of user stacks (kernel/core/include/kernel/core.hpp): core k's stack
 * is 128 KiB below a top at a 1 MiB boundary, with unmapped gaps around; it grows on
 * demand down to STACK_REACH below its top (a kernel call's buffer there grows it too),
 * and the 64 KiB below that are its guard. */
#define STACK_SIZE  (128ul << 10)
#define STACK_REACH ((1ul << 20) - (64ul << 10))
#define STACK_ALIGN (1ul << 20)

/* The copy with local index l keeps to one logical port (of each kind):
 * the name client's reply port of the core it runs on, l + 1 (the ranks
 * of a cluster run on cores 1, 2, ... by local index). The fuzzer resolves
 * no names, so nothing else of its own uses that port; the ports of
 * different local indexes differ; and none is the kernel's, the name
 * daemon's or an MPI process's (<tessera/syscall.h>). */
#define OWN_PORT(l) (TS_PORT_NAME_REPLY_BASE + 1 + (l))

/* Exit status of the rank END names, when it has nothing unexpected. */
#define END_STATUS 77

static unsigned long unexpected;

/* Counts one unexpected outcome; true while it should still be printed. */
static int note_unexpected(void) { return unexpected++ < MAX_REPORTS; }

/* ---- random numbers --------------------------------------------------- */

static uint64_t rng;

/* xorshift64 (Marsaglia 2003): small, fast, and plenty for picking cases. */
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned long below(unsigned long n) { return (unsigned long)(rnd() % n); }

/* splitmix64 of the seed, so that nearby seeds give unrelated runs and no
 * seed gives xorshift's one forbidden state, 0. */
static void seed_rng(uint64_t seed) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    rng = (z ^ (z >> 31)) | 1;
}

/* ---- the memory the arguments point into ------------------------------ */

/* Scratch for valid pointers: the kernel may write anything into it. Sync
 * cluster lists are read from it, so it holds small ints (see refill).
 * Pointers into it (and into the stack buffer) keep WRITE_ROOM bytes to
 * the end: the most a kernel call writes through a pointer without a
 * length is a struct ts_job_info, and with a length only the job's
 * environment (TS_SYS_JOB_ENV, at most TS_ENV_MAX bytes) or into an open
 * mailbox or portal, which never exists here. */
#define WRITE_ROOM 1024
_Static_assert(sizeof(struct ts_job_info) <= WRITE_ROOM, "job info outgrew the buffers' room");
_Static_assert(TS_ENV_MAX <= WRITE_ROOM, "the job's environment outgrew the buffers' room");
static int scratch[2048] __attribute__((aligned(PAGE)));
static const char rodata_text[64] = "read-only: a kernel write here must fail";

static struct {
    uintptr_t stack_top;  /* the main thread's stack: [top - 128 KiB, top) */
    char *stack_buf;      /* a live buffer on that stack */
    unsigned long break0; /* the break when the run started */
} mem;

/* Who this copy is, from the kernel's job info, and who shares its
 * cluster. */
static struct {
    int processes;                    /* a rank's own process (mpirun --ranks processes) */
    int rank;                         /* MPI rank (0 when the job info names none) */
    int local;                        /* index among the ranks of this cluster */
    int here;                         /* ranks of the job on this cluster, this one included */
    int port;                         /* OWN_PORT(local) */
    uintptr_t alias_base, alias_size; /* processes: the ranks' aliases (0: none) */
} self;

/* Small ints (-1..4), so that cluster lists read from it name real
 * clusters, some twice, some not at all. */
static void refill_scratch(void) {
    for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; ++i)
        scratch[i] = (int)below(6) - 1;
}

/* One argument: its value, and how many bytes from it are known to be
 * readable user memory (0: none; ~0: some, extent unknown). */
struct arg {
    unsigned long v;
    unsigned long room;
};

#define ROOM_SOME (~0ul)

static struct arg pick(const unsigned long *values, size_t n) { return (struct arg){values[below(n)], 0}; }

#define PICK(values) pick(values, sizeof(values) / sizeof(values[0]))

/* -2..70, half of the time -1..5: clusters, cores and tids are that small,
 * so some random opens and joins get past the argument checks. */
static struct arg small_int(void) {
    const long v = below(2) ? (long)below(73) - 2 : (long)below(7) - 1;
    return (struct arg){(unsigned long)v, 0};
}

static struct arg huge_value(void) {
    static const unsigned long v[] = {
        ~0ul, 1ul << 63, 0x7ffffffful, 0xfffffffful, 1ul << 32, 0x8000000000000010ul, ~0ul - PAGE + 1};
    return PICK(v);
}

/* The kernels' windows (this cluster's and the others'), the NoC fabric,
 * OpenSBI, and devices (UART, test finisher: a write there powers off). */
static struct arg kernel_address(void) {
    static const unsigned long v[] = {0x80000000ul, 0x80200000ul, 0x80a00000ul, 0x81000000ul,
                                      0x81a00000ul, 0x82000000ul, 0x83000000ul, 0x84a00000ul,
                                      0x10000000ul, 0x100000ul,   0xbfe00000ul};
    return PICK(v);
}

static struct arg low_address(void) {
    static const unsigned long v[] = {0, 0x10, 0xff8, 0x1000, 0x3ffff000ul};
    return PICK(v);
}

/* Where the rank with local index l sees address `at` of the cluster's
 * rank l' (processes mode with aliases: every rank's private memory is
 * also mapped at alias_base + l' * alias_size in every rank), or `at`
 * itself without aliases. */
static uintptr_t through_alias(uintptr_t at, int l) {
    if (!self.alias_base) return at;
    return self.alias_base + (uintptr_t)l * self.alias_size + (at - ts_job()->private_base);
}

/* Scratch, half of the time (with aliases) through our own alias: the
 * same memory. Never another rank's: the kernel may write there. */
static struct arg static_buffer(void) {
    const uintptr_t at = (uintptr_t)scratch + below(sizeof scratch - WRITE_ROOM);
    return (struct arg){below(2) ? at : through_alias(at, self.local), ROOM_SOME};
}

static struct arg stack_buffer(void) {
    return (struct arg){(uintptr_t)mem.stack_buf + below(STACK_BUF - WRITE_ROOM), ROOM_SOME};
}

/* Program text and read-only data: readable, never writable; with aliases
 * also as any rank of the cluster sees it through that rank's alias (text
 * is shared, so every copy's is the same, and a write must fail there
 * too). */
static struct arg read_only(void) {
    const uintptr_t at =
        below(2) ? 0x40000000ul + below(64) * 4 : (uintptr_t)rodata_text + below(sizeof rodata_text);
    return (struct arg){below(2) ? at : through_alias(at, (int)below((unsigned long)self.here)), ROOM_SOME};
}

/* Pointers at the edges of mapped memory. Just before the end of the heap
 * pages (mapped up to break0 + HEAP_SLACK and no further, see
 * setup_memory; room = the bytes left), where a longer range runs off the
 * end; and unmapped ones just before the program, before the bottom of
 * our stack (its guard gap, so a range may run into the stack) and at its
 * top (nothing above). No edge is near live data: the kernel may write at
 * any of them as far as it finds memory mapped. */
static struct arg edge(void) {
    static const unsigned long before[] = {1, 4, 8, 16, 100};
    const unsigned long k = before[below(sizeof before / sizeof before[0])];
    switch (below(4)) {
    case 0: return (struct arg){mem.break0 + HEAP_SLACK - k, k};
    case 1: return (struct arg){0x40000000ul - k, 0};
    case 2: return (struct arg){mem.stack_top - STACK_REACH - k, 0};
    default: return (struct arg){mem.stack_top, 0};
    }
}

static struct arg length(void) {
    static const unsigned long v[] = {0,     1,     2,         8,         100,  4096,     4097,
                                      65536, 65537, 1ul << 20, 1ul << 31, ~0ul, ~0ul >> 1};
    return PICK(v);
}

static struct arg random_arg(void) {
    static struct arg (*const kinds[])(void) = {
        small_int,     small_int,    huge_value, kernel_address, low_address,
        static_buffer, stack_buffer, read_only,  edge,           length,
    };
    return kinds[below(sizeof kinds / sizeof kinds[0])]();
}

/* Arguments of the right shape, for the calls that take structured ones. */
static unsigned long any_port(void) { return 1 + below(TS_PORTS - 1); }
static unsigned long any_cluster(void) { return below((unsigned long)ts_job()->nclusters); }

/* Every cluster once, in random order but ours first or second (so that
 * either role of a sync may be ours), in a buffer nothing else points
 * into. */
static struct arg cluster_list(void) {
    static int list[64];
    const int self = ts_job()->cluster_id;
    unsigned long all = (unsigned long)ts_job()->nclusters;
    if (all > sizeof list / sizeof list[0]) all = sizeof list / sizeof list[0];
    for (unsigned long i = 0; i < all; ++i)
        list[i] = (int)i;
    for (unsigned long i = all - 1; i > 0; --i) { /* Fisher-Yates */
        const unsigned long j = below(i + 1);
        const int t = list[i];
        list[i] = list[j];
        list[j] = t;
    }
    const unsigned long want = below(2);
    for (unsigned long i = 0; i < all; ++i) {
        if (list[i] == self) {
            list[i] = list[want];
            list[want] = self;
        }
    }
    return (struct arg){(uintptr_t)list, sizeof list};
}

/* ---- one kernel call ------------------------------------------------------ */

struct call {
    unsigned long nr;
    struct arg a[6];
};

/* A raw kernel call with every argument register set; the ABI keeps all
 * registers but the result's, so the others are read back and compared
 * (on RISC-V: a1..a5 and a7; see ts_arch_kcall_regs). */
static long kcall(const struct call *c) {
    unsigned long args[6], after[6], nr_after;
    for (int i = 0; i < 6; ++i)
        args[i] = c->a[i].v;
    const long result = ts_arch_kcall_regs(c->nr, args, after, &nr_after);
    for (int i = 1; i < 6; ++i)
        if (after[i] != c->a[i].v && note_unexpected())
            printf("UNEXPECTED call %lu changed a%d: 0x%lx -> 0x%lx\n", c->nr, i, c->a[i].v, after[i]);
    if (nr_after != c->nr && note_unexpected())
        printf("UNEXPECTED call %lu changed a7 to 0x%lx\n", c->nr, nr_after);
    return result;
}

/* A plain call for the fuzzer's own bookkeeping (not counted). */
static long kcall_args(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2) {
    struct call c = {nr, {{a0, 0}, {a1, 0}, {a2, 0}}};
    return kcall(&c);
}

/* ---- what is known of each call ---------------------------------------------- */

/* Every kernel call, from the one table of them. */
static const char *const call_names[NUMBERS] = {
#define TS_KCALL(NAME, name, ...) [TS_SYS_##NAME] = #name,
#include <tessera/kcalls.def>
#undef TS_KCALL
};

static int known(unsigned long nr) { return nr < NUMBERS && call_names[nr]; }

/* Calls that end the thread, the process or the job (a made-up deadlock too), or start random code. */
static int never_made(unsigned long nr) {
    return nr == TS_SYS_THREAD_EXIT || nr == TS_SYS_PROCESS_EXIT || nr == TS_SYS_JOB_ABORT ||
           nr == TS_SYS_THREAD_CREATE || nr == TS_SYS_MPI_STATE_SEND;
}

/* The call that undoes a successful create/open (returning an id), or 0. */
static unsigned long release_of(unsigned long nr) {
    switch (nr) {
    case TS_SYS_MAILBOX_CREATE: return TS_SYS_MAILBOX_UNLINK;
    case TS_SYS_MAILBOX_OPEN: return TS_SYS_MAILBOX_CLOSE;
    case TS_SYS_PORTAL_CREATE: return TS_SYS_PORTAL_UNLINK;
    case TS_SYS_PORTAL_OPEN: return TS_SYS_PORTAL_CLOSE;
    case TS_SYS_SYNC_CREATE: return TS_SYS_SYNC_UNLINK;
    case TS_SYS_SYNC_OPEN: return TS_SYS_SYNC_CLOSE;
    case TS_SYS_WINDOW_CREATE: return TS_SYS_WINDOW_FREE;
    default: return 0;
    }
}

static const struct {
    int code;
    const char *name;
} errors[] = {
    {TS_EPERM, "EPERM"},
    {TS_ENOENT, "ENOENT"},
    {TS_EBADF, "EBADF"},
    {TS_EAGAIN, "EAGAIN"},
    {TS_ENOMEM, "ENOMEM"},
    {TS_EFAULT, "EFAULT"},
    {TS_EBUSY, "EBUSY"},
    {TS_EEXIST, "EEXIST"},
    {TS_EINVAL, "EINVAL"},
    {TS_ENFILE, "ENFILE"},
    {TS_ENAMETOOLONG, "ENAMETOOLONG"},
    {TS_ENOSYS, "ENOSYS"},
    {TS_ETIMEDOUT, "ETIMEDOUT"},
};
#define NERRORS (sizeof errors / sizeof errors[0])

/* Index in errors[] of result r < 0, or -1 for an unknown code. */
static int error_index(long r) {
    for (size_t i = 0; i < NERRORS; ++i)
        if (r == -(long)errors[i].code) return (int)i;
    return -1;
}

/* ---- making the calls safe --------------------------------------------------- */

/* What kcalls.def says of each argument of each call (its shapes), from
 * which half of the random calls draw arguments of the right shape, so
 * that they get past the first checks: the deeper checks and the
 * successes (then undone) are exercised too. A new call is fuzzed this
 * way as soon as kcalls.def has it. */
enum shape_kind {
    SHAPE_NONE, /* no such argument */
    SHAPE_INT,  /* an integer in [lo, hi] */
    SHAPE_PORT,
    SHAPE_CLUSTER,
    SHAPE_ID,     /* an object id: none of ours is ever open when a random call comes */
    SHAPE_BUFFER, /* bytes: argument `count` long */
    SHAPE_STREAM, /* the same, moved in pieces */
    SHAPE_OBJECT, /* one object of `size` bytes */
    SHAPE_ATOMIC, /* one aligned object of `size` bytes */
    SHAPE_ARRAY,  /* argument `count` ints: a list of clusters */
    SHAPE_CODE,
    SHAPE_ADDR,
    SHAPE_WORD,
};

struct shape {
    enum shape_kind kind;
    unsigned long lo, hi; /* SHAPE_INT, as the register holds them */
    int count;            /* SHAPE_BUFFER, SHAPE_STREAM, SHAPE_ARRAY: the length's argument */
    unsigned long size;   /* SHAPE_OBJECT, SHAPE_ATOMIC */
};

#define ARG_INT(T, lo, hi) \
    { SHAPE_INT, (unsigned long)(long)(T)(lo), (unsigned long)(long)(T)(hi), 0, 0 }
#define ARG_PORT \
    { SHAPE_PORT, 0, 0, 0, 0 }
#define ARG_CLUSTER \
    { SHAPE_CLUSTER, 0, 0, 0, 0 }
#define ARG_ID(table, dir) \
    { SHAPE_ID, 0, 0, 0, 0 }
#define ARG_IN(n) \
    { SHAPE_BUFFER, 0, 0, n, 0 }
#define ARG_OUT(n) \
    { SHAPE_BUFFER, 0, 0, n, 0 }
#define ARG_STREAM_IN(n) \
    { SHAPE_STREAM, 0, 0, n, 0 }
#define ARG_STREAM_OUT(n) \
    { SHAPE_STREAM, 0, 0, n, 0 }
#define ARG_OBJ_IN(T) \
    { SHAPE_OBJECT, 0, 0, 0, sizeof(T) }
#define ARG_OBJ_OUT(T) \
    { SHAPE_OBJECT, 0, 0, 0, sizeof(T) }
#define ARG_OBJ_INOUT(T) \
    { SHAPE_OBJECT, 0, 0, 0, sizeof(T) }
#define ARG_OPT_OBJ_OUT(T) \
    { SHAPE_OBJECT, 0, 0, 0, sizeof(T) }
#define ARG_ATOMIC_IN(T) \
    { SHAPE_ATOMIC, 0, 0, 0, sizeof(T) }
#define ARG_ARRAY_IN(T, n) \
    { SHAPE_ARRAY, 0, 0, n, sizeof(T) }
#define ARG_CODE \
    { SHAPE_CODE, 0, 0, 0, 0 }
#define ARG_ADDR \
    { SHAPE_ADDR, 0, 0, 0, 0 }
#define ARG_WORD \
    { SHAPE_WORD, 0, 0, 0, 0 }
#define SHAPES_OF(...) \
    { __VA_ARGS__ }

static const struct shape shapes[NUMBERS][4] = {
#define TS_KCALL(NAME, name, number, layer, where, fast, cancel, wrapper, ret, params, shapes, ...) \
    [TS_SYS_##NAME] = SHAPES_OF shapes,
#include <tessera/kcalls.def>
#undef TS_KCALL
};

/* Integer ranges this small are drawn from; wider ones keep their random value. */
#define SMALL_RANGE 255

/* One argument of the right shape in a[i] (and its length in a[count]). */
static void shape_arg(struct arg *a, int i, const struct shape *s) {
    switch (s->kind) {
    case SHAPE_INT:
        if (s->hi - s->lo <= SMALL_RANGE) a[i].v = s->lo + below(s->hi - s->lo + 1);
        break;
    case SHAPE_PORT: a[i].v = any_port(); break;
    case SHAPE_CLUSTER: a[i].v = any_cluster(); break;
    case SHAPE_BUFFER:
    case SHAPE_STREAM:
        a[i] = static_buffer();
        a[s->count].v = below(WRITE_ROOM + 1);
        break;
    case SHAPE_OBJECT:
    case SHAPE_ATOMIC:
        if (s->size <= WRITE_ROOM) a[i] = static_buffer();
        if (s->kind == SHAPE_ATOMIC) a[i].v &= ~(s->size - 1);
        break;
    case SHAPE_ARRAY:
        a[i] = cluster_list();
        a[s->count].v = 2 + below((unsigned long)ts_job()->nclusters - 1);
        break;
    default: break; /* ids, code, addresses and words stay random */
    }
}

static void shape(struct call *c) {
    if (below(2) || !known(c->nr)) return;
    for (int i = 0; i < 4; ++i) /* lengths after the integers: an array or buffer sets its own */
        if (shapes[c->nr][i].kind == SHAPE_INT) shape_arg(c->a, i, &shapes[c->nr][i]);
    for (int i = 0; i < 4; ++i)
        if (shapes[c->nr][i].kind != SHAPE_INT) shape_arg(c->a, i, &shapes[c->nr][i]);
}

/* When copies share the cluster: a port (as the kernel reads it, an int)
 * that is another copy's becomes ours, so that a random create never
 * holds a port another copy's checks create at that moment (a second
 * create of a port is refused: the ports are the cluster's). Every other
 * value stays, bad ones included. */
static void keep_to_own_port(struct arg *a) {
    const int port = (int)a->v;
    if (self.here > 1 && port != self.port && port >= OWN_PORT(0) && port <= OWN_PORT(ts_job()->ncores - 2))
        a->v = (unsigned long)self.port;
}

/* Arguments changed so that the call cannot block for long, flood the
 * console, starve the cluster of memory or take another copy's port. */
static void tame(struct call *c) {
    struct arg *a = c->a;
    switch (c->nr) {
    case TS_SYS_MAILBOX_CREATE:
    case TS_SYS_PORTAL_CREATE: keep_to_own_port(&a[0]); break;
    case TS_SYS_SYNC_CREATE: keep_to_own_port(&a[3]); break;
    case TS_SYS_SLEEP: a[0].v %= SLEEP_MAX_NS + 1; break;
    case TS_SYS_FUTEX_WAIT: /* 0 would mean no timeout */ a[2].v = 1 + a[2].v % SLEEP_MAX_NS; break;
    case TS_SYS_IKC_WAIT_ANY: /* the same */ a[1].v = 1 + a[1].v % SLEEP_MAX_NS; break;
    case TS_SYS_WRITE:
        /* Readable memory would be printed: only lengths that surely fail
         * (running off mapped memory, or longer than user space) stay. */
        if (a[0].room && a[1].v <= a[0].room && a[1].v < (1ul << 30)) a[1].v = 0;
        break;
    case TS_SYS_BRK:
        /* A break between the heap's slack and our stack would take many
         * page frames for good (the heap keeps its pages when it shrinks,
         * and a brk that fails with ENOMEM keeps those it took before it
         * ran out), leaving none for later calls: move it into the slack. */
        if (a[0].v > mem.break0 + HEAP_SLACK && a[0].v < mem.stack_top - STACK_REACH)
            a[0].v = mem.break0 + a[0].v % HEAP_SLACK;
        break;
    }
}

static void report(const struct call *c, long r, const char *why) {
    if (note_unexpected())
        printf("UNEXPECTED %s: call %lu (0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx) -> %ld\n", why, c->nr,
               c->a[0].v, c->a[1].v, c->a[2].v, c->a[3].v, c->a[4].v, c->a[5].v, r);
}

/* Undoes what a successful call made or moved, so that later calls find
 * nothing of ours open and the break where malloc left it (nothing else
 * moves it while the fuzzer runs). */
static void undo(const struct call *c, long r) {
    const unsigned long release = release_of(c->nr);
    long rr = 0;
    if (release)
        rr = kcall_args(release, (unsigned long)r, 0, 0);
    else if (c->nr == TS_SYS_BRK)
        rr = kcall_args(TS_SYS_BRK, mem.break0, 0, 0) == (long)mem.break0 ? 0 : -1;
    if (rr != 0 && note_unexpected())
        printf("UNEXPECTED cannot undo call %lu (0x%lx, ...) -> %ld: %ld\n", c->nr, c->a[0].v, r, rr);
}

/* ---- tallies ----------------------------------------------------------------- */

struct tally {
    unsigned long calls, ok, bad;
    unsigned long err[NERRORS];
};

/* Per known number, and one row for every unknown number. */
static struct tally tallies[NUMBERS], unknown_tally;

static struct tally *tally_of(unsigned long nr) { return known(nr) ? &tallies[nr] : &unknown_tally; }

static void check_result(const struct call *c, long r) {
    struct tally *t = tally_of(c->nr);
    ++t->calls;
    if (r >= 0) {
        ++t->ok;
        if (!known(c->nr)) {
            ++t->bad;
            report(c, r, "unknown call succeeded");
        }
        return;
    }
    const int e = error_index(r);
    if (e >= 0) ++t->err[e];
    if (e < 0 || (!known(c->nr) && r != -TS_ENOSYS)) {
        ++t->bad;
        report(c, r, e < 0 ? "unknown error code" : "unknown call without ENOSYS");
    }
}

static void print_row(const char *name, const struct tally *t) {
    char line[256];
    int n = snprintf(line, sizeof line, "  %-15s %6lu %6lu %4lu ", name, t->calls, t->ok, t->bad);
    for (size_t i = 0; i < NERRORS && n < (int)sizeof line; ++i)
        if (t->err[i]) n += snprintf(line + n, sizeof line - (size_t)n, " %s:%lu", errors[i].name, t->err[i]);
    printf("%s\n", line);
}

static void print_table(void) {
    printf("  %-15s %6s %6s %4s  errors\n", "call", "calls", "ok", "bad");
    for (unsigned long nr = 0; nr < NUMBERS; ++nr)
        if (tallies[nr].calls) print_row(call_names[nr], &tallies[nr]);
    print_row("(unknown)", &unknown_tally);
}

/* ---- the random calls -------------------------------------------------------- */

/* Mostly below NUMBERS; sometimes a number with high bits set, which must not be
 * taken for its low bits (THREAD_EXIT | 1 << 32 is unknown, not an exit). */
static unsigned long random_number(void) {
    for (;;) {
        unsigned long nr = below(NUMBERS);
        if (never_made(nr)) continue;
        switch (below(32)) {
        case 0: return nr | 1ul << 32;
        case 1: return nr | 1ul << 63;
        default: return nr;
        }
    }
}

static void fuzz_one(void) {
    struct call c = {random_number(), {{0, 0}}};
    for (int i = 0; i < 6; ++i)
        c.a[i] = random_arg();
    shape(&c);
    tame(&c);
    const long r = kcall(&c);
    check_result(&c, r);
    if (r >= 0) undo(&c, r);
}

/* ---- the kernel still works ---------------------------------------------------- */

#define EXPECT(what, cond)                                                                         \
    do {                                                                                           \
        if (!(cond) && note_unexpected()) printf("UNEXPECTED %s check failed: %s\n", what, #cond); \
    } while (0)

static void noop(void *arg) { (void)arg; }

/* True when ts_thread_create may find no free core without the kernel
 * being wrong: the cluster's ranks and one thread of every other copy
 * may fill its cores (the master runs none). Alone, a core is free. */
static int no_free_core_possible(void) { return 2 * self.here - 1 >= ts_job()->ncores - 1; }

/* A mailbox round trip on our own cluster, through our own port, and a
 * thread start and join, as any program would make them. A thread check
 * that finds no free core where the other ranks may hold them all is
 * skipped, and said so; one that starts must end and be joined. */
static void sanity(const char *when) {
    const struct ts_job_info *job = ts_job();
    char buf[8] = {0};
    int in = ts_mailbox_create(self.port);
    int out = ts_mailbox_open(self.port, job->cluster_id, self.port);
    EXPECT(when, in >= 0 && out >= 0);
    EXPECT(when, ts_mailbox_write(out, "ping", 5) == 5);
    EXPECT(when, ts_mailbox_read(in, buf, sizeof buf) == 5 && strcmp(buf, "ping") == 0);
    EXPECT(when, ts_mailbox_close(out) == 0 && ts_mailbox_unlink(in) == 0);

    int status = -1;
    const int tid = ts_thread_create(noop, 0);
    if (tid == -TS_EAGAIN && no_free_core_possible()) {
        printf("kcall_fuzz: %s: thread check skipped: no free core (cluster %d: %d ranks, %d cores)\n", when,
               job->cluster_id, self.here, job->ncores);
    } else {
        const int joined = tid > 0 ? ts_thread_join(tid, &status) : 0;
        if (!(tid > 0 && joined == 0 && status == 0) && note_unexpected())
            printf("UNEXPECTED %s check failed: thread: create %d, join %d, status %d\n", when, tid, joined,
                   status);
    }

    struct ts_job_info now;
    EXPECT(when, kcall_args(TS_SYS_JOB_INFO, (uintptr_t)&now, 0, 0) == 0);
    EXPECT(when, memcmp(&now, job, sizeof now) == 0);
}

/* Processes mode: the kernel keeps the rank of this process, and it is
 * the one mpirun's mapping puts at this cluster and local index, on core
 * local + 1; no label of ours changes it (TS_SYS_THREAD_TAG is refused,
 * whatever the value), so that console prefixes and reports keep naming
 * the real rank after the random calls. */
static void identity(const char *when) {
    if (!self.processes) return;
    int cluster = -1, local = -1;
    EXPECT(when, ts_rank_place(self.rank, &cluster, &local) == 0);
    EXPECT(when, cluster == ts_job()->cluster_id && local == self.local);
    EXPECT(when, ts_thread_core() == self.local + 1);
    EXPECT(when, ts_thread_tag(self.rank) == -TS_EPERM && ts_thread_tag(-1) == -TS_EPERM);
    const int tags[] = {0, 1, self.rank + 1, self.rank + 100, 0x7fffffff};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; ++i)
        if (ts_thread_tag(tags[i]) != -TS_EPERM && note_unexpected())
            printf("UNEXPECTED %s check failed: ts_thread_tag(%d) was not refused\n", when, tags[i]);
}

/* The ranks of the job that run on this cluster (1 when the job info
 * names no rank). */
static int ranks_here(void) {
    const struct ts_job_info *job = ts_job();
    int n = 0;
    for (int r = 0; r < job->np; ++r) {
        int cluster, local;
        if (ts_rank_place(r, &cluster, &local) == 0 && cluster == job->cluster_id) ++n;
    }
    return n > 0 ? n : 1;
}

static void who_am_i(void) {
    const struct ts_job_info *job = ts_job();
    self.processes = job->ranks_mode == TS_RANKS_PROCESSES && job->rank >= 0;
    self.rank = ts_rank() >= 0 ? ts_rank() : 0;
    self.local = ts_local_index() >= 0 ? ts_local_index() : 0;
    self.here = ranks_here();
    self.port = OWN_PORT(self.local);
    if (self.processes && job->alias_base) {
        self.alias_base = job->alias_base;
        self.alias_size = job->private_size;
    }
}

/* Free page frames, or -1 while the kernel has no TS_SYS_MEM_INFO. */
static long free_pages(void) {
    struct ts_mem_info info;
    return kcall_args(TS_SYS_MEM_INFO, (uintptr_t)&info, 0, 0) == 0 ? (long)info.free_pages : -1;
}

/* Maps the heap's slack once (and gives it back to malloc's break), so
 * random breaks within it take no new frames and the top of the heap pages
 * is a known edge. */
static void setup_memory(char *stack_buf) {
    mem.stack_buf = stack_buf;
    mem.stack_top = ((uintptr_t)stack_buf + STACK_ALIGN - 1) & ~(STACK_ALIGN - 1);
    mem.break0 = (unsigned long)kcall_args(TS_SYS_BRK, 0, 0, 0);
    const unsigned long slack_end = mem.break0 + HEAP_SLACK;
    EXPECT("setup", kcall_args(TS_SYS_BRK, slack_end, 0, 0) == (long)slack_end);
    EXPECT("setup", kcall_args(TS_SYS_BRK, mem.break0, 0, 0) == (long)mem.break0);
    refill_scratch();
}

/* END (argv[3]): "exit:R" or "fault:R"; END_NONE when absent. */
static volatile uintptr_t fault_address = 0x10; /* fault:R loads here (the NULL page) */
enum end { END_NONE, END_EXIT, END_FAULT };

static enum end parse_end(const char *arg, int *rank) {
    char *rest;
    const enum end how = strncmp(arg, "exit:", 5) == 0    ? END_EXIT
                         : strncmp(arg, "fault:", 6) == 0 ? END_FAULT
                                                          : END_NONE;
    if (how == END_NONE) return END_NONE;
    *rank = (int)strtol(strchr(arg, ':') + 1, &rest, 10);
    return *rest ? END_NONE : how;
}

int main(int argc, char **argv) {
    const unsigned long calls = argc > 1 ? strtoul(argv[1], 0, 0) : DEFAULT_CALLS;
    const uint64_t seed = argc > 2 ? strtoull(argv[2], 0, 0) : DEFAULT_SEED;
    int end_rank = -1;
    const enum end end = argc > 3 ? parse_end(argv[3], &end_rank) : END_NONE;
    char stack_buf[STACK_BUF];
    memset(stack_buf, 0, sizeof stack_buf);

    who_am_i();
    if (argc > 3 && end == END_NONE) {
        printf("kcall_fuzz: END must be exit:RANK or fault:RANK, got '%s'\n", argv[3]);
        return 2;
    }
    if (!self.processes && self.here > 1) {
        /* Threads of one process would share the break, the scratch
         * buffers and the thread label the fuzzer changes. */
        printf(
            "kcall_fuzz: %d ranks share the process of cluster %d (--ranks threads): run it alone "
            "(-np 1) or with --ranks processes\n",
            self.here, ts_job()->cluster_id);
        return 1;
    }
    printf("kcall_fuzz: %lu calls, seed 0x%llx\n", calls, (unsigned long long)seed);
    printf("kcall_fuzz: rank %d, local index %d of %d on cluster %d (ranks as %s), port %d\n", self.rank,
           self.local, self.here, ts_job()->cluster_id, self.processes ? "processes" : "threads", self.port);
    seed_rng(seed + (uint64_t)self.rank);
    identity("before");
    sanity("before"); /* first: it may grow malloc's heap */
    setup_memory(stack_buf);
    /* Other copies take and give back frames all the time. */
    const long pages_before = self.here == 1 ? free_pages() : -1;

    for (unsigned long i = 0; i < calls; ++i) {
        if (i % 256 == 0) refill_scratch();
        fuzz_one();
    }

    const long pages_after = free_pages();
    if (pages_before >= 0) EXPECT("page frames", pages_after == pages_before);
    EXPECT("break", kcall_args(TS_SYS_BRK, 0, 0, 0) == (long)mem.break0);
    sanity("after");
    identity("after");
    /* Threads mode: the label is the program's, and random calls changed
     * it; give the rank its own back for what it prints from now on. */
    if (!self.processes) EXPECT("label", ts_thread_tag(ts_rank()) == 0);
    if (end != END_NONE && self.rank == end_rank) {
        /* Refused in processes mode (identity checks that), taken in
         * threads mode: the reports below then name that label. */
        const int r = ts_thread_tag(end_rank + 100);
        printf("kcall_fuzz: rank %d asked to be labelled %d: %s\n", end_rank, end_rank + 100,
               r == 0 ? "taken" : "refused");
    }

    print_table();
    printf("kcall_fuzz: %lu calls, %lu unexpected\n", calls, unexpected);
    if (end != END_NONE && self.rank == end_rank) {
        fflush(stdout);
        if (end == END_FAULT) printf("value %d\n", *(volatile int *)fault_address);
        return unexpected ? (unexpected > 255 ? 255 : (int)unexpected) : END_STATUS;
    }
    return unexpected > 255 ? 255 : (int)unexpected;
}
