// Sv39 address spaces (RISC-V privileged spec 4.4). The kernel space maps
// the cluster's own window, the NoC fabric and the devices it uses,
// identity and supervisor-only; nothing of any other cluster's window.
// User spaces share those mappings (they copy the root's entries) and add
// 4 KiB user pages below 0x80000000.
#include "hal/hal.hpp"
#include "riscv.hpp"
#include "virt.hpp"

namespace hal {
namespace {

constexpr uintptr_t megapage = 2ull << 20;

uint64_t pte_perms(unsigned perms) {
    uint64_t p = rv::pte_v | rv::pte_a | rv::pte_d;
    if (perms & perm_r) p |= rv::pte_r;
    if (perms & perm_w) p |= rv::pte_w;
    if (perms & perm_x) p |= rv::pte_x;
    p |= (perms & perm_user) ? rv::pte_u : rv::pte_g;
    return p;
}

uint64_t *table_of(uint64_t pte) { return reinterpret_cast<uint64_t *>((pte >> 10) << 12); }
uint64_t pte_for_table(void *t) { return ((reinterpret_cast<uintptr_t>(t) >> 12) << 10) | rv::pte_v; }
bool is_leaf(uint64_t pte) { return pte & (rv::pte_r | rv::pte_w | rv::pte_x); }
size_t vpn(uintptr_t va, int level) { return (va >> (12 + 9 * level)) & 511; }

}  // namespace

bool AddressSpace::init(void *(*alloc_page)(), const AddressSpace *kernel) {
    alloc_ = alloc_page;
    root_ = static_cast<uint64_t *>(alloc_());
    if (!root_) return false;
    if (kernel) {
        for (int i = 0; i < 512; ++i)
            root_[i] = kernel->root_[i];
        return true;
    }
    const ts_manifest &m = manifest();
    const auto &w = m.clusters[cluster_id()];
    const unsigned rw = perm_r | perm_w;
    if (!map_range(w.window_base, w.window_size, rw | perm_x) ||
        !map_range(m.fabric_base, m.fabric_size, rw) || !map(virt::uart_base, virt::uart_base, rw) ||
        !map(virt::finisher_base, virt::finisher_base, rw))
        return false;
    for (uintptr_t pa = virt::sswi_base; pa < virt::sswi_base + virt::sswi_size; pa += page_size)
        if (!map(pa, pa, rw)) return false;
    return true;
}

// Kernel ranges are 2 MiB aligned: map them with megapages.
bool AddressSpace::map_range(uintptr_t base, size_t size, unsigned perms) {
    for (uintptr_t va = base; va < base + size; va += megapage) {
        uint64_t &l2 = root_[vpn(va, 2)];
        if (!(l2 & rv::pte_v)) {
            void *t = alloc_();
            if (!t) return false;
            l2 = pte_for_table(t);
        }
        table_of(l2)[vpn(va, 1)] = ((va >> 12) << 10) | pte_perms(perms);
    }
    return true;
}

bool AddressSpace::map(uintptr_t va, uintptr_t pa, unsigned perms) {
    uint64_t *t = root_;
    for (int level = 2; level > 0; --level) {
        uint64_t &e = t[vpn(va, level)];
        if (e & rv::pte_v) {
            if (is_leaf(e)) return false;
        } else {
            void *n = alloc_();
            if (!n) return false;
            e = pte_for_table(n);
        }
        t = table_of(e);
    }
    uint64_t &leaf = t[vpn(va, 0)];
    const uint64_t want = ((pa >> 12) << 10) | pte_perms(perms);
    if ((leaf & rv::pte_v) && (leaf >> 10) != (want >> 10)) return false;
    leaf = want | (leaf & (rv::pte_r | rv::pte_w | rv::pte_x));  // widen, never narrow
    // Privileged spec 4.2.1: order the new entry before later accesses on
    // this core. Other cores may fault on a stale entry: the kernel retries
    // such spurious faults (see page_fault_is_stale).
    asm volatile("sfence.vma %0" ::"r"(va) : "memory");
    return true;
}

uintptr_t AddressSpace::unmap(uintptr_t va) {
    uint64_t *t = root_;
    for (int level = 2; level > 0; --level) {
        const uint64_t e = t[vpn(va, level)];
        if (!(e & rv::pte_v) || is_leaf(e)) return 0;  // kernel megapages are never unmapped
        t = table_of(e);
    }
    uint64_t &leaf = t[vpn(va, 0)];
    if (!(leaf & rv::pte_v)) return 0;
    const uintptr_t pa = (leaf >> 10) << 12;
    leaf = 0;
    asm volatile("sfence.vma %0" ::"r"(va) : "memory");
    return pa;
}

uintptr_t AddressSpace::lookup(uintptr_t va, unsigned *perms) const {
    const uint64_t *t = root_;
    for (int level = 2; level >= 0; --level) {
        const uint64_t e = t[vpn(va, level)];
        if (!(e & rv::pte_v)) return 0;
        if (is_leaf(e)) {
            if (perms) {
                *perms = ((e & rv::pte_r) ? perm_r : 0) | ((e & rv::pte_w) ? perm_w : 0) |
                         ((e & rv::pte_x) ? perm_x : 0) | ((e & rv::pte_u) ? perm_user : 0);
            }
            const uintptr_t span = 1ull << (12 + 9 * level);
            return ((e >> 10) << 12) + (va & (span - 1));
        }
        t = table_of(e);
    }
    return 0;
}

// An alias shares owner's second-level table: the root entry at `at` points
// at the table that owner's root entry for `base` points at.
bool AddressSpace::alias_area(AddressSpace &owner, uintptr_t base, uintptr_t at) {
    static_assert(alias_area_size == 1ull << (12 + 9 * 2), "one root entry");
    if ((base | at) & (alias_area_size - 1) || vpn(base, 2) != base / alias_area_size ||
        vpn(at, 2) != at / alias_area_size)
        return false;
    uint64_t &theirs = owner.root_[vpn(base, 2)];
    uint64_t &mine = root_[vpn(at, 2)];
    if (mine & rv::pte_v || ((theirs & rv::pte_v) && is_leaf(theirs))) return false;
    if (!(theirs & rv::pte_v)) {
        void *t = owner.alloc_();
        if (!t) return false;
        theirs = pte_for_table(t);
    }
    mine = theirs;
    return true;
}

uint64_t AddressSpace::token() const { return rv::satp_sv39 | (reinterpret_cast<uintptr_t>(root_) >> 12); }

void flush_tlb() { asm volatile("sfence.vma" ::: "memory"); }

void AddressSpace::activate() const {
    HAL_CSR_WRITE(satp, token());
    asm volatile("sfence.vma" ::: "memory");
}

bool page_fault_is_stale(const AddressSpace &space, uint64_t cause, uint64_t addr) {
    const unsigned need = cause == rv::cause_fetch_page_fault   ? perm_x
                          : cause == rv::cause_load_page_fault  ? perm_r
                          : cause == rv::cause_store_page_fault ? perm_w
                                                                : 0;
    unsigned perms = 0;
    if (!need || !space.lookup(addr, &perms) || (perms & (need | perm_user)) != (need | perm_user))
        return false;
    asm volatile("sfence.vma %0" ::"r"(addr) : "memory");
    return true;
}

}  // namespace hal
