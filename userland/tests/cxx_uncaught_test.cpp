// cxx_uncaught_test: an exception nobody catches. Rank 1 throws
// std::runtime_error("no input file") from load_input, two calls below
// main, while the other ranks wait in a barrier; the job must end with
// the exception's type and what(), the rank, a backtrace through
// load_input, and a non-zero status (userland/tests/test_cxx.py).
#include <mpi.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

[[gnu::noinline]] std::string load_input(int rank) {
    if (rank == 1) throw std::runtime_error("no input file");
    return "input of rank " + std::to_string(rank);
}

[[gnu::noinline]] std::string prepare(int rank) { return load_input(rank) + " prepared"; }

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::printf("cxx_uncaught_test: rank %d: %s\n", rank, prepare(rank).c_str());
    MPI_Barrier(MPI_COMM_WORLD);
    std::printf("cxx_uncaught_test: FAILED: rank %d passed the barrier\n", rank);
    MPI_Finalize();
    return 0;
}
