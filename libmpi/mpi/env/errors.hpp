// Error classes, their text and the error handlers (MPI 3.1 sections
// 8.3 and 8.4).
#pragma once

#include <mpi.h>
#include <stddef.h>

#include "common/handles.hpp"

namespace lwmpi {

/// Text of error code `code` (predefined or added), or nullptr when it
/// is not a known code.
const char *error_text(int code);

/// The class of error code `code` (predefined or added), or -1.
int error_class_of(int code);

/// The text of a code added by MPI_Add_error_class/code ("" until
/// MPI_Add_error_string), or nullptr when `code` is not one (section 8.5).
const char *user_error_text(int code);

/// The rank's MPI_LASTUSEDCODE (the value of that attribute).
const int *last_used_code();

/// Sets MPI_LASTUSEDCODE to MPI_ERR_LASTCODE (MPI_Init); forgets the
/// added codes (MPI_Finalize).
void error_codes_init();
void error_codes_finalize();

/// Formats the fatal handler's report into buf (cap bytes, NUL-terminated):
/// "MPI error: rank <rank>: <function>: <text>" (without "rank <rank>: "
/// when rank < 0) plus " (<detail>)" when detail is not empty, and a
/// newline. Returns its length.
size_t format_fatal(char *buf, size_t cap, int rank, const char *function, int code, const char *detail);

/// A kind of object that carries an error handler (communicators and
/// windows, MPI 3.1 sections 8.3.1 and 8.3.2), as the room that keeps
/// such objects tells raise_error how to find them.
struct ErrhandlerHolder {
    HandleKind kind;
    /// The handler of the live object `handle` into *out (0:
    /// MPI_ERRORS_ARE_FATAL); false when no live object has that handle.
    bool (*handler_of)(int handle, MPI_Errhandler *out);
    /// True when a live object of this kind has handler `h`.
    bool (*uses)(MPI_Errhandler h);
};

/// Called once per rank by the room that keeps objects of holder.kind,
/// when the rank's table of them comes into being (so before any of them
/// can have a handler). Until then raise_error takes the default handler
/// for that kind (MPI_ERRORS_ARE_FATAL), as it would for an object that
/// never had another.
void register_errhandler_holder(const ErrhandlerHolder &holder);

/// True for the predefined error handlers and the live user ones.
bool errhandler_valid(MPI_Errhandler h);

/// A communicator stops using handler `h` (freed, or given another): a
/// user handler freed meanwhile is released once no communicator uses it.
void release_errhandler(MPI_Errhandler h);

/// A new user error handler calling `function` into *out (MPI_Comm_ and
/// MPI_Win_create_errhandler: a window's handler is called as a
/// communicator's, with the window's handle); MPI_ERR_NO_MEM (not raised)
/// when the rank has too many.
int errhandler_create(MPI_Comm_errhandler_function *function, MPI_Errhandler *out);

/// The program frees handler `h` (valid; MPI_Errhandler_free): a user
/// handler's slot is reused once no communicator or window uses it
/// (section 8.3.4); a predefined one stays.
void errhandler_free(MPI_Errhandler h);

/// An object gets handler `errhandler` in `fn` in place of *slot (MPI_Comm_
/// and MPI_Win_set_errhandler): MPI_ERR_ARG (not raised) when it is no
/// handler; the old one is released.
int set_errhandler(MPI_Errhandler *slot, MPI_Errhandler errhandler);

/// Raises error `code` in `function` on communicator `comm` (on
/// MPI_COMM_WORLD when comm is not valid), with an optional detail. With
/// MPI_ERRORS_RETURN returns `code`; a user handler is called with the
/// communicator and the code, and then `code` is returned. With
/// MPI_ERRORS_ARE_FATAL (the default) or MPI_ERRORS_ABORT prints the report after the rank's buffered output
/// (its rank once MPI_Init has succeeded) and ends the job with exit status `code` (the error
/// class: 1..MPI_ERR_LASTCODE).
int raise_error(MPI_Comm comm, const char *function, int code, const char *detail = nullptr);

/// MPI_SUCCESS between MPI_Init and MPI_Finalize; otherwise raises
/// MPI_ERR_OTHER on MPI_COMM_WORLD for `function` and returns it.
int require_active(const char *function);

}  // namespace lwmpi
