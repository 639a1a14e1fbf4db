// linux64 "MMU": an address space is a page table of three levels, as on
// Sv39: a root of 512 entries, one per GiB of the first 512 GiB of
// addresses, each pointing at a table of 512 entries, one per 2 MiB, each
// pointing at a leaf table of 512 entries `frame | perms`, one per 4 KiB
// page. The kernel maps user pages in the user area only; alias_area makes
// a root entry of one space share another's table, as on Sv39.
//
// Each core runs in a Linux process of its own (boot.cpp), so that each
// can show its own user space at the same addresses. The table is the
// truth (it lives in window frames, which every core's process shares);
// the pages a core's process maps are its TLB. A page the core touches
// that its process does not map yet faults (SIGSEGV), in user code as in
// kernel code, and if the core's active space grants that access it is a
// miss (mirror_miss, called by trap.cpp): the process maps the frame with
// mmap(MAP_FIXED) of the window's memfd at the frame's offset, together
// with the pages around it that the same leaf table maps to contiguous
// frames with the same rights, and the access is retried. So user code
// uses plain pointers, a page it may not touch faults, and the kernel sees
// the frames at their window addresses as on QEMU.
//
// As a TLB, the mirrors go when the core activates another space (or enters
// user code in one), on flush_tlb, and, for the calling core only, on an
// unmap; other cores keep theirs, and the kernel unmaps only what no other
// core can hold (as on QEMU, which has no shoot-down either).
#include <sys/mman.h>

#include "linux.hpp"

