// Reduction operations and the MPI_Op_* calls.
#include "op.hpp"
