# Entry and trap vector of Tessera's M-mode firmware (qemu-riscv64).
# QEMU's reset ROM sends every hart here, at TS_FW_BASE, with a0 = hartid and
# a1 = the device tree. Each hart gets its own M-mode stack; mscratch holds
# its top, where the trap vector saves the interrupted registers.

#define STACK_SIZE 2048     /* fw::stack_size */
#define MAX_HARTS 512       /* TS_FW_MAX_HARTS */
#define FRAME 256           /* fw::TrapFrame: x0..x31 */

    .section .text.entry, "ax"
    .globl _start
_start:
    csrw mie, zero
    la t0, fw_trap_vector
    csrw mtvec, t0
    li t0, MAX_HARTS
    bgeu a0, t0, 2f              # a hart the firmware has no stack for
    la sp, fw_stacks
    addi t0, a0, 1
    li t1, STACK_SIZE
    mul t0, t0, t1
    add sp, sp, t0
    csrw mscratch, sp
    call fw_main                 # does not return
2:  wfi
    j 2b

# Back to the top of the calling hart's stack and into the wait for
# hart_start: for hart_stop, which leaves the trap it came in by.
# a0 = hartid.
    .globl fw_park
fw_park:
    csrr sp, mscratch
    call fw_wait_for_start       # does not return

# Returns 1 when the hart has the stimecmp CSR (Sstc), else 0. QEMU 7.2
# lets menvcfg.STCE be set even on harts without Sstc, so the CSR itself is
# tried: without it the read traps (illegal instruction) to label 1 below,
# set as mtvec for the moment.
    .globl fw_has_stimecmp
fw_has_stimecmp:
    csrr t2, mtvec
    la t0, 1f
    csrw mtvec, t0
    li a0, 1
    csrr t1, stimecmp
    j 2f
    .align 2
1:  li a0, 0
2:  csrw mtvec, t2
    ret

# Traps from S- and U-mode (ecall, and the machine timer when the harts
# have no Sstc). The frame goes just below the top of the stack.
    .align 4
    .globl fw_trap_vector
fw_trap_vector:
    csrrw sp, mscratch, sp       # sp = the stack's top, mscratch = the old sp
    addi sp, sp, -FRAME
    sd x1, 8(sp)
    sd x3, 24(sp)
    sd x4, 32(sp)
    sd x5, 40(sp)
    sd x6, 48(sp)
    sd x7, 56(sp)
    sd x8, 64(sp)
    sd x9, 72(sp)
    sd x10, 80(sp)
    sd x11, 88(sp)
    sd x12, 96(sp)
    sd x13, 104(sp)
    sd x14, 112(sp)
    sd x15, 120(sp)
    sd x16, 128(sp)
    sd x17, 136(sp)
    sd x18, 144(sp)
    sd x19, 152(sp)
    sd x20, 160(sp)
    sd x21, 168(sp)
    sd x22, 176(sp)
    sd x23, 184(sp)
    sd x24, 192(sp)
    sd x25, 200(sp)
    sd x26, 208(sp)
    sd x27, 216(sp)
    sd x28, 224(sp)
    sd x29, 232(sp)
    sd x30, 240(sp)
    sd x31, 248(sp)
    csrr t0, mscratch
    sd t0, 16(sp)                # the interrupted sp
    addi t0, sp, FRAME
    csrw mscratch, t0            # the top again, for the next trap
    mv a0, sp
    call fw_trap
    ld x1, 8(sp)
    ld x3, 24(sp)
    ld x4, 32(sp)
    ld x5, 40(sp)
    ld x6, 48(sp)
    ld x7, 56(sp)
    ld x8, 64(sp)
    ld x9, 72(sp)
    ld x10, 80(sp)
    ld x11, 88(sp)
    ld x12, 96(sp)
    ld x13, 104(sp)
    ld x14, 112(sp)
    ld x15, 120(sp)
    ld x16, 128(sp)
    ld x17, 136(sp)
    ld x18, 144(sp)
    ld x19, 152(sp)
    ld x20, 160(sp)
    ld x21, 168(sp)
    ld x22, 176(sp)
    ld x23, 184(sp)
    ld x24, 192(sp)
    ld x25, 200(sp)
    ld x26, 208(sp)
    ld x27, 216(sp)
    ld x28, 224(sp)
    ld x29, 232(sp)
    ld x30, 240(sp)
    ld x31, 248(sp)
    ld sp, 16(sp)
    mret

    .bss
    .align 12
    .globl fw_stacks
fw_stacks:
    .space STACK_SIZE * MAX_HARTS
