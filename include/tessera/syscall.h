/*
 * Tessera kernel call interface (the user/kernel ABI).
 *
 * A user thread enters its cluster's kernel with `ecall` (RISC-V privileged
 * spec 3.3.1, environment call from U-mode): the call number goes in a7, up to
 * six arguments in a0..a5, and the result comes back in a0. A negative result
 * is an error code (-TS_E*). The kernel checks every pointer, length and id it
 * is given; bad input returns an error and never changes kernel state.
 * Calls that touch only the calling core are served on that core; all
 * others by the cluster's master core (<tessera/kcalls.def> says which).
 *
 * Part of the ABI (include/tessera/): shared by the kernel (C++), the user
 * runtime (C) and the tools.
 */
#ifndef TESSERA_SYSCALL_H
#define TESSERA_SYSCALL_H

/* Error codes, returned negated. Numbers follow Linux errno. */
#define TS_EPERM        1  /* not the owner of the object */
#define TS_ENOENT       2  /* no such name / port not created / no such file */
#define TS_EIO          5  /* the host's file system failed */
#define TS_EAGAIN       11 /* no free core / resource busy, try later */
#define TS_ENOMEM       12 /* memory window exhausted */
#define TS_EACCES       13 /* a path outside the job's folder, or a file the host refuses */
#define TS_EFAULT       14 /* bad user pointer or range */
#define TS_EBUSY        16 /* port or object already in use */
#define TS_EEXIST       17 /* name already linked */
#define TS_EINVAL       22 /* bad argument (id, size, flag, cluster) */
#define TS_ENFILE       23 /* a kernel table, or a hardware resource's share of virtual ones, is full */
#define TS_EMFILE       24 /* a process's table of open files is full */
#define TS_ENOSPC       28 /* no room left on the host's disk */
#define TS_ENOTDIR      20 /* a file where a folder was expected */
#define TS_EISDIR       21 /* a folder where a file was expected */
#define TS_ENOTEMPTY    39 /* a folder to remove still holds entries */
#define TS_ENAMETOOLONG 36
#define TS_EBADF        9   /* id does not name an open object */
#define TS_ENOSYS       38  /* unknown kernel call number */
#define TS_ETIMEDOUT    110 /* a wait with a timeout ran out */
#define TS_ECANCELED    125 /* an asynchronous write was cancelled (TS_IKC_CANCEL) */

/* Kernel call numbers (a7), from the one table of kernel calls,
 * <tessera/kcalls.def>, which also says what each call does. */
enum ts_syscall {
#define TS_KCALL(NAME, name, number, ...) TS_SYS_##NAME = number,
#include <tessera/kcalls.def>
#undef TS_KCALL
};
/* Every kernel call number is below this (the kernel's tables of calls
 * and of their counts have this many rows). */
#define TS_KCALL_NUMBERS 74

#define TS_SYNC_ALL_TO_ONE 0
#define TS_SYNC_ONE_TO_ALL 1

/* How far a user thread's stack grows, in bytes: it starts with the
 * profile's user_stack_kb mapped, and a fault below that part maps more,
 * up to this (pthread_attr_setstacksize's limit). */
#define TS_USER_STACK_MAX (960ul * 1024)

/* Flags of TS_SYS_MAILBOX_WAIT and TS_SYS_PORTAL_WAIT. TS_IKC_CANCEL
 * (ts_portal_cancel): as TS_IKC_NOWAIT, but an AWRITE that has moved no
 * byte yet is cancelled (-TS_ECANCELED; the endpoint takes a new
 * operation); -TS_EINVAL on an AREAD. */
#define TS_IKC_NOWAIT 1
#define TS_IKC_CANCEL 2

/* ioctl requests on virtual mailboxes, portals and syncs. */
#define TS_IKC_IOCTL_STATS 1

/* Statistics of one virtual mailbox, portal or sync (TS_IKC_IOCTL_STATS),
 * counted since it was created or opened. */
struct ts_ikc_stats {
    unsigned long bytes;       /* user bytes moved by completed reads and writes */
    unsigned long reads;       /* completed reads (synchronous or AREAD) */
    unsigned long writes;      /* completed writes (synchronous or AWRITE) */
    unsigned long areads;      /* AREADs started */
    unsigned long awrites;     /* AWRITEs started */
    unsigned long waits;       /* completed WAITs (mailbox, portal and sync) */
    unsigned long allows;      /* portal allows given */
    unsigned long signals;     /* sync signals sent */
    unsigned long transfer_ns; /* time from the start to the end of every
                                * completed read, write and sync wait */
    unsigned long parked;      /* input mailboxes: messages for it waiting
                                * now in the kernel's buffers table */
};

