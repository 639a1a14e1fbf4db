/*
 * Layout of a cluster image and its boot manifest.
 *
 * One image per cluster, linked at the base of the cluster's memory window.
 * It starts with a ts_image_header, filled in at link time; the boot hart
 * checks the magic and the cluster id before any hart enters the image. The
 * image builder (tools/mkimage.py) writes the manifest and the programs the
 * cluster starts into the image's .payload section: a ts_manifest followed
 * by the programs' ELF files at the offsets it gives.
 *
 * Shared by the HAL, the kernel and the tools: tools/mkimage.py packs the
 * manifest with the layouts tools/tessera/abi.py reads from this file, so
 * keep to what it reads (#define integer constants; struct definitions of
 * fixed-width integer fields, char arrays and earlier structs, one field per
 * declaration, no #if). Every field is little-endian and naturally aligned.
 * tools/tests/test_mkimage.py checks that reading against C compilers.
 */
#ifndef TESSERA_IMAGE_H
#define TESSERA_IMAGE_H

#include <stdint.h>

#define TS_IMAGE_MAGIC    0x53534554u /* "TESS" */
#define TS_MANIFEST_MAGIC 0x464d5354u /* "TSMF" */
#define TS_MAX_CLUSTERS   32
#define TS_MAX_CORES      17 /* per cluster: 16 PEs + resource manager */
#define TS_MAX_PROGRAMS   16 /* services, or one per application whose ranks a cluster hosts */
#define TS_PROGRAM_NAME   32
#define TS_MANIFEST_ARGS  512
#define TS_MANIFEST_ENV   1024 /* bytes of the job's environment (mpirun -x) */

/* Manifest flags. */
#define TS_MANIFEST_TAG_OUTPUT 1u /* prefix console lines with the thread's tag (rank) */
/* LWMPI: ranks of one cluster talk through IKC, as remote ones do (no
 * shared-memory path). */
#define TS_MANIFEST_MPI_LOCAL_IKC 2u
/* LWMPI: how a rank waits (mpirun --wait-policy), a TS_MPI_WAIT_* value
 * (<tessera/syscall.h>) in bits 2-3 of the flags. */
#define TS_MANIFEST_MPI_WAIT_SHIFT 2
#define TS_MANIFEST_MPI_WAIT_MASK  (3u << TS_MANIFEST_MPI_WAIT_SHIFT)
/* LWMPI: with no eager threshold given (mpi_eager_max 0), send eagerly over
 * IKC only what one mailbox message carries (mpirun's default on QEMU). */
#define TS_MANIFEST_MPI_EAGER_ONE_MESSAGE 16u
/* Each MPI process of a compute cluster is a process of its own, with
 * private globals, heap and stack (mpirun --ranks processes); clear: the
 * cluster's MPI processes are threads of one process (--ranks threads). */
#define TS_MANIFEST_RANK_PROCESSES 32u
/* The platform's own tests, never set by mpirun: the HAL checks the
 * firmware's SBI calls at boot (qemu-riscv64) and TS_SYS_ISOLATION_PROBE
 * works (kernel/tests/test_isolation.py sets it). */
#define TS_MANIFEST_PLATFORM_TESTS 64u
/* mpirun --gdb: the kernel of the cluster that hosts rank hold_rank holds
 * that rank before it first enters user mode, until a debugger releases
 * it (kernel/core/debug_hold.cpp). */
#define TS_MANIFEST_HOLD_RANK 128u
/* Trace the job (mpirun --trace): every core records its kernel calls,
 * IKC transfers and MPI calls in rings (<tessera/trace.h>). */
#define TS_MANIFEST_TRACE 256u
/* The job has an MPI I/O rank (mpirun --io-rank, docs/lwmpi.md, "The I/O
 * rank"): MPI process np, outside MPI_COMM_WORLD, started by cluster 0's
 * spawn server with the manifest's MPI program whose first_rank is np. */
#define TS_MANIFEST_IO_RANK 512u

#define TS_CLUSTER_IO      0
#define TS_CLUSTER_COMPUTE 1

/* At the window base of every image (48 bytes). QEMU makes OpenSBI enter
 * the -kernel image at its lowest address, so the header starts with code. */
