// Handles and statuses as Fortran integers (MPI 3.1 sections 17.2.4 and
// 17.2.5), for C libraries that serve Fortran programs and for C programs
// written for other MPIs. A handle of LWMPI is an int in either language,
// so c2f is the identity and f2c checks only the handle's kind (its top
// byte, mpi.h): a value of another kind gives the kind's null handle, so a
// mixed-up handle fails at its first use with that kind's error class.
#include <mpi.h>
#include <string.h>

#include "call.hpp"
#include "common/handles.hpp"

namespace {

using lwmpi::HandleKind;

constexpr int from_fortran(MPI_Fint handle, HandleKind kind, int null_handle) {
    return handle == null_handle || lwmpi::handle_is(handle, kind) ? handle : null_handle;
}

}  // namespace

MPI_Fint MPI_Comm_c2f(MPI_Comm comm) { return comm; }
MPI_Comm MPI_Comm_f2c(MPI_Fint comm) { return from_fortran(comm, HandleKind::comm, MPI_COMM_NULL); }
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype) { return datatype; }
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype) {
    return from_fortran(datatype, HandleKind::datatype, MPI_DATATYPE_NULL);
}
MPI_Fint MPI_Group_c2f(MPI_Group group) { return group; }
MPI_Group MPI_Group_f2c(MPI_Fint group) { return from_fortran(group, HandleKind::group, MPI_GROUP_NULL); }
MPI_Fint MPI_Request_c2f(MPI_Request request) { return request; }
MPI_Request MPI_Request_f2c(MPI_Fint request) {
    return from_fortran(request, HandleKind::request, MPI_REQUEST_NULL);
}
MPI_Fint MPI_File_c2f(MPI_File file) { return file; }
MPI_File MPI_File_f2c(MPI_Fint file) { return from_fortran(file, HandleKind::file, MPI_FILE_NULL); }
MPI_Fint MPI_Win_c2f(MPI_Win win) { return win; }
MPI_Win MPI_Win_f2c(MPI_Fint win) { return from_fortran(win, HandleKind::win, MPI_WIN_NULL); }
MPI_Fint MPI_Op_c2f(MPI_Op op) { return op; }
MPI_Op MPI_Op_f2c(MPI_Fint op) { return from_fortran(op, HandleKind::op, MPI_OP_NULL); }
MPI_Fint MPI_Info_c2f(MPI_Info info) { return info; }
MPI_Info MPI_Info_f2c(MPI_Fint info) { return from_fortran(info, HandleKind::info, MPI_INFO_NULL); }
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler) { return errhandler; }
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler) {
    return from_fortran(errhandler, HandleKind::errhandler, MPI_ERRHANDLER_NULL);
}
MPI_Fint MPI_Message_c2f(MPI_Message message) { return message; }
MPI_Message MPI_Message_f2c(MPI_Fint message) {
    return from_fortran(message, HandleKind::message, MPI_MESSAGE_NULL);
}

// A Fortran status is the C status word for word: MPI_SOURCE, MPI_TAG and
// MPI_ERROR first, as Fortran's indices 1..3 ask, then the private fields.
static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == sizeof(MPI_Fint) &&
              offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(MPI_Fint));

// No status to ignore in a conversion (section 17.2.5 makes it erroneous):
// both are NULL, as MPI_STATUS_IGNORE is, so that the checks below refuse them.
MPI_Fint *const MPI_F_STATUS_IGNORE = nullptr;
MPI_Fint *const MPI_F_STATUSES_IGNORE = nullptr;

int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status) {
    lwmpi::Call call("MPI_Status_c2f");
    if (!c_status) return call.fail(MPI_ERR_ARG, "c_status is MPI_STATUS_IGNORE");
    if (!f_status) return call.fail(MPI_ERR_ARG, "f_status is NULL");
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}

int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status) {
    lwmpi::Call call("MPI_Status_f2c");
    if (!f_status) return call.fail(MPI_ERR_ARG, "f_status is MPI_F_STATUS_IGNORE");
    if (!c_status) return call.fail(MPI_ERR_ARG, "c_status is MPI_STATUS_IGNORE");
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
