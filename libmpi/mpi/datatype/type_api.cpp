// The MPI_Type_* calls, MPI_Get_address and packing (MPI 3.1 chapter 4).
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "env/call.hpp"
#include "env/attr.hpp"
#include "comm/comm.hpp"
#include "datatype.hpp"
#include "env/errors.hpp"
#include "external32.hpp"
#include "env/state.hpp"
#include "type_api.hpp"
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

constexpr int64_t int_max = 0x7fffffff;

// Raises `code` on comm with "<what> <value>" as the detail.
int raise_value(const Call &call, int code, const char *what, long long value) {
    char why[64];
    TextBuilder(why, sizeof why).put(what).put(' ').put_int(value);
    return call.fail(code, why);
}

// Packed bytes of `count` elements of `t`, or -1 when more than an int
// holds (the most any packing buffer can).
int64_t packed_size(int count, const Datatype &t) {
    return t.size > 0 && count > int_max / t.size ? -1 : count * t.size;
}

}  // namespace

int enter_query(const Call &call, MPI_Datatype h, bool results, const Datatype **t) {
    if (int e = call.active()) return e;
    *t = datatype_get(h);
    if (!*t) return call.fail(MPI_ERR_TYPE);
    if (!results) return call.fail(MPI_ERR_ARG, "NULL result pointer");
    return MPI_SUCCESS;
}

int enter_constructor(const Call &call, MPI_Datatype *newtype, int count, bool arrays) {
    if (int e = call.active()) return e;
    if (!newtype) return call.fail(MPI_ERR_ARG, "newtype is NULL");
    if (count < 0) return raise_value(call, MPI_ERR_COUNT, "count", count);
    if (count > 0 && !arrays) return call.fail(MPI_ERR_ARG, "NULL array");
    return MPI_SUCCESS;
}

int construct(const Call &call, Recipe r, const Contents &how, MPI_Datatype *newtype) {
    char why[96];
    TextBuilder t(why, sizeof why);
    r.how = &how;
    if (int e = datatype_create(r, newtype, t)) return call.fail(e, why);
    return MPI_SUCCESS;
}

int construct(const Call &call, const Recipe &r, const CallArgs &args, MPI_Datatype *newtype) {
    int n = 0;
    for (const IntArgs &a : args.ints)
        n += a.n;
    int *ints = static_cast<int *>(malloc(sizeof(int) * static_cast<size_t>(n > 0 ? n : 1)));
    if (!ints) return call.fail(MPI_ERR_NO_MEM, "no memory for the arguments");
    n = 0;
    for (const IntArgs &a : args.ints)
        for (int i = 0; i < a.n; ++i)
            ints[n++] = a.p[i];
    const Contents how{args.combiner, n, args.naddrs, args.ntypes, ints, args.addrs, args.types};
    const int e = construct(call, r, how, newtype);
    free(ints);
    return e;
}

