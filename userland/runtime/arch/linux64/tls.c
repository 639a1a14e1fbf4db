/* TLS on linux64, x86-64 variant II (the local-exec model the linker
 * resolves): a thread's area is its TLS block (.tdata then .tbss, rounded
 * up to the TLS alignment) followed by a TCB; the thread pointer (%fs
 * base) is the TCB's address and the TCB's first word holds it, so
 * `movq %fs:0` gives the thread pointer. Every variable sits at a negative
 * offset from it. user.ld provides the template symbols. */
#include <string.h>

#include "../../internal.h"

/* user.ld: the template (in rodata) and the block's size and alignment. */
extern char __tdata_source[], __tdata_size[], __tbss_offset[], __tbss_size[];
extern char __tls_block_size[], __tls_align[];

/* The TCB. The words after self are zero (gcc's stack protector would read
 * %fs:0x28; user code is built without it, but the slot stays defined). */
struct ts__tcb {
    struct ts__tcb *self;
    uintptr_t reserved[7];
};

size_t ts__tls_area_size(void) { return (size_t)__tls_block_size + sizeof(struct ts__tcb); }

size_t ts__tls_area_align(void) {
    size_t align = (size_t)__tls_align;
    return align > _Alignof(struct ts__tcb) ? align : _Alignof(struct ts__tcb);
}

void *ts__tls_init(void *area) {
    char *block = area;
    memcpy(block, __tdata_source, (size_t)__tdata_size);
    memset(block + (size_t)__tbss_offset, 0, (size_t)__tbss_size);
    struct ts__tcb *tcb = (struct ts__tcb *)(block + (size_t)__tls_block_size);
    memset(tcb, 0, sizeof *tcb);
    tcb->self = tcb;
    return tcb;
}

/* Linux's arch_prctl(ARCH_SET_FS, tp) (raw system call 158): the user ABI's
 * stand-in for RISC-V's `mv tp, x`. A refusal leaves no way to run C code
 * that uses TLS, so it is a fault (ud2). */
void ts__tls_set(void *tp) {
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "0"(158L), "D"(0x1002L /* ARCH_SET_FS */), "S"(tp)
                     : "rcx", "r11", "memory");
    if (r != 0) __builtin_trap();
}

_Static_assert(sizeof(struct ts__tcb) == 64, "user.ld reserves 64 bytes for the main thread's TCB");
