/* The linux64 side of the runtime's private interfaces (internal.h): the
 * thread pointer is %fs's base, whose first word (the TCB's) holds its own
 * address (x86-64 TLS variant II). */
#ifndef TS_RUNTIME_ARCH_H
#define TS_RUNTIME_ARCH_H

#include <stdint.h>

/* The calling thread's thread pointer (%fs:0). */
static inline uintptr_t ts__thread_pointer(void) {
    uintptr_t tp;
    __asm__("movq %%fs:0, %0" : "=r"(tp));
    return tp;
}

/* Where a frame's record {the caller's frame pointer, the return address}
 * lies, from the frame pointer (x86-64: %rbp points at the record). */
#define TS__FRAME_RECORD_OFFSET 0

#endif
