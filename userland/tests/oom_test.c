/* Memory at its limits (tests/target_tests.toml, memory_*):
 *
 *   mpirun [--cluster-memory SIZE] -np N oom_test fail MIB
 *   mpirun [--cluster-memory SIZE] -np N oom_test touch MIB
 *
 * fail: every rank asks malloc for MIB MiB twice, which must fail both
 * times (NULL, errno ENOMEM), and MPI_Alloc_mem for as much, which must
 * answer MPI_ERR_NO_MEM under MPI_ERRORS_RETURN; then the rank goes on: a
 * small malloc works and an MPI_Allreduce sums the ranks. The runtime's
 * out-of-memory line must appear once per process, whatever the number of
 * failures (the test's counts check it): with --ranks threads, once for
 * the cluster's ranks, one process. Prints "oom_test: rank R OK: ...".
 *
 * touch: every rank mallocs MIB MiB and writes, then reads back, a word
 * in every page of it, so that the memory is really there. Prints
 * "oom_test: rank R touched MIB MiB OK".
 *
 * Any failure prints a line with FAIL and exits with status 1. */
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB   (1024ul * 1024ul)
#define PAGE  4096ul
#define SMALL (64 * 1024)

static _Thread_local int rank; /* each rank's own under --ranks threads too */

static void check(int ok, const char *what) {
    if (ok) return;
    printf("oom_test: rank %d FAIL: %s\n", rank, what);
    exit(1);
}

static void fail_and_go_on(unsigned long mib) {
    const size_t bytes = mib * MIB;
    for (int attempt = 0; attempt < 2; ++attempt) {
        errno = 0;
        void *p = malloc(bytes);
        check(p == NULL, "a malloc larger than the cluster's memory succeeded");
        check(errno == ENOMEM, "a failed malloc did not set errno to ENOMEM");
    }
    void *base = NULL;
    const int err = MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &base);
    int klass = MPI_SUCCESS;
    MPI_Error_class(err, &klass);
    check(klass == MPI_ERR_NO_MEM, "MPI_Alloc_mem of too much did not answer MPI_ERR_NO_MEM");
    unsigned char *small = malloc(SMALL);
    check(small != NULL, "a small malloc after the failures failed");
    memset(small, 0xa5, SMALL);
    check(small[0] == 0xa5 && small[SMALL - 1] == 0xa5, "the small block does not hold its bytes");
    free(small);
    int one = 1, ranks = 0;
    check(MPI_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Allreduce after the failures failed");
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(ranks == size, "MPI_Allreduce after the failures summed wrong");
    printf(
        "oom_test: rank %d OK: 2 mallocs and an MPI_Alloc_mem of %lu MiB failed, the rank "
        "went on\n",
        rank, mib);
}

static void touch(unsigned long mib) {
    const size_t bytes = mib * MIB;
    uint64_t *block = malloc(bytes);
    check(block != NULL, "the malloc to touch failed");
    const size_t words_per_page = PAGE / sizeof *block;
    const uint64_t mark = 2654435761u * (uint64_t)(rank + 1);
    for (size_t page = 0; page < bytes / PAGE; ++page)
        block[page * words_per_page] = page * mark;
    for (size_t page = 0; page < bytes / PAGE; ++page)
        check(block[page * words_per_page] == page * mark, "a touched page lost its word");
    free(block);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("oom_test: rank %d touched %lu MiB OK\n", rank, mib);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *end = NULL;
    const unsigned long mib = argc == 3 ? strtoul(argv[2], &end, 10) : 0;
    check(mib > 0 && end && *end == '\0', "usage: oom_test fail|touch MIB");
    if (strcmp(argv[1], "fail") == 0)
        fail_and_go_on(mib);
    else if (strcmp(argv[1], "touch") == 0)
        touch(mib);
    else
        check(0, "usage: oom_test fail|touch MIB");
    MPI_Finalize();
    return 0;
}
