// Cartesian topologies (MPI 3.1 section 7.5).
#include "comm.hpp"
