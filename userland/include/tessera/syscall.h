/*
 * Tessera kernel call interface (the user/kernel ABI).
 *
 * A user thread enters its cluster's kernel with `ecall` (RISC-V privileged
 * spec 3.3.1, environment call from U-mode): the call number goes in a7, up to
 * six arguments in a0..a5, and the result comes back in a0. A negative result
 * is an error code (-TS_E*). The kernel checks every pointer, length and id it
 * is given; bad input returns an error and never changes kernel state.
 * Calls that touch only the calling core (THREAD_SELF, THREAD_CORE,
 * THREAD_YIELD, THREAD_TAG, SLEEP, JOB_INFO, KCALL_COUNT, and the start of
 * THREAD_EXIT) are served on that core; all others by the cluster's master
 * core (kernel/syscall.cpp).
 *
 * This header is shared by the kernel (C++) and the user runtime (C).
 */
#ifndef TESSERA_SYSCALL_H
#define TESSERA_SYSCALL_H

/* Error codes, returned negated. Numbers follow Linux errno. */
#define TS_EPERM    1   /* not the owner of the object */
#define TS_ENOENT   2   /* no such name / port not created */
#define TS_EAGAIN  11   /* no free core / resource busy, try later */
#define TS_ENOMEM  12   /* memory window exhausted */
#define TS_EFAULT  14   /* bad user pointer or range */
#define TS_EBUSY   16   /* port or object already in use */
#define TS_EEXIST  17   /* name already linked */
#define TS_EINVAL  22   /* bad argument (id, size, flag, cluster) */
#define TS_ENFILE  23   /* a kernel table, or a hardware resource's share of virtual ones, is full */
#define TS_ENAMETOOLONG 36
#define TS_EBADF    9   /* id does not name an open object */
#define TS_ENOSYS  38   /* unknown kernel call number */
#define TS_ETIMEDOUT 110 /* a wait with a timeout ran out */

/* Kernel call numbers (a7). Arguments in order a0, a1, ... */
enum ts_syscall {
    /* (const void *buf, unsigned long len <= 64 KiB) -> bytes written.
     * Writes to the console, which cluster 0's kernel owns: from a compute
     * cluster the bytes travel over the NoC, and cluster 0 writes them out a
     * whole line at a time per thread, so lines of different threads (ranks)
     * never mix (kernel/console.cpp: long and unfinished lines, prefixes). */
    TS_SYS_WRITE = 1,
    /* (int status) -> does not return. Ends the calling thread; when the
     * last thread of the process ends, the process ends with the first
     * non-zero status its threads exited with (0 if none). */
    TS_SYS_THREAD_EXIT = 2,
    /* (void (*entry)(void *), void *arg) -> tid. Starts a user thread on a
     * free core of the cluster with a fresh 128 KiB stack (guard gap below).
     * entry must not return (call TS_SYS_THREAD_EXIT). -TS_EAGAIN when no
     * core is free. */
    TS_SYS_THREAD_CREATE = 3,
    /* (int tid, int *status or 0) -> 0. Waits until thread tid ends. */
    TS_SYS_THREAD_JOIN = 4,
    /* () -> tid of the caller (its core number inside the cluster). */
    TS_SYS_THREAD_SELF = 5,
    /* (unsigned long new_end or 0) -> the current end of the heap.
     * Grows or shrinks the heap, which starts page-aligned after the
     * program's last segment; -TS_ENOMEM when the window is exhausted. */
    TS_SYS_BRK = 6,
    /* (struct ts_job_info *info) -> 0. */
    TS_SYS_JOB_INFO = 7,
    /* (int code) -> does not return. Ends the whole job: every cluster
     * stops and the machine powers off with exit status `code`. */
    TS_SYS_JOB_ABORT = 8,
    /* (unsigned long ns) -> 0. Sleeps at least ns nanoseconds. */
    TS_SYS_SLEEP = 9,

    /* Threads and memory (more). */
    /* () -> 0. Gives up the core. A core runs one user thread, so there
     * is nothing to switch to: the call only lets a pending kill land. */
    TS_SYS_THREAD_YIELD = 40,
    /* (const unsigned *addr, unsigned expected, unsigned long timeout_ns)
     * -> 0 when woken. Sleeps while *addr == expected, until a
     * TS_SYS_FUTEX_WAKE on addr or timeout_ns (0: no timeout).
     * -TS_EAGAIN when *addr != expected on entry, -TS_ETIMEDOUT,
     * -TS_EFAULT, -TS_EINVAL when addr is not 4-byte aligned. */
    TS_SYS_FUTEX_WAIT = 41,
    /* (const unsigned *addr, int n) -> threads woken (at most n >= 1) among
     * those of the process waiting on addr, oldest first. */
    TS_SYS_FUTEX_WAKE = 42,
    /* (int number, int core) -> how many times kernel call `number` was
     * made on `core` of this cluster since boot; -TS_EINVAL. */
    TS_SYS_KCALL_COUNT = 43,
    /* (struct ts_mem_info *info) -> 0. The cluster's page frames. */
    TS_SYS_MEM_INFO = 44,

