// ELF64 executables (System V gABI) of the target's machine into user memory.
#include "elf.hpp"

#include <elf.h>
#include <string.h>

namespace kernel {

namespace {

// The frame of `text_from` to map at va instead of a copy: one that is
// mapped there read-only and would be read-only here (perms); else 0.
uintptr_t shared_frame(const hal::AddressSpace *text_from, uintptr_t va, unsigned perms) {
    unsigned theirs = 0;
    if (!text_from || perms & hal::perm_w) return 0;
    const uintptr_t frame = text_from->lookup(va, &theirs);
    return theirs & hal::perm_w ? 0 : frame;
}

}  // namespace

long elf_load(hal::AddressSpace &space, const void *elf, size_t size, uintptr_t *entry, uintptr_t *end,
              const hal::AddressSpace *text_from) {
    const auto *base = static_cast<const char *>(elf);
    const auto *eh = static_cast<const Elf64_Ehdr *>(elf);
    if (size < sizeof(Elf64_Ehdr) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != hal::user_elf_machine ||
        eh->e_type != ET_EXEC || eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > size ||
        eh->e_phnum > (size - eh->e_phoff) / sizeof(Elf64_Phdr))
        return -TS_EINVAL;
    const auto *ph = reinterpret_cast<const Elf64_Phdr *>(base + eh->e_phoff);
    uintptr_t top = 0;
    for (int i = 0; i < eh->e_phnum; ++i) {
        const Elf64_Phdr &s = ph[i];
        if (s.p_type != PT_LOAD || s.p_memsz == 0) continue;
        // The segment must lie in the user area (checked without overflow),
        // and have some permission (W needs R: W alone is reserved in Sv39),
        // but never both write and execute (W^X).
        if (s.p_filesz > s.p_memsz || s.p_offset > size || s.p_filesz > size - s.p_offset ||
            s.p_vaddr < user_base || s.p_vaddr >= user_heap_limit ||
            s.p_memsz > user_heap_limit - s.p_vaddr || !(s.p_flags & (PF_R | PF_W | PF_X)) ||
            (s.p_flags & (PF_W | PF_X)) == (PF_W | PF_X))
            return -TS_EINVAL;
        unsigned perms = hal::perm_user | ((s.p_flags & (PF_R | PF_W)) ? hal::perm_r : 0) |
                         ((s.p_flags & PF_W) ? hal::perm_w : 0) | ((s.p_flags & PF_X) ? hal::perm_x : 0);
        const uintptr_t first = s.p_vaddr & ~(hal::page_size - 1);
        for (uintptr_t va = first; va < s.p_vaddr + s.p_memsz; va += hal::page_size) {
            unsigned had = 0;
            uintptr_t pa = space.lookup(va, &had);
            // A page shared by two segments gets the union of their rights,
            // which must not make it writable and executable.
            if ((had | perms) & hal::perm_w && (had | perms) & hal::perm_x) return -TS_EINVAL;
            if (!pa) {
                if (const uintptr_t frame = shared_frame(text_from, va, had | perms)) {
                    if (!space.map(va, frame, perms)) return -TS_ENOMEM;
                    continue;  // filled when text_from was loaded
                }
                void *f = frame_alloc();
                if (!f) return -TS_ENOMEM;
                pa = reinterpret_cast<uintptr_t>(f);
            }
            if (!space.map(va, pa, perms)) return -TS_ENOMEM;
            // The kernel sees its frames identity-mapped: copy through them.
            const uintptr_t from = va < s.p_vaddr ? s.p_vaddr : va;
            const uint64_t off = from - s.p_vaddr;
            if (off < s.p_filesz) {
                const size_t room = hal::page_size - (from & (hal::page_size - 1));
                const size_t n = room < s.p_filesz - off ? room : s.p_filesz - off;
                memcpy(reinterpret_cast<void *>(pa + (from & (hal::page_size - 1))), base + s.p_offset + off,
                       n);
            }
        }
        if (s.p_vaddr + s.p_memsz > top) top = s.p_vaddr + s.p_memsz;
    }
    if (top == 0 || eh->e_entry < user_base || eh->e_entry >= top) return -TS_EINVAL;
    *entry = eh->e_entry;
    *end = top;
    return 0;
}

}  // namespace kernel
