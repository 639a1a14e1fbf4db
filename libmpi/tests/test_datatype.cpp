// Host tests of libmpi/mpi/datatype.
#include <catch2/catch.hpp>