/* A ring of mailbox arrivals in the receiving process's memory
 * (TS_SYS_MAILBOX_RING): one writer, one reader. The kernel writes slot
 * head % nslots, then advances head; the process reads slot tail % nslots,
 * then advances tail. The kernel never trusts tail: a ring whose
 * head - tail exceeds nslots reads as full, so a process that corrupts its
 * ring only stops its own arrivals. */
struct ts_ring {
    unsigned head;    /* kernel: messages written so far (wraps) */
    unsigned tail;    /* process: messages taken so far (wraps) */
    unsigned wake;    /* process: 1 while it may sleep in TS_SYS_IKC_WAIT_ANY
                       * (set it, look at the ring once more, then sleep): an
                       * arrival is then an event of the thread that attached
                       * or last drained the ring */
    unsigned stalled; /* kernel: 1 when a message waited for room; the
                       * process clears it and calls TS_SYS_MAILBOX_DRAIN */
    unsigned nslots;  /* kernel, at attach: slots in the ring */
    unsigned reserved;
};
/* One slot: this header, then mailbox_payload bytes of room for data. */
struct ts_ring_slot {
    unsigned short length;      /* bytes of data */
    unsigned short src_cluster; /* the sender's cluster and port */
    unsigned short src_port;
    unsigned short reserved;
};
#define TS_RING_SLOT_BYTES(payload) (sizeof(struct ts_ring_slot) + (((unsigned long)(payload) + 7ul) & ~7ul))
#define TS_RING_BYTES(nslots, payload) \
    (sizeof(struct ts_ring) + (unsigned long)(nslots)*TS_RING_SLOT_BYTES(payload))
#define TS_RING_MAX_SLOTS 1024
/* TS_SYS_MAILBOX_RING's answer: the process takes arrivals itself. */
#define TS_RING_PULL 1

/* Logical ports: 0..TS_PORTS-1 per cluster and per abstraction kind.
 * Port 0 is the kernel's; user programs use 1..TS_PORTS-1. */
#define TS_PORTS                64
#define TS_PORT_KERNEL          0 /* kernel-to-kernel messages (job exit, abort) */
#define TS_PORT_NAMESERVER      1 /* name server's mailbox on cluster 0 */
#define TS_PORT_NAME_DAEMON     2 /* the local name daemon's mailbox on every compute cluster */
#define TS_PORT_FILESERVER      3 /* the file server's mailbox and portal on cluster 0 */
#define TS_PORT_WINDOW          4 /* the kernel's window agent on every cluster: requests (TS_SYS_WINDOW_*) */
#define TS_PORT_WINDOW_REPLY    5 /* ... and the replies to the requests its own windows made */
#define TS_PORT_MPI_BASE        8 /* MPI process with local index l: mailbox and portal port 8+l */
#define TS_PORT_NAME_REPLY_BASE 32 /* name client on core c: reply mailbox port 32+c */
/* A process's file client takes the first free port of 49..63, then of
 * 24..31, for its reply mailbox and its input portal (the same number). */
#define TS_PORT_FILE_CLIENT_HIGH 49
#define TS_PORT_FILE_CLIENT_LOW  24
/* So a compute cluster's inputs are: the kernel's mailboxes on
 * TS_PORT_KERNEL, TS_PORT_NAME_DAEMON, TS_PORT_WINDOW and
 * TS_PORT_WINDOW_REPLY and its portals on the last two; and for the MPI
 * process with local index l (on core l+1) a mailbox and a portal on
 * TS_PORT_MPI_BASE+l, a mailbox on TS_PORT_NAME_REPLY_BASE+l+1, and once it
 * uses files a mailbox and a portal on a file-client port. A profile whose
 * hardware resources cannot carry them all (virtual_per_hw each) is refused
 * before boot (tools/tessera/profile.py). */

/* A request on an IKC window (TS_SYS_WINDOW_ACCESS) for the window `target`
 * of cluster `cluster`, at address `addr` of its owner's memory:
 * - TS_WINDOW_WRITE: `size` bytes from buf; done when they have left buf
 *   (the caller may reuse it), not yet when they land: a later FLUSH, READ
 *   or atomic to the same target returns only after they have landed;
 * - TS_WINDOW_READ: `size` bytes into buf; done when they are there;
 * - TS_WINDOW_FLUSH: done when every earlier write to the target has
 *   landed; fails with the first error one of them met (-TS_EACCES);
 * - TS_WINDOW_CAS, FADD, SWAP: an atomic on the 8-byte-aligned 64-bit word
 *   at addr (CAS: stores `operand` if the word equals `compare`; FADD: adds
 *   `operand`; SWAP: stores `operand`); result gets the word's old value.
 * The owner's own loads, stores and atomics on the same word see them as
 * atomic. */
