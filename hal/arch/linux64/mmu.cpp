// linux64 "MMU": an address space is a two-level table (a root page of 512
// leaf-table pointers, each leaf 512 entries of `frame | perms`, covering
// the 1 GiB user area), and every page a user space maps is also mapped
// for real at its virtual address, with mmap(MAP_FIXED) of the window's
// memfd at the frame's offset. So user code uses plain pointers, a page it
// may not touch faults (SIGSEGV), and the kernel sees its frames at their
// window addresses as on QEMU.
//
// The cluster is one Linux process: only one user address space can have
// its pages mapped for real at a time. That is all Tessera needs (a
// cluster runs one user program at a time), and map() refuses a second.
#include <sys/mman.h>

#include "linux.hpp"

namespace hal {
namespace {

using host::sys;
using host::user_area_base;
using host::user_area_end;

constexpr size_t entries = page_size / sizeof(uint64_t);
constexpr size_t leaf_span = entries * page_size;  // 2 MiB
static_assert((user_area_end - user_area_base) / leaf_span <= entries, "the root covers the user area");

// The user space whose pages are mapped for real, and how many.
const AddressSpace *host_owner;
size_t host_pages;

bool in_area(uintptr_t va) { return va >= user_area_base && va < user_area_end; }

int prot_of(unsigned perms) {
    return ((perms & perm_r) ? PROT_READ : 0) | ((perms & perm_w) ? PROT_WRITE : 0) |
           ((perms & perm_x) ? PROT_EXEC : 0);
}

// Maps one page of the window (or, with fd < 0, no access) at va.
bool host_map(uintptr_t va, int prot, int fd, uintptr_t offset) {
    const int flags = MAP_FIXED | (fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE : MAP_SHARED);
    return sys(SYS_mmap, static_cast<long>(va), page_size, prot, flags, fd, static_cast<long>(offset)) ==
           static_cast<long>(va);
}

}  // namespace

bool AddressSpace::init(void *(*alloc_page)(), const AddressSpace *) {
    alloc_ = alloc_page;
    root_ = static_cast<uint64_t *>(alloc_page());
    return root_ != nullptr;
}

bool AddressSpace::map(uintptr_t va, uintptr_t pa, unsigned perms) {
    if (!in_area(va) || (va | pa) & (page_size - 1)) return false;
    if (host_owner && host_owner != this && host_pages > 0) return false;  // one user space at a time
    uint64_t &slot = root_[(va - user_area_base) / leaf_span];
    if (!slot) {
        void *leaf = alloc_();
        if (!leaf) return false;
        slot = reinterpret_cast<uint64_t>(leaf);
    }
    uint64_t &e = reinterpret_cast<uint64_t *>(slot)[(va % leaf_span) / page_size];
    if (e && (e & ~(page_size - 1)) != pa) return false;
    const uintptr_t offset = pa - host::window_base();
    if (!host_map(va, prot_of(perms), host::window_fd(), offset)) return false;
    if (!e) ++host_pages;
    host_owner = this;
    e = pa | perms;
    return true;
}

uintptr_t AddressSpace::unmap(uintptr_t va) {
    if (!in_area(va) || !root_[(va - user_area_base) / leaf_span]) return 0;
    uint64_t &e =
        reinterpret_cast<uint64_t *>(root_[(va - user_area_base) / leaf_span])[(va % leaf_span) / page_size];
    if (!e) return 0;
    const uintptr_t pa = e & ~(page_size - 1);
    e = 0;
    host_map(va, PROT_NONE, -1, 0);
    --host_pages;
    return pa;
}

uintptr_t AddressSpace::lookup(uintptr_t va, unsigned *perms) const {
    if (!root_ || !in_area(va)) return 0;
    const uint64_t leaf = root_[(va - user_area_base) / leaf_span];
    if (!leaf) return 0;
    const uint64_t e = reinterpret_cast<const uint64_t *>(leaf)[(va % leaf_span) / page_size];
    if (!e) return 0;
    if (perms) *perms = static_cast<unsigned>(e & (page_size - 1));
    return (e & ~(page_size - 1)) | (va & (page_size - 1));
}

// A cluster's user pages are mapped for real in one Linux process, for one
// space at a time: a second space cannot see them.
bool AddressSpace::alias_area(AddressSpace &, uintptr_t, uintptr_t) { return false; }

// The mappings are the process's own: every core sees a change at once.
void AddressSpace::activate() const {}
uint64_t AddressSpace::token() const { return reinterpret_cast<uint64_t>(root_); }
void flush_tlb() {}
bool page_fault_is_stale(const AddressSpace &, uint64_t, uint64_t) { return false; }

}  // namespace hal
