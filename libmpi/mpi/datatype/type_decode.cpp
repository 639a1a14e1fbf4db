// What a program can ask of a datatype beyond its size and bounds: how it
// was made (MPI 3.1 section 4.1.13), its name (6.8), its bounds as
// MPI_Count (4.1.8), the predefined type of a given size and Fortran 90's
// parameterized types (17.1.9).
#include <mpi.h>
#include <string.h>

#include "env/call.hpp"
#include "datatype.hpp"
#include "env/errors.hpp"
#include "env/state.hpp"
#include "type_api.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

/// The combiner of `datatype` and how many arguments of each kind
/// MPI_Type_get_contents returns (section 4.1.13): MPI_COMBINER_NAMED and
/// none for a predefined type.
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                          int *combiner) {
    Call call("MPI_Type_get_envelope");
    const Datatype *t;
    const bool results = num_integers && num_addresses && num_datatypes && combiner;
    if (int e = enter_query(call, datatype, results, &t)) return e;
    const Contents *how = datatype_contents(datatype);
    *combiner = how ? how->combiner : MPI_COMBINER_NAMED;
    *num_integers = how ? how->nints : 0;
    *num_addresses = how ? how->naddrs : 0;
    *num_datatypes = how ? how->ntypes : 0;
    return MPI_SUCCESS;
}

/// The arguments the constructor of derived type `datatype` was called
/// with (section 4.1.13). MPI_ERR_TYPE for a predefined type, MPI_ERR_ARG
/// when an array is shorter than the envelope says. A derived type among
/// array_of_datatypes is a new reference the caller frees.
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                          int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[]) {
    Call call("MPI_Type_get_contents");
    const Datatype *t;
    if (int e = enter_query(call, datatype, true, &t)) return e;
    const Contents *how = datatype_contents(datatype);
    if (!how) return call.fail(MPI_ERR_TYPE, "a predefined datatype has no contents");
    if (max_integers < how->nints || max_addresses < how->naddrs || max_datatypes < how->ntypes)
        return call.fail(MPI_ERR_ARG, "an array is shorter than the envelope says");
    if ((how->nints && !array_of_integers) || (how->naddrs && !array_of_addresses) ||
        (how->ntypes && !array_of_datatypes))
        return call.fail(MPI_ERR_ARG, "NULL array");
    for (int i = 0; i < how->nints; ++i)
        array_of_integers[i] = how->ints[i];
    for (int i = 0; i < how->naddrs; ++i)
        array_of_addresses[i] = how->addrs[i];
    for (int i = 0; i < how->ntypes; ++i) {
        array_of_datatypes[i] = how->types[i];
        datatype_share(how->types[i]);
    }
    return MPI_SUCCESS;
}

/// Names the type (section 6.8); a predefined type may be renamed too.
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name) {
    Call call("MPI_Type_set_name");
    if (int e = call.active()) return e;
    if (!type_name) return call.fail(MPI_ERR_ARG, "type_name is NULL");
    if (int e = datatype_set_name(datatype, type_name)) return call.fail(e);
    return MPI_SUCCESS;
}

/// The type's name into type_name (MPI_MAX_OBJECT_NAME bytes) and its
/// length (section 6.8).
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
    Call call("MPI_Type_get_name");
    const Datatype *t;
    if (int e = enter_query(call, datatype, type_name && resultlen, &t)) return e;
    TextBuilder(type_name, MPI_MAX_OBJECT_NAME).put(datatype_name(datatype));
    *resultlen = static_cast<int>(text_length(type_name));
    return MPI_SUCCESS;
}

/// MPI_Type_get_extent as MPI_Count (section 4.1.8).
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
    Call call("MPI_Type_get_extent_x");
    const Datatype *t;
    if (int e = enter_query(call, datatype, lb && extent, &t)) return e;
    *lb = t->lb;
    *extent = t->extent;
    return MPI_SUCCESS;
}

/// MPI_Type_get_true_extent as MPI_Count (section 4.1.8).
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) {
    Call call("MPI_Type_get_true_extent_x");
    const Datatype *t;
    if (int e = enter_query(call, datatype, true_lb && true_extent, &t)) return e;
    *true_lb = t->true_lb;
    *true_extent = t->true_extent;
    return MPI_SUCCESS;
}

/// The predefined C type of class `typeclass` whose elements are `size`
/// bytes (section 17.1.9); MPI_ERR_ARG when there is none.
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype) {
    Call call("MPI_Type_match_size");
    if (int e = call.active()) return e;
    if (!datatype) return call.fail(MPI_ERR_ARG, "datatype is NULL");
    static constexpr MPI_Datatype integers[] = {MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T};
    static constexpr MPI_Datatype reals[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static constexpr MPI_Datatype complexes[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                                 MPI_C_LONG_DOUBLE_COMPLEX};
    const MPI_Datatype *c = typeclass == MPI_TYPECLASS_INTEGER   ? integers
                            : typeclass == MPI_TYPECLASS_REAL    ? reals
                            : typeclass == MPI_TYPECLASS_COMPLEX ? complexes
                                                                 : nullptr;
    if (!c) return call.fail(MPI_ERR_ARG, "unknown type class");
    const int n = typeclass == MPI_TYPECLASS_INTEGER ? 4 : 3;
    for (int i = 0; i < n; ++i)
        if (datatype_get(c[i])->size == size) {
            *datatype = c[i];
            return MPI_SUCCESS;
        }
    char why[48];
    TextBuilder(why, sizeof why).put("no type of that class has ").put_int(size).put(" bytes");
    return call.fail(MPI_ERR_ARG, why);
}

namespace lwmpi {
namespace {

// The Fortran 90 types a rank was given (section 17.1.9), kept so that
// the same arguments give the same handle; a type's contents say which
// arguments it was made for.
constexpr int max_f90_types = 32;  // more (p, r) pairs than any program asks for
thread_local util::RankLocal<MPI_Datatype[max_f90_types]> t_f90;

// The named type of precision p and range r among `choices`, the
// smallest first: each with the precision and range it has (IEEE binary32,
// binary64 and binary128 for REAL and COMPLEX; two's complement integers), as
// SELECTED_REAL_KIND and SELECTED_INT_KIND pick them. MPI_UNDEFINED: any.
struct Kind {
    int p, r;
    MPI_Datatype type;
};
template <int N>
MPI_Datatype select(const Kind (&choices)[N], int p, int r) {
    for (const Kind &k : choices)
        if ((p == MPI_UNDEFINED || p <= k.p) && (r == MPI_UNDEFINED || r <= k.r)) return k.type;
    return MPI_DATATYPE_NULL;
}

constexpr Kind reals[] = {{6, 37, MPI_REAL4}, {15, 307, MPI_REAL8}, {33, 4931, MPI_REAL16}};
constexpr Kind complexes[] = {{6, 37, MPI_COMPLEX8}, {15, 307, MPI_COMPLEX16}, {33, 4931, MPI_COMPLEX32}};
constexpr Kind integers[] = {{0, 2, MPI_INTEGER1},
                             {0, 4, MPI_INTEGER2},
                             {0, 9, MPI_INTEGER4},
                             {0, 18, MPI_INTEGER8},
                             {0, 38, MPI_INTEGER16}};

// MPI_Type_create_f90_* (`call`, `combiner`): the cached type of (p, r),
// else a new committed dup of `named` whose contents are (p, r), or (r)
// alone for integers.
int f90_type(Call &call, int combiner, int p, int r, MPI_Datatype named, MPI_Datatype *newtype) {
    if (int e = call.active()) return e;
    if (!newtype) return call.fail(MPI_ERR_ARG, "newtype is NULL");
    if (named == MPI_DATATYPE_NULL) return call.fail(MPI_ERR_ARG, "no type has that precision and range");
    const int both[] = {p, r};
    const bool integer = combiner == MPI_COMBINER_F90_INTEGER;
    const int *want = integer ? both + 1 : both, nwant = integer ? 1 : 2;
    MPI_Datatype *cache = t_f90.get();
    for (int i = 0; i < max_f90_types; ++i) {
        const Contents *how = cache[i] ? datatype_contents(cache[i]) : nullptr;
        if (how && how->combiner == combiner && how->nints == nwant &&
            memcmp(how->ints, want, sizeof(int) * static_cast<size_t>(nwant)) == 0) {
            *newtype = cache[i];
            return MPI_SUCCESS;
        }
    }
    const CallArgs args{combiner, {{want, nwant}}, 0, nullptr, 0, nullptr};
    if (int e = construct(call, {.count = 1, .length = 1, .type = named}, args, newtype)) return e;
    datatype_commit(*newtype);
    datatype_share(*newtype);  // a user's MPI_Type_free leaves it valid, as a predefined type is
    for (int i = 0; i < max_f90_types; ++i)
        if (!cache[i] || !datatype_contents(cache[i])) {
            cache[i] = *newtype;
            break;
        }
    return MPI_SUCCESS;
}

}  // namespace
}  // namespace lwmpi

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) {
    Call call("MPI_Type_create_f90_real");
    const MPI_Datatype named =
        p == MPI_UNDEFINED && r == MPI_UNDEFINED ? MPI_DATATYPE_NULL : select(reals, p, r);
    return f90_type(call, MPI_COMBINER_F90_REAL, p, r, named, newtype);
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype) {
    Call call("MPI_Type_create_f90_complex");
    const MPI_Datatype named =
        p == MPI_UNDEFINED && r == MPI_UNDEFINED ? MPI_DATATYPE_NULL : select(complexes, p, r);
    return f90_type(call, MPI_COMBINER_F90_COMPLEX, p, r, named, newtype);
}

int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) {
    Call call("MPI_Type_create_f90_integer");
    const MPI_Datatype named = r == MPI_UNDEFINED ? MPI_DATATYPE_NULL : select(integers, MPI_UNDEFINED, r);
    return f90_type(call, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, named, newtype);
}
