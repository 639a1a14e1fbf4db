/*
 * console_test [LINES]: on-target test of the console. Every rank writes
 * its lines in small pieces, each piece a console write of its own, so that
 * the pieces of the ranks of one cluster (threads on different cores) reach
 * cluster 0 interleaved; test_console.py checks that every line comes out
 * whole and, with mpirun --tag-output, prefixed with the rank that wrote it.
 * Each rank writes, in this order:
 *   "rank R cluster C: before MPI_Init" (printf; the runtime has tagged
 *                                      the thread with its rank already)
 *   LINES (default 100) lines "rank R line I: R R R R R R R R", one write
 *                                      per word
 *   LONG_LINE letters 'a'+R%26 and a newline, in writes of LONG_PIECE
 *                                      (longer than a console line)
 *   "rank R: last words"               after MPI_Finalize, without a
 *                                      newline: the job's end completes it
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <tessera/runtime.h>

#define WORDS      8   /* the rank's number, repeated on every short line */
#define LONG_LINE  600 /* bytes of the long line */
#define LONG_PIECE 100 /* bytes per write of the long line */

static void put(const char *s) { ts_console_write(s, strlen(s)); }

static void short_line(int rank, int i) {
    char word[32];
    snprintf(word, sizeof word, "rank %d ", rank);
    put(word);
    snprintf(word, sizeof word, "line %d:", i);
    put(word);
    snprintf(word, sizeof word, " %d", rank);
    for (int w = 0; w < WORDS; ++w)
        put(word);
    put("\n");
}

static void long_line(int rank) {
    char piece[LONG_PIECE];
    memset(piece, 'a' + rank % 26, sizeof piece);
    for (int n = 0; n < LONG_LINE; n += LONG_PIECE)
        ts_console_write(piece, sizeof piece);
    put("\n");
}

int main(int argc, char **argv) {
    int rank;
    const int lines = argc > 1 ? atoi(argv[1]) : 100;
    printf("rank %d cluster %d: before MPI_Init\n", ts_rank(), ts_job()->cluster_id);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank writes at the same time */
    for (int i = 0; i < lines; ++i)
        short_line(rank, i);
    long_line(rank);
    MPI_Finalize();
    char last[32];
    snprintf(last, sizeof last, "rank %d: last words", rank);
    put(last);
    return 0;
}
