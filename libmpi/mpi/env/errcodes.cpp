// Error classes and codes the program adds (MPI 3.1 section 8.5): the
// values above MPI_ERR_LASTCODE, each with its class and its text.
#include <stdlib.h>

#include "call.hpp"
#include "errors.hpp"
#include "state.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// Per rank, classes and codes together; the array grows by doubling as
// the program adds them (test suites add a few hundred).
constexpr int max_user_codes = 4096;

struct UserCode {
    int error_class;  // itself for a class
    char text[MPI_MAX_ERROR_STRING];
};

struct UserCodes {
    int last_used;    // MPI_LASTUSEDCODE's value, once MPI_Init ran
    int count;        // codes[0..count-1] are MPI_ERR_LASTCODE+1..
    int cap;          // entries of codes
    UserCode *codes;  // nullptr until the first one is added
};

thread_local util::RankLocal<UserCodes> t_codes;

// The added code `code`, or nullptr.
UserCode *user_code(int code) {
    UserCodes &u = t_codes.get();
    const int i = code - MPI_ERR_LASTCODE - 1;
    return i >= 0 && i < u.count ? &u.codes[i] : nullptr;
}

// A new code of class `error_class` (-1: a new class, its own) into *code.
int add(int error_class, int *code) {
    UserCodes &u = t_codes.get();
    if (u.count == max_user_codes) return MPI_ERR_NO_MEM;
    if (u.count == u.cap) {
        const int cap = u.cap ? 2 * u.cap : 16;
        UserCode *grown =
            static_cast<UserCode *>(realloc(u.codes, sizeof(UserCode) * static_cast<size_t>(cap)));
        if (!grown) return MPI_ERR_NO_MEM;
        u.codes = grown;
        u.cap = cap;
    }
    *code = MPI_ERR_LASTCODE + 1 + u.count;
    u.codes[u.count++] = UserCode{error_class < 0 ? *code : error_class, {}};
    u.last_used = *code;
    return MPI_SUCCESS;
}

}  // namespace

const char *user_error_text(int code) {
    const UserCode *c = user_code(code);
    return c ? c->text : nullptr;
}

int error_class_of(int code) {
    if (code >= 0 && code <= MPI_ERR_LASTCODE) return code;  // every predefined code is a class
    const UserCode *c = user_code(code);
    return c ? c->error_class : -1;
}

const int *last_used_code() { return &t_codes.get().last_used; }

void error_codes_init() { t_codes.get().last_used = MPI_ERR_LASTCODE; }

void error_codes_finalize() {
    UserCodes &u = t_codes.get();
    free(u.codes);
    u = UserCodes{};
}

}  // namespace lwmpi

/// A new error class, above every code in use; MPI_LASTUSEDCODE follows
/// (section 8.5).
int MPI_Add_error_class(int *errorclass) {
    Call call("MPI_Add_error_class");
    if (int e = call.active()) return e;
    if (!errorclass) return call.fail(MPI_ERR_ARG, "errorclass is NULL");
    if (int e = add(-1, errorclass)) return call.fail(e, "too many added error codes");
    return MPI_SUCCESS;
}

/// A new error code of class `errorclass` (predefined or added, else
/// MPI_ERR_ARG) (section 8.5).
int MPI_Add_error_code(int errorclass, int *errorcode) {
    Call call("MPI_Add_error_code");
    if (int e = call.active()) return e;
    if (error_class_of(errorclass) != errorclass) return call.fail(MPI_ERR_ARG, "not an error class");
    if (!errorcode) return call.fail(MPI_ERR_ARG, "errorcode is NULL");
    if (int e = add(errorclass, errorcode)) return call.fail(e, "too many added error codes");
    return MPI_SUCCESS;
}

/// The text of an added class or code, cut to MPI_MAX_ERROR_STRING - 1
/// characters; predefined or unknown codes: MPI_ERR_ARG (section 8.5).
int MPI_Add_error_string(int errorcode, const char *string) {
    Call call("MPI_Add_error_string");
    if (int e = call.active()) return e;
    UserCode *c = user_code(errorcode);
    if (!c) return call.fail(MPI_ERR_ARG, "not an added error code");
    if (!string) return call.fail(MPI_ERR_ARG, "string is NULL");
    TextBuilder(c->text, sizeof c->text).put(string);
    return MPI_SUCCESS;
}
