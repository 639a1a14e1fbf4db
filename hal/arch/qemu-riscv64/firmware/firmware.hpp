// Tessera's M-mode firmware for QEMU's `virt` machine: what its parts share.
// It starts every hart, checks the cluster images, enters each cluster's
// master in S-mode, serves the few SBI calls the kernel makes (sbi.cpp) and
// confines each hart to its cluster with PMP (pmp.cpp).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <tessera/firmware.h>

#define FW_CSR_READ(name)                           \
    ({                                              \
        uint64_t v_;                                \
        asm volatile("csrr %0, " #name : "=r"(v_)); \
        v_;                                         \
    })
#define FW_CSR_WRITE(name, v) asm volatile("csrw " #name ", %0" ::"r"((uint64_t)(v)))
#define FW_CSR_SET(name, v)   asm volatile("csrs " #name ", %0" ::"r"((uint64_t)(v)))
#define FW_CSR_CLEAR(name, v) asm volatile("csrc " #name ", %0" ::"r"((uint64_t)(v)))

namespace fw {

constexpr size_t stack_size = 2048;  // entry.S: STACK_SIZE

// mstatus, mie/mip (RISC-V privileged spec 1.12, 3.1.6 and 3.1.9).
constexpr uint64_t mstatus_mpp_mask = 3ull << 11, mstatus_mpp_s = 1ull << 11;
constexpr uint64_t mstatus_mpie = 1ull << 7, mstatus_fs_initial = 1ull << 13;
constexpr uint64_t irq_ssi = 1ull << 1, irq_msi = 1ull << 3, irq_sti = 1ull << 5, irq_mti = 1ull << 7,
                   irq_sei = 1ull << 9;
constexpr uint64_t cause_interrupt = 1ull << 63;
constexpr uint64_t cause_ecall_s = 9, cause_ecall_u = 8;

/// The registers of a trapped hart, x0..x31 (entry.S saves them).
struct TrapFrame {
    uint64_t x[32];
};

/// The image builder's table (TS_FW_TABLE_ADDR).
inline const ts_fw_table &table() {
    return *reinterpret_cast<const ts_fw_table *>(uintptr_t{TS_FW_TABLE_ADDR});
}

/// The cluster that owns `hart`, or nullptr.
const ts_fw_cluster *cluster_of(unsigned long hart);

/// A hart's HSM state, as SBI spec 9 numbers it.
enum HartState : uint32_t { started = 0, stopped = 1, start_pending = 2, stop_pending = 3 };

/// HSM hart_start's work: move `hart` from stopped to start_pending and
/// wake it; it enters S-mode at `addr` with a0 = hart, a1 = opaque. Returns
/// false when the hart is not stopped.
bool start(unsigned long hart, uint64_t addr, uint64_t opaque);
/// HSM hart_stop's work: the calling hart waits in M-mode for a new
/// hart_start (it is stop_pending until it waits, then stopped).
[[noreturn]] void stop(unsigned long hart);
/// A hart's HSM state.
HartState state_of(unsigned long hart);
/// True when the harts have Sstc (menvcfg.STCE took): S-mode's timer is
/// stimecmp, no trip through M-mode's timer.
bool has_sstc();

/// Sets the calling hart's PMP for S- and U-mode: its cluster's window,
/// the fabric and the devices the HAL uses (virt.hpp); nothing else.
void set_pmp(const ts_fw_cluster &c);

/// Serves an ecall from S-mode (SBI spec 3: a7 extension, a6 function,
/// a0..a5 arguments; a0 error, a1 value back).
void sbi_call(TrapFrame &tf, unsigned long hart);

/// Writes text to the UART (no lock: only the boot hart writes before any
/// kernel runs, and a dying firmware after).
void say(const char *s);
void say_number(uint64_t n, unsigned base = 10);
/// Ends QEMU with `status` through the test finisher.
[[noreturn]] void poweroff(int status);

}  // namespace fw
