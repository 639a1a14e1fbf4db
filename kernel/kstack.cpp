// Kernel stacks: each core paints the unused part of its own when it
// starts, so that how deep the stacks went can be told (the memory budget
// of a small cluster rests on it) and a stack that ran past its lowest
// word is caught before the core returns to user mode.
#include "kernel.hpp"

namespace kernel {
namespace {

constexpr uint64_t paint = 0x4b43'4154'534b'5354;  // "TSKSTACK"
// Room left unpainted below the painting frame, for it and its callees.
constexpr size_t kept = 512;

bool on(const hal::Stack &s, const void *p) {
    const char *c = static_cast<const char *>(p);
    return c >= s.base && c < s.base + s.size;
}

}  // namespace

[[gnu::noinline]] void kstack_paint(int core) {
    const hal::Stack s = hal::kernel_stack(core);
    const char here = 0;
    // A master that does not run on its core's stack (linux64) has nothing to paint.
    if (!on(s, &here)) return;
    const uintptr_t end = reinterpret_cast<uintptr_t>(&here) - kept;
    for (auto *w = reinterpret_cast<uint64_t *>(s.base); reinterpret_cast<uintptr_t>(w + 1) <= end; ++w)
        *w = paint;
}

void kstack_check() {
    const hal::Stack s = hal::kernel_stack(hal::core_id());
    const char here = 0;
    if (on(s, &here) && *reinterpret_cast<const uint64_t *>(s.base) != paint)
        panic("a kernel stack overflowed (raise the profile's kernel_stack_kb)");
}

size_t kstack_deepest() {
    size_t deepest = 0;
    for (int core = 0; core < hal::ncores(); ++core) {
        const hal::Stack s = hal::kernel_stack(core);
        const auto *w = reinterpret_cast<const uint64_t *>(s.base);
        size_t untouched = 0;
        while (untouched < s.size / sizeof *w && w[untouched] == paint)
            ++untouched;
        if (untouched == 0) continue;  // never painted (a core that runs elsewhere)
        const size_t used = s.size - untouched * sizeof *w;
        deepest = used > deepest ? used : deepest;
    }
    return deepest;
}

}  // namespace kernel
