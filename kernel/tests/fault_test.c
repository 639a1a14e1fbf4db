/* On-target test: a user fault kills only the faulting process, with a
 * one-line report, and the job ends with a non-zero status.
 * fault_test KIND [wait|thread], KIND one of: load kernel text illegal stack
 * misaligned range none grow foreign kforeign. "foreign" and "kforeign"
 * need a job booted with TS_MANIFEST_PLATFORM_TESTS
 * (kernel/tests/test_isolation.py): rank 0 reads the first page of a
 * neighbour cluster's window, mapped for it by TS_SYS_ISOLATION_PROBE
 * (foreign), or has the kernel read it (kforeign). "grow" is no fault: rank 0 uses 700 KiB of
 * stack, beyond the 128 KiB mapped at the start, and gives the kernel an
 * out pointer into the part it has not touched; the stack grows and rank
 * 0 says "rank 0 grew its stack to N KiB". The other ranks (on other clusters) say they run
 * and tell rank 0, which then faults; they end normally, or with "wait"
 * block in a receive from rank 0 that can never complete. With
 * "thread", rank 0 starts a spinning thread just before it faults: the
 * kill must end that thread too. "chain" is a load fault three calls deep
 * (chain_a, chain_b, chain_c) after a line of output, for the report's
 * backtrace and its order after the rank's output. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>
#include <tessera/arch.h>
#include <tessera/runtime.h>

static int deep(volatile char *p, int n) {
    volatile char frame[1024];
    frame[0] = (char)n;
    return n ? deep(frame, n - 1) + frame[0] + p[0] : 0;
}

int main(int argc, char **argv);

static void spin(void *arg) {
    (void)arg;
    for (;;) {}
}

/* About 700 KiB of stack: a local array, and the kernel writes into its
 * far end before the program touches it. */
static void grow(void) {
    volatile char big[700 * 1024];
    struct ts_mem_info *far = (struct ts_mem_info *)(void *)big; /* lowest address */
    if (ts_mem_info(far) != 0 || far->page_size != 4096) {
        printf("ts_mem_info into the untouched stack failed\n");
        return;
    }
    for (size_t i = sizeof *far; i < sizeof big; i += 4096)
        big[i] = (char)i;
    unsigned sum = 0;
    for (size_t i = sizeof *far; i < sizeof big; i += 4096)
        sum += (unsigned char)big[i] == (unsigned char)(char)i;
    printf("rank 0 grew its stack to %lu KiB (%u pages checked)\n", (unsigned long)sizeof big / 1024, sum);
}

/* A cluster next to the caller's: the first page of its window is what
 * the isolation probes try to reach. */
static int neighbour(void) {
    const struct ts_job_info *job = ts_job();
    return job->cluster_id + 1 < job->nclusters ? job->cluster_id + 1 : job->cluster_id - 1;
}

/* Calls that stay calls: noinline, and code after each call so that it is
 * no tail call. */
__attribute__((noinline)) static int chain_c(volatile int *p) {
    return *p; /* the faulting line (test_kernel.py finds this comment) */
}
__attribute__((noinline)) static int chain_b(volatile int *p) {
    int v = chain_c(p);
    __asm__ volatile("" ::: "memory");
    return v + 1;
}
__attribute__((noinline)) static int chain_a(volatile int *p) {
    int v = chain_b(p);
    __asm__ volatile("" ::: "memory");
    return v + 1;
}

static void fault(const char *kind) {
    if (!strcmp(kind, "load")) {
        printf("value %d\n", *(volatile int *)0x10);
    } else if (!strcmp(kind, "kernel")) {
        printf("value %d\n", *(volatile int *)0x80200000ul);
    } else if (!strcmp(kind, "text")) {
        *(volatile unsigned *)(void *)&main = 0;
    } else if (!strcmp(kind, "illegal")) {
        ts_arch_illegal_instruction();
    } else if (!strcmp(kind, "stack")) {
        printf("depth %d\n", deep(0, 1 << 20));
    } else if (!strcmp(kind, "misaligned")) {
        /* Plain loads and stores may be misaligned; some atomic accesses
         * may not (<tessera/arch.h> says which). */
        static long words[4] __attribute__((aligned(16)));
        printf("value %d\n", ts_arch_misaligned_atomic((char *)words + 1));
    } else if (!strcmp(kind, "grow")) {
        grow();
    } else if (!strcmp(kind, "foreign")) {
        long va = ts_isolation_probe(neighbour(), TS_PROBE_USER_MAP);
        if (va < 0) {
            printf("isolation probe refused: %ld\n", va);
            return;
        }
        printf("read cluster %d's memory: 0x%x\n", neighbour(), *(volatile unsigned *)(va + 4));
    } else if (!strcmp(kind, "kforeign")) {
        printf("the kernel read cluster %d's memory: 0x%lx\n", neighbour(),
               ts_isolation_probe(neighbour(), TS_PROBE_KERNEL_READ));
    } else if (!strcmp(kind, "chain")) {
        printf("rank 0 calls chain_a\n");
        printf("value %d\n", chain_a((volatile int *)0x10));
    } else if (!strcmp(kind, "range")) {
        /* Bit 38 set, bits 63..39 clear: not a valid Sv39 address. */
        printf("value %d\n", *(volatile int *)0x4000000000ul);
    }
}

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && argc > 2 && !strcmp(argv[2], "thread") && ts_thread_create(spin, 0) < 0)
        printf("no core for the spinning thread\n");
    if (rank == 0) {
        int size, token;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        for (int r = 1; r < size; ++r)
            MPI_Recv(&token, 1, MPI_INT, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (argc > 1) fault(argv[1]);
    } else {
        printf("rank %d running\n", rank);
        fflush(stdout);
        MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    if (rank != 0 && argc > 2 && !strcmp(argv[2], "wait")) {
        int value;
        MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("rank %d survived\n", rank);
    MPI_Finalize();
    return 0;
}
