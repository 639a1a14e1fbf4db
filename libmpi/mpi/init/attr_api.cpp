// The attribute calls of communicators, datatypes and windows (MPI 3.1
// section 6.7), the predefined callbacks, and the predefined attributes of
// communicators (section 8.1.2) and windows (11.2.6). One body serves
// every kind of object.
#include <mpi.h>

#include "env/attr.hpp"
#include "env/call.hpp"
#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "env/errors.hpp"
#include "env/state.hpp"
#include "rma/win.hpp"
#include <mpiutil/mpiutil.hpp>
#include <lwmpi/rank_local.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// The prologue of `call` on `object` of `kind`: MPI active, the object
// valid (MPI_ERR_COMM, MPI_ERR_TYPE, MPI_ERR_WIN); then the call's errors
// go to the communicator or window (MPI_COMM_WORLD for a datatype).
int enter_object(Call &call, HandleKind kind, int object) {
    if (kind == HandleKind::comm) {
        Comm *c;
        return enter(call, object, &c);
    }
    if (kind == HandleKind::win) {
        Win *w;
        return enter(call, object, &w);
    }
    if (int e = call.active()) return e;
    return datatype_get(object) ? MPI_SUCCESS : call.fail(MPI_ERR_TYPE);
}

// The values of the predefined attributes that vary (section 8.1.2).
struct Predefined {
    int universe_size;
    int appnum;
};
thread_local util::RankLocal<Predefined> t_predefined;

// The value of predefined attribute `keyval` (an int), or nullptr. The
// values live as long as the program (section 8.1.2).
const int *predefined_value(int keyval) {
    static constexpr int tag_ub = LWMPI_TAG_UB, wtime_is_global = 1, host = MPI_PROC_NULL,
                         io = MPI_ANY_SOURCE;
    switch (keyval) {
    case MPI_TAG_UB: return &tag_ub;
    case MPI_WTIME_IS_GLOBAL: return &wtime_is_global;
    case MPI_HOST: return &host;
    case MPI_IO: return &io;
    case MPI_APPNUM: {  // the rank's application in an MPMD launch (section 10.5.3)
        Predefined &p = t_predefined.get();
        p.appnum = util::appnum();
        return &p.appnum;
    }
    case MPI_LASTUSEDCODE: return last_used_code();
    case MPI_UNIVERSE_SIZE: {  // no process can be spawned
        Predefined &p = t_predefined.get();
        p.universe_size = util::world_size();
        return &p.universe_size;
    }
    default: return nullptr;
    }
}

int create_keyval(Call &call, HandleKind kind, AttrCopyFn *copy, AttrDeleteFn *del, int *keyval,
                  void *extra_state) {
    if (int e = call.active()) return e;
    if (!keyval) return call.fail(MPI_ERR_ARG, "keyval is NULL");
    if (int e = keyval_create(kind, copy, del, extra_state, keyval)) return call.fail(e, "too many keyvals");
    return MPI_SUCCESS;
}

int free_keyval(Call &call, HandleKind kind, int *keyval) {
    if (int e = call.active()) return e;
    if (!keyval) return call.fail(MPI_ERR_ARG, "keyval is NULL");
    if (int e = keyval_free(kind, *keyval)) return call.fail(e);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int set_attr(Call &call, HandleKind kind, int object, int keyval, void *value) {
    if (int e = enter_object(call, kind, object)) return e;
    if (!keyval_valid(kind, keyval))
        return call.fail(MPI_ERR_KEYVAL, predefined_value(keyval) ? "predefined" : nullptr);
    if (int e = attr_set(kind, object, keyval, value))
        return call.fail(e, e == MPI_ERR_NO_MEM ? nullptr : "the delete callback failed");
    return MPI_SUCCESS;
}

// *(void **)attribute_val is the value; a predefined one (communicators
// only) is a pointer to an int.
int get_attr(Call &call, HandleKind kind, int object, int keyval, void *attribute_val, int *flag) {
    if (int e = enter_object(call, kind, object)) return e;
    if (!attribute_val || !flag) return call.fail(MPI_ERR_ARG, "NULL result pointer");
    if (kind == HandleKind::win && win_attr(*win_get(object), keyval, static_cast<void **>(attribute_val))) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    const int *predefined = kind == HandleKind::comm ? predefined_value(keyval) : nullptr;
    if (predefined) {
        *static_cast<const int **>(attribute_val) = predefined;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!keyval_extant(kind, keyval)) return call.fail(MPI_ERR_KEYVAL);
    attr_get(kind, object, keyval, static_cast<void **>(attribute_val), flag);
    return MPI_SUCCESS;
}

int delete_attr(Call &call, HandleKind kind, int object, int keyval) {
    if (int e = enter_object(call, kind, object)) return e;
    if (!keyval_extant(kind, keyval))
        return call.fail(MPI_ERR_KEYVAL, predefined_value(keyval) ? "predefined" : nullptr);
    if (int e = attr_delete(kind, object, keyval)) return call.fail(e, "the delete callback failed");
    return MPI_SUCCESS;
}

constexpr HandleKind comm_kind = HandleKind::comm;
constexpr HandleKind type_kind = HandleKind::datatype;
constexpr HandleKind win_kind = HandleKind::win;

}  // namespace

}  // namespace lwmpi

/// Copy callbacks (section 6.7.2): no copy; the same value.
int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *flag) {
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm, int, void *, void *attribute_val_in, void *attribute_val_out, int *flag) {
    *static_cast<void **>(attribute_val_out) = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

/// Delete callback that does nothing (section 6.7.2).
int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void *, void *) { return MPI_SUCCESS; }

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state) {
    Call call("MPI_Comm_create_keyval");
    return create_keyval(call, comm_kind, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
}

int MPI_Comm_free_keyval(int *comm_keyval) {
    Call call("MPI_Comm_free_keyval");
    return free_keyval(call, comm_kind, comm_keyval);
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) {
    Call call("MPI_Comm_set_attr");
    return set_attr(call, comm_kind, comm, comm_keyval, attribute_val);
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag) {
    Call call("MPI_Comm_get_attr");
    return get_attr(call, comm_kind, comm, comm_keyval, attribute_val, flag);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
    Call call("MPI_Comm_delete_attr");
    return delete_attr(call, comm_kind, comm, comm_keyval);
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state) {
    Call call("MPI_Type_create_keyval");
    return create_keyval(call, type_kind, type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state);
}

int MPI_Type_free_keyval(int *type_keyval) {
    Call call("MPI_Type_free_keyval");
    return free_keyval(call, type_kind, type_keyval);
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val) {
    Call call("MPI_Type_set_attr");
    return set_attr(call, type_kind, datatype, type_keyval, attribute_val);
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag) {
    Call call("MPI_Type_get_attr");
    return get_attr(call, type_kind, datatype, type_keyval, attribute_val, flag);
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
    Call call("MPI_Type_delete_attr");
    return delete_attr(call, type_kind, datatype, type_keyval);
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state) {
    Call call("MPI_Win_create_keyval");
    return create_keyval(call, win_kind, win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state);
}

int MPI_Win_free_keyval(int *win_keyval) {
    Call call("MPI_Win_free_keyval");
    return free_keyval(call, win_kind, win_keyval);
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val) {
    Call call("MPI_Win_set_attr");
    return set_attr(call, win_kind, win, win_keyval, attribute_val);
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag) {
    Call call("MPI_Win_get_attr");
    return get_attr(call, win_kind, win, win_keyval, attribute_val, flag);
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
    Call call("MPI_Win_delete_attr");
    return delete_attr(call, win_kind, win, win_keyval);
}
