# linux64 HAL: the kernel call gate, the way back to user code, cores.
# %gs points at the running core's CoreState (linux.hpp):
#   %gs:0 = the user thread's TrapFrame, %gs:8 = kernel stack top,
#   %gs:16 = 1 while in user code, %gs:32 = the core's event word.
# TrapFrame offsets (hal/arch.hpp): rbx 0, rbp 8, r12 16, r13 24, r14 32,
# r15 40, sp 48, pc 56, rax 64, rdi 72, rsi 80, rdx 88, rcx 96, r8 104,
# resume_uc 112.

    .text
# long hal_gate(long number, long a0, long a1, long a2, long a3): user code
# calls it on its own stack. It saves what the caller expects kept, and
# enters the kernel on this core's kernel stack; enter_user comes back
# through hal_user_return with the result in rax.
    .globl hal_gate
    .type hal_gate, @function
hal_gate:
    movq $0, %gs:16
    movq %gs:0, %rax
    movq %rbx, 0(%rax)
    movq %rbp, 8(%rax)
    movq %r12, 16(%rax)
    movq %r13, 24(%rax)
    movq %r14, 32(%rax)
    movq %r15, 40(%rax)
    popq %r11
    movq %r11, 56(%rax)
    movq %rsp, 48(%rax)
    movq %rdi, 72(%rax)
    movq %rsi, 80(%rax)
    movq %rdx, 88(%rax)
    movq %rcx, 96(%rax)
    movq %r8, 104(%rax)
    movq $0, 112(%rax)
    movq %gs:8, %rsp
    xorl %ebp, %ebp
    movq %rax, %rdi
    call hal_gate_trap           # does not return
    ud2
    .size hal_gate, . - hal_gate

# void hal_user_return(TrapFrame *tf): into user code with tf's registers.
# An event that came while the core ran kernel code sent no signal (the
# core was not in user code): as a RISC-V hart takes a pending IPI as soon
# as it is back in U-mode, the core takes it now, as an interrupt, with
# tf still holding every register it was to return with. (A signal that
# comes once %gs:16 is set resumes here through rt_sigreturn, and looks
# again.) rcx and rdx are free: neither a call's return nor a thread's
# start passes anything in them.
    .globl hal_user_return
    .type hal_user_return, @function
hal_user_return:
    movq 0(%rdi), %rbx
    movq 8(%rdi), %rbp
    movq 16(%rdi), %r12
    movq 24(%rdi), %r13
    movq 32(%rdi), %r14
    movq 40(%rdi), %r15
    movq 48(%rdi), %rsp
    movq 64(%rdi), %rax
    movq 80(%rdi), %rsi
    movq 56(%rdi), %r11
    movq 72(%rdi), %rdi
    movq $1, %gs:16
    movq %gs:32, %rcx
    xorl %edx, %edx
    xchgl %edx, (%rcx)           # a full barrier: in_user is set before the word is read (notify_core: the other way)
    testl %edx, %edx
    jnz 1f
    jmp *%r11
1:  movq $0, %gs:16
    movq %gs:0, %rdi
    movq %gs:8, %rsp
    xorl %ebp, %ebp
    call hal_pending_interrupt   # does not return
    ud2
    .size hal_user_return, . - hal_user_return

# void hal_resume_interrupted(uint64_t uc): back into the user code a
# signal interrupted, every register as it was: rt_sigreturn finds its
# frame just above the return address the handler would have popped.
    .globl hal_resume_interrupted
    .type hal_resume_interrupted, @function
hal_resume_interrupted:
    movq %rdi, %rsp
    movl $15, %eax               # SYS_rt_sigreturn
    syscall
    ud2
    .size hal_resume_interrupted, . - hal_resume_interrupted

# void hal_call_on_stack(uint64_t sp, void (*fn)(void *), void *arg)
    .globl hal_call_on_stack
    .type hal_call_on_stack, @function
hal_call_on_stack:
    movq %rdi, %rsp
    andq $-16, %rsp
    xorl %ebp, %ebp
    movq %rdx, %rdi
    call *%rsi                   # does not return
    ud2
    .size hal_call_on_stack, . - hal_call_on_stack

# long hal_clone_process(void *stack, void (*fn)(int), int arg): clone(2)
# of a core's process: no CLONE_VM (a memory of its own; shared mappings
# stay shared), the fd table and fs info shared, SIGCHLD to the parent
# when it ends; the child calls fn(arg) on `stack`, which is shared memory.
#define CLONE_CORE_FLAGS 0x40611   /* FS FILES SYSVSEM, exit signal SIGCHLD (17) */
    .globl hal_clone_process
    .type hal_clone_process, @function
hal_clone_process:
    andq $-16, %rdi
    subq $16, %rdi
    movq %rsi, 0(%rdi)           # fn and arg, for the child to pop
    movq %rdx, 8(%rdi)
    movq %rdi, %rsi              # the child's stack
    movl $CLONE_CORE_FLAGS, %edi
    xorl %edx, %edx
    xorl %r10d, %r10d
    xorl %r8d, %r8d
    movl $56, %eax               # SYS_clone
    syscall
    testq %rax, %rax
    jnz 1f
    popq %rax                    # the child: fn
    popq %rdi                    # arg
    xorl %ebp, %ebp
    call *%rax                   # does not return
    ud2
1:  ret
    .size hal_clone_process, . - hal_clone_process

# The signal return trampoline (sa_restorer) Linux requires on x86-64.
    .globl hal_sigreturn
    .type hal_sigreturn, @function
hal_sigreturn:
    movl $15, %eax               # SYS_rt_sigreturn
    syscall
    ud2
    .size hal_sigreturn, . - hal_sigreturn

    .section .note.GNU-stack, "", @progbits
