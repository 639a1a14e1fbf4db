/*
 * A stand-in kernel for tools/tests: OpenSBI's boot hart enters _start_boot
 * on cluster 0; Tessera's firmware enters every cluster's image at its
 * entry (_start_boot too), and all but cluster 0's sleep. It prints "[kernel] stub <argv[0]>", then each user argument
 * on a line of its own, and powers off through the virt test finisher with
 * exit status = number of user arguments. An argument starting with '@'
 * makes it hang instead (to test mpirun's timeout).
 */
#define UART    0x10000000      /* QEMU virt 16550 */
#define FINISH  0x100000        /* QEMU virt test finisher */
/* From include/tessera/image.h, as tools/tessera_abi.py reads it:
 * test_stub_boot.py assembles this file with -DTS_IMAGE_MAGIC=...
 * -DARGS_SIZE=offsetof(struct ts_manifest, args_size) -DARGS=offsetof(..., args).
 * The job's one application's argv fills args_size bytes of args. */
#if !defined(TS_IMAGE_MAGIC) || !defined(ARGS_SIZE) || !defined(ARGS)
#error "assemble with the -D flags of tools/tests/test_stub_boot.py"
#endif

/* struct ts_image_header (include/tessera/image.h). OpenSBI enters the
 * image at its base, so code0 is a jump. */
    .section .header, "ax"
stub_header:
    .option push
    .option norvc
    j       _start_boot         /* code0 */
    .option pop
    .4byte  TS_IMAGE_MAGIC
    .4byte  CLUSTER_ID
    .4byte  FIRST_HART
    .8byte  _start_boot         /* entry */
    .8byte  __image_end
    .8byte  __payload_start     /* manifest */
    .8byte  WINDOW_BASE

    .section .text.entry, "ax"
    .globl _start_boot
_start_boot:
    la      t0, stub_header
    lwu     t0, 8(t0)           /* cluster_id */
    bnez    t0, hang
    la      sp, stack_top
    la      a0, banner
    call    puts
    la      s0, __payload_start
    lwu     s1, ARGS_SIZE(s0)
    li      t0, ARGS            /* may exceed addi's 12 bits */
    add     a0, s0, t0
    add     s1, a0, s1          /* the end of the argv strings */
    call    puts                /* argv[0] ends the "[kernel]" line */
    call    newline
    li      s2, 0               /* user arguments seen */
    li      s3, 0               /* 1: hang at the end */
1:  bgeu    a0, s1, 2f
    lbu     t0, 0(a0)
    li      t1, '@'
    bne     t0, t1, 3f
    li      s3, 1
3:  call    puts
    call    newline
    addi    s2, s2, 1
    j       1b
2:  bnez    s3, hang
    slli    t0, s2, 16
    li      t1, 0x3333          /* FINISHER_FAIL | code << 16 */
    or      t0, t0, t1
    li      t1, FINISH
    sw      t0, 0(t1)
hang:
    wfi
    j       hang

/* Prints the NUL-terminated string at a0; returns a0 just past its NUL. */
puts:
    li      t0, UART
1:  lbu     t1, 0(a0)
    addi    a0, a0, 1
    beqz    t1, 2f
    sb      t1, 0(t0)
    j       1b
2:  ret

/* Prints a newline; keeps a0. */
newline:
    li      t0, UART
    li      t1, '\n'
    sb      t1, 0(t0)
    ret

banner:
    .asciz  "[kernel] stub "

    .section .bss
    .balign 16
    .space  4096
stack_top:
