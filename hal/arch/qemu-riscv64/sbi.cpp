#include "sbi.hpp"

namespace hal::sbi {

Ret call(long ext, long fid, unsigned long a0, unsigned long a1, unsigned long a2) {
    register unsigned long r0 asm("a0") = a0;
    register unsigned long r1 asm("a1") = a1;
    register unsigned long r2 asm("a2") = a2;
    register long r6 asm("a6") = fid;
    register long r7 asm("a7") = ext;
    asm volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r2), "r"(r6), "r"(r7) : "memory");
    return {static_cast<long>(r0), static_cast<long>(r1)};
}

Ret hart_start(unsigned long hartid, uintptr_t start, unsigned long opaque) {
    return call(ext_hsm, 0, hartid, start, opaque);
}

void hart_stop() {
    call(ext_hsm, 1);
    for (;;)
        asm volatile("wfi");
}

void set_timer(uint64_t stime) { call(ext_time, 0, stime); }

}  // namespace hal::sbi
