/* mpi.h from C: a ring that passes a token once around MPI_COMM_WORLD,
 * then a non-blocking exchange with both neighbours (request and status
 * arrays, as C programs declare them). Returns 0 on success, else the
 * line that failed. */
#include <mpi.h>

#define EXPECT(cond)                  \
    do {                              \
        if (!(cond)) return __LINE__; \
    } while (0)

int lwmpi_c_smoke(void) {
    int rank = -1, size = -1, token = 0, count = -1;
    MPI_Status status;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Datatype type = MPI_INT;

    EXPECT(MPI_Init(0, 0) == MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(comm, &rank) == MPI_SUCCESS);
    EXPECT(MPI_Comm_size(comm, &size) == MPI_SUCCESS);
    if (rank == 0) {
        token = 1;
        EXPECT(MPI_Send(&token, 1, type, (rank + 1) % size, 0, comm) == MPI_SUCCESS);
        EXPECT(MPI_Recv(&token, 1, type, size - 1, 0, comm, &status) == MPI_SUCCESS);
        EXPECT(token == size);
    } else {
        EXPECT(MPI_Recv(&token, 1, type, rank - 1, 0, comm, &status) == MPI_SUCCESS);
        EXPECT(token == rank);
        token++;
        EXPECT(MPI_Send(&token, 1, type, (rank + 1) % size, 0, comm) == MPI_SUCCESS);
    }
    EXPECT(MPI_Get_count(&status, MPI_INT, &count) == MPI_SUCCESS && count == 1);
    EXPECT(status.MPI_SOURCE == (rank + size - 1) % size);

    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double out[2] = {rank, -rank}, in[2] = {-1, -1};
    MPI_Request requests[4];
    MPI_Status statuses[4];
    EXPECT(MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 1, comm, &requests[0]) == MPI_SUCCESS);
    EXPECT(MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 2, comm, &requests[1]) == MPI_SUCCESS);
    EXPECT(MPI_Isend(&out[0], 1, MPI_DOUBLE, right, 1, comm, &requests[2]) == MPI_SUCCESS);
    EXPECT(MPI_Issend(&out[1], 1, MPI_DOUBLE, left, 2, comm, &requests[3]) == MPI_SUCCESS);
    EXPECT(MPI_Waitall(4, requests, statuses) == MPI_SUCCESS);
    EXPECT(requests[0] == MPI_REQUEST_NULL && requests[3] == MPI_REQUEST_NULL);
    EXPECT(in[0] == left && in[1] == -right);
    EXPECT(statuses[0].MPI_SOURCE == left && statuses[1].MPI_TAG == 2);

    EXPECT(MPI_Wtime() >= 0.0);
    EXPECT(MPI_Barrier(comm) == MPI_SUCCESS);
    EXPECT(MPI_Finalize() == MPI_SUCCESS);
    return 0;
}
