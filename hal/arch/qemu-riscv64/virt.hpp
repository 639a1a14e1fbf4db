// The devices of QEMU's `virt` machine that the qemu-riscv64 HAL uses
// (hw/riscv/virt.c). The kernel space maps each of them (mmu.cpp).
#pragma once

#include <stdint.h>

namespace hal::virt {

/// The NS16550A UART: the console.
constexpr uintptr_t uart_base = 0x10000000;
/// The test finisher (hw/misc/sifive_test.c): ends QEMU with a status.
constexpr uintptr_t finisher_base = 0x100000;
/// The ACLINT SSWI (`-machine virt,aclint=on`): one 4-byte register per
/// hart at sswi_base + 4 * hart; writing 1 raises that hart's supervisor
/// software interrupt (ACLINT spec 1.0, section 4), with no trip through
/// M-mode as an SBI IPI takes.
constexpr uintptr_t sswi_base = 0x2F00000;
constexpr uintptr_t sswi_size = 0x4000;  ///< 4096 harts

/// Raises the supervisor software interrupt (sip.SSIP) of `hart`.
inline void raise_ssip(unsigned long hart) { reinterpret_cast<volatile uint32_t *>(sswi_base)[hart] = 1; }

}  // namespace hal::virt
