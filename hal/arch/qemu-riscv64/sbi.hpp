// Calls into the M-mode firmware (Tessera's own, or OpenSBI), RISC-V SBI
// spec 1.0.
#pragma once

#include <stdint.h>

namespace hal::sbi {

/// Result of an SBI call (SBI spec 3: a0 = error, a1 = value).
struct Ret {
    long error;
    long value;
};

// Extension ids (SBI spec 4, 5, 6, 9) and error codes (spec 3).
constexpr long ext_legacy_putchar = 0x01, ext_base = 0x10, ext_time = 0x54494D45, ext_ipi = 0x735049,
               ext_hsm = 0x48534D;
constexpr long success = 0, err_not_supported = -2, err_invalid_param = -3, err_invalid_address = -5,
               err_already_available = -6;
/// Tessera's firmware's implementation id (firmware/sbi.cpp).
constexpr long impl_tessera = 0x54455353;

/// Any SBI call: extension `ext`, function `fid`, arguments a0..a2.
Ret call(long ext, long fid, unsigned long a0 = 0, unsigned long a1 = 0, unsigned long a2 = 0);

/// Starts a stopped hart at `start` (S-mode, MMU off) with a0 = hartid,
/// a1 = opaque (HSM extension, SBI spec 9.1).
Ret hart_start(unsigned long hartid, uintptr_t start, unsigned long opaque);
/// Stops the calling hart (SBI spec 9.2).
[[noreturn]] void hart_stop();
/// Programs the calling hart's timer (TIME extension, SBI spec 6.1).
void set_timer(uint64_t stime);

/// Checks what the firmware answers to SBI calls (base, HSM, TIME and
/// calls it must refuse) and prints one "[kernel] sbi check: ..." line,
/// plus one per failed check. For the platform's tests
/// (TS_MANIFEST_PLATFORM_TESTS); run by cluster 0's master before its
/// other cores start. sbi_check.cpp.
void self_check();

}  // namespace hal::sbi
