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
    .irp r, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    sd x\r, (\r * 8)(sp)
    .endr
    csrr t0, mscratch
    sd t0, 16(sp)                # the interrupted sp
    addi t0, sp, FRAME
    csrw mscratch, t0            # the top again, for the next trap
    mv a0, sp
    call fw_trap
    .irp r, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    ld x\r, (\r * 8)(sp)
    .endr
    ld sp, 16(sp)
    mret

    .bss
    .align 12
    .globl fw_stacks
fw_stacks:
    .space STACK_SIZE * MAX_HARTS