namespace hal {
namespace {

using host::sys;
using host::user_area_base;
using host::user_area_end;

constexpr size_t entries = page_size / sizeof(uint64_t);
constexpr uintptr_t leaf_span = entries * page_size;  // 2 MiB
constexpr uintptr_t area_span = entries * leaf_span;  // 1 GiB: one root entry
constexpr uintptr_t root_span = entries * area_span;  // 512 GiB: what a root covers
constexpr uint64_t frame_mask = ~static_cast<uint64_t>(page_size - 1);
static_assert(area_span == alias_area_size, "an alias is one root entry");
static_assert(user_area_end - user_area_base == area_span && user_area_base % area_span == 0,
              "the user area is one root entry");
static_assert(host::alias_slots_base % area_span == 0 && host::alias_slots_end <= root_span,
              "the root covers the alias slots");

size_t index(uintptr_t va, int level) { return (va >> (12 + 9 * level)) & (entries - 1); }
bool in_user_area(uintptr_t va) { return va >= user_area_base && va < user_area_end; }
bool in_alias_slots(uintptr_t va) { return va >= host::alias_slots_base && va < host::alias_slots_end; }

// Entries are read by other cores' miss handlers while the master writes
// them: a table, or a frame, is complete before the entry that points at it.
uint64_t load(const uint64_t &e) { return __atomic_load_n(&e, __ATOMIC_ACQUIRE); }
void store(uint64_t &e, uint64_t v) { __atomic_store_n(&e, v, __ATOMIC_RELEASE); }
uint64_t *table_of(uint64_t e) { return reinterpret_cast<uint64_t *>(e); }

// The table that entry e points at, made (zeroed) if there is none yet.
uint64_t *table_at(uint64_t &e, void *(*alloc)()) {
    if (!load(e)) {
        void *t = alloc();
        if (!t) return nullptr;
        store(e, reinterpret_cast<uint64_t>(t));
    }
    return table_of(load(e));
}

// The leaf table that maps va in the space of `root`, or nullptr.
uint64_t *leaf_table(const uint64_t *root, uintptr_t va) {
    if (!root || va >= root_span) return nullptr;
    const uint64_t mid = load(root[index(va, 2)]);
    if (!mid) return nullptr;
    const uint64_t leaf = load(table_of(mid)[index(va, 1)]);
    return leaf ? table_of(leaf) : nullptr;
}

int prot_of(uint64_t perms) {
    return ((perms & perm_r) ? PROT_READ : 0) | ((perms & perm_w) ? PROT_WRITE : 0) |
           ((perms & perm_x) ? PROT_EXEC : 0);
}

// No access any more at [va, va + size) in the calling core's process (the
// range stays reserved). Linux walks the whole range: a drop covers only
// the span the core mirrored in (CoreState::mirrored, aliased).
void unmirror(uintptr_t va, size_t size) {
    sys(SYS_mmap, static_cast<long>(va), static_cast<long>(size), PROT_NONE,
        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

bool in_window(uintptr_t pa, size_t size) {
    return pa >= host::window_base() && pa <= window_end() && size <= window_end() - pa;
}

}  // namespace

namespace host {

namespace {

// Drops the mirrors of the user area, and of the alias slots unless
// `keep_aliases`.
void drop(bool keep_aliases) {
    CoreState &c = self();
    MirrorSpan *const spans[] = {&c.mirrored, keep_aliases ? nullptr : &c.aliased};
    for (MirrorSpan *span : spans) {
        if (!span) continue;
        if (!span->empty()) unmirror(span->lo, span->hi - span->lo);
        *span = MirrorSpan{};
    }
    c.last_miss = 0;
    c.miss_repeats = 0;
}

// True when spaces a and b map the alias slots through the same tables
// (the ranks of one cluster: alias_area shares them), so that what a core
// mirrors there for one holds for the other. Tables are never freed while
// a space lives, and a page under an alias is never unmapped.
bool same_aliases(const uint64_t *a, const uint64_t *b) {
    if (!a || !b) return false;
    for (uintptr_t va = alias_slots_base; va < alias_slots_end; va += area_span)
        if (load(a[index(va, 2)]) != load(b[index(va, 2)])) return false;
    return true;
}

}  // namespace

void drop_mirrors() { drop(false); }

void use_space(const uint64_t *root) {
    CoreState &c = self();
    if (c.space == root) return;
    drop(same_aliases(c.space, root));
    c.space = root;
}

bool mirror_miss(uintptr_t addr, bool write, bool fetch) {
    CoreState &c = self();
    const bool alias = in_alias_slots(addr);
    if (!alias && !in_user_area(addr)) return false;
    const uint64_t *leaf = leaf_table(c.space, addr);
    if (!leaf) return false;
    const size_t i = index(addr, 0);
    const uint64_t e = load(leaf[i]);
    const uint64_t need = perm_user | (fetch ? perm_x : write ? perm_w : perm_r);
    if ((e & need) != need || !in_window(e & frame_mask, page_size)) return false;
    // A mirror that does not end the fault is no miss: after a few tries at
    // one page (with no drop between), the fault is real.
    const uintptr_t page = addr & frame_mask;
    if (page != c.last_miss) {
        c.last_miss = page;
        c.miss_repeats = 0;
    } else if (++c.miss_repeats > 2) {
        return false;
    }
    // The run of pages around it with the next frames and the same rights.
    size_t lo = i, hi = i + 1;
    while (lo > 0 && load(leaf[lo - 1]) == e - (i - lo + 1) * page_size)
        --lo;
    while (hi < entries && load(leaf[hi]) == e + (hi - i) * page_size)
        ++hi;
    uintptr_t va = page - (i - lo) * page_size;
    uintptr_t pa = (e & frame_mask) - (i - lo) * page_size;
    size_t size = (hi - lo) * page_size;
    if (!in_window(pa, size)) {
        va = page;
        pa = e & frame_mask;
        size = page_size;
    }
    if (sys(SYS_mmap, static_cast<long>(va), static_cast<long>(size), prot_of(e), MAP_SHARED | MAP_FIXED,
            window_fd(), static_cast<long>(pa - window_base())) != static_cast<long>(va)) {
        // Linux refused (e.g. vm.max_map_count): the access faults for real.
        static const char what[] = "tessera_cluster: cannot mirror a user page (mmap failed)\n";
        write_all(2, what, sizeof what - 1);
        return false;
    }
    (alias ? c.aliased : c.mirrored).add(va, va + size);
    ++c.misses;
    return true;
}

}  // namespace host

bool AddressSpace::init(void *(*alloc_page)(), const AddressSpace *) {
    alloc_ = alloc_page;
    root_ = static_cast<uint64_t *>(alloc_page());
    return root_ != nullptr;
}

// Only the table changes: a core's process mirrors the page when it first
// touches it. Rights widen, never narrow, as on Sv39 (elf_load maps a page
// two segments share once per segment).
bool AddressSpace::map(uintptr_t va, uintptr_t pa, unsigned perms) {
    if (!in_user_area(va) || (va | pa) & (page_size - 1) || !in_window(pa, page_size)) return false;
    uint64_t *mid = table_at(root_[index(va, 2)], alloc_);
    uint64_t *leaf = mid ? table_at(mid[index(va, 1)], alloc_) : nullptr;
    if (!leaf) return false;
    uint64_t &e = leaf[index(va, 0)];
    const uint64_t was = load(e);
    if (was && (was & frame_mask) != pa) return false;
    store(e, pa | (was & ~frame_mask) | (perms & (page_size - 1)));
    return true;
}

uintptr_t AddressSpace::unmap(uintptr_t va) {
    if (!in_user_area(va)) return 0;
    uint64_t *leaf = leaf_table(root_, va);
    if (!leaf) return 0;
    uint64_t &e = leaf[index(va, 0)];
    const uint64_t was = load(e);
    if (!was) return 0;
    store(e, 0);
    const host::CoreState &c = host::self();
    if (c.space == root_ && c.mirrored.holds(va)) unmirror(va & frame_mask, page_size);
    return was & frame_mask;
}

uintptr_t AddressSpace::lookup(uintptr_t va, unsigned *perms) const {
    const uint64_t *leaf = leaf_table(root_, va);
    if (!leaf) return 0;
    const uint64_t e = load(leaf[index(va, 0)]);
    if (!e) return 0;
    if (perms) *perms = static_cast<unsigned>(e & ~frame_mask);
    return (e & frame_mask) | (va & (page_size - 1));
}

// As on Sv39: the root entry at `at` points at the table owner's root entry
// for `base` points at, so that every page owner maps there, now or later,
// shows at `at` too. base is the user area; `at` one of the alias slots.
bool AddressSpace::alias_area(AddressSpace &owner, uintptr_t base, uintptr_t at) {
    if (base != user_area_base || at % alias_area_size || !in_alias_slots(at)) return false;
    uint64_t &mine = root_[index(at, 2)];
    if (load(mine)) return false;
    uint64_t *theirs = table_at(owner.root_[index(base, 2)], owner.alloc_);
    if (!theirs) return false;
    store(mine, reinterpret_cast<uint64_t>(theirs));
    return true;
}

// The token is the root: enter_user activates the space it names.
void AddressSpace::activate() const { host::use_space(root_); }
uint64_t AddressSpace::token() const { return reinterpret_cast<uint64_t>(root_); }

void flush_tlb() { host::drop_mirrors(); }

// With mirrors made at the first touch, a fault that reaches the kernel
// found the right missing in the table; another core may have granted it
// since. The caller's mirror of the page goes, and the retry mirrors it.
bool page_fault_is_stale(const AddressSpace &space, uint64_t cause, uint64_t addr) {
    using namespace host::causes;
    const unsigned need = cause == fetch_page_fault   ? perm_x
                          : cause == load_page_fault  ? perm_r
                          : cause == store_page_fault ? perm_w
                                                      : 0;
    unsigned perms = 0;
    if (!need || !space.lookup(addr, &perms) || (perms & (need | perm_user)) != (need | perm_user))
        return false;
    const host::CoreState &c = host::self();
    if (c.mirrored.holds(addr) || c.aliased.holds(addr)) unmirror(addr & frame_mask, page_size);
    return true;
}

}  // namespace hal
