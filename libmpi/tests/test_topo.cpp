// Host tests of libmpi/mpi/topo.
#include <catch2/catch.hpp>
