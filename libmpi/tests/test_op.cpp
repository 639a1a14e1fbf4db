// Host tests of libmpi/mpi/op.
#include <catch2/catch.hpp>
