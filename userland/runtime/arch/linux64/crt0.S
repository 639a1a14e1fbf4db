/*
 * Entry points of a linux64 user program. The kernel starts a thread with
 * rip = entry, rsp = a 16-byte aligned stack top (nothing pushed), rdi =
 * the argument and rsi = the kernel call gate; %fs is ours to set (with
 * ts__tls_set) before any C code that uses TLS runs.
 */

    .section .text.start, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    movq    %rsi, ts__kernel_gate(%rip)
    xorl    %ebp, %ebp
    call    ts__start           /* TLS, job info, constructors, ranks */
    ud2                         /* ts__start never returns */
    .size _start, . - _start

    .text
/* void ts__thread_entry(struct ts__thread_start *s): TS_SYS_THREAD_CREATE's
 * entry for every runtime thread. s->tls (offset 0) becomes the thread
 * pointer. */
    .globl ts__thread_entry
    .type ts__thread_entry, @function
ts__thread_entry:
    movq    %rdi, %rbx          /* callee-saved: survives ts__tls_set */
    movq    (%rdi), %rdi
    xorl    %ebp, %ebp
    call    ts__tls_set
    movq    %rbx, %rdi
    call    ts__thread_main
    ud2
    .size ts__thread_entry, . - ts__thread_entry

/* The kernel call gate (see <tessera/arch.h>). */
    .data
    .balign 8
    .globl ts__kernel_gate
    .type ts__kernel_gate, @object
ts__kernel_gate:
    .quad 0
    .size ts__kernel_gate, 8

    .section .note.GNU-stack, "", @progbits
