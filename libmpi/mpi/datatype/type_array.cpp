// MPI_Type_create_subarray and MPI_Type_create_darray (MPI 3.1 sections
// 4.1.3, 4.1.4): the pieces of the array the type takes (array_layout)
// become the blocks of one recipe, resized to the whole array.
#include <mpi.h>
#include <stdlib.h>

#include "env/call.hpp"
#include "array_layout.hpp"
#include "datatype.hpp"
#include "env/errors.hpp"
#include "type_api.hpp"
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// Raises MPI_ERR_ARG with "<what>[<i>] <value>" as the detail.
int raise_arg(const Call &call, const char *what, int i, long long value) {
    char why[64];
    TextBuilder(why, sizeof why).put(what).put('[').put_int(i).put("] ").put_int(value);
    return call.fail(MPI_ERR_ARG, why);
}

// What both calls check first: newtype, ndims, order, the old type.
int enter_array(const Call &call, MPI_Datatype *newtype, int ndims, bool arrays, int order,
                MPI_Datatype oldtype) {
    if (int e = enter_constructor(call, newtype, ndims, arrays)) return e;
    if (ndims < 1 || ndims > max_array_dims) {
        char why[48];
        TextBuilder(why, sizeof why).put("ndims ").put_int(ndims);
        return call.fail(MPI_ERR_ARG, why);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return call.fail(MPI_ERR_ARG, "order is not MPI_ORDER_C or MPI_ORDER_FORTRAN");
    if (!datatype_get(oldtype)) return call.fail(MPI_ERR_TYPE, "invalid oldtype");
    return MPI_SUCCESS;
}

// Makes the type of the pieces of dims[0..ndims) of an array of oldtype,
// resized to the whole array (lb 0), remembering `call`.
int make_array_type(const Call &call, const ArrayDim *dims, int ndims, int order, MPI_Datatype oldtype,
                    const CallArgs &args, MPI_Datatype *newtype) {
    const MPI_Aint old_extent = datatype_get(oldtype)->extent;
    MPI_Aint extent = old_extent;
    bool overflow = false;
    for (int i = 0; i < ndims; ++i)
        overflow |= __builtin_mul_overflow(extent, static_cast<MPI_Aint>(dims[i].size), &extent);
    const bool fortran = order == MPI_ORDER_FORTRAN;
    const int64_t n = array_pieces(dims, ndims, fortran, nullptr);
    if (overflow || n > 0x7fffffff) return call.fail(MPI_ERR_ARG, "the array is too large");
    // The pieces, then their lengths and byte displacements in place.
    const size_t count = static_cast<size_t>(n > 0 ? n : 1);
    auto *pieces = static_cast<ArrayPiece *>(malloc(count * sizeof(ArrayPiece)));
    auto *lengths = static_cast<int *>(malloc(count * sizeof(int)));
    auto *disps = static_cast<MPI_Aint *>(malloc(count * sizeof(MPI_Aint)));
    int e = pieces && lengths && disps ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (e == MPI_SUCCESS) {
        array_pieces(dims, ndims, fortran, pieces);
        for (int64_t i = 0; i < n; ++i) {
            lengths[i] = static_cast<int>(pieces[i].len);
            disps[i] = static_cast<MPI_Aint>(pieces[i].disp) * old_extent;  // within extent: no overflow
        }
        const Recipe r{.count = static_cast<int>(n),
                       .lengths = lengths,
                       .type = oldtype,
                       .byte_disps = disps,
                       .resize = true,
                       .lb = 0,
                       .extent = extent};
        e = construct(call, r, args, newtype);
    } else {
        e = call.fail(e, "no memory for the array's pieces");
    }
    free(pieces);
    free(lengths);
    free(disps);
    return e;
}

}  // namespace

}  // namespace lwmpi

