"""Does a job fit its clusters' memory windows? The estimate mpirun makes
before anything boots, on both platforms, and the refusal it prints.

A compute cluster's window holds, from its base (docs/ARCHITECTURE.md,
"A compute cluster's memory"):

  - on qemu-riscv64, the linked image: the kernel (text, data, bss and a
    stack per core) and the payload (the manifest and the program's
    ELF); on linux64 only the payload (the kernel lives in the cluster
    process, outside the window);
  - the kernel's boot frames: its address space's page tables and the
    tables it sizes from the profile (kernel_tables);
  - the program's read-only pages, copied once and shared by the ranks
    (kernel/core/elf.cpp);
  - per rank, processes mode (--ranks processes, a process per rank): its
    writable pages (data, bss and the main thread's TLS block), its
    initial stack (the profile's user_stack_kb), its page tables (root,
    one per GiB, one leaf table per 2 MiB touched) and its heap, of which
    LWMPI's state is the floor;
  - threads mode (--ranks threads, one process, a thread per rank): the
    writable pages and the process's tables once; per rank a stack, a TLS
    block on the heap (userland/runtime/thread.c) and LWMPI's state; a
    leaf table per 2 MiB of stacks (a core's stack is 1 MiB below the
    one before, kernel/core/include/kernel/core.hpp).

need = image + boot tables + read-only pages + HEAP_RESERVE + shared
       + n x per rank.

The heap a program takes beyond LWMPI's own state is the program's: the
estimate cannot know it, and the kernel's spawn or a failed malloc is the
backstop. Calibrated against the kernel's measured peak (mpirun --verbose:
"the MPI program used at most K KiB"): docs/ARCHITECTURE.md, "A compute
cluster's memory".

Standard library only: the unit tests need no toolchain.
"""
import struct
from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB
PAGE = 4096
MEGAPAGE = 2 << 20        # a leaf page table maps 2 MiB
GIGAPAGE = 1 << 30        # a second-level table maps 1 GiB

# kernel/core/include/kernel/core.hpp: user addresses.
USER_BASE = 0x40000000
USER_STACK_AREA = 0x70000000     # core k's stack tops out at area - k spans
USER_STACK_SPAN = 1 << 20
USER_STACK_MAX = USER_STACK_SPAN - 64 * KIB

# qemu-riscv64's kernel address space (hal/arch/qemu-riscv64/mmu.cpp): the
# window and the fabric in 2 MiB megapages (a table per GiB they touch),
# and the devices in 4 KiB pages in GiB 0: the test finisher (0x100000),
# the SSWI (0x2F00000) and the UART (0x10000000), each in a 2 MiB of its
# own (hal/arch/qemu-riscv64/virt.hpp).
QEMU_DEVICE_GIBS = {0}
QEMU_DEVICE_LEAF_TABLES = 3

# LWMPI's state on a rank's heap after MPI_Init (libmpi/mpiutil): its IKC
# ring of RING_SLOTS mailbox messages (rank_state.hpp ring_slots,
# TS_RING_BYTES: a 16-byte head, then per slot an 8-byte header and the
# message's payload, the mailbox size less its 8-byte IKC header), one
# Peer of PEER_BYTES per rank of the job (process.cpp), and the rest that
# MPI_Init and the C library take (communicators, groups, stdio, the
# allocator's own headers), LWMPI_INIT_BYTES, measured with fn, hello,
# mpi_rma and km (docs/ARCHITECTURE.md, "A compute cluster's memory").
RING_SLOTS = 32
RING_HEAD_BYTES = 16
RING_SLOT_HEADER_BYTES = 8
IKC_HEADER_BYTES = 8
PEER_BYTES = 8
LWMPI_INIT_BYTES = 12 * KIB

# Room kept for the program's own heap on a cluster hosting ranks (its
# arrays, message buffers, RMA windows), which its ELF does not tell: fn's
# masters hold 16 bytes per number of their share (32 KiB for fn 1 2000).
# A program that takes more than this beyond LWMPI's floor may still run
# out of memory at run time (malloc fails, or the kernel's spawn).
HEAP_RESERVE = 64 * KIB

# The runtime's TLS block of a thread that is not a process's first
# (userland/runtime/thread.c): its start record and the TCB beside the
# TLS image, at most this much more than PT_TLS's size.
THREAD_TLS_EXTRA = 128

# A service's heap (services/: they take nothing from it but what the C
# library's stdio may).
SERVICE_HEAP = 16 * KIB

PT_LOAD, PT_INTERP, PT_TLS = 1, 3, 7
PF_W = 2


