// What the kernel sees of a qemu-riscv64 user thread's registers: the trap
// frame that entry.S saves on every trap from U-mode, and how a kernel call
// and a new thread use it (RISC-V psABI; calls as with Linux: a7 = number,
// a0..a3 = arguments, a0 = result).
#pragma once

#include <stdint.h>

namespace hal {

/// Registers of a user thread, saved on every trap from U-mode. entry.S
/// knows the offsets of pc, kernel_sp and kernel_tp.
struct TrapFrame {
    uint64_t x[32];      ///< x[0] unused; x[2] = sp, x[10..17] = a0..a7
    uint64_t pc;         ///< sepc
    uint64_t kernel_sp;  ///< top of this core's kernel stack
    uint64_t kernel_tp;  ///< the kernel's tp on this core (its core id)
};

/// The ELF machine of user programs (EM_RISCV).
constexpr uint16_t user_elf_machine = 243;

/// Kernel call number and argument i (0..3) of a trapped call.
inline uint64_t call_number(const TrapFrame &tf) { return tf.x[17]; }
inline uint64_t call_arg(const TrapFrame &tf, int i) { return tf.x[10 + i]; }
/// What the call returns to the thread.
inline void set_call_result(TrapFrame &tf, uint64_t v) { tf.x[10] = v; }
/// Where the thread was when it trapped.
inline uint64_t trap_pc(const TrapFrame &tf) { return tf.pc; }
/// The thread's frame pointer (s0), the head of its chain of frame records.
inline uint64_t frame_pointer(const TrapFrame &tf) { return tf.x[8]; }
/// The thread's return-address register (ra): in a function that saved
/// no frame record (a leaf), the only trace of its caller. 0: none.
inline uint64_t link_register(const TrapFrame &tf) { return tf.x[1]; }
/// Where a leaf's return address is in memory: RISC-V keeps it in ra, so
/// nowhere (0).
inline uint64_t leaf_return_slot(const TrapFrame &) { return 0; }
/// Where a function compiled with -fno-omit-frame-pointer keeps its frame
/// record {the caller's frame pointer, its return address}, from its frame
/// pointer: right below it (GCC's RISC-V frame layout).
constexpr int64_t frame_record_offset = -16;
/// A new thread's frame: it starts at pc on the stack top sp with a0 = arg.
inline void new_thread_frame(TrapFrame &tf, uint64_t pc, uint64_t sp, uint64_t arg) {
    tf = {};
    tf.pc = pc;
    tf.x[2] = sp;
    tf.x[10] = arg;
}

}  // namespace hal
