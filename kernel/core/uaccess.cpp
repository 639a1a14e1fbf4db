// Checked access to the calling thread's user memory. The kernel runs with
// sstatus.SUM set and the thread's address space active, so after the
// check it reads and writes user addresses directly.
#include <string.h>

#include "kernel/core.hpp"

namespace kernel {

namespace {

// Where p's private area starts in its alias; 0 when it has none.
uintptr_t alias_of(const Process *p) {
    return p->aliased && p->local >= 0
               ? rank_alias_base + static_cast<uintptr_t>(p->local) * hal::alias_area_size
               : 0;
}

// The private address of va when it is in p's own alias (kernel_view's
// answer), else va.
uintptr_t private_address(const Process *p, uintptr_t va) {
    const uintptr_t own = alias_of(p);
    return own && va >= own && va - own < hal::alias_area_size ? user_base + (va - own) : va;
}

}  // namespace

long check_user(uintptr_t va, size_t len, bool write) {
    if (len == 0) return 0;
    if (!in_user_space(va, len)) return -TS_EFAULT;
    Process *p = current_process();
    if (!p) return -TS_EFAULT;
    const unsigned need = hal::perm_user | hal::perm_r | (write ? hal::perm_w : 0);
    for (uintptr_t page = va & ~(hal::page_size - 1); page < va + len; page += hal::page_size) {
        unsigned perms = 0;
        // A buffer in the part of a stack no thread has touched yet is as
        // good as touched (grow_stack; or another thread grew it meanwhile).
        if (!p->space.lookup(page, &perms)) {
            grow_stack(p, private_address(p, page));
            p->space.lookup(page, &perms);
        }
        if ((perms & need) != need) return -TS_EFAULT;
    }
    return 0;
}

long copy_from_user(void *dst, uintptr_t src, size_t len) {
    if (long err = check_user(src, len, false)) return err;
    memcpy(dst, reinterpret_cast<const void *>(kernel_view(src)), len);
    return 0;
}

long copy_to_user(uintptr_t dst, const void *src, size_t len) {
    if (long err = check_user(dst, len, true)) return err;
    memcpy(reinterpret_cast<void *>(kernel_view(dst)), src, len);
    return 0;
}

uintptr_t kernel_view(uintptr_t va) {
    const Process *p = current_process();
    const uintptr_t own = hal::core_id() == 0 && p ? alias_of(p) : 0;
    return own && va >= user_base && va - user_base < hal::alias_area_size ? own + (va - user_base) : va;
}

}  // namespace kernel
