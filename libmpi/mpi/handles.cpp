// Tables of the predefined objects: constant data, no initialisation code.
#include "handles.hpp"

namespace lwmpi {

namespace {

constexpr DatatypeInfo kDatatypes[] = {
    {MPI_DATATYPE_NULL, 0},
    {MPI_CHAR, sizeof(char)},
    {MPI_SIGNED_CHAR, sizeof(signed char)},
    {MPI_UNSIGNED_CHAR, sizeof(unsigned char)},
    {MPI_BYTE, 1},
    {MPI_SHORT, sizeof(short)},
    {MPI_UNSIGNED_SHORT, sizeof(unsigned short)},
    {MPI_INT, sizeof(int)},
    {MPI_UNSIGNED, sizeof(unsigned)},
    {MPI_LONG, sizeof(long)},
    {MPI_UNSIGNED_LONG, sizeof(unsigned long)},
    {MPI_LONG_LONG_INT, sizeof(long long)},
    {MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long)},
    {MPI_FLOAT, sizeof(float)},
    {MPI_DOUBLE, sizeof(double)},
    {MPI_LONG_DOUBLE, sizeof(long double)},
    {MPI_C_BOOL, sizeof(bool)},  // C's _Bool and C++'s bool agree on our ABIs
    {MPI_INT8_T, sizeof(int8_t)},
    {MPI_INT16_T, sizeof(int16_t)},
    {MPI_INT32_T, sizeof(int32_t)},
    {MPI_INT64_T, sizeof(int64_t)},
    {MPI_UINT8_T, sizeof(uint8_t)},
    {MPI_UINT16_T, sizeof(uint16_t)},
    {MPI_UINT32_T, sizeof(uint32_t)},
    {MPI_UINT64_T, sizeof(uint64_t)},
    {MPI_WCHAR, sizeof(wchar_t)},
    {MPI_PACKED, 1},
    {MPI_AINT, sizeof(MPI_Aint)},
    {MPI_OFFSET, sizeof(MPI_Offset)},
    {MPI_COUNT, sizeof(MPI_Count)},
};
constexpr int kNumDatatypes = sizeof kDatatypes / sizeof kDatatypes[0];

// mpi.h's constants must be this table's indices.
constexpr bool datatypes_consistent() {
    for (int i = 1; i < kNumDatatypes; ++i)
        if (!handle_is(kDatatypes[i].handle, HandleKind::datatype) ||
            handle_index(kDatatypes[i].handle) != i || kDatatypes[i].size <= 0)
            return false;
    return kDatatypes[0].handle == 0;
}
static_assert(datatypes_consistent(), "mpi.h datatype handles and the table disagree");

constexpr CommInfo kComms[] = {
    {MPI_COMM_NULL, 0, 0, false},
    {MPI_COMM_WORLD, 1, 0, false},  // contexts 0 (pt2pt) and 1 (collective)
    {MPI_COMM_SELF, 2, 2, true},    // contexts 2 and 3
};
constexpr int kNumComms = sizeof kComms / sizeof kComms[0];
static_assert(kNumComms == kCommSlots);
static_assert(handle_index(MPI_COMM_WORLD) == 1 && handle_index(MPI_COMM_SELF) == 2);
static_assert(make_handle(HandleKind::comm, 1) == MPI_COMM_WORLD);
static_assert(make_handle(HandleKind::errhandler, 2) == MPI_ERRORS_RETURN);

}  // namespace

const DatatypeInfo *datatype_info(MPI_Datatype h) {
    if (!handle_is(h, HandleKind::datatype))
        return nullptr;
    const int i = handle_index(h);
    return i >= 1 && i < kNumDatatypes ? &kDatatypes[i] : nullptr;
}

const CommInfo *comm_info(MPI_Comm h) {
    if (!handle_is(h, HandleKind::comm))
        return nullptr;
    const int i = handle_index(h);
    return i >= 1 && i < kNumComms ? &kComms[i] : nullptr;
}

}  // namespace lwmpi
