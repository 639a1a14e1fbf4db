# linux64: the cluster executable's entry. Linux starts it with rsp at
# argc, then argv[]; hal_linux_start (boot.cpp) never returns.
    .text
    .globl _start
    .type _start, @function
_start:
    xorl %ebp, %ebp
    movq (%rsp), %rdi            # argc
    leaq 8(%rsp), %rsi           # argv
    andq $-16, %rsp
    call hal_linux_start
    ud2
    .size _start, . - _start

    .section .note.GNU-stack, "", @progbits
