// Attribute caching (MPI 3.1 section 6.7): keyvals and the attributes
// they key, for any kind of object (communicators and datatypes now,
// windows later). An object is named by its kind and its handle; the
// attributes of the rank live in one table of their own, so an object's
// code only calls attr_copy_all when it is duplicated and
// attr_delete_all when it is freed.
#pragma once

#include <mpi.h>

#include "common/handles.hpp"

namespace lwmpi {

/// A copy callback (MPI_Comm_copy_attr_function, MPI_Type_...: handles are
/// all ints, so one signature serves every kind). nullptr: do not copy.
using AttrCopyFn = int(int object, int keyval, void *extra_state, void *value_in, void *value_out, int *flag);
/// A delete callback (MPI_Comm_delete_attr_function...). nullptr: nothing.
using AttrDeleteFn = int(int object, int keyval, void *value, void *extra_state);

/// A new keyval for objects of `kind` into *keyval; MPI_ERR_NO_MEM when
/// the rank has too many.
int keyval_create(HandleKind kind, AttrCopyFn *copy, AttrDeleteFn *del, void *extra_state, int *keyval);

/// The program lets go of `keyval` (section 6.7.2): it can key no new
/// attribute, but lives on for the attributes it keys until they are all
/// deleted. Freeing it again while it lives on does nothing more (it is
/// still extant). MPI_ERR_KEYVAL when it is no keyval of `kind`.
int keyval_free(HandleKind kind, int keyval);

/// True when `keyval` is a user keyval of `kind` not freed: one that may
/// key new attributes.
bool keyval_valid(HandleKind kind, int keyval);

/// True when `keyval` is a user keyval of `kind`, freed or not: one whose
/// attributes may be read and deleted (a freed keyval lives on while it
/// keys attributes, section 6.7.2).
bool keyval_extant(HandleKind kind, int keyval);

/// Sets object's attribute `keyval` (valid) to `value`; an earlier value
/// is deleted first through the delete callback, whose failure code is
/// returned (the old value then stays). MPI_ERR_NO_MEM.
int attr_set(HandleKind kind, int object, int keyval, void *value);

/// object's attribute `keyval` (valid) into *value, *flag = 1; or *flag = 0.
void attr_get(HandleKind kind, int object, int keyval, void **value, int *flag);

/// Deletes object's attribute `keyval` (valid) through its delete
/// callback; returns the callback's failure code (the attribute stays).
/// Nothing to do when the object has no such attribute.
int attr_delete(HandleKind kind, int object, int keyval);

/// Copies the attributes of `from` to the new object `to` through their
/// copy callbacks, in the order they were set (sections 6.7.2, 6.7.4).
/// On a callback's failure, deletes what it copied to `to` and returns
/// the callback's code.
int attr_copy_all(HandleKind kind, int from, int to);

/// Deletes every attribute of `object`, last set first, through the
/// delete callbacks; stops at a callback's failure and returns its code.
int attr_delete_all(HandleKind kind, int object);

/// Drops every attribute (no callbacks) and keyval of the rank
/// (MPI_Finalize, after the predefined communicators' were deleted).
void attr_finalize();

}  // namespace lwmpi
