// Calls into the SBI firmware (OpenSBI), RISC-V SBI spec 1.0.
#pragma once

#include <stdint.h>

namespace hal::sbi {

/// Result of an SBI call (SBI spec 3: a0 = error, a1 = value).
struct Ret {
    long error;
    long value;
};

/// Starts a stopped hart at `start` (S-mode, MMU off) with a0 = hartid,
/// a1 = opaque (HSM extension, SBI spec 9.1).
Ret hart_start(unsigned long hartid, uintptr_t start, unsigned long opaque);
/// Stops the calling hart (SBI spec 9.2).
[[noreturn]] void hart_stop();
/// Programs the calling hart's timer (TIME extension, SBI spec 6.1).
void set_timer(uint64_t stime);

}  // namespace hal::sbi
