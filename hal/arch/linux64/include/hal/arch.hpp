// What the kernel sees of a linux64 user thread's registers. User code
// enters the kernel through a call gate (entry.S, hal_gate): a plain System
// V call `long gate(number, a0, a1, a2, a3)` that saves the registers a
// function must keep, and leaves for the kernel's stack. So the frame holds
// those registers, the stack and return address, and the call's arguments.
#pragma once

#include <stdint.h>

extern "C" char hal_gate[];  // entry.S

namespace hal {

/// A user thread's registers at its last kernel entry (entry.S knows the
/// offsets). At a thread's start, rdi is its argument and rsi the gate.
struct TrapFrame {
    uint64_t rbx, rbp, r12, r13, r14, r15;  ///< callee-saved (System V)
    uint64_t sp;                            ///< rsp after the gate returns
    uint64_t pc;                            ///< where the gate returns to
    uint64_t rax;                           ///< the call's result
    uint64_t rdi;                           ///< the call number
    uint64_t rsi, rdx, rcx, r8;             ///< its arguments a0..a3
    /// Not 0 when the thread was interrupted or faulted in user code (a
    /// signal, see trap.cpp) rather than calling the gate: the signal
    /// context (ucontext_t) to resume it from, with every register.
    uint64_t resume_uc;
};

/// The ELF machine of user programs (EM_X86_64).
constexpr uint16_t user_elf_machine = 62;

/// Kernel call number and argument i (0..3) of a call through the gate.
inline uint64_t call_number(const TrapFrame &tf) { return tf.rdi; }
inline uint64_t call_arg(const TrapFrame &tf, int i) {
    const uint64_t args[4] = {tf.rsi, tf.rdx, tf.rcx, tf.r8};
    return args[i];
}
/// What the call returns to the thread.
inline void set_call_result(TrapFrame &tf, uint64_t v) { tf.rax = v; }
/// Where the thread was when it entered the kernel.
inline uint64_t trap_pc(const TrapFrame &tf) { return tf.pc; }
/// The thread's frame pointer (rbp; after a fault, its value there), the
/// head of its chain of frame records.
inline uint64_t frame_pointer(const TrapFrame &tf) { return tf.rbp; }
/// The thread's return-address register: x86-64 has none (a call pushes
/// the return address), so 0.
inline uint64_t link_register(const TrapFrame &) { return 0; }
/// Where a leaf that pushed nothing (saved no frame record) finds its
/// return address: the top of the stack.
inline uint64_t leaf_return_slot(const TrapFrame &tf) { return tf.sp; }
/// Where a function compiled with -fno-omit-frame-pointer keeps its frame
/// record {the caller's frame pointer, its return address}, from its frame
/// pointer: at it (the System V x86-64 frame: push rbp after the call).
constexpr int64_t frame_record_offset = 0;
/// A new thread's frame: it starts at pc on the stack top sp (16-byte
/// aligned, nothing pushed) with rdi = arg and rsi = the gate's address.
inline void new_thread_frame(TrapFrame &tf, uint64_t pc, uint64_t sp, uint64_t arg) {
    tf = {};
    tf.pc = pc;
    tf.sp = sp;
    tf.rdi = arg;
    tf.rsi = reinterpret_cast<uint64_t>(hal_gate);
}

}  // namespace hal