namespace {

// The checks MPI_Pack and MPI_Unpack share (section 4.2): the
// communicator, `count` elements of `datatype` (committed), and the packed
// buffer `packed` of `size` bytes with room for them from *position on.
// Sets *t and *bytes (the packed size of the elements).
int enter_packing(Call &call, MPI_Comm comm, int count, MPI_Datatype datatype, const void *packed, int size,
                  const int *position, const Datatype **t, int64_t *bytes) {
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (count < 0) return raise_value(call, MPI_ERR_COUNT, "count", count);
    if (check_datatype(datatype))
        return call.fail(MPI_ERR_TYPE, datatype_get(datatype) ? "the datatype is not committed" : nullptr);
    if (!position) return call.fail(MPI_ERR_ARG, "position is NULL");
    if (size < 0 || *position < 0 || *position > size) {
        char why[80];
        TextBuilder(why, sizeof why)
            .put("position ")
            .put_int(*position)
            .put(" in a buffer of ")
            .put_int(size)
            .put(" bytes");
        return call.fail(MPI_ERR_ARG, why);
    }
    *t = datatype_get(datatype);
    *bytes = packed_size(count, **t);
    if (*bytes < 0 || *bytes > size - *position) {
        char why[96];
        TextBuilder(why, sizeof why)
            .put_int(count)
            .put(" elements of ")
            .put_int((*t)->size)
            .put(" bytes from position ")
            .put_int(*position)
            .put(" do not fit in ")
            .put_int(size)
            .put(" bytes");
        return call.fail(MPI_ERR_TRUNCATE, why);
    }
    if (!packed && *bytes > 0) return call.fail(MPI_ERR_BUFFER, "NULL packed buffer");
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace lwmpi

/// Bytes of data in one element (section 4.1.5); MPI_UNDEFINED when more
/// than an int holds.
int MPI_Type_size(MPI_Datatype datatype, int *size) {
    Call call("MPI_Type_size");
    const Datatype *t;
    if (int e = enter_query(call, datatype, size != nullptr, &t)) return e;
    *size = t->size <= int_max ? static_cast<int>(t->size) : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/// MPI_Type_size with an MPI_Count result (section 4.1.5).
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) {
    Call call("MPI_Type_size_x");
    const Datatype *t;
    if (int e = enter_query(call, datatype, size != nullptr, &t)) return e;
    *size = t->size;
    return MPI_SUCCESS;
}

/// Lower bound and extent (section 4.1.7).
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
    Call call("MPI_Type_get_extent");
    const Datatype *t;
    if (int e = enter_query(call, datatype, lb && extent, &t)) return e;
    *lb = t->lb;
    *extent = t->extent;
    return MPI_SUCCESS;
}

/// Lowest byte of data and the span of the data, whatever the bounds
/// (section 4.1.8).
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent) {
    Call call("MPI_Type_get_true_extent");
    const Datatype *t;
    if (int e = enter_query(call, datatype, true_lb && true_extent, &t)) return e;
    *true_lb = t->true_lb;
    *true_extent = t->true_extent;
    return MPI_SUCCESS;
}

/// `count` copies of oldtype, one extent apart (section 4.1.2).
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
    Call call("MPI_Type_contiguous");
    if (int e = enter_constructor(call, newtype, count, true)) return e;
    const CallArgs args{MPI_COMBINER_CONTIGUOUS, {{&count, 1}}, 0, nullptr, 1, &oldtype};
    return construct(call, {.count = 1, .length = count, .type = oldtype}, args, newtype);
}

/// `count` blocks of `blocklength` elements, `stride` extents of oldtype
/// apart (section 4.1.2).
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype) {
    Call call("MPI_Type_vector");
    if (int e = enter_constructor(call, newtype, count, true)) return e;
    const Recipe r{
        .count = count, .length = blocklength, .type = oldtype, .stride = stride, .in_extents = true};
    const CallArgs args{
        MPI_COMBINER_VECTOR, {{&count, 1}, {&blocklength, 1}, {&stride, 1}}, 0, nullptr, 1, &oldtype};
    return construct(call, r, args, newtype);
}

/// MPI_Type_vector with the stride in bytes (section 4.1.2).
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype) {
    Call call("MPI_Type_create_hvector");
    if (int e = enter_constructor(call, newtype, count, true)) return e;
    const Recipe r{.count = count, .length = blocklength, .type = oldtype, .stride = stride};
    const CallArgs args{MPI_COMBINER_HVECTOR, {{&count, 1}, {&blocklength, 1}}, 1, &stride, 1, &oldtype};
    return construct(call, r, args, newtype);
}

/// Blocks of blocklengths[i] elements at displacements[i] extents of
/// oldtype (section 4.1.2).
int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype) {
    Call call("MPI_Type_indexed");
    if (int e = enter_constructor(call, newtype, count, blocklengths && displacements)) return e;
    const Recipe r{
        .count = count, .lengths = blocklengths, .type = oldtype, .disps = displacements, .in_extents = true};
    const CallArgs args{MPI_COMBINER_INDEXED,
                        {{&count, 1}, {blocklengths, count}, {displacements, count}},
                        0,
                        nullptr,
                        1,
                        &oldtype};
    return construct(call, r, args, newtype);
}

