// Info objects (MPI 3.1 chapter 9) and MPI_INFO_ENV (section 10.5.5).
//
// An info object is an ordered list of entries, each one heap block
// "key\0value\0": MPI_Info_get_nthkey numbers the keys in the order they
// were first set, which stays put while the object is not changed. The
// rank's table (a SlotTable) grows with the objects it holds, so a rank
// pays only for those.
#include "call.hpp"
#include "info.hpp"

#include <stdlib.h>
#include <string.h>

#include "errors.hpp"
#include "common/handles.hpp"
#include "common/slot_table.hpp"
#include "state.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

constexpr int env_index = 1;  // MPI_INFO_ENV's index; 0 is MPI_INFO_NULL
static_assert(make_handle(HandleKind::info, env_index) == MPI_INFO_ENV);
// Indexes per rank, MPI_INFO_NULL's and MPI_INFO_ENV's included: test
// suites hold thousands of objects at once.
constexpr int max_infos = 4096;

struct Info {
    char **entries;  // "key\0value\0" each
    int n;
    int cap;
};

thread_local util::RankLocal<SlotTable<Info, max_infos>> t_infos;

Info *info_at(MPI_Info h) {
    const int i = table_index(h, HandleKind::info, env_index, max_infos);
    return i < 0 ? nullptr : t_infos.get().at(i);
}

const char *value_of(const char *entry) { return entry + strlen(entry) + 1; }

// The index of `key` in `info`, or -1.
int find(const Info &info, const char *key) {
    for (int i = 0; i < info.n; ++i)
        if (strcmp(info.entries[i], key) == 0) return i;
    return -1;
}

// Sets key to value in `info` (both checked); false when out of memory.
bool put(Info &info, const char *key, const char *value) {
    const size_t k = strlen(key) + 1, v = strlen(value) + 1;
    char *entry = static_cast<char *>(malloc(k + v));
    if (!entry) return false;
    memcpy(entry, key, k);
    memcpy(entry + k, value, v);
    const int at = find(info, key);
    if (at >= 0) {  // a new value keeps the key's place
        free(info.entries[at]);
        info.entries[at] = entry;
        return true;
    }
    if (info.n == info.cap) {
        const int cap = info.cap ? 2 * info.cap : 8;
        char **grown = static_cast<char **>(realloc(info.entries, cap * sizeof(char *)));
        if (!grown) {
            free(entry);
            return false;
        }
        info.entries = grown;
        info.cap = cap;
    }
    info.entries[info.n++] = entry;
    return true;
}

// Frees the entries of the object at table index i, and the object.
void destroy(int i) {
    SlotTable<Info, max_infos> &table = t_infos.get();
    Info *info = table.at(i);
    if (!info) return;
    for (int e = 0; e < info->n; ++e)
        free(info->entries[e]);
    free(info->entries);
    table.remove(i);
}

// A new empty object at the lowest free index >= *index (MPI_INFO_ENV's
// only when *index asks for it) into *index, or nullptr.
Info *make(int *index) {
    SlotTable<Info, max_infos> &table = t_infos.get();
    return table.add(*index, Info{}, index) == MPI_SUCCESS ? table.at(*index) : nullptr;
}

// require_active, then `h` into *info (MPI_ERR_INFO when it is not valid).
int enter_info(const Call &call, MPI_Info h, Info **info) {
    if (int e = call.active()) return e;
    *info = info_at(h);
    if (!*info) return call.fail(MPI_ERR_INFO);
    return MPI_SUCCESS;
}

// A key is 1..MPI_MAX_INFO_KEY-1 characters, so that it fits with its NUL
// in the MPI_MAX_INFO_KEY bytes MPI_Info_get_nthkey may be given.
int check_key(const Call &call, const char *key) {
    if (!key) return call.fail(MPI_ERR_ARG, "key is NULL");
    const size_t n = strlen(key);
    if (n == 0 || n >= MPI_MAX_INFO_KEY)
        return call.fail(MPI_ERR_INFO_KEY, n ? "longer than MPI_MAX_INFO_KEY - 1" : "empty key");
    return MPI_SUCCESS;
}

}  // namespace

bool info_valid(MPI_Info h) { return info_at(h) != nullptr; }

const char *info_lookup(MPI_Info h, const char *key) {
    const Info *info = info_at(h);
    const int at = info ? find(*info, key) : -1;
    return at < 0 ? nullptr : value_of(info->entries[at]);
}

int info_put(MPI_Info h, const char *key, const char *value) {
    Info *info = info_at(h);
    if (!info) return MPI_ERR_INFO;
    return put(*info, key, value) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int info_new(MPI_Info *out) {
    int index = env_index + 1;
    if (!make(&index)) return MPI_ERR_NO_MEM;
    *out = make_handle(HandleKind::info, index);
    return MPI_SUCCESS;
}

void info_init_env(int world_size, int argc, char **argv) {
    int index = env_index;
    Info *env = make(&index);
    if (!env || index != env_index) return;  // no memory: MPI_INFO_ENV stays empty
    char text[MPI_MAX_INFO_VAL];
    TextBuilder(text, sizeof text).put_int(world_size);
    put(*env, "maxprocs", text);
    if (!argv || argc < 1 || !argv[0]) return;
    put(*env, "command", argv[0]);
    TextBuilder args(text, sizeof text);
    for (int i = 1; i < argc && argv[i]; ++i)
        args.put(i > 1 ? " " : "").put(argv[i]);
    put(*env, "argv", text);
}

void info_finalize() {
    for (int i = 0; i < t_infos.get().cap; ++i)
        destroy(i);
    t_infos.get().clear();
}

}  // namespace lwmpi

