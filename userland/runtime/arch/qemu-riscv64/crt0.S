/*
 * Entry points of a user program. The kernel starts a thread with only sp
 * (and a0 for new threads) set: gp and tp are ours to set before any C code
 * runs. gp is loaded without relaxation, or the linker would turn the load
 * into a gp-relative one that reads gp before it is set.
 */

    .section .text.start, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    lla     gp, __global_pointer$
    .option pop
    li      fp, 0
    li      ra, 0
    call    ts__start           /* TLS, job info, constructors, ranks */
1:  j       1b                  /* ts__start never returns */
    .size _start, . - _start

    .text
/* void ts__thread_entry(struct ts__thread_start *s): TS_SYS_THREAD_CREATE's
 * entry for every runtime thread. s->tls (offset 0) becomes tp. */
    .globl ts__thread_entry
    .type ts__thread_entry, @function
ts__thread_entry:
    .option push
    .option norelax
    lla     gp, __global_pointer$
    .option pop
    ld      tp, 0(a0)
    li      fp, 0
    li      ra, 0
    call    ts__thread_main
1:  j       1b
    .size ts__thread_entry, . - ts__thread_entry