/// MPI_Type_indexed with the displacements in bytes (section 4.1.2).
int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype) {
    Call call("MPI_Type_create_hindexed");
    if (int e = enter_constructor(call, newtype, count, blocklengths && displacements)) return e;
    const Recipe r{.count = count, .lengths = blocklengths, .type = oldtype, .byte_disps = displacements};
    const CallArgs args{
        MPI_COMBINER_HINDEXED, {{&count, 1}, {blocklengths, count}}, count, displacements, 1, &oldtype};
    return construct(call, r, args, newtype);
}

/// MPI_Type_indexed with one block length for all (section 4.1.2).
int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype *newtype) {
    Call call("MPI_Type_create_indexed_block");
    if (int e = enter_constructor(call, newtype, count, displacements)) return e;
    const Recipe r{
        .count = count, .length = blocklength, .type = oldtype, .disps = displacements, .in_extents = true};
    const CallArgs args{MPI_COMBINER_INDEXED_BLOCK,
                        {{&count, 1}, {&blocklength, 1}, {displacements, count}},
                        0,
                        nullptr,
                        1,
                        &oldtype};
    return construct(call, r, args, newtype);
}

/// MPI_Type_create_indexed_block with the displacements in bytes (section
/// 4.1.2).
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype) {
    Call call("MPI_Type_create_hindexed_block");
    if (int e = enter_constructor(call, newtype, count, displacements)) return e;
    const Recipe r{.count = count, .length = blocklength, .type = oldtype, .byte_disps = displacements};
    const CallArgs args{
        MPI_COMBINER_HINDEXED_BLOCK, {{&count, 1}, {&blocklength, 1}}, count, displacements, 1, &oldtype};
    return construct(call, r, args, newtype);
}

/// Blocks of blocklengths[i] elements of types[i] at displacements[i]
/// bytes; the extent is padded to the largest alignment of a basic
/// element unless a member was resized (sections 4.1.2, 4.1.6).
int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype *newtype) {
    Call call("MPI_Type_create_struct");
    if (int e = enter_constructor(call, newtype, count, blocklengths && displacements && types)) return e;
    const Recipe r{
        .count = count, .lengths = blocklengths, .types = types, .byte_disps = displacements, .pad = true};
    const CallArgs args{
        MPI_COMBINER_STRUCT, {{&count, 1}, {blocklengths, count}}, count, displacements, count, types};
    return construct(call, r, args, newtype);
}

/// oldtype with lower bound `lb` and extent `extent`, which then hold in
/// every type built from it (section 4.1.7).
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype) {
    Call call("MPI_Type_create_resized");
    if (int e = enter_constructor(call, newtype, 1, true)) return e;
    const Recipe r{.count = 1, .length = 1, .type = oldtype, .resize = true, .lb = lb, .extent = extent};
    const MPI_Aint bounds[] = {lb, extent};
    const CallArgs args{MPI_COMBINER_RESIZED, {}, 2, bounds, 1, &oldtype};
    return construct(call, r, args, newtype);
}

