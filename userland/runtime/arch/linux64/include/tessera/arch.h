/*
 * The linux64 side of the user ABI, for the runtime and for tests and
 * benchmarks that need the raw machine: the kernel call (through the gate
 * the kernel passes to _start in rsi), the clocks, and deliberate faults.
 * Every platform's <tessera/arch.h> defines the same functions.
 */
#ifndef TESSERA_ARCH_H
#define TESSERA_ARCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel call gate: a plain SysV function taking the call number and
 * four arguments, returning the result (negative: -TS_E*). crt0 stores
 * the address the kernel passed in rsi here before any C code runs. */
extern long (*ts__kernel_gate)(long number, long a0, long a1, long a2, long a3);

#ifdef __cplusplus
}
#endif

/* A raw kernel call (<tessera/syscall.h> numbers): no caching, no checks. */
static inline long ts_arch_kcall(long number, long a0, long a1, long a2, long a3) {
    return ts__kernel_gate(number, a0, a1, a2, a3);
}

/* A raw kernel call with six arguments a[0..5]; the gate passes the first
 * four (the kernel reads no more). The gate is a function call, so the
 * compiler keeps every register: regs_after[] gets a[] and *number_after
 * gets number, then regs_after[0] the result. Returns the result. */
static inline long ts_arch_kcall_regs(unsigned long number, const unsigned long a[6],
                                      unsigned long regs_after[6], unsigned long *number_after) {
    long r = ts_arch_kcall((long)number, (long)a[0], (long)a[1], (long)a[2], (long)a[3]);
    for (int i = 0; i < 6; ++i)
        regs_after[i] = a[i];
    regs_after[0] = (unsigned long)r;
    *number_after = number;
    return r;
}

/* The time in ns of ts_job()->timebase_hz (10^9): Linux's CLOCK_MONOTONIC,
 * read with the raw clock_gettime system call (228), the one clock the
 * user ABI allows. */
static inline unsigned long ts_arch_time(void) {
    struct {
        long sec, nsec;
    } t = {0, 0};
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "0"(228L), "D"(1L /* CLOCK_MONOTONIC */), "S"(&t)
                     : "rcx", "r11", "memory");
    (void)r;
    return (unsigned long)t.sec * 1000000000ul + (unsigned long)t.nsec;
}

/* The CPU's time-stamp counter (rdtsc): cycles at the TSC's fixed rate. */
static inline unsigned long ts_arch_cycles(void) {
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (unsigned long)hi << 32 | lo;
}

/* Executes an illegal instruction (ud2): a user fault (SIGILL). */
static inline void ts_arch_illegal_instruction(void) { __asm__ volatile("ud2"); }

/* An atomic access at the misaligned address p, which the CPU refuses:
 * cmpxchg16b needs a 16-byte aligned operand (else #GP, SIGSEGV); plain
 * loads, stores and smaller atomics may be misaligned on x86-64. Returns
 * the low word read if it ever completes. */
static inline int ts_arch_misaligned_atomic(void *p) {
    unsigned long lo = 0, hi = 0;
    __asm__ volatile("lock cmpxchg16b (%2)"
                     : "+a"(lo), "+d"(hi)
                     : "r"(p), "b"(0ul), "c"(0ul)
                     : "memory", "cc");
    return (int)lo;
}

#endif
