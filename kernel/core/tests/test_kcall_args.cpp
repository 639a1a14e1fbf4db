// Host tests of the kernel-call decoder (kernel/kcall_args.hpp): integers
// are range-checked from their declared types as the registers hold them,
// ids that no int names are refused, and a call's arguments are decoded in
// the order ids, integers, memory, whatever their places. Memory checks
// need a process and run on target (kcall_fuzz, ikc_api, syscall_test).
#include <catch2/catch.hpp>

#include "kernel/kcall_args.hpp"

using kernel::Call;
using namespace kernel::kcall;

namespace {

Call call_of(uint64_t a0, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0) {
    Call c{};
    c.regs[0] = a0;
    c.regs[1] = a1;
    c.regs[2] = a2;
    c.regs[3] = a3;
    return c;
}

/// A register as the runtime fills it from a C value (converted to long).
uint64_t reg_of(long v) { return static_cast<uint64_t>(v); }

/// A decoding pass that records the order in which it is called.
int order[3];
int calls;
template <Pass P, int Mark>
struct Probe {
    using type = int;
    static constexpr Pass pass = P;
    static long decode(const Call &, int, int &out) {
        order[calls++] = Mark;
        out = Mark;
        return 0;
    }
};

/// A decoder that always fails with `Err`, in pass P.
template <Pass P, long Err>
struct Refuse {
    using type = int;
    static constexpr Pass pass = P;
    static long decode(const Call &, int, int &) { return Err; }
};

}  // namespace

// Two calls declared as kcalls.def declares them, in this file's namespace.
namespace kernel {
KC_CALL_DECLS(probe, no, no,
              (decltype(Probe<Pass::memory, 3>{}), decltype(Probe<Pass::value, 2>{}),
               decltype(Probe<Pass::id, 1>{})),
              buf, size, id)
KC_CALL_DECLS(refuse, no, no,
              (decltype(Refuse<Pass::memory, -TS_EFAULT>{}), decltype(Refuse<Pass::value, -TS_EINVAL>{})),
              buf, size)
KC_CALL_DECLS(ints, no, no, (ARG_INT(int, -1, INT_MAX), ARG_INT(unsigned, 0, 9), ARG_WORD), tag, small, word)
}  // namespace kernel

TEST_CASE("an int argument is refused unless the register holds an int in range") {
    int v = 0;
    using Tag = Int<int, -1, INT_MAX>;
    Call c = call_of(reg_of(-1));
    CHECK(Tag::decode(c, 0, v) == 0);
    CHECK(v == -1);
    c = call_of(reg_of(INT_MAX));
    CHECK(Tag::decode(c, 0, v) == 0);
    CHECK(v == INT_MAX);
    c = call_of(reg_of(-2));
    CHECK(Tag::decode(c, 0, v) == -TS_EINVAL);
    c = call_of(0x100000005ull);  // 5 with garbage above: not an int the C caller passed
    CHECK(Tag::decode(c, 0, v) == -TS_EINVAL);
    c = call_of(0xffffffffull);  // -1 zero-extended: not how an int arrives
    CHECK(Tag::decode(c, 0, v) == -TS_EINVAL);
}

TEST_CASE("an unsigned argument is refused above its range, a negative value included") {
    unsigned u = 0;
    using Small = Int<unsigned, 0, 9>;
    Call c = call_of(9);
    CHECK(Small::decode(c, 0, u) == 0);
    CHECK(u == 9);
    c = call_of(10);
    CHECK(Small::decode(c, 0, u) == -TS_EINVAL);
    c = call_of(reg_of(-1));
    CHECK(Small::decode(c, 0, u) == -TS_EINVAL);
    unsigned long big = 0;
    using Any = Int<unsigned long, 0, ULONG_MAX>;
    c = call_of(~0ull);
    CHECK(Any::decode(c, 0, big) == 0);
    CHECK(big == ~0ul);
}

TEST_CASE("an id register names no entry unless it holds a non-negative int") {
    CHECK(id_of(call_of(7), 0) == 7);
    CHECK(id_of(call_of(reg_of(-1)), 0) == -1);
    CHECK(id_of(call_of(0x100000007ull), 0) == -1);
    CHECK(id_of(call_of(0x80000000ull), 0) == -1);
}

TEST_CASE("a call's arguments decode into named fields: ids, then integers, then memory") {
    kernel::probe_args a{};
    calls = 0;
    REQUIRE(a.decode(call_of(0, 0, 0)) == 0);
    CHECK(calls == 3);
    CHECK(order[0] == 1);  // the id, though it is the last argument
    CHECK(order[1] == 2);
    CHECK(order[2] == 3);
    CHECK(a.id == 1);
    CHECK(a.size == 2);
    CHECK(a.buf == 3);
}

TEST_CASE("the first bad argument in decoding order is the call's answer") {
    kernel::refuse_args a{};
    CHECK(a.decode(call_of(0, 0)) == -TS_EINVAL);  // the integer, though the buffer comes first

    kernel::ints_args b{};
    REQUIRE(b.decode(call_of(reg_of(-1), 3, 0xdeadbeefcafeull)) == 0);
    CHECK(b.tag == -1);
    CHECK(b.small == 3u);
    CHECK(b.word == 0xdeadbeefcafeull);
    CHECK(b.decode(call_of(reg_of(-1), 10, 0)) == -TS_EINVAL);
    CHECK(b.decode(call_of(reg_of(-3), 1, 0)) == -TS_EINVAL);
}