struct ts_image_header {
    uint32_t code0;       /* an instruction: jump to the boot hart's entry */
    uint32_t magic;       /* TS_IMAGE_MAGIC */
    uint32_t cluster_id;  /* the cluster this image was linked for */
    uint32_t first_hart;  /* the cluster's first hart (its master) */
    uint64_t entry;       /* where every core of the cluster starts: a0 = hartid */
    uint64_t image_end;   /* first byte after the image (bss included) */
    uint64_t manifest;    /* address of the ts_manifest */
    uint64_t window_base; /* the image's link base */
};

/* One cluster of the platform (32 bytes). Harts first_hart..+ncores-1;
 * first_hart is the cluster's master. */
struct ts_cluster_desc {
    uint64_t window_base; /* physical base, 2 MiB aligned */
    uint64_t window_size; /* bytes, multiple of 2 MiB */
    uint32_t first_hart;
    uint32_t ncores;
    uint32_t kind;      /* TS_CLUSTER_IO or TS_CLUSTER_COMPUTE */
    uint16_t mailboxes; /* hardware input mailboxes of its NoC interface */
    uint16_t portals;   /* hardware input portals */
};

/* A program the cluster's spawn server starts (68 bytes). An MPI program
 * is one application of the job (MPI 3.1 section 8.8: mpirun -np 1 a :
 * -np 4 b has two): it runs the job's ranks first_rank..first_rank +
 * nranks - 1 that this cluster hosts, and MPI_APPNUM is its appnum
 * (section 10.5.3). */
struct ts_program_desc {
    uint32_t ring;   /* 0: services, started first; 1: user programs */
    uint32_t offset; /* of its ELF file, from the manifest's start */
    uint32_t size;   /* bytes of the ELF file */
    uint32_t is_mpi; /* 1: an MPI program, started only on clusters that host its ranks */
    char name[TS_PROGRAM_NAME];
    uint32_t appnum;     /* an MPI program: its application's index, from 0 */
    uint32_t first_rank; /* and the ranks of that application */
    uint32_t nranks;
    uint32_t argc;        /* an MPI program: its application's argv, argc NUL-terminated */
    uint32_t args_offset; /* strings at the manifest's args + args_offset; a service: none */
};

/* The boot manifest: topology, this cluster, the job, what to start. */
struct ts_manifest {
    uint32_t magic; /* TS_MANIFEST_MAGIC */
    uint32_t cluster_id;
    uint32_t nclusters;
    uint32_t nio_clusters; /* clusters 0..nio_clusters-1 are I/O clusters */
    uint64_t fabric_base;  /* NoC fabric region (only HALs map it) */
    uint64_t fabric_size;
    uint32_t mailbox_size;      /* bytes of one hardware mailbox message */
    uint32_t portal_chunk;      /* bytes of one portal chunk */
    uint32_t np;                /* MPI processes of the job */
    uint32_t map_policy;        /* TS_MAP_COMPACT / TS_MAP_SCATTER */
    uint32_t slots_per_cluster; /* MPI processes per compute cluster */
    uint32_t nprograms;
    uint32_t args_size;      /* bytes of args in use */
    uint16_t ikc_buffers;    /* messages the kernel's buffers table parks */
    uint16_t virtual_per_hw; /* virtual abstractions per hardware resource */
    uint64_t timebase_hz;
    uint32_t flags;           /* TS_MANIFEST_* */
    uint32_t mpi_eager_max;   /* LWMPI's largest eager message, bytes; 0: its default */
    uint32_t user_stack_size; /* bytes of stack mapped when a thread starts */
    uint32_t hold_rank;       /* with TS_MANIFEST_HOLD_RANK: the rank held for a debugger */
    struct ts_cluster_desc clusters[TS_MAX_CLUSTERS];
    struct ts_program_desc programs[TS_MAX_PROGRAMS];
    /* Every application's argv, in order, back to back (ts_program_desc
     * says where each starts); the same in every cluster's manifest. */
    char args[TS_MANIFEST_ARGS];
    /* The environment every program of the job starts with (mpirun -x):
     * "NAME=VALUE" strings, each NUL-terminated, back to back in the first
     * env_size bytes of env (0: an empty environment). The kernel hands it
     * out with TS_SYS_JOB_ENV. */
    uint32_t env_size;
    char env[TS_MANIFEST_ENV];
};

#endif
