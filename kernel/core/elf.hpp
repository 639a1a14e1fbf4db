// Loading ELF executables into a user address space.
#pragma once

#include "kernel/core.hpp"

namespace kernel {

/// Maps and fills the PT_LOAD segments of the ELF64 RISC-V executable
/// elf[0..size) into `space` (user pages, permissions from p_flags). All
/// segments must lie in [user_base, user_heap_limit). Sets *entry and *end
/// (first byte after the highest segment). 0, -TS_EINVAL (not a valid
/// executable) or -TS_ENOMEM. With `text_from`, a space the same
/// executable was loaded into before, a page that is read-only there is
/// mapped to the same frame instead of a copy (text and read-only data are
/// shared; writable pages are always the space's own).
long elf_load(hal::AddressSpace &space, const void *elf, size_t size, uintptr_t *entry, uintptr_t *end,
              const hal::AddressSpace *text_from = nullptr);

}  // namespace kernel
