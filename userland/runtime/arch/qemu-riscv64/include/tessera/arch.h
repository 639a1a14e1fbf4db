/*
 * The qemu-riscv64 side of the user ABI, for the runtime and for tests and
 * benchmarks that need the raw machine: the kernel call (ecall), the
 * counters, and deliberate faults. Every platform's <tessera/arch.h>
 * defines the same functions.
 */
#ifndef TESSERA_ARCH_H
#define TESSERA_ARCH_H

/* A raw kernel call (<tessera/syscall.h> numbers): a7 = number, a0..a3 =
 * arguments, a0 = result (negative: -TS_E*). No caching, no checks. */
static inline long ts_arch_kcall(long number, long a0, long a1, long a2, long a3) {
    register long r0 __asm__("a0") = a0;
    register long r1 __asm__("a1") = a1;
    register long r2 __asm__("a2") = a2;
    register long r3 __asm__("a3") = a3;
    register long r7 __asm__("a7") = number;
    __asm__ volatile("ecall" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r3), "r"(r7) : "memory");
    return r0;
}

/* A raw kernel call with all six argument registers a0..a5 set from a[];
 * regs_after[0..5] and *number_after get what a0..a5 and a7 hold after it
 * (the kernel must keep all but a0). Returns the result. */
static inline long ts_arch_kcall_regs(unsigned long number, const unsigned long a[6],
                                      unsigned long regs_after[6], unsigned long *number_after) {
    register unsigned long r0 __asm__("a0") = a[0];
    register unsigned long r1 __asm__("a1") = a[1];
    register unsigned long r2 __asm__("a2") = a[2];
    register unsigned long r3 __asm__("a3") = a[3];
    register unsigned long r4 __asm__("a4") = a[4];
    register unsigned long r5 __asm__("a5") = a[5];
    register unsigned long r7 __asm__("a7") = number;
    __asm__ volatile("ecall"
                     : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r7)
                     :
                     : "memory");
    regs_after[0] = r0;
    regs_after[1] = r1;
    regs_after[2] = r2;
    regs_after[3] = r3;
    regs_after[4] = r4;
    regs_after[5] = r5;
    *number_after = r7;
    return (long)r0;
}

/* The time since the machine started, in ticks of ts_job()->timebase_hz:
 * the `time` CSR (the kernel enables U-mode reads, scounteren.TM). */
static inline unsigned long ts_arch_time(void) {
    unsigned long t;
    __asm__ volatile("rdtime %0" : "=r"(t));
    return t;
}

/* The CPU's cycle counter (the `cycle` CSR, scounteren.CY). */
static inline unsigned long ts_arch_cycles(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

/* Executes an illegal instruction (all-zero bits): a user fault. */
static inline void ts_arch_illegal_instruction(void) { __asm__ volatile(".word 0x00000000"); }

/* An atomic access at the misaligned address p, which the CPU refuses: a
 * load-reserved (unprivileged spec 8.2: a misaligned LR raises a load
 * address misaligned exception; plain loads and stores may be misaligned).
 * Returns the value read if it ever completes. */
static inline int ts_arch_misaligned_atomic(void *p) {
    int value;
    __asm__ volatile("lr.w %0, (%1)" : "=r"(value) : "r"(p) : "memory");
    return value;
}

#endif
