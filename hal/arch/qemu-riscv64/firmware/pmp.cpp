// Physical memory protection (RISC-V privileged spec 1.12, 3.7): what S- and
// U-mode of a hart may reach. Its cluster's window (read, write, execute),
// the NoC fabric (read, write) and the devices the HAL uses (virt.hpp: the
// UART, the test finisher, the ACLINT SSWI); an access anywhere else takes
// an access fault, which medeleg hands to the cluster's kernel. No entry is
// locked, so M-mode keeps reaching everything.
#include "firmware.hpp"
#include "../virt.hpp"

namespace fw {
namespace {

constexpr unsigned pmp_entries = 16;  // QEMU 7.2's harts have 16
constexpr uint8_t pmp_r = 1, pmp_w = 2, pmp_x = 4, pmp_tor = 1 << 3, pmp_napot = 3 << 3;
constexpr uint64_t uart_size = 0x100, finisher_size = 0x1000;

struct Entries {
    uint64_t addr[pmp_entries] = {};
    uint8_t cfg[pmp_entries] = {};
    unsigned n = 0;

    // One NAPOT entry when [base, base + size) is a naturally aligned power
    // of two, else a TOR pair (an OFF entry holding the base, then the top).
    void add(uint64_t base, uint64_t size, uint8_t perms) {
        if (size >= 8 && (size & (size - 1)) == 0 && (base & (size - 1)) == 0) {
            addr[n] = (base | (size / 2 - 1)) >> 2;
            cfg[n++] = pmp_napot | perms;
        } else {
            addr[n] = base >> 2;
            cfg[n++] = 0;
            addr[n] = (base + size) >> 2;
            cfg[n++] = pmp_tor | perms;
        }
    }
};

}  // namespace

void set_pmp(const ts_fw_cluster &c) {
    const ts_fw_table &t = table();
    Entries e;
    e.add(c.window_base, c.window_size, pmp_r | pmp_w | pmp_x);
    e.add(t.fabric_base, t.fabric_size, pmp_r | pmp_w);
    e.add(hal::virt::uart_base, uart_size, pmp_r | pmp_w);
    e.add(hal::virt::finisher_base, finisher_size, pmp_r | pmp_w);
    e.add(hal::virt::sswi_base, hal::virt::sswi_size, pmp_r | pmp_w);
    // Entries off first, so that no half-written pair ever applies.
    FW_CSR_WRITE(pmpcfg0, 0);
    FW_CSR_WRITE(pmpcfg2, 0);
#define FW_PMPADDR(i) asm volatile("csrw pmpaddr" #i ", %0" ::"r"(e.addr[i]))
    FW_PMPADDR(0);
    FW_PMPADDR(1);
    FW_PMPADDR(2);
    FW_PMPADDR(3);
    FW_PMPADDR(4);
    FW_PMPADDR(5);
    FW_PMPADDR(6);
    FW_PMPADDR(7);
    FW_PMPADDR(8);
    FW_PMPADDR(9);
    FW_PMPADDR(10);
    FW_PMPADDR(11);
    FW_PMPADDR(12);
    FW_PMPADDR(13);
    FW_PMPADDR(14);
    FW_PMPADDR(15);
#undef FW_PMPADDR
    uint64_t cfg0 = 0, cfg2 = 0;
    for (unsigned i = 0; i < 8; ++i) {
        cfg0 |= uint64_t{e.cfg[i]} << (8 * i);
        cfg2 |= uint64_t{e.cfg[8 + i]} << (8 * i);
    }
    FW_CSR_WRITE(pmpcfg0, cfg0);
    FW_CSR_WRITE(pmpcfg2, cfg2);
    // Spec 3.7.2: order the new settings before later accesses.
    asm volatile("sfence.vma" ::: "memory");
}

}  // namespace fw