def pages(nbytes):
    """Whole pages holding nbytes."""
    return (nbytes + PAGE - 1) // PAGE


@dataclass(frozen=True)
class ProgramPages:
    """What loading a program takes, from its ELF's program headers."""
    ro_pages: int       # pages of read-only segments (shared by a cluster's ranks)
    rw_pages: int       # pages of writable ones (each process's own)
    tls_bytes: int      # PT_TLS size (each further thread's block)
    low: int            # lowest and highest address it loads at
    high: int


def program_headers(data):
    """(type, flags, offset, vaddr, filesz, memsz) of each program header of
    an ELF64 file, read little-endian as both targets are; raises
    ValueError if it is none."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not a 64-bit ELF file")
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    if phnum and (phentsize < 56 or phoff + phnum * phentsize > len(data)):
        raise ValueError("program headers outside the file")
    out = []
    for i in range(phnum):
        kind, flags, offset, vaddr, _, filesz, memsz = struct.unpack_from(
            "<IIQQQQQ", data, phoff + i * phentsize)
        out.append((kind, flags, offset, vaddr, filesz, memsz))
    return out


def program_pages(data):
    """ProgramPages of an ELF executable (bytes). A page two segments share
    is mapped once, writable if either is (elf.cpp). A segment outside the
    user area is not counted: the kernel refuses to load it, and says so.
    Raises ValueError for a file that is no ELF64 or whose program headers
    lie outside it."""
    rw, ro, tls, low, high = set(), set(), 0, None, 0
    for kind, flags, _, vaddr, _, memsz in program_headers(data):
        if kind == PT_TLS:
            tls = memsz
        if kind != PT_LOAD or memsz == 0 or not USER_BASE <= vaddr <= USER_STACK_AREA - memsz:
            continue
        span = range(vaddr // PAGE, (vaddr + memsz + PAGE - 1) // PAGE)
        (rw if flags & PF_W else ro).update(span)
        low = vaddr if low is None else min(low, vaddr)
        high = max(high, vaddr + memsz)
    if low is None:                 # nothing to load (the tools' tests' stubs)
        return ProgramPages(0, 0, tls, USER_BASE, USER_BASE + 1)
    return ProgramPages(len(ro - rw), len(rw), tls, low, high)


def strip_elf(data):
    """The bytes of an ELF executable the kernel loads: the ELF header, the
    program headers and what the segments hold, without section headers,
    symbols or debug information (which follow them in a linked file).
    The kernel reads only those (kernel/core/elf.cpp); the user's file
    stays whole for gdb. Only what PT_LOAD and PT_TLS segments hold counts:
    the bytes of another header (PT_RISCV_ATTRIBUTES, which the linker puts
    after the debug information) go too, as the kernel reads none of them.
    Anything that is no such file comes back as is."""
    try:
        headers = program_headers(data)
    except ValueError:
        return data
    if not headers:
        return data
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    end = max([64, phoff + phentsize * phnum] + [off + filesz for kind, _, off, _, filesz, _ in headers
                                                  if kind in (PT_LOAD, PT_TLS)])
    if end > len(data):
        return data
    out = bytearray(data[:end])
    struct.pack_into("<Q", out, 40, 0)             # e_shoff
    struct.pack_into("<HHH", out, 58, 0, 0, 0)     # e_shentsize, e_shnum, e_shstrndx
    return bytes(out)


def _leaf_tables(spans):
    """Leaf page tables (2 MiB each) and second-level tables (1 GiB each)
    that map [lo, hi) for every (lo, hi) in spans."""
    leaves, mids = set(), set()
    for lo, hi in spans:
        leaves.update(range(lo // MEGAPAGE, (hi - 1) // MEGAPAGE + 1))
        mids.update(range(lo // GIGAPAGE, (hi - 1) // GIGAPAGE + 1))
    return len(leaves), len(mids)


def stack_span(core, stack):
    """[lo, hi) of the stack mapped for the thread on `core`."""
    top = USER_STACK_AREA - core * USER_STACK_SPAN
    return top - stack, top


def initial_stack(profile):
    """Bytes of stack a thread starts with (process.cpp initial_stack)."""
    size = pages(profile.user_stack_kb * KIB) * PAGE
    return min(max(size, PAGE), USER_STACK_MAX)


def lwmpi_heap(profile, np):
    """LWMPI's heap floor per rank of an np-rank job, in bytes, whole pages:
    its ring, its peers table, and LWMPI_INIT_BYTES."""
    payload = (profile.mailbox_size - IKC_HEADER_BYTES + 7) // 8 * 8
    ring = RING_HEAD_BYTES + RING_SLOTS * (RING_SLOT_HEADER_BYTES + payload)
    return pages(ring + PEER_BYTES * np + LWMPI_INIT_BYTES) * PAGE


def boot_tables(layout, cluster):
    """Bytes of the kernel's boot frames on a cluster: its address space's
    page tables (qemu-riscv64); the root alone on linux64, whose kernel
    maps the window with Linux (hal/arch/linux64/mmu.cpp)."""
    if layout.platform == "linux64":
        return PAGE
    gibs = set(QEMU_DEVICE_GIBS)
    for lo, hi in ((cluster.window_base, cluster.window_end),
                   (layout.fabric_base, layout.fabric_base + layout.fabric_size)):
        gibs.update(range(lo // GIGAPAGE, (hi - 1) // GIGAPAGE + 1))
    return (1 + len(gibs) + QEMU_DEVICE_LEAF_TABLES) * PAGE


# The tables the kernel takes from its frames at boot (kernel/core/frames.cpp
# boot_alloc): the IKC buffers table, ikc_buffers slots of a 16-byte
# header and the largest mailbox message (ikc/buffers.hpp, mailbox.cpp);
# on an I/O cluster the host files' table, 256 handles of 24 bytes, and
# its 256 KiB bounce buffer (kernel/hostfs.cpp, which asserts both).
BUFFER_SLOT_BYTES = 16 + 256
HOSTFS_BYTES = 256 * 24 + 256 * KIB


def kernel_tables(layout, cluster):
    """Bytes of the tables a cluster's kernel sizes from the profile at boot."""
    tables = pages(layout.profile.ikc_buffers * BUFFER_SLOT_BYTES) * PAGE
    if cluster.is_io:
        tables += pages(HOSTFS_BYTES) * PAGE
    return tables


