// What the files of MPI_Type_* calls share: the checks every constructor
// makes and the call that builds a type and remembers how.
#pragma once

#include <mpi.h>

#include "datatype.hpp"

namespace lwmpi {

class Call;

/// require_active, then what every constructor checks before its blocks:
/// newtype, count >= 0, and its arrays (`arrays`: none is NULL) when
/// count > 0. Raises what is wrong.
int enter_constructor(const Call &call, MPI_Datatype *newtype, int count, bool arrays);

/// require_active, then datatype `h` into *t (MPI_ERR_TYPE when it is not
/// valid); MPI_ERR_ARG unless `results` (the result pointers are not NULL).
int enter_query(const Call &call, MPI_Datatype h, bool results, const Datatype **t);

/// `n` integer arguments of a constructor at `p`.
struct IntArgs {
    const int *p;
    int n;
};

/// A constructor's combiner and arguments (MPI_Type_get_contents, section
/// 4.1.13): its integers are those of `ints` one after the other.
struct CallArgs {
    int combiner;
    IntArgs ints[8];
    int naddrs;
    const MPI_Aint *addrs;
    int ntypes;
    const MPI_Datatype *types;
};

/// Makes the type `r` describes into *newtype, remembering `call`; raises
/// what is wrong.
int construct(const Call &call, const Recipe &r, const CallArgs &args, MPI_Datatype *newtype);
/// The same with the arguments as they are kept.
int construct(const Call &call, Recipe r, const Contents &how, MPI_Datatype *newtype);

}  // namespace lwmpi
