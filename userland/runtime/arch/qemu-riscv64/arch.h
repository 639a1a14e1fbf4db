/* The qemu-riscv64 side of the runtime's private interfaces (internal.h):
 * the thread pointer is tp. */
#ifndef TS_RUNTIME_ARCH_H
#define TS_RUNTIME_ARCH_H

#include <stdint.h>

/* The calling thread's thread pointer (tp). */
static inline uintptr_t ts__thread_pointer(void) {
    uintptr_t tp;
    __asm__("mv %0, tp" : "=r"(tp));
    return tp;
}

#endif
