// Reduction operations (MPI 3.1 section 5.9): the predefined operations
// on the types section 5.9.2 allows, the pair types of MINLOC and MAXLOC
// (5.9.4), and user operations (5.9.5).
#pragma once

#include <mpi.h>

namespace lwmpi {

struct Datatype;

/// MPI_SUCCESS when `op` is valid and defined on `datatype` (a predefined
/// operation on a derived type is defined when every basic element has
/// one predefined type it is defined on); else MPI_ERR_OP (or
/// MPI_ERR_TYPE for an invalid datatype).
int check_op(MPI_Op op, MPI_Datatype datatype);

/// inout[i] = in[i] op inout[i] for i in 0..count-1, both buffers laid out
/// as `count` elements of `datatype` (the user layout, with its extent).
/// Call check_op first; returns its result. MPI_ERR_NO_MEM when the
/// packed copies a non-contiguous derived type needs do not fit.
int reduce_local(const void *in, void *inout, int count, MPI_Datatype datatype, MPI_Op op);

/// reduce_local once check_op passed, with the type's description `t`
/// (`datatype` may be freed meanwhile: a pending operation holds `t`, and a
/// user operation still receives the handle).
int reduce_checked(const void *in, void *inout, int count, MPI_Datatype datatype, const Datatype &t,
                   MPI_Op op);

/// Why check_op(op, ...) gave MPI_ERR_OP, for the error handler's report:
/// nullptr when `op` is not a valid handle (the class's text says it all).
const char *explain_op_error(MPI_Op op);

/// A pending operation starts (hold) or stops (release) using `op`: a
/// user operation MPI_Op_free'd meanwhile stays usable by reduce_checked
/// until the last one ends (MPI 3.1 section 5.9.5). Nothing for the
/// predefined ones.
void op_hold(MPI_Op op);
void op_release(MPI_Op op);

/// True for the commutative operations (every predefined one; a user
/// operation as created).
bool op_commutative(MPI_Op op);

}  // namespace lwmpi