/// The subsizes[i] elements from starts[i] on in each dimension i of an
/// array of sizes[0..ndims) elements of oldtype, stored in `order`; lb 0
/// and the extent of the whole array (section 4.1.3).
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype) {
    Call call("MPI_Type_create_subarray");
    const bool arrays = array_of_sizes && array_of_subsizes && array_of_starts;
    if (int e = enter_array(call, newtype, ndims, arrays, order, oldtype)) return e;
    Span spans[max_array_dims];
    ArrayDim dims[max_array_dims];
    for (int i = 0; i < ndims; ++i) {
        const int size = array_of_sizes[i], sub = array_of_subsizes[i], start = array_of_starts[i];
        if (size <= 0) return raise_arg(call, "array_of_sizes", i, size);
        if (sub <= 0 || sub > size) return raise_arg(call, "array_of_subsizes", i, sub);
        if (start < 0 || start > size - sub) return raise_arg(call, "array_of_starts", i, start);
        spans[i] = Span{start, sub};
        dims[i] = ArrayDim{size, &spans[i], 1};
    }
    const CallArgs args{MPI_COMBINER_SUBARRAY,
                        {{&ndims, 1},
                         {array_of_sizes, ndims},
                         {array_of_subsizes, ndims},
                         {array_of_starts, ndims},
                         {&order, 1}},
                        0,
                        nullptr,
                        1,
                        &oldtype};
    return make_array_type(call, dims, ndims, order, oldtype, args, newtype);
}

/// The elements of an array of gsizes[0..ndims) elements of oldtype,
/// stored in `order`, that process `rank` owns when the array is spread
/// over a row-major grid of psizes[] processes as distribs[] and dargs[]
/// say; lb 0 and the extent of the whole array (section 4.1.4).
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype) {
    Call call("MPI_Type_create_darray");
    const bool arrays = array_of_gsizes && array_of_distribs && array_of_dargs && array_of_psizes;
    if (int e = enter_array(call, newtype, ndims, arrays, order, oldtype)) return e;
    if (size <= 0 || rank < 0 || rank >= size) {
        char why[64];
        TextBuilder(why, sizeof why).put("rank ").put_int(rank).put(" of ").put_int(size);
        return call.fail(MPI_ERR_ARG, why);
    }
    Distribution d[max_array_dims];
    int64_t processes = 1;
    for (int i = 0; i < ndims; ++i) {
        d[i] = Distribution{array_of_gsizes[i], array_of_distribs[i], array_of_dargs[i], array_of_psizes[i]};
        if (!distribution_valid(d[i])) {
            char why[96];
            TextBuilder(why, sizeof why)
                .put("dimension ")
                .put_int(i)
                .put(": gsize ")
                .put_int(d[i].gsize)
                .put(", distrib ")
                .put_int(d[i].distrib)
                .put(", darg ")
                .put_int(d[i].darg)
                .put(", psize ")
                .put_int(d[i].psize);
            return call.fail(MPI_ERR_ARG, why);
        }
        processes *= d[i].psize;
        if (processes > size) break;
    }
    if (processes != size) return call.fail(MPI_ERR_ARG, "the process grid does not have `size` processes");
    int coords[max_array_dims];
    grid_coords(rank, ndims, array_of_psizes, coords);
    // Every dimension's spans in one array.
    int64_t nspans = 0;
    for (int i = 0; i < ndims; ++i)
        nspans += distribution_spans(d[i], coords[i], nullptr);
    auto *spans = static_cast<Span *>(malloc(static_cast<size_t>(nspans > 0 ? nspans : 1) * sizeof(Span)));
    if (!spans) return call.fail(MPI_ERR_NO_MEM, "no memory for the spans");
    ArrayDim dims[max_array_dims];
    for (int i = 0, at = 0; i < ndims; ++i) {
        const int64_t n = distribution_spans(d[i], coords[i], spans + at);
        dims[i] = ArrayDim{d[i].gsize, spans + at, n};
        at += static_cast<int>(n);
    }
    const CallArgs args{MPI_COMBINER_DARRAY,
                        {{&size, 1},
                         {&rank, 1},
                         {&ndims, 1},
                         {array_of_gsizes, ndims},
                         {array_of_distribs, ndims},
                         {array_of_dargs, ndims},
                         {array_of_psizes, ndims},
                         {&order, 1}},
                        0,
                        nullptr,
                        1,
                        &oldtype};
    const int e = make_array_type(call, dims, ndims, order, oldtype, args, newtype);
    free(spans);
    return e;
}