/// A copy of oldtype, committed if it is (section 4.1.10).
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) {
    Call call("MPI_Type_dup");
    if (int e = enter_constructor(call, newtype, 1, true)) return e;
    const CallArgs args{MPI_COMBINER_DUP, {}, 0, nullptr, 1, &oldtype};
    if (int e = construct(call, {.count = 1, .length = 1, .type = oldtype}, args, newtype)) return e;
    if (datatype_get(oldtype)->committed) datatype_commit(*newtype);
    // Attributes go along as their copy callbacks say (section 6.7.4).
    if (int e = attr_copy_all(HandleKind::datatype, oldtype, *newtype)) {
        datatype_free(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return call.fail(e, "an attribute copy callback failed");
    }
    return MPI_SUCCESS;
}

/// Makes a type usable in communication; predefined ones already are
/// (section 4.1.9).
int MPI_Type_commit(MPI_Datatype *datatype) {
    Call call("MPI_Type_commit");
    if (int e = call.active()) return e;
    if (!datatype) return call.fail(MPI_ERR_ARG, "datatype is NULL");
    if (int e = datatype_commit(*datatype)) return call.fail(e);
    return MPI_SUCCESS;
}

/// Frees a derived type and sets *datatype to MPI_DATATYPE_NULL; types
/// built from it and pending operations are not affected (section 4.1.9).
int MPI_Type_free(MPI_Datatype *datatype) {
    Call call("MPI_Type_free");
    if (int e = call.active()) return e;
    if (!datatype) return call.fail(MPI_ERR_ARG, "datatype is NULL");
    const Datatype *t = datatype_get(*datatype);
    if (t && !t->predefined)  // its attributes go first (section 6.7.4)
        if (int e = attr_delete_all(HandleKind::datatype, *datatype))
            return call.fail(e, "an attribute delete callback failed");
    if (int e = datatype_free(*datatype)) {
        const bool predefined = datatype_get(*datatype);
        return call.fail(e, predefined ? "a predefined datatype cannot be freed" : nullptr);
    }
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/// The address of `location`, for displacements relative to MPI_BOTTOM
/// (section 4.1.5).
int MPI_Get_address(const void *location, MPI_Aint *address) {
    Call call("MPI_Get_address");
    if (int e = call.active()) return e;
    if (!address) return call.fail(MPI_ERR_ARG, "address is NULL");
    *address = reinterpret_cast<MPI_Aint>(location);
    return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
    return static_cast<MPI_Aint>(static_cast<uintptr_t>(base) + static_cast<uintptr_t>(disp));
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
    return static_cast<MPI_Aint>(static_cast<uintptr_t>(addr1) - static_cast<uintptr_t>(addr2));
}

/// Packs incount elements into outbuf from *position on and advances it
/// (section 4.2).
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
             MPI_Comm comm) {
    Call call("MPI_Pack");
    const Datatype *t;
    int64_t bytes;
    if (int e = enter_packing(call, comm, incount, datatype, outbuf, outsize, position, &t, &bytes)) return e;
    pack(inbuf, incount, *t, static_cast<char *>(outbuf) + *position);
    *position += static_cast<int>(bytes);
    return MPI_SUCCESS;
}

/// Unpacks outcount elements from inbuf at *position on and advances it;
/// MPI_ERR_TRUNCATE when inbuf ends first (section 4.2).
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) {
    Call call("MPI_Unpack");
    const Datatype *t;
    int64_t bytes;
    if (int e = enter_packing(call, comm, outcount, datatype, inbuf, insize, position, &t, &bytes)) return e;
    unpack(static_cast<const char *>(inbuf) + *position, static_cast<uint64_t>(bytes), outbuf, outcount, *t);
    *position += static_cast<int>(bytes);
    return MPI_SUCCESS;
}

/// An upper bound of the bytes MPI_Pack needs for incount elements: here
/// exactly their size (section 4.2).
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size) {
    Call call("MPI_Pack_size");
    Comm *c;
    if (int e = enter(call, comm, &c)) return e;
    if (incount < 0) return raise_value(call, MPI_ERR_COUNT, "count", incount);
    const Datatype *t = datatype_get(datatype);
    if (!t) return call.fail(MPI_ERR_TYPE);
    if (!size) return call.fail(MPI_ERR_ARG, "size is NULL");
    const int64_t bytes = packed_size(incount, *t);
    if (bytes < 0) return call.fail(MPI_ERR_COUNT, "the packed size exceeds INT_MAX");
    *size = static_cast<int>(bytes);
    return MPI_SUCCESS;
}