@dataclass(frozen=True)
class Need:
    """What a cluster's window must hold for n ranks of a program, bytes.
    fixed: [(part, bytes)] whatever n; per_rank: [(part, bytes)] for each
    rank; tables: page tables beyond the per-rank ones (threads mode's
    stack leaf tables), a function of n."""
    window: int
    fixed: tuple
    per_rank: tuple
    ranks: int
    shared_stack_tables: bool = False

    def rank_bytes(self):
        return sum(b for _, b in self.per_rank)

    def stack_tables(self, n):
        """threads mode: the leaf tables of n ranks' stacks, cores 1..n."""
        if not self.shared_stack_tables or n == 0:
            return 0
        return _leaf_tables([stack_span(core, PAGE) for core in range(1, n + 1)])[0] * PAGE

    def total(self, n=None):
        n = self.ranks if n is None else n
        return sum(b for _, b in self.fixed) + n * self.rank_bytes() + self.stack_tables(n)

    def fits(self):
        return self.total() <= self.window

    def most_ranks(self):
        """The most ranks that fit (0: not even one)."""
        n = 0
        while n < self.ranks and self.total(n + 1) <= self.window:
            n += 1
        return n


def rank_need(layout, cluster, image, program, nranks, np, threads):
    """Need of a compute cluster hosting nranks ranks of an np-rank job.

    image: bytes from the window's base to the image's end (qemu-riscv64:
    the linked image; linux64: the payload). program: ProgramPages of the
    MPI program. threads: --ranks threads (one process) rather than a
    process per rank."""
    p = layout.profile
    stack = initial_stack(p)
    lwmpi = lwmpi_heap(p, np)
    ro = program.ro_pages * PAGE
    rw = program.rw_pages * PAGE
    # The program's pages and its heap's first pages share leaf tables; the
    # stacks have their own.
    image_span = (program.low, program.high + lwmpi)
    fixed = [("kernel image" if layout.platform != "linux64" else "payload", image),
             ("kernel page tables", boot_tables(layout, cluster)),
             ("kernel tables", kernel_tables(layout, cluster)), ("code", ro),
             ("heap reserve", HEAP_RESERVE)]
    if threads:
        leaves, mids = _leaf_tables([image_span])
        fixed += [("data", rw), ("process page tables", (1 + mids + leaves) * PAGE)]
        tls = (program.tls_bytes + THREAD_TLS_EXTRA + 15) // 16 * 16
        per_rank = [("stack", stack), ("TLS", tls), ("LWMPI", lwmpi)]
        return Need(cluster.window_size, tuple(fixed), tuple(per_rank), nranks,
                    shared_stack_tables=True)
    leaves, mids = _leaf_tables([image_span, stack_span(1, stack)])
    per_rank = [("stack", stack), ("data", rw), ("page tables", (1 + mids + leaves) * PAGE),
                ("LWMPI", lwmpi)]
    return Need(cluster.window_size, tuple(fixed), tuple(per_rank), nranks)