/// A new empty info object (section 9).
int MPI_Info_create(MPI_Info *info) {
    Call call("MPI_Info_create");
    if (int e = call.active()) return e;
    if (!info) return call.fail(MPI_ERR_ARG, "info is NULL");
    if (int e = info_new(info)) return call.fail(e, "too many info objects");
    return MPI_SUCCESS;
}

/// Sets key to value, replacing an earlier value (section 9).
int MPI_Info_set(MPI_Info info, const char *key, const char *value) {
    Call call("MPI_Info_set");
    Info *in;
    if (int e = enter_info(call, info, &in)) return e;
    if (int e = check_key(call, key)) return e;
    if (!value) return call.fail(MPI_ERR_ARG, "value is NULL");
    if (strlen(value) >= MPI_MAX_INFO_VAL)
        return call.fail(MPI_ERR_INFO_VALUE, "longer than MPI_MAX_INFO_VAL - 1");
    if (!put(*in, key, value)) return call.fail(MPI_ERR_NO_MEM);
    return MPI_SUCCESS;
}

/// Removes key; MPI_ERR_INFO_NOKEY when it is not there (section 9).
int MPI_Info_delete(MPI_Info info, const char *key) {
    Call call("MPI_Info_delete");
    Info *in;
    if (int e = enter_info(call, info, &in)) return e;
    if (int e = check_key(call, key)) return e;
    const int at = find(*in, key);
    if (at < 0) return call.fail(MPI_ERR_INFO_NOKEY, key);
    free(in->entries[at]);
    for (int i = at; i + 1 < in->n; ++i)  // the other keys keep their order
        in->entries[i] = in->entries[i + 1];
    --in->n;
    return MPI_SUCCESS;
}

/// The value of key, cut to valuelen characters (value has room for
/// valuelen + 1 bytes), and *flag = 1; *flag = 0 when key is not there
/// (section 9).
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) {
    Call call("MPI_Info_get");
    Info *in;
    if (int e = enter_info(call, info, &in)) return e;
    if (int e = check_key(call, key)) return e;
    if (valuelen < 0) return call.fail(MPI_ERR_ARG, "negative valuelen");
    if (!value || !flag) return call.fail(MPI_ERR_ARG, "NULL result pointer");
    const int at = find(*in, key);
    *flag = at >= 0;
    if (at >= 0) TextBuilder(value, static_cast<size_t>(valuelen) + 1).put(value_of(in->entries[at]));
    return MPI_SUCCESS;
}

/// The length of key's value without its NUL and *flag = 1, or *flag = 0
/// (section 9).
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) {
    Call call("MPI_Info_get_valuelen");
    Info *in;
    if (int e = enter_info(call, info, &in)) return e;
    if (int e = check_key(call, key)) return e;
    if (!valuelen || !flag) return call.fail(MPI_ERR_ARG, "NULL result pointer");
    const int at = find(*in, key);
    *flag = at >= 0;
    if (at >= 0) *valuelen = static_cast<int>(strlen(value_of(in->entries[at])));
    return MPI_SUCCESS;
}

/// The number of keys (section 9).
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
    Call call("MPI_Info_get_nkeys");
    Info *in;
    if (int e = enter_info(call, info, &in)) return e;
    if (!nkeys) return call.fail(MPI_ERR_ARG, "nkeys is NULL");
    *nkeys = in->n;
    return MPI_SUCCESS;
}

/// Key number n (0..nkeys-1, MPI_ERR_ARG otherwise) into key, which has
/// room for MPI_MAX_INFO_KEY bytes (section 9).
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
    Call call("MPI_Info_get_nthkey");
    Info *in;
    if (int e = enter_info(call, info, &in)) return e;
    if (n < 0 || n >= in->n) return call.fail(MPI_ERR_ARG, "no key of that number");
    if (!key) return call.fail(MPI_ERR_ARG, "key is NULL");
    TextBuilder(key, MPI_MAX_INFO_KEY).put(in->entries[n]);
    return MPI_SUCCESS;
}

/// A new object with the same entries in the same order (section 9).
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo) {
    Call call("MPI_Info_dup");
    Info *in;
    if (int e = enter_info(call, info, &in)) return e;
    if (!newinfo) return call.fail(MPI_ERR_ARG, "newinfo is NULL");
    MPI_Info h;
    if (int e = info_new(&h)) return call.fail(e, "too many info objects");
    Info *copy = info_at(h);
    for (int i = 0; i < in->n; ++i)
        if (!put(*copy, in->entries[i], value_of(in->entries[i]))) {
            destroy(handle_index(h));
            return call.fail(MPI_ERR_NO_MEM);
        }
    *newinfo = h;
    return MPI_SUCCESS;
}

/// Frees an info object and sets *info to MPI_INFO_NULL; MPI_INFO_ENV
/// cannot be freed (MPI_ERR_INFO) (section 9).
int MPI_Info_free(MPI_Info *info) {
    Call call("MPI_Info_free");
    if (int e = call.active()) return e;
    if (!info) return call.fail(MPI_ERR_ARG, "info is NULL");
    if (!info_at(*info) || *info == MPI_INFO_ENV)
        return call.fail(MPI_ERR_INFO, *info == MPI_INFO_ENV ? "MPI_INFO_ENV cannot be freed" : nullptr);
    destroy(handle_index(*info));
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
