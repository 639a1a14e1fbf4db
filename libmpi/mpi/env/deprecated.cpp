// The MPI-1 names removed in MPI 3.0 (MPI 3.1 section 17.2 lists them)
// that old programs still call and that Open MPI and MPICH still offer:
// each is its modern replacement under the old name, and its errors are
// reported under the replacement's name.
#include <mpi.h>

int MPI_Address(void *location, MPI_Aint *address) { return MPI_Get_address(location, address); }

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent) {
    MPI_Aint lb;
    return MPI_Type_get_extent(datatype, extent ? &lb : nullptr, extent);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement) {
    MPI_Aint extent;
    return MPI_Type_get_extent(datatype, displacement, displacement ? &extent : nullptr);
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement) {
    MPI_Aint lb, extent;
    const int e = MPI_Type_get_extent(datatype, displacement ? &lb : nullptr, &extent);
    if (e == MPI_SUCCESS) *displacement = lb + extent;
    return e;
}

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype) {
    return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return MPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}

int MPI_Type_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                    const MPI_Datatype types[], MPI_Datatype *newtype) {
    return MPI_Type_create_struct(count, blocklengths, displacements, types, newtype);
}

int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler) {
    return MPI_Comm_create_errhandler(function, errhandler);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
    return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler) {
    return MPI_Comm_get_errhandler(comm, errhandler);
}

int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state) {
    return MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Keyval_free(int *keyval) { return MPI_Comm_free_keyval(keyval); }

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) {
    return MPI_Comm_set_attr(comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
    return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) { return MPI_Comm_delete_attr(comm, keyval); }