enum ts_window_kind {
    TS_WINDOW_WRITE = 1,
    TS_WINDOW_READ = 2,
    TS_WINDOW_FLUSH = 3,
    TS_WINDOW_CAS = 4,
    TS_WINDOW_FADD = 5,
    TS_WINDOW_SWAP = 6,
};
struct ts_window_op {
    unsigned kind; /* enum ts_window_kind */
    int cluster;   /* the target's cluster */
    int target;    /* the target window's key */
    unsigned reserved;
    unsigned long addr;    /* in the target owner's address space */
    void *buf;             /* WRITE: source; READ: destination */
    unsigned long size;    /* bytes (WRITE, READ) */
    unsigned long operand; /* atomics */
    unsigned long compare; /* CAS */
    unsigned long result;  /* atomics: the old value */
};
/* Regions one window exposes at most. */
#define TS_WINDOW_REGIONS 32

/* TS_SYS_ISOLATION_PROBE: what to try on another cluster's window. */
#define TS_PROBE_KERNEL_READ 0            /* the kernel reads its image's magic */
#define TS_PROBE_USER_MAP    1            /* map its first page for the caller */
#define TS_PROBE_USER_VA     0x6e000000ul /* where: the heap's limit, above any heap */

/* Mapping policies (docs/services.md, "Placing the ranks"). */
#define TS_MAP_COMPACT 0
#define TS_MAP_SCATTER 1

#define TS_ARGS_MAX 512
/* Bytes of the job's environment block at most (TS_SYS_JOB_ENV). */
#define TS_ENV_MAX 1024
/* The most bytes one TS_SYS_WRITE takes. */
#define TS_WRITE_MAX (64ul * 1024)

/* The page frames of a cluster (TS_SYS_MEM_INFO). */
/* Where TS_SYS_HOSTFS_LIST puts a folder's entries. */
#define TS_HOSTFS_LIST_BYTES 1024
struct ts_hostfs_entries {
    char bytes[TS_HOSTFS_LIST_BYTES];
};

struct ts_mem_info {
    unsigned long page_size;   /* bytes */
    unsigned long total_pages; /* frames of the window after the kernel image */
    unsigned long free_pages;  /* frames not in use */
};

/* What a program knows of its job and its cluster (TS_SYS_JOB_INFO). */
struct ts_job_info {
    int cluster_id;            /* this cluster; I/O clusters are 0..nio_clusters-1 */
    int nclusters;             /* all clusters of the platform */
    int nio_clusters;          /* compute clusters are nio_clusters..nclusters-1 */
    int ncores;                /* cores of this cluster, the master included */
    int np;                    /* MPI processes of the job (0: not an MPI program) */
    int map_policy;            /* TS_MAP_COMPACT or TS_MAP_SCATTER */
    int slots_per_cluster;     /* MPI processes a compute cluster can host */
    int mailbox_payload;       /* bytes of user data in one mailbox message */
    int portal_chunk;          /* bytes the NoC moves per portal chunk */
    int argc;                  /* of the caller's program; argv[0] is its name */
    unsigned long timebase_hz; /* ticks per second of ts_time(): the `time` CSR
                                  on qemu-riscv64, 10^9 (ns) on linux64 */
    char args[TS_ARGS_MAX];    /* argc NUL-terminated strings, back to back */
    /* IKC limits of this cluster (from the platform profile). */
    int hw_mailboxes;   /* hardware input mailboxes */
    int hw_portals;     /* hardware input portals */
    int virtual_per_hw; /* virtual abstractions one hardware resource carries */
    int ikc_buffers;    /* messages the buffers table parks for other ports */
    /* LWMPI's parameters for the job (mpirun --local-path, --eager-threshold,
     * --wait-policy). */
    unsigned mpi_flags;  /* TS_JOB_MPI_* */
    int mpi_eager_max;   /* bytes; 0: LWMPI's default */
    int mpi_wait_policy; /* TS_MPI_WAIT_* */
    /* How the MPI processes of this cluster run (mpirun --ranks). */
    int ranks_mode;  /* TS_RANKS_THREADS or TS_RANKS_PROCESSES */
    int rank;        /* TS_RANKS_PROCESSES: this process's MPI rank; else -1 */
    int local_index; /* TS_RANKS_PROCESSES: its index among the cluster's ranks; else -1 */
    /* TS_RANKS_PROCESSES: the private memory of the rank with local index l,
     * [private_base, private_base + private_size), is also mapped at
     * alias_base + l * private_size in every rank of the cluster (its own
     * included), so that the ranks of a cluster reach each other's buffers
     * (docs/ARCHITECTURE.md, "The ranks of one cluster"). alias_base 0: no
     * aliases. */
    unsigned long private_base;
    unsigned long private_size;
    unsigned long alias_base;
    /* TS_RANKS_PROCESSES with aliases: TS_CLUSTER_SHARED_SIZE bytes that
     * every rank of the cluster reaches at this address, whichever program
     * it runs, zero when the job starts; 0: none. */
    unsigned long shared_base;
    /* The caller's application in an MPMD launch (MPI_APPNUM, MPI 3.1
     * section 10.5.3): 0 for the first (and for a single one); -1 in a
     * program that is no MPI application (a service). */
    int appnum;
    /* 1 when the job has an I/O rank (mpirun --io-rank): MPI process np,
     * in MPIX_COMM_LOCAL but not in MPI_COMM_WORLD, run on cluster 0 with
     * local index 0 (rank np there); 0: it has none. */
    int has_io_rank;
    /* Bytes of this cluster's memory window: the profile's
     * compute_memory_mb or io_memory_mb, or mpirun --cluster-memory's SIZE
     * for a compute cluster. The kernel, the programs and every rank's
     * memory share it; the runtime names it when a heap cannot grow. */
    unsigned long window_size;
};

