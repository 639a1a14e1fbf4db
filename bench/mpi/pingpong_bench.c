/* pingpong_bench [REPS [MAX_BYTES]]: LWMPI's point-to-point latency and
 * bandwidth between ranks 0 and 1, for message sizes from 0 to 1 MiB, on
 * both sides of the eager threshold. Run it with -np 2: --map-by scatter
 * puts the ranks on two clusters (eager or rendezvous over IKC), --map-by
 * compact on one (the local path, or IKC with --local-path ikc). Or
 * between a compute cluster and the I/O rank, MPPA-MPI's second ping-pong:
 *
 *   mpirun -np 1 pingpong_bench ARGS : --io-rank pingpong_bench ARGS
 *
 * where the two are ranks 0 and 1 of MPIX_COMM_LOCAL (docs/lwmpi.md,
 * "The I/O rank").
 *
 * Each row is the median over REPS round trips (default 51) of MPI_Send +
 * MPI_Recv there and back, halved: the one-way time, in cycles (`cycle`
 * CSR) and microseconds (`time` CSR), and the bandwidth that gives; sizes
 * above MAX_BYTES are skipped. Every byte of every message is checked on
 * arrival. The loop and the table are pingpong.h's. See bench/README.md. */
#include <mpi.h>
#include <stdio.h>

#include "pingpong.h"

#define TAG_READY 1000 /* the sizes' tags are their rows, 0.. */

/* ctx: the communicator (MPI_Comm *) whose ranks 0 and 1 play. */

/* Rank 1's empty message says it is about to receive the ping. */
static void ready(void *ctx, int rank) {
    const MPI_Comm comm = *(const MPI_Comm *)ctx;
    if (rank == 1)
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, comm);
    else
        MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, comm, MPI_STATUS_IGNORE);
}

static void trip(void *ctx, int rank, int row, const unsigned char *out, unsigned char *in, int bytes) {
    const MPI_Comm comm = *(const MPI_Comm *)ctx;
    if (rank == 0) {
        MPI_Send(out, bytes, MPI_BYTE, 1, row, comm);
        MPI_Recv(in, bytes, MPI_BYTE, 1, row, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, bytes, MPI_BYTE, 0, row, comm, MPI_STATUS_IGNORE);
        MPI_Send(out, bytes, MPI_BYTE, 0, row, comm);
    }
}

/* The two players: MPI_COMM_WORLD's two ranks, or a lone world rank and
 * the I/O rank in MPIX_COMM_LOCAL; MPI_COMM_NULL for any other shape. */
static MPI_Comm players(void) {
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np == 2) return MPI_COMM_WORLD;
    MPI_Comm_size(MPIX_COMM_LOCAL, &np);
    return np == 2 ? MPIX_COMM_LOCAL : MPI_COMM_NULL;
}

static const struct pingpong_ops ops = {ready, trip};

int main(int argc, char **argv) {
    int rank;
    struct pingpong_args args;
    MPI_Init(&argc, &argv);
    MPI_Comm comm = players();
    MPI_Comm_rank(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, &rank);
    if (comm == MPI_COMM_NULL || pingpong_parse(argc, argv, &args)) {
        if (rank == 0) pingpong_usage("pingpong_bench");
        MPI_Finalize();
        return 2;
    }
    const unsigned long hz = (unsigned long)(1.0 / MPI_Wtick() + 0.5);
    char where[MPI_MAX_PROCESSOR_NAME], peer[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(where, &len);
    MPI_Sendrecv(where, len + 1, MPI_CHAR, 1 - rank, 0, peer, sizeof peer, MPI_CHAR, 1 - rank, 0, comm,
                 MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("pingpong_bench: rank 0 on %s, %s 1 on %s\n", where,
               comm == MPI_COMM_WORLD ? "rank" : "the I/O rank", peer);
    if (pingpong_run("pingpong_bench", &args, rank, hz, &ops, &comm)) MPI_Abort(comm, 1);
    MPI_Finalize();
    return 0;
}