    /* Mailboxes: fixed-size messages, N:1. A message carries at most
     * info.mailbox_payload bytes. */
    TS_SYS_MAILBOX_CREATE = 10, /* (int port) -> id of an input mailbox */
    TS_SYS_MAILBOX_OPEN = 11,   /* (int local_port, int cluster, int port) -> id of an output mailbox */
    TS_SYS_MAILBOX_READ = 12,   /* (int id, void *buf, unsigned long size) -> bytes of the message (copies min(size, bytes)) */
    TS_SYS_MAILBOX_WRITE = 13,  /* (int id, const void *buf, unsigned long size) -> size */
    TS_SYS_MAILBOX_CLOSE = 14,  /* (int id) -> 0; output mailboxes */
    TS_SYS_MAILBOX_UNLINK = 15, /* (int id) -> 0; input mailboxes */
    /* Asynchronous forms: start the read or write and return 0 at once;
     * the kernel moves the data in the background, into or from the
     * caller's buffer, which must stay valid until TS_SYS_*_WAIT returns.
     * One asynchronous operation per virtual abstraction at a time
     * (-TS_EBUSY otherwise). WAIT returns what the synchronous call would
     * have returned; -TS_EINVAL when nothing was started. With `flags`
     * TS_IKC_NOWAIT, WAIT returns -TS_EAGAIN at once while the operation
     * runs (it keeps running). */
    TS_SYS_MAILBOX_AREAD = 16,  /* (int id, void *buf, unsigned long size) -> 0 */
    TS_SYS_MAILBOX_AWRITE = 17, /* (int id, const void *buf, unsigned long size) -> 0 */
    TS_SYS_MAILBOX_WAIT = 18,   /* (int id, int flags) -> result of the AREAD or AWRITE */
    /* (int id, int request, void *arg) -> 0. TS_IKC_IOCTL_STATS copies the
     * virtual mailbox's struct ts_ikc_stats to arg. */
    TS_SYS_MAILBOX_IOCTL = 19,
    /* (unsigned long seen, unsigned long timeout_ns) -> count. Sleeps
     * while the calling thread's count of events equals `seen`, at most
     * timeout_ns (0: no timeout), and returns that count (>= 0; it only
     * grows). Events: an AREAD or AWRITE (mailbox or portal) the thread
     * started finished (collect its result with WAIT as usual), or a
     * TS_SYS_IKC_WAKE for it. Pass what the last call returned (0 at
     * first), so that an event after that call ends the next one at once. */
    TS_SYS_IKC_WAIT_ANY = 47,
    /* (int core) -> 0: an event for the thread of the caller's process on
     * `core` (TS_SYS_IKC_WAIT_ANY); -TS_EINVAL when none runs there. */
    TS_SYS_IKC_WAKE = 48,

    /* Portals: arbitrary size, 1:1, receiver-driven. */
    TS_SYS_PORTAL_CREATE = 20,  /* (int port) -> id of an input portal */
    TS_SYS_PORTAL_ALLOW = 21,   /* (int id, int cluster, int port) -> 0: accept one transfer from (cluster, port) */
    TS_SYS_PORTAL_OPEN = 22,    /* (int local_port, int cluster, int port) -> id of an output portal */
    TS_SYS_PORTAL_READ = 23,    /* (int id, void *buf, unsigned long size) -> size; needs a prior allow */
    TS_SYS_PORTAL_WRITE = 24,   /* (int id, const void *buf, unsigned long size) -> size; waits for the receiver's allow */
    TS_SYS_PORTAL_CLOSE = 25,   /* (int id) -> 0 */
    TS_SYS_PORTAL_UNLINK = 26,  /* (int id) -> 0 */
    TS_SYS_PORTAL_AREAD = 27,   /* (int id, void *buf, unsigned long size) -> 0; as MAILBOX_AREAD */
    TS_SYS_PORTAL_AWRITE = 28,  /* (int id, const void *buf, unsigned long size) -> 0 */
    TS_SYS_PORTAL_WAIT = 29,    /* (int id, int flags) -> result of the AREAD or AWRITE */
    TS_SYS_PORTAL_IOCTL = 37,   /* (int id, int request, void *arg) -> 0; as MAILBOX_IOCTL */

    /* Syncs: ALL_TO_ONE (the one waits for a signal from all others) and
     * ONE_TO_ALL (all others wait for the one's signal). clusters[0] is
     * the "one". The creator is the side that waits, the opener signals. */
    TS_SYS_SYNC_CREATE = 30,    /* (const int *clusters, int n, int type, int port) -> id */
    TS_SYS_SYNC_OPEN = 31,      /* (const int *clusters, int n, int type, int port) -> id */
    TS_SYS_SYNC_WAIT = 32,      /* (int id) -> 0 */
    TS_SYS_SYNC_SIGNAL = 33,    /* (int id) -> 0 */
    TS_SYS_SYNC_CLOSE = 34,     /* (int id) -> 0 */
    TS_SYS_SYNC_UNLINK = 35,    /* (int id) -> 0 */
    TS_SYS_SYNC_IOCTL = 36,     /* (int id, int request, void *arg) -> 0; as MAILBOX_IOCTL */

