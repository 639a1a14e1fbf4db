// RISC-V privileged-architecture definitions used by the qemu-riscv64 HAL
// (RISC-V privileged spec 1.12, chapter 4: supervisor level, Sv39).
#pragma once

#include <stdint.h>

namespace hal::rv {

#define HAL_CSR_READ(name)                          \
    ({                                              \
        uint64_t v_;                                \
        asm volatile("csrr %0, " #name : "=r"(v_)); \
        v_;                                         \
    })
#define HAL_CSR_WRITE(name, v) asm volatile("csrw " #name ", %0" ::"r"((uint64_t)(v)))
#define HAL_CSR_SET(name, v)   asm volatile("csrs " #name ", %0" ::"r"((uint64_t)(v)))
#define HAL_CSR_CLEAR(name, v) asm volatile("csrc " #name ", %0" ::"r"((uint64_t)(v)))

// sstatus (4.1.1)
constexpr uint64_t sstatus_sie = 1ull << 1;
constexpr uint64_t sstatus_spie = 1ull << 5;
constexpr uint64_t sstatus_spp = 1ull << 8;
constexpr uint64_t sstatus_fs_initial = 1ull << 13;
constexpr uint64_t sstatus_fs = 3ull << 13;
constexpr uint64_t sstatus_sum = 1ull << 18;

// sie / sip (4.1.3)
constexpr uint64_t sie_ssie = 1ull << 1;
constexpr uint64_t sie_stie = 1ull << 5;

// scause (4.1.9)
constexpr uint64_t scause_interrupt = 1ull << 63;
constexpr uint64_t cause_ecall_user = 8;
constexpr uint64_t cause_fetch_page_fault = 12;
constexpr uint64_t cause_load_page_fault = 13;
constexpr uint64_t cause_store_page_fault = 15;
constexpr uint64_t irq_supervisor_timer = 5;

// Sv39 page-table entries (4.4.1)
constexpr uint64_t pte_v = 1, pte_r = 2, pte_w = 4, pte_x = 8, pte_u = 16, pte_g = 32, pte_a = 64,
                   pte_d = 128;
constexpr uint64_t satp_sv39 = 8ull << 60;

}  // namespace hal::rv
