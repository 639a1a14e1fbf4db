// The SBI calls the firmware serves (RISC-V SBI spec 1.0): exactly those the
// qemu-riscv64 HAL makes (hal/arch/qemu-riscv64/sbi.cpp: HSM hart_start,
// hart_stop, TIME set_timer), hart_get_status, and the base extension that
// lets a caller find out. Every other call answers SBI_ERR_NOT_SUPPORTED:
// the HAL raises IPIs itself through the ACLINT SSWI, writes the console's
// UART and powers off through the test finisher, so it needs no IPI, RFENCE,
// legacy console or SRST call.
#include "firmware.hpp"

namespace fw {
namespace {

// SBI spec 3: error codes.
constexpr long sbi_success = 0, err_not_supported = -2, err_invalid_param = -3, err_invalid_address = -5,
               err_already_available = -6;

// Extension ids (SBI spec 4, 6, 9).
constexpr long ext_base = 0x10, ext_time = 0x54494D45, ext_hsm = 0x48534D;

/// SBI spec 4.1: version 1.0 (major in bits 30..24).
constexpr long spec_version = 1l << 24;
/// Our implementation id: "TESS". SBI spec 4.9 lists registered ones
/// (OpenSBI is 1); this one is not registered: it names Tessera's firmware
/// to the self-check (hal/arch/qemu-riscv64/sbi_check.cpp).
constexpr long impl_id = 0x54455353;
constexpr long impl_version = 1;

// ACLINT MTIMER: one mtimecmp per hart (QEMU virt, aclint=on or not).
volatile uint64_t *const mtimecmp = reinterpret_cast<volatile uint64_t *>(0x2004000);

bool supported(long ext) { return ext == ext_base || ext == ext_time || ext == ext_hsm; }

struct Ret {
    long error;
    long value;
};

Ret base(long fid, uint64_t a0) {
    switch (fid) {
    case 0: return {sbi_success, spec_version};
    case 1: return {sbi_success, impl_id};
    case 2: return {sbi_success, impl_version};
    case 3: return {sbi_success, supported(static_cast<long>(a0)) ? 1 : 0};
    case 4: return {sbi_success, static_cast<long>(FW_CSR_READ(mvendorid))};
    case 5: return {sbi_success, static_cast<long>(FW_CSR_READ(marchid))};
    case 6: return {sbi_success, static_cast<long>(FW_CSR_READ(mimpid))};
    }
    return {err_not_supported, 0};
}

// TIME set_timer (SBI spec 6.1): S-mode's timer interrupt fires once time
// reaches `when`; it is cleared until then. With Sstc that is stimecmp
// itself; without, the hart's mtimecmp, whose machine interrupt fw_trap
// turns into S-mode's.
Ret set_timer(unsigned long hart, uint64_t when) {
    if (has_sstc()) {
        asm volatile("csrw stimecmp, %0" ::"r"(when));
    } else {
        FW_CSR_CLEAR(mip, irq_sti);
        mtimecmp[hart] = when;
        FW_CSR_SET(mie, irq_mti);
    }
    return {sbi_success, 0};
}

// HSM (SBI spec 9). A hart may start only harts of its own cluster, and
// only at an address of that cluster's window: anything else would let one
// cluster run code in another's memory. The boot hart starts the masters
// from M-mode (main.cpp).
Ret hsm(long fid, unsigned long hart, const uint64_t *a) {
    const ts_fw_table &t = table();
    switch (fid) {
    case 0: {  // hart_start(hartid, start_addr, opaque)
        const ts_fw_cluster *mine = cluster_of(hart);
        if (a[0] >= t.nharts || cluster_of(a[0]) != mine) return {err_invalid_param, 0};
        if (a[1] < mine->window_base || a[1] >= mine->window_base + mine->window_size)
            return {err_invalid_address, 0};
        return {start(a[0], a[1], a[2]) ? sbi_success : err_already_available, 0};
    }
    case 1: stop(hart);  // hart_stop: does not return
    case 2:              // hart_get_status(hartid)
        if (a[0] >= t.nharts) return {err_invalid_param, 0};
        return {sbi_success, state_of(a[0])};
    }
    return {err_not_supported, 0};
}

}  // namespace

void sbi_call(TrapFrame &tf, unsigned long hart) {
    uint64_t *a = &tf.x[10];  // a0..a7
    const long ext = static_cast<long>(a[7]), fid = static_cast<long>(a[6]);
    Ret r{err_not_supported, 0};
    if (ext == ext_base)
        r = base(fid, a[0]);
    else if (ext == ext_time && fid == 0)
        r = set_timer(hart, a[0]);
    else if (ext == ext_hsm)
        r = hsm(fid, hart, a);
    a[0] = static_cast<uint64_t>(r.error);
    a[1] = static_cast<uint64_t>(r.value);
}

}  // namespace fw