    /* (int tag) -> 0. Labels the calling thread (LWMPI: its world rank;
     * -1: none). The console prefixes each of the thread's lines with it
     * when the job was started with tag_output, and fault reports name it.
     * -TS_EINVAL when tag < -1. */
    TS_SYS_THREAD_TAG = 45,
    /* () -> the index of the core of this cluster that runs the caller
     * (0 is the master). */
    TS_SYS_THREAD_CORE = 46,
};

#define TS_SYNC_ALL_TO_ONE 0
#define TS_SYNC_ONE_TO_ALL 1

/* ioctl requests on virtual mailboxes, portals and syncs. */
/* Flags of TS_SYS_MAILBOX_WAIT and TS_SYS_PORTAL_WAIT. */
#define TS_IKC_NOWAIT 1
#define TS_IKC_IOCTL_STATS 1

/* Statistics of one virtual mailbox, portal or sync (TS_IKC_IOCTL_STATS),
 * counted since it was created or opened. */
struct ts_ikc_stats {
    unsigned long bytes;        /* user bytes moved by completed reads and writes */
    unsigned long reads;        /* completed reads (synchronous or AREAD) */
    unsigned long writes;       /* completed writes (synchronous or AWRITE) */
    unsigned long areads;       /* AREADs started */
    unsigned long awrites;      /* AWRITEs started */
    unsigned long waits;        /* completed WAITs (mailbox, portal and sync) */
    unsigned long allows;       /* portal allows given */
    unsigned long signals;      /* sync signals sent */
    unsigned long transfer_ns;  /* time from the start to the end of every
                                 * completed read, write and sync wait */
    unsigned long parked;       /* input mailboxes: messages for it waiting
                                 * now in the kernel's buffers table */
};

/* Logical ports: 0..TS_PORTS-1 per cluster and per abstraction kind.
 * Port 0 is the kernel's; user programs use 1..TS_PORTS-1. */
#define TS_PORTS 64
#define TS_PORT_KERNEL 0            /* kernel-to-kernel messages (job exit, abort) */
#define TS_PORT_NAMESERVER 1        /* name server's mailbox on cluster 0 */
#define TS_PORT_NAME_DAEMON 2       /* the local name daemon's mailbox on every compute cluster */
#define TS_PORT_MPI_BASE 8          /* MPI process with local index l: mailbox and portal port 8+l */
#define TS_PORT_NAME_REPLY_BASE 32  /* name client on core c: reply mailbox port 32+c */

/* Mapping policies (DESIGN section 3, process manager). */
#define TS_MAP_COMPACT 0
#define TS_MAP_SCATTER 1

#define TS_ARGS_MAX 512

/* The page frames of a cluster (TS_SYS_MEM_INFO). */
struct ts_mem_info {
    unsigned long page_size;   /* bytes */
    unsigned long total_pages; /* frames of the window after the kernel image */
    unsigned long free_pages;  /* frames not in use */
};

/* What a program knows of its job and its cluster (TS_SYS_JOB_INFO). */
struct ts_job_info {
    int cluster_id;          /* this cluster; I/O clusters are 0..nio_clusters-1 */
    int nclusters;           /* all clusters of the platform */
    int nio_clusters;        /* compute clusters are nio_clusters..nclusters-1 */
    int ncores;              /* cores of this cluster, the master included */
    int np;                  /* MPI processes of the job (0: not an MPI program) */
    int map_policy;          /* TS_MAP_COMPACT or TS_MAP_SCATTER */
    int slots_per_cluster;   /* MPI processes a compute cluster can host */
    int mailbox_payload;     /* bytes of user data in one mailbox message */
    int portal_chunk;        /* bytes the NoC moves per portal chunk */
    int argc;                /* argv[0] is the program name */
    unsigned long timebase_hz; /* ticks per second of ts_time(): the `time` CSR
                                  on qemu-riscv64, 10^9 (ns) on linux64 */
    char args[TS_ARGS_MAX];  /* argc NUL-terminated strings, back to back */
    /* IKC limits of this cluster (from the platform profile). */
    int hw_mailboxes;        /* hardware input mailboxes */
    int hw_portals;          /* hardware input portals */
    int virtual_per_hw;      /* virtual abstractions one hardware resource carries */
    int ikc_buffers;         /* messages the buffers table parks for other ports */
    /* LWMPI's parameters for the job (mpirun --local-path, --eager-threshold). */
    unsigned mpi_flags;      /* TS_JOB_MPI_* */
    int mpi_eager_max;       /* bytes; 0: LWMPI's default */
};

/* ts_job_info.mpi_flags. */
#define TS_JOB_MPI_LOCAL_IKC 1u /* ranks of one cluster talk through IKC, as remote
                                 * ones do (the shared-memory path is off) */

#endif