def io_rank_part(layout, cluster, program, np):
    """("the I/O rank", bytes): what the job's I/O rank (mpirun --io-rank,
    ProgramPages program) takes in cluster 0's window, as one rank alone
    on a cluster of a job of np world ranks and itself."""
    need = rank_need(layout, cluster, 0, program, 1, np + 1, False)
    own = sum(b for part, b in need.fixed if part in ("code", "heap reserve"))
    return (IO_RANK_PART, own + need.rank_bytes())


IO_RANK_PART = "the I/O rank"


def services_need(layout, cluster, image, services, io_rank=None):
    """Need of a cluster that hosts no world rank: the kernel and, on
    cluster 0, the services (ProgramPages each, a process of one thread),
    with a page of console lines per cluster (kernel/console.cpp), and the
    job's I/O rank if any (io_rank: io_rank_part's pair)."""
    stack = initial_stack(layout.profile)
    fixed = [("kernel image" if layout.platform != "linux64" else "payload", image),
             ("kernel page tables", boot_tables(layout, cluster)),
             ("kernel tables", kernel_tables(layout, cluster))]
    for s in services:
        leaves, mids = _leaf_tables([(s.low, s.high + SERVICE_HEAP), stack_span(1, stack)])
        fixed.append(("a service", (s.ro_pages + s.rw_pages + 1 + mids + leaves) * PAGE + stack
                      + SERVICE_HEAP))
    if services:
        fixed.append(("console lines", len(layout.clusters) * PAGE))
    if io_rank:
        fixed.append(io_rank)
    return Need(cluster.window_size, tuple(fixed), (), 0)


def kib(nbytes):
    """nbytes in KiB, rounded up."""
    return (nbytes + KIB - 1) // KIB


def describe(need, program_name):
    """The parts of a need, biggest fixed ones first, e.g. "kernel image 402
    KiB, fn's code 88 KiB; 12 ranks x 158 KiB: stack 128, data 12, page
    tables 16, LWMPI 12"."""
    fixed = [(f"{program_name}'s {part}" if part in ("code", "data") else part, b)
             for part, b in need.fixed if b]
    text = ", ".join(f"{part} {kib(b)} KiB" for part, b in fixed)
    if need.ranks:
        rank = ", ".join(f"{part} {kib(b)}" for part, b in need.per_rank)
        text += f"; {need.ranks} ranks x {kib(need.rank_bytes())} KiB: {rank}"
        tables = need.stack_tables(need.ranks)
        if tables:
            text += f"; their stacks' page tables {kib(tables)} KiB"
    return text


def refusal(cluster_id, program_name, need, larger=None):
    """The message refusing a cluster whose need does not fit, e.g.
    "cluster 4 cannot hold its 12 ranks of fn: its 2048 KiB window needs
    2436 KiB, 388 KiB more (kernel image 402 KiB, ...; 12 ranks x 158 KiB:
    stack 128, data 12, page tables 16, LWMPI 12); at most 9 ranks fit;
    give each compute cluster 4 MiB or more (mpirun --cluster-memory 4M),
    or use a profile with larger windows (e.g. mppa256-big)". larger: a
    profile to name, or None. The size suggested is the need rounded up to
    a window's 2 MiB."""
    total = need.total()
    io = any(part == IO_RANK_PART for part, _ in need.fixed)
    what = (f"its {need.ranks} rank{'s' if need.ranks != 1 else ''} of {program_name}"
            if need.ranks else "its kernel, services and the I/O rank" if io
            else "its kernel and services")
    text = (f"cluster {cluster_id} cannot hold {what}: its {kib(need.window)} KiB window needs "
            f"{kib(total)} KiB, {kib(total - need.window)} KiB more "
            f"({describe(need, program_name)})")
    if need.ranks:
        most = need.most_ranks()
        text += (f"; at most {most} rank{'s' if most != 1 else ''} fit{'s' if most == 1 else ''}"
                 if most else "; not even one rank fits")
    if io:
        return f"{text}; use a profile with a larger I/O cluster window (its key 'io_memory_mb')"
    hint = f" (e.g. {larger})" if larger else ""
    mib = -(-total // (2 * MIB)) * 2
    return (f"{text}; give each compute cluster {mib} MiB or more (mpirun --cluster-memory "
            f"{mib}M), or use a profile with larger windows{hint}")
