/* An MPMD launch (MPI 3.1 section 8.8): mpirun -np N0 mpmd_a 0 0 N0 T0 :
 * -np N1 mpmd_b 1 N0 N1 T1. This file builds both programs; mpmd_b has
 * MPMD_PAD bytes more of initialized data, so that the two programs' code
 * and globals (LWMPI's among them) lie at different addresses, as two
 * unrelated programs' do.
 *
 * Usage: PROGRAM APPNUM FIRST_RANK NRANKS TOKEN: what mpirun must give
 * this application (its index, its ranks, an argument of its own). Each
 * rank checks argv, MPI_APPNUM (section 10.5.3) and its rank; gathers
 * every rank's application, program and token and checks that each
 * application holds a run of consecutive ranks with one program and one
 * token; then sends the next rank, in a ring, a message from its
 * read-only data and a large one from its .bss (the local path copies
 * straight from the sender's buffer when they share a cluster), and checks
 * what it got from the one before. When every rank of the job is on its
 * cluster, the ring must make no IKC write: the ranks of the two programs
 * talk through the cluster's shared memory. Prints "mpmd: rank R app A
 * PROGRAM OK", or "mpmd: rank R FAIL: why" and exits with 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/runtime.h>

#ifndef MPMD_NAME
#error "build with -DMPMD_NAME=\"program name\""
#endif
#ifdef MPMD_PAD
/* Moves the globals after it; main reads it, so that the linker keeps it. */
static volatile char pad[MPMD_PAD] = {1};
#define PAD_OK (pad[0] == 1)
#else
#define PAD_OK 1
#endif

#define NAME_MAX_LEN 16
#define TOKEN_MAX    16
#define BIG          6000 /* bytes: above every eager threshold of the local path */

static const char greeting[] = "greetings from " MPMD_NAME;

struct record {
    int appnum;
    char program[NAME_MAX_LEN];
    char token[TOKEN_MAX];
};

static unsigned char big_out[BIG], big_in[BIG];
static int rank = -1;

static void fail(const char *why) {
    printf("mpmd: rank %d FAIL: %s\n", rank, why);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static unsigned char pattern(int sender, int i) { return (unsigned char)(sender * 31 + i * 7 + 1); }

static int number(const char *s) { return (int)strtol(s, 0, 10); }

/* Every application is a run of consecutive ranks, in application order,
 * with one program and one token; mine is the one argv says. */
static void check_records(const struct record *all, int np, int appnum, int first, int nranks,
                          const char *token) {
    for (int r = 0; r < np; ++r) {
        const int mine = r >= first && r < first + nranks;
        if ((all[r].appnum == appnum) != mine) fail("another application holds one of my ranks");
        if (mine && (strcmp(all[r].program, MPMD_NAME) || strcmp(all[r].token, token)))
            fail("a rank of my application runs another program or has other arguments");
        if (r > 0 && all[r].appnum < all[r - 1].appnum) fail("applications out of rank order");
        if (r > 0 && all[r].appnum == all[r - 1].appnum &&
            (strcmp(all[r].program, all[r - 1].program) || strcmp(all[r].token, all[r - 1].token)))
            fail("one application, two programs or argument lists");
    }
    if (all[0].appnum != 0 || all[np - 1].appnum < appnum) fail("MPI_APPNUM does not count from 0");
}

/* The IKC writes (mailbox and portal) this rank's core has made. */
static long ikc_writes(void) {
    const int core = ts_thread_core();
    return ts_kcall_count(TS_SYS_MAILBOX_AWRITE, core) + ts_kcall_count(TS_SYS_MAILBOX_TRYWRITE, core) +
           ts_kcall_count(TS_SYS_PORTAL_AWRITE, core);
}

/* The ring: a message from read-only data, then a large one from .bss. */
static void ring(const struct record *all, int np) {
    const int next = (rank + 1) % np, prev = (rank + np - 1) % np;
    char got[sizeof greeting + NAME_MAX_LEN];
    MPI_Status st;
    memset(got, 0, sizeof got);
    MPI_Sendrecv(greeting, (int)sizeof greeting, MPI_CHAR, next, 1, got, (int)sizeof got, MPI_CHAR, prev, 1,
                 MPI_COMM_WORLD, &st);
    char want[sizeof got];
    snprintf(want, sizeof want, "greetings from %s", all[prev].program);
    if (strcmp(got, want)) fail("the greeting of the rank before is wrong");
    for (int i = 0; i < BIG; ++i)
        big_out[i] = pattern(rank, i);
    MPI_Sendrecv(big_out, BIG, MPI_BYTE, next, 2, big_in, BIG, MPI_BYTE, prev, 2, MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count != BIG) fail("the large message has a wrong size");
    for (int i = 0; i < BIG; ++i)
        if (big_in[i] != pattern(prev, i)) fail("the large message has a wrong byte");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 5) fail("usage: PROGRAM APPNUM FIRST_RANK NRANKS TOKEN");
    if (strcmp(argv[0], MPMD_NAME)) fail("argv[0] is not my program's name");
    if (strlen(argv[4]) >= TOKEN_MAX) fail("TOKEN too long");
    if (!PAD_OK) fail("the padding lost its data");
    const int appnum = number(argv[1]), first = number(argv[2]), nranks = number(argv[3]);
    int *value = 0, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &value, &flag);
    if (!flag || !value) fail("no MPI_APPNUM");
    if (*value != appnum) fail("MPI_APPNUM is not my application's index");
    if (rank < first || rank >= first + nranks) fail("my rank is outside my application's");

    struct record me, *all = malloc(sizeof me * (size_t)np);
    if (!all) fail("out of memory");
    memset(&me, 0, sizeof me);
    me.appnum = *value;
    strncpy(me.program, MPMD_NAME, NAME_MAX_LEN - 1);
    strncpy(me.token, argv[4], TOKEN_MAX - 1);
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD);
    check_records(all, np, appnum, first, nranks, argv[4]);
    MPI_Comm cluster;
    int on_cluster = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &cluster);
    MPI_Comm_size(cluster, &on_cluster);
    const long before = ikc_writes();
    ring(all, np);
    if (on_cluster == np && ikc_writes() != before)
        fail("the ranks of one cluster talked over IKC, not through their shared memory");
    MPI_Comm_free(&cluster);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("mpmd: rank %d app %d %s OK\n", rank, appnum, MPMD_NAME);
    free(all);
    MPI_Finalize();
    return 0;
}