/* Bytes of a cluster's shared area (ts_job_info.shared_base). */
#define TS_CLUSTER_SHARED_SIZE 4096

/* What an MPI process tells the job monitor of its waits (TS_SYS_MPI_STATE_SEND):
 * LWMPI sends one when a blocking call has made no progress for a while,
 * again every while it stays so, and once at MPI_Finalize. Cluster 0's
 * kernel ends the job as a deadlock when every rank that has not finalized
 * is blocked, all at one moment (the latest start of a wait, now - age_ms,
 * is no later than the earliest `now`), and every message sent has arrived
 * (the sums of `sent` and `arrived` over the ranks agree). 64 bytes, to
 * travel in one kernel message. Contexts 0 and 1 are MPI_COMM_WORLD's
 * (point-to-point and collective), 4 and 5 MPIX_COMM_LOCAL's. */
struct ts_mpi_state {
    unsigned long now;   /* ts_time() when this was sent */
    unsigned age_ms;     /* blocked: for how long the wait has made no progress, in ms,
                            rounded down (its start is now - age_ms, or later) */
    int state;           /* TS_MPI_STATE_* */
    int peer;            /* blocked: the world rank it waits for (-1: any; -2: no
                            receive or send of its own is pending) */
    int tag;             /* and the tag (-1: any) */
    unsigned context;    /* and LWMPI's communicator context */
    unsigned sent;       /* messages the rank has sent (started) so far */
    unsigned arrived;    /* messages that have arrived for it so far */
    unsigned unexpected; /* of those, arrived and not yet received */
    int uq_source;       /* the oldest of those: its sender's world rank */
    int uq_tag;          /* its tag */
    unsigned uq_context; /* its communicator context */
    char call[12];       /* the MPI call, without "MPI_" (not NUL-terminated when 12 long) */
};

/* ts_mpi_state.state. */
#define TS_MPI_STATE_BLOCKED   1 /* in a blocking MPI call that makes no progress */
#define TS_MPI_STATE_FINALIZED 2 /* past MPI_Finalize: sends and receives no more */

/* ts_job_info.ranks_mode. */
#define TS_RANKS_THREADS   0 /* the cluster's MPI processes are threads of one process */
#define TS_RANKS_PROCESSES 1 /* each is a process of its own */

/* ts_job_info.mpi_flags. */
/* Ranks of one cluster talk through IKC, as remote ones do (the
 * shared-memory path is off). */
#define TS_JOB_MPI_LOCAL_IKC 1u
/* With mpi_eager_max 0, LWMPI's eager messages over IKC are at most what
 * one mailbox message carries: on a platform where each further message
 * of an eager send waits for the receiver's cluster to take the one
 * before (QEMU), a rendezvous is as fast from the second message on. */
#define TS_JOB_MPI_EAGER_ONE_MESSAGE 2u
/* The job is traced (mpirun --trace): LWMPI records its calls and
 * messages (TS_SYS_TRACE_RECORD) and writes the rings out at MPI_Finalize
 * (<tessera/trace.h>). */
#define TS_JOB_MPI_TRACE 4u

/* ts_job_info.mpi_wait_policy: what a rank that waits for a message does
 * (docs/lwmpi.md, "Progress and waiting"). */
#define TS_MPI_WAIT_DEFAULT  0 /* LWMPI's default: block */
#define TS_MPI_WAIT_SPIN     1 /* poll, letting the host's CPU go between polls */
#define TS_MPI_WAIT_BLOCK    2 /* poll once, then sleep in the kernel */
#define TS_MPI_WAIT_ADAPTIVE 3 /* poll for a while, then sleep */

#endif
