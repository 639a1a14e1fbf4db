// Host tests of libmpi/mpi/group.
#include <catch2/catch.hpp>
