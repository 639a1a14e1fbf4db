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

/* Where a frame's record {the caller's frame pointer, the return address}
 * lies, from the frame pointer (RISC-V: s0 points just above the record). */
#define TS__FRAME_RECORD_OFFSET (-16)

#endif