namespace lwmpi {
namespace {

// The checks MPI_Pack_external and MPI_Unpack_external share (section
// 4.2.3): the representation, `count` elements of `datatype` (committed),
// and a buffer `buf` of `size` bytes with room for their external32 form
// from *position on. Sets *t and *bytes (that form's size).
int enter_external(const Call &call, const char *datarep, int count, MPI_Datatype datatype, const void *buf,
                   MPI_Aint size, const MPI_Aint *position, const Datatype **t, int64_t *bytes) {
    if (int e = call.active()) return e;
    if (!datarep || strcmp(datarep, "external32") != 0)
        return call.fail(MPI_ERR_UNSUPPORTED_DATAREP, "only \"external32\" is known");
    if (count < 0) return raise_value(call, MPI_ERR_COUNT, "count", count);
    if (check_datatype(datatype))
        return call.fail(MPI_ERR_TYPE, datatype_get(datatype) ? "the datatype is not committed" : nullptr);
    if (!position) return call.fail(MPI_ERR_ARG, "position is NULL");
    if (size < 0 || *position < 0 || *position > size)
        return raise_value(call, MPI_ERR_ARG, "position", *position);
    *t = datatype_get(datatype);
    *bytes = external32_bytes(**t, count);
    if (*bytes < 0 || *bytes > size - *position) {
        char why[96];
        TextBuilder(why, sizeof why)
            .put_int(*bytes)
            .put(" bytes from position ")
            .put_int(*position)
            .put(" do not fit in ")
            .put_int(size);
        return call.fail(MPI_ERR_TRUNCATE, why);
    }
    if (!buf && *bytes > 0) return call.fail(MPI_ERR_BUFFER, "NULL buffer");
    return MPI_SUCCESS;
}

// A heap block for `count` natively packed elements of `t` (at least a
// byte), or nullptr.
void *native_block(int count, const Datatype &t) {
    return malloc(static_cast<size_t>(count) * static_cast<size_t>(t.size) + 1);
}

}  // namespace
}  // namespace lwmpi

/// Packs incount elements into outbuf in external32 from *position on and
/// advances it (section 4.2.3).
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position) {
    Call call("MPI_Pack_external");
    const Datatype *t;
    int64_t bytes;
    if (int e = enter_external(call, datarep, incount, datatype, outbuf, outsize, position, &t, &bytes))
        return e;
    void *native = native_block(incount, *t);
    if (!native) return call.fail(MPI_ERR_NO_MEM);
    pack(inbuf, incount, *t, native);
    to_external32(*t, incount, native, static_cast<char *>(outbuf) + *position);
    free(native);
    *position += static_cast<MPI_Aint>(bytes);
    return MPI_SUCCESS;
}

/// Unpacks outcount elements from external32 at inbuf + *position and
/// advances it; MPI_ERR_TRUNCATE when inbuf ends first (section 4.2.3).
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                        void *outbuf, int outcount, MPI_Datatype datatype) {
    Call call("MPI_Unpack_external");
    const Datatype *t;
    int64_t bytes;
    if (int e = enter_external(call, datarep, outcount, datatype, inbuf, insize, position, &t, &bytes))
        return e;
    void *native = native_block(outcount, *t);
    if (!native) return call.fail(MPI_ERR_NO_MEM);
    from_external32(*t, outcount, static_cast<const char *>(inbuf) + *position, native);
    unpack(native, static_cast<uint64_t>(outcount) * static_cast<uint64_t>(t->size), outbuf, outcount, *t);
    free(native);
    *position += static_cast<MPI_Aint>(bytes);
    return MPI_SUCCESS;
}

/// Bytes MPI_Pack_external needs for incount elements: exactly their
/// external32 size (section 4.2.3).
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size) {
    Call call("MPI_Pack_external_size");
    if (int e = call.active()) return e;
    if (!datarep || strcmp(datarep, "external32") != 0)
        return call.fail(MPI_ERR_UNSUPPORTED_DATAREP, "only \"external32\" is known");
    if (incount < 0) return raise_value(call, MPI_ERR_COUNT, "count", incount);
    const Datatype *t = datatype_get(datatype);
    if (!t) return call.fail(MPI_ERR_TYPE);
    if (!size) return call.fail(MPI_ERR_ARG, "size is NULL");
    *size = static_cast<MPI_Aint>(external32_bytes(*t, incount));
    return MPI_SUCCESS;
}
