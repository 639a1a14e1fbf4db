// Boot of Tessera's M-mode firmware on every hart, and the HSM state
// machine: the boot hart checks the images the table names and starts every
// cluster's master at its image's entry; all other harts wait in M-mode for
// an HSM hart_start, from their master or (masters) from the boot hart.
#include "firmware.hpp"
#include "../virt.hpp"
#include "hal/image_check.hpp"

extern "C" [[noreturn]] void fw_park(unsigned long hart);
extern "C" int fw_has_stimecmp();

namespace fw {
namespace {

constexpr unsigned long boot_hart = 0;      // QEMU starts every hart; hart 0 boots
constexpr int status_bad_image = 125;       // as the HAL's boot check (boot.cpp)
constexpr int status_firmware_fault = 126;  // a trap M-mode cannot serve
constexpr uint64_t menvcfg_stce = 1ull << 63;

// ACLINT MSWI (QEMU virt: the CLINT's msip registers): wakes a hart that
// waits in M-mode.
volatile uint32_t *const mswi = reinterpret_cast<volatile uint32_t *>(0x2000000);

// A hart's HSM state. Stopped is 0, so that the .bss starts every hart
// stopped before it has run any code: a master may be started before it
// has reached fw_wait_for_start.
enum Run : uint32_t { run_stopped = 0, run_start_pending, run_started, run_stop_pending };

struct alignas(64) Hart {
    uint32_t run;  // a Run
    uint64_t addr;
    uint64_t opaque;
};
Hart harts[TS_FW_MAX_HARTS];
bool sstc;

uint32_t load(const uint32_t &v) { return __atomic_load_n(&v, __ATOMIC_ACQUIRE); }

// The settings every hart needs before it first enters S-mode: traps and
// S-level interrupts go to S-mode, S and U may read the counters, and with
// Sstc S-mode's timer is its own stimecmp.
void init_hart() {
    FW_CSR_WRITE(medeleg, 0xB1FF);  // exceptions 0-8, 12, 13, 15: all but ecalls from S and M
    FW_CSR_WRITE(mideleg, irq_ssi | irq_sti | irq_sei);
    FW_CSR_WRITE(mcounteren, 7);  // cycle, time, instret
    sstc = fw_has_stimecmp();
    if (sstc) {
        FW_CSR_SET(menvcfg, menvcfg_stce);
        asm volatile("csrw stimecmp, %0" ::"r"(~0ull));
    }
}

// Refuses a machine whose table or images are wrong, before any hart
// enters S-mode.
void check_images() {
    const ts_fw_table &t = table();
    // The fabric, like every window, must leave the firmware's region alone:
    // S-mode may write it.
    if (t.magic != TS_FW_TABLE_MAGIC || t.nclusters == 0 || t.nclusters > TS_FW_MAX_CLUSTERS ||
        t.nharts == 0 || t.nharts > TS_FW_MAX_HARTS || t.fabric_base < TS_FW_END) {
        say("[kernel] firmware: no valid table at 0x801ff000, not starting the machine\n");
        poweroff(status_bad_image);
    }
    for (unsigned c = 0; c < t.nclusters; ++c) {
        const ts_fw_cluster &fc = t.clusters[c];
        const ts_cluster_desc desc{fc.window_base, fc.window_size, fc.first_hart, fc.ncores, 0, 0, 0};
        const auto &h = *reinterpret_cast<const ts_image_header *>(fc.window_base);
        const hal::ImageError e = hal::check_image_header(h, c, desc);
        const char *wrong = e != hal::ImageError::none             ? hal::image_error_text(e)
                            : fc.first_hart + fc.ncores > t.nharts ? "harts beyond the machine's"
                            : fc.window_base < TS_FW_END           ? "window over the firmware"
                                                                   : nullptr;
        if (wrong) {
            say("[kernel] boot: cluster ");
            say_number(c);
            say(": ");
            say(wrong);
            say(", not starting the machine\n");
            poweroff(status_bad_image);
        }
    }
}

// Enters S-mode at the hart's start address: its PMP first, then MMU off
// and no M-level interrupt while S-mode runs.
[[noreturn]] void enter_supervisor(unsigned long hart) {
    const Hart &h = harts[hart];
    const ts_fw_cluster *c = cluster_of(hart);
    set_pmp(*c);
    FW_CSR_CLEAR(mie, irq_msi);
    FW_CSR_WRITE(satp, 0);
    uint64_t s = FW_CSR_READ(mstatus);
    s = (s & ~(mstatus_mpp_mask | mstatus_mpie)) | mstatus_mpp_s | mstatus_fs_initial;
    FW_CSR_WRITE(mstatus, s);
    FW_CSR_WRITE(mepc, h.addr);
    register uint64_t a0 asm("a0") = hart;
    register uint64_t a1 asm("a1") = h.opaque;
    asm volatile("mret" ::"r"(a0), "r"(a1));
    __builtin_unreachable();
}

}  // namespace

const ts_fw_cluster *cluster_of(unsigned long hart) {
    const ts_fw_table &t = table();
    for (unsigned c = 0; c < t.nclusters; ++c)
        if (hart >= t.clusters[c].first_hart && hart < t.clusters[c].first_hart + t.clusters[c].ncores)
            return &t.clusters[c];
    return nullptr;
}

bool start(unsigned long hart, uint64_t addr, uint64_t opaque) {
    uint32_t expect = run_stopped;
    if (!__atomic_compare_exchange_n(&harts[hart].run, &expect, uint32_t{run_start_pending}, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return false;
    harts[hart].addr = addr;
    harts[hart].opaque = opaque;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);  // the address before the wake-up
    mswi[hart] = 1;
    return true;
}

HartState state_of(unsigned long hart) {
    switch (load(harts[hart].run)) {
    case run_stopped: return stopped;
    case run_start_pending: return start_pending;
    case run_started: return started;
    default: return stop_pending;
    }
}

void stop(unsigned long hart) {
    __atomic_store_n(&harts[hart].run, uint32_t{run_stop_pending}, __ATOMIC_RELEASE);
    fw_park(hart);
}

bool has_sstc() { return sstc; }

[[noreturn]] void poweroff(int status) {
    volatile uint32_t *finisher = reinterpret_cast<volatile uint32_t *>(hal::virt::finisher_base);
    *finisher = status == 0 ? 0x5555u : 0x3333u | (static_cast<uint32_t>(status & 0xffff) << 16);
    for (;;)
        asm volatile("wfi");
}

}  // namespace fw

using namespace fw;

// A stopped hart sleeps here until hart_start marks it start_pending and
// raises its MSWI. The wake-up is cleared before the state is read, so one
// that comes in between is not lost: wfi then returns at once.
extern "C" [[noreturn]] void fw_wait_for_start(unsigned long hart) {
    // A hart that stopped itself is stopped once it is here, on a fresh stack.
    uint32_t expect = run_stop_pending;
    __atomic_compare_exchange_n(&harts[hart].run, &expect, uint32_t{run_stopped}, false, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    // Only hart_start's wake-up ends the wait: no timer left armed (the
    // MTIMER path) may keep waking it.
    FW_CSR_CLEAR(mie, irq_mti);
    FW_CSR_SET(mie, irq_msi);
    for (;;) {
        mswi[hart] = 0;
        if (load(harts[hart].run) == run_start_pending) break;
        asm volatile("wfi");
    }
    __atomic_store_n(&harts[hart].run, uint32_t{run_started}, __ATOMIC_RELEASE);
    enter_supervisor(hart);
}

extern "C" [[noreturn]] void fw_main(unsigned long hart, uint64_t dtb) {
    init_hart();
    if (hart == boot_hart) {
        check_images();
        say("[kernel] firmware: Tessera M-mode firmware, ");
        say_number(table().nharts);
        say(" harts, ");
        say(sstc ? "Sstc timer" : "ACLINT MTIMER timer");
        say("; starting the cluster masters\n");
        const ts_fw_table &t = table();
        for (unsigned c = 0; c < t.nclusters; ++c) {
            const auto &h = *reinterpret_cast<const ts_image_header *>(t.clusters[c].window_base);
            start(t.clusters[c].first_hart, h.entry, dtb);
        }
    } else if (hart >= TS_FW_MAX_HARTS || !cluster_of(hart)) {
        for (;;)  // a hart of no cluster: never started
            asm volatile("wfi");
    }
    fw_park(hart);
}

// Traps into M-mode: ecalls from S-mode (SBI), and the machine timer when
// there is no Sstc (set_timer armed it: its expiry becomes S-mode's timer
// interrupt). Anything else is a bug: report it and stop the machine.
extern "C" void fw_trap(TrapFrame *tf) {
    const uint64_t cause = FW_CSR_READ(mcause);
    const unsigned long hart = FW_CSR_READ(mhartid);
    if (cause == (cause_interrupt | 7)) {
        FW_CSR_CLEAR(mie, irq_mti);
        FW_CSR_SET(mip, irq_sti);
        return;
    }
    if (cause == cause_ecall_s) {
        FW_CSR_WRITE(mepc, FW_CSR_READ(mepc) + 4);
        sbi_call(*tf, hart);
        return;
    }
    say("[kernel] firmware: hart ");
    say_number(hart);
    say(": unexpected trap, mcause 0x");
    say_number(cause, 16);
    say(" mepc 0x");
    say_number(FW_CSR_READ(mepc), 16);
    say(" mtval 0x");
    say_number(FW_CSR_READ(mtval), 16);
    say("\n");
    poweroff(status_firmware_fault);
}
