# Entry points of a cluster image, its header, and the trap path.
# Register use in S-mode: tp = this core's index in its cluster;
# sscratch = the running user thread's TrapFrame while in U-mode, 0 in S-mode.

#define TF_PC 256
#define TF_KSP 264
#define TF_KTP 272

# struct ts_image_header (<tessera/image.h>), checked by the boot hart.
    .section .header, "ax"
    .globl __image_header
__image_header:
    .option push
    .option norvc
    j _start_boot               # code0: OpenSBI enters here
    .option pop
    .4byte 0x53534554           # TS_IMAGE_MAGIC
    .4byte CLUSTER_ID
    .4byte FIRST_HART
    .8byte _start_core
    .8byte __image_end
    .8byte __payload_start
    .8byte WINDOW_BASE

    .section .text.entry, "ax"
# OpenSBI's boot hart enters cluster 0's image here: a0 = hartid, a1 = dtb.
    .globl _start_boot
_start_boot:
    csrw sie, zero
    csrw sscratch, zero
    la t0, hal_trap_vector       # a fault while booting panics with a report
    csrw stvec, t0
    la sp, boot_stack + 4096
    call hal_boot                # does not return

# Every core of a cluster starts here, a0 = hartid: its master (started by
# the boot hart) and its other cores (started by the master). The core's
# index comes from the hart id alone, so a1 (SBI's opaque) is not needed.
    .globl _start_core
_start_core:
    csrw sie, zero
    csrw sscratch, zero
    la t0, __image_header
    lwu t0, 12(t0)               # ts_image_header.first_hart
    sub a1, a0, t0
    mv tp, a1
    la sp, kernel_stacks         # build/kernel.ld: KERNEL_STACK_SIZE bytes a core
    addi t0, a1, 1
    ld t1, kernel_stack_size
    mul t0, t0, t1
    add sp, sp, t0
    mv a0, a1
    call hal_core_start          # does not return

# Returns 1 when S-mode may write the stimecmp CSR (Sstc, and the firmware
# set menvcfg.STCE), else 0: the read traps (illegal instruction) to label 1
# below, stvec for the moment. The trap leaves sstatus.SIE 0 (it was) and
# sets SPP, which enter_user clears.
    .globl hal_has_stimecmp
hal_has_stimecmp:
    csrr t2, stvec
    la t0, 1f
    csrw stvec, t0
    li a0, 1
    csrr t1, stimecmp
    j 2f
    .align 2
1:  li a0, 0
2:  csrw stvec, t2
    ret

# Jumps to an image's entry: a0 = entry, a1/a2 = its a0/a1.
    .globl hal_jump
hal_jump:
    mv t0, a0
    mv a0, a1
    mv a1, a2
    jr t0

    .text
    .align 4
    .globl hal_trap_vector
hal_trap_vector:
    csrrw sp, sscratch, sp
    beqz sp, 1f                  # sscratch was 0: the trap came from S-mode
    .irp r, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    sd x\r, (\r * 8)(sp)
    .endr
    csrr t0, sscratch
    sd t0, 16(sp)                # the user's sp
    csrw sscratch, zero
    csrr t0, sepc
    sd t0, TF_PC(sp)
    mv a0, sp
    ld tp, TF_KTP(sp)
    ld sp, TF_KSP(sp)
    call hal_user_trap           # does not return
1:  csrrw sp, sscratch, sp       # back to the kernel's sp, sscratch = 0
    call hal_kernel_trap         # a kernel fault: panic, does not return

# Returns to U-mode with the registers of the TrapFrame in a0.
    .globl hal_user_return
hal_user_return:
    csrw sscratch, a0
    ld t0, TF_PC(a0)
    csrw sepc, t0
    .irp r, 1,2,3,4,5,6,7,8,9,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,10
    ld x\r, (\r * 8)(a0)
    .endr
    sret

# The profile's kernel stack size (bytes), which the image's linker script
# defines.
    .section .rodata
    .balign 8
    .globl kernel_stack_size
kernel_stack_size:
    .8byte KERNEL_STACK_SIZE

    .bss
    .align 12
boot_stack:
    .space 4096
