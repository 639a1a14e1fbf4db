// Datatypes: the table of predefined types.
#include "datatype.hpp"

#include <stddef.h>
#include <string.h>

#include "handles.hpp"

namespace lwmpi {

namespace {

template <typename T>
constexpr Datatype basic(MPI_Datatype self) {
    const auto n = static_cast<MPI_Aint>(sizeof(T));
    return Datatype{n, 0, n, 0, n, true, true, true, self, 1};
}

// A {value; int index;} pair of MINLOC/MAXLOC (section 5.9.4): not
// contiguous when the struct has padding.
template <typename T>
constexpr Datatype pair(MPI_Datatype self) {
    struct P {
        T value;
        int index;
    };
    const auto n = static_cast<MPI_Aint>(sizeof(T) + sizeof(int));
    const auto ext = static_cast<MPI_Aint>(sizeof(P));
    return Datatype{n, 0, ext, 0, static_cast<MPI_Aint>(offsetof(P, index) + sizeof(int)),
                    n == ext, true, true, self, 1};
}

constexpr Datatype kPredefined[] = {
    Datatype{},
    basic<char>(MPI_CHAR),
    basic<signed char>(MPI_SIGNED_CHAR),
    basic<unsigned char>(MPI_UNSIGNED_CHAR),
    basic<unsigned char>(MPI_BYTE),
    basic<short>(MPI_SHORT),
    basic<unsigned short>(MPI_UNSIGNED_SHORT),
    basic<int>(MPI_INT),
    basic<unsigned>(MPI_UNSIGNED),
    basic<long>(MPI_LONG),
    basic<unsigned long>(MPI_UNSIGNED_LONG),
    basic<long long>(MPI_LONG_LONG_INT),
    basic<unsigned long long>(MPI_UNSIGNED_LONG_LONG),
    basic<float>(MPI_FLOAT),
    basic<double>(MPI_DOUBLE),
    basic<long double>(MPI_LONG_DOUBLE),
    basic<bool>(MPI_C_BOOL),  // C's _Bool and C++'s bool agree on our ABIs
    basic<int8_t>(MPI_INT8_T),
    basic<int16_t>(MPI_INT16_T),
    basic<int32_t>(MPI_INT32_T),
    basic<int64_t>(MPI_INT64_T),
    basic<uint8_t>(MPI_UINT8_T),
    basic<uint16_t>(MPI_UINT16_T),
    basic<uint32_t>(MPI_UINT32_T),
    basic<uint64_t>(MPI_UINT64_T),
    basic<wchar_t>(MPI_WCHAR),
    basic<unsigned char>(MPI_PACKED),
    basic<MPI_Aint>(MPI_AINT),
    basic<MPI_Offset>(MPI_OFFSET),
    basic<MPI_Count>(MPI_COUNT),
    basic<__complex__ float>(MPI_C_FLOAT_COMPLEX),
    basic<__complex__ double>(MPI_C_DOUBLE_COMPLEX),
    basic<__complex__ long double>(MPI_C_LONG_DOUBLE_COMPLEX),
    pair<float>(MPI_FLOAT_INT),
    pair<double>(MPI_DOUBLE_INT),
    pair<long>(MPI_LONG_INT),
    pair<int>(MPI_2INT),
    pair<short>(MPI_SHORT_INT),
    pair<long double>(MPI_LONG_DOUBLE_INT),
};
constexpr int kNumPredefined = sizeof kPredefined / sizeof kPredefined[0];

// mpi.h's constants must be this table's indices.
constexpr bool predefined_consistent() {
    for (int i = 1; i < kNumPredefined; ++i)
        if (make_handle(HandleKind::datatype, i) != kPredefined[i].basic)
            return false;
    return true;
}
static_assert(predefined_consistent(), "mpi.h datatype handles and the table disagree");

}  // namespace

const Datatype *datatype_get(MPI_Datatype h) {
    const int i = table_index(h, HandleKind::datatype, 1, kNumPredefined);
    return i < 0 ? nullptr : &kPredefined[i];
}

void pack(const void *buf, int count, const Datatype &t, void *out) {
    memcpy(out, static_cast<const char *>(buf) + t.true_lb, static_cast<size_t>(count * t.size));
}

void unpack(const void *in, uint64_t bytes, void *buf, int count, const Datatype &t) {
    (void)count;
    memcpy(static_cast<char *>(buf) + t.true_lb, in, bytes);
}

int64_t count_basic(const Datatype &t, uint64_t bytes) {
    return bytes % t.size == 0 ? static_cast<int64_t>(bytes / t.size) * t.basic_count : -1;
}

}  // namespace lwmpi
