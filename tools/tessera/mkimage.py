"""Tessera image builder: one bootable image per cluster and the QEMU command.

For every cluster it writes a payload (a struct ts_manifest followed by the
ELF files of the programs the cluster starts). On qemu-riscv64 it links the
payload with the kernel library at the cluster's memory window, checks the
result, and finally returns the QEMU command line that loads all images into
one `virt` machine. On linux64 the payload files are the result: one
tessera_cluster process per cluster reads its own (tools/mpirun starts them).

Struct layouts and constants come from the ABI headers, include/tessera/image.h
and syscall.h, read by tools/tessera/abi.py: there is no second copy here.
The pure logic (manifest packing, segment and header checks, the QEMU command)
needs no toolchain, so the unit tests call it directly.

On qemu-riscv64 the machine runs Tessera's own M-mode firmware by default
(out/target/firmware/firmware.elf, QEMU's -bios none): it also gets a
table, <tessera/firmware.h>, with every cluster's window and harts and the
fabric, from which it checks the images, starts the masters and sets each
hart's PMP. --firmware opensbi (or $TESSERA_FIRMWARE=opensbi) boots with
the OpenSBI 1.1 QEMU ships instead, entering cluster 0's image as before.

CLI (mpirun does the same and then boots the machine):
    tools/mkimage.py [-np N] [--map-by compact|scatter|ppr:N:cluster]
                     [--profile NAME|PATH] [--cluster-memory SIZE]
                     [--platform qemu-riscv64|linux64] [--firmware tessera|opensbi]
                     [--services ELF] [--kernel-lib LIB] [--kernel-ld LD]
                     -o OUTDIR PROGRAM [ARGS...]
It prints the QEMU command (qemu-riscv64) or the payload files (linux64).
The platform defaults to $TESSERA_PLATFORM, else qemu-riscv64.
"""
import os
import shlex
import struct
import subprocess
import sys
from dataclasses import dataclass

from tessera import abi, fit
from tessera.profile import (DEFAULT_FIRMWARE, DEFAULT_PLATFORM, FIRMWARES,
                             MIB, PLATFORMS, REPO, OptionError, ToolError, check_capacity,
                             check_firmware_name, check_platform, check_platform_name,
                             PROFILE_DIR, compute_layout, load_profile, per_cluster_layout)

# --- include/tessera/image.h and syscall.h -----------------------------------

IMAGE_H = abi.load_header("tessera/image.h")
SYSCALL_H = abi.load_header("tessera/syscall.h", layouts=False)

TS_IMAGE_MAGIC = IMAGE_H.constant("TS_IMAGE_MAGIC")          # "TESS"
TS_MANIFEST_MAGIC = IMAGE_H.constant("TS_MANIFEST_MAGIC")    # "TSMF"
TS_MAX_PROGRAMS = IMAGE_H.constant("TS_MAX_PROGRAMS")
TS_PROGRAM_NAME = IMAGE_H.constant("TS_PROGRAM_NAME")
TS_MANIFEST_ARGS = IMAGE_H.constant("TS_MANIFEST_ARGS")
TS_MANIFEST_ENV = IMAGE_H.constant("TS_MANIFEST_ENV")
# Manifest flags: console lines start with the rank; LWMPI: ranks of one
# cluster talk through IKC.
TS_MANIFEST_TAG_OUTPUT = IMAGE_H.constant("TS_MANIFEST_TAG_OUTPUT")
TS_MANIFEST_MPI_LOCAL_IKC = IMAGE_H.constant("TS_MANIFEST_MPI_LOCAL_IKC")
# LWMPI: without a threshold, eager over IKC only what one mailbox message carries.
TS_MANIFEST_MPI_EAGER_ONE_MESSAGE = IMAGE_H.constant("TS_MANIFEST_MPI_EAGER_ONE_MESSAGE")
# Each MPI process of a compute cluster is a process of its own (private
# globals); clear: the cluster's MPI processes are threads of one process.
TS_MANIFEST_RANK_PROCESSES = IMAGE_H.constant("TS_MANIFEST_RANK_PROCESSES")
# The platform's own tests (kernel/tests/test_isolation.py): the SBI self-check, the
# isolation probe. mpirun never sets it.
TS_MANIFEST_PLATFORM_TESTS = IMAGE_H.constant("TS_MANIFEST_PLATFORM_TESTS")
# The kernel holds the manifest's hold_rank before its main, for a debugger (mpirun --gdb).
TS_MANIFEST_HOLD_RANK = IMAGE_H.constant("TS_MANIFEST_HOLD_RANK")
# Every core records its kernel calls, IKC transfers and MPI calls (mpirun --trace).
TS_MANIFEST_TRACE = IMAGE_H.constant("TS_MANIFEST_TRACE")
# The job has an I/O rank (mpirun --io-rank): process np, started on cluster 0.
TS_MANIFEST_IO_RANK = IMAGE_H.constant("TS_MANIFEST_IO_RANK")
# LWMPI's wait policy, a TS_MPI_WAIT_* value in the flags at this shift.
TS_MANIFEST_MPI_WAIT_SHIFT = IMAGE_H.constant("TS_MANIFEST_MPI_WAIT_SHIFT")
WAIT_POLICIES = {"spin": SYSCALL_H.constant("TS_MPI_WAIT_SPIN"),
                 "block": SYSCALL_H.constant("TS_MPI_WAIT_BLOCK"),
                 "adaptive": SYSCALL_H.constant("TS_MPI_WAIT_ADAPTIVE")}
MAP_POLICIES = {"compact": SYSCALL_H.constant("TS_MAP_COMPACT"),
                "scatter": SYSCALL_H.constant("TS_MAP_SCATTER")}

# abi.CStruct layouts: pack(**fields) and unpack_from(buf) by field name.
MANIFEST = IMAGE_H.struct("ts_manifest")
CLUSTER_DESC = IMAGE_H.struct("ts_cluster_desc")
PROGRAM_DESC = IMAGE_H.struct("ts_program_desc")
MANIFEST_SIZE = MANIFEST.size
# code0 is an instruction: QEMU makes OpenSBI enter the -kernel image at its
# lowest address, not at its ELF entry.
IMAGE_HEADER = IMAGE_H.struct("ts_image_header")

# <tessera/firmware.h>: the table Tessera's firmware reads.
FIRMWARE_H = abi.load_header("tessera/firmware.h")
FW_TABLE = FIRMWARE_H.struct("ts_fw_table")
TS_FW_TABLE_MAGIC = FIRMWARE_H.constant("TS_FW_TABLE_MAGIC")
TS_FW_BASE = FIRMWARE_H.constant("TS_FW_BASE")
TS_FW_TABLE_ADDR = FIRMWARE_H.constant("TS_FW_TABLE_ADDR")
TS_FW_END = FIRMWARE_H.constant("TS_FW_END")
TS_FW_MAX_CLUSTERS = FIRMWARE_H.constant("TS_FW_MAX_CLUSTERS")
assert TS_FW_MAX_CLUSTERS == IMAGE_H.constant("TS_MAX_CLUSTERS")

ELF_ALIGN = 8            # programs inside the payload
EM_RISCV = 243
EM_X86_64 = 62
# platform -> (e_machine of its programs, what to call it in errors)
MACHINES = {"qemu-riscv64": (EM_RISCV, "RISC-V"), "linux64": (EM_X86_64, "x86-64")}
# platform -> the build folder's name under out/ (make puts it there)
BUILD_DIRS = {"qemu-riscv64": "target", "linux64": "linux64"}

CROSS = "riscv64-linux-gnu-"
ARCH_FLAGS = ["-march=rv64gc", "-mabi=lp64d"]


class ImageError(ToolError):
    """An image cannot be built or fails a check."""


@dataclass(frozen=True)
class Program:
    """A program a cluster's spawn server starts."""
    name: str
    ring: int       # 0: services, started first; 1: user programs
    is_mpi: int
    data: bytes     # the ELF file as the kernel loads it (fit.strip_elf)
    appnum: int = 0         # an MPI program: its application (MPI_APPNUM), its argv
    first_rank: int = 0     # and that application's ranks
    nranks: int = 0

    def runs(self, rank):
        """True when this MPI program runs `rank` of the job."""
        return bool(self.is_mpi) and self.first_rank <= rank < self.first_rank + self.nranks


@dataclass(frozen=True)
class App:
    """One application of a launch (MPI 3.1 section 8.8: mpirun -np 1 a :
    -np 4 b has two): the path of its program's ELF, its arguments
    (argv[1:]) and its number of MPI processes. The job's ranks go to the
    applications in order: the first's are 0..np-1, and so on. io: the
    job's I/O rank (mpirun --io-rank; the last application, np 1): MPI
    process np of the job's np world ranks, outside MPI_COMM_WORLD, on
    cluster 0."""
    program: str
    args: tuple
    np: int
    io: bool = False


def job_apps(program, args, np):
    """The applications of a job: `program` as a list of App (an MPMD
    launch: args must then be empty and np their total), or the path of
    the one program, run with args by np processes."""
    if isinstance(program, str):
        return [App(program, tuple(args), np)]
    apps = list(program)
    if args or sum(a.np for a in apps if not a.io) != np or not apps or apps[0].io:
        raise ImageError("an MPMD job gives each application its own arguments and processes "
                         "(args empty, np their total)")
    if any(a.io for a in apps[:-1]) or (apps[-1].io and apps[-1].np != 1):
        raise ImageError("the I/O rank's application is the last, of one process")
    return apps


def io_rank_cores(layout, nservices):
    """Refuse a job with an I/O rank that cluster 0 has no free core for:
    its master runs the kernel, each service a core of its own."""
    p = layout.profile
    need = 1 + nservices + 1
    if p.io_cores < need:
        raise ImageError(
            f"--io-rank: profile '{p.name}' has no core for the I/O rank: its I/O cluster 0 has "
            f"{p.io_cores} cores, all taken (the master, the name server, the file server); the "
            f"I/O rank needs one more (the profile's key 'io_cores' at least {need})")


@dataclass(frozen=True)
class Segment:
    """A PT_LOAD segment: where QEMU loads it and how much memory it spans."""
    paddr: int
    memsz: int


# --- mapping -----------------------------------------------------------------

def parse_map_by(value):
    """(policy, ppr) of a --map-by value: compact or scatter (ppr 0), or
    Open MPI's per-resource form ppr:N:cluster, at most N MPI processes per
    compute cluster filled in order: rank r on compute cluster r // N, local
    index r % N. That is the compact policy on a layout of N slots per
    cluster (per_cluster_layout, which plan_job applies and which checks N
    against the profile), so ("compact", N). Raises OptionError."""
    if value in MAP_POLICIES:
        return value, 0
    parts = value.split(":")
    if len(parts) != 3 or parts[0] != "ppr":
        raise OptionError(f"--map-by must be compact, scatter or ppr:N:cluster, got '{value}'")
    count, resource = parts[1], parts[2]
    if not (count.isascii() and count.isdigit() and int(count) >= 1):
        raise OptionError(f"--map-by ppr:N:cluster needs a positive number N of processes per "
                          f"compute cluster, got '{value}'")
    if resource != "cluster":
        raise OptionError(f"--map-by ppr:N:RESOURCE: Tessera places processes per compute "
                          f"cluster only (ppr:N:cluster), got '{value}'")
    return "compact", int(count)


def placement(layout, policy, rank):
    """(compute cluster index, local index) of `rank` under `policy`: the
    process manager's JobShape::place (<tessera/mapping.hpp>), which the
    spawn servers and crt0 follow."""
    if policy == "compact":
        return divmod(rank, layout.slots_per_cluster)
    return rank % layout.ncompute, rank // layout.ncompute


# --- manifest and payload ----------------------------------------------------

def program_name(path):
    """argv[0] of a program: its file's basename without .elf."""
    base = os.path.basename(path)
    return base[:-4] if base.endswith(".elf") else base


def program_label(name):
    """The manifest's label of a program (ts_program_desc.name): its name,
    cut to TS_PROGRAM_NAME - 1 bytes (whole UTF-8 characters) to fit."""
    data = name.encode("utf-8")[:TS_PROGRAM_NAME - 1]
    return data.decode("utf-8", errors="ignore").encode("utf-8")


def encode_args(argvs):
    """Pack each application's argv (a list of argv lists, argv[0] first)
    as NUL-terminated strings, one argv after the other; returns (bytes,
    [offset of each argv]). The manifest holds them all: refuses more than
    it holds."""
    blob, offsets = b"", []
    for argv in argvs:
        offsets.append(len(blob))
        blob += b"".join(a.encode("utf-8") + b"\0" for a in argv)
    if len(blob) > TS_MANIFEST_ARGS:
        whose = "the program's" if len(argvs) == 1 else "the applications'"
        raise ImageError(f"{whose} arguments take {len(blob)} bytes (argv[0] and a NUL after "
                         f"each included) but the manifest holds at most {TS_MANIFEST_ARGS}")
    return blob, offsets


def encode_env(env):
    """Pack the job's environment, "NAME=VALUE" strings (mpirun -x), as
    NUL-terminated strings back to back; returns the bytes. Bytes that are
    no UTF-8 (os.environ's surrogate escapes) go in as they came."""
    blob = b"".join(v.encode("utf-8", "surrogateescape") + b"\0" for v in env)
    if len(blob) > TS_MANIFEST_ENV:
        raise ImageError(f"the environment variables take {len(blob)} bytes (NAME=VALUE and a "
                         f"NUL each) but the manifest holds at most {TS_MANIFEST_ENV}")
    return blob


def pack_manifest(layout, cluster_id, np, policy, programs, args, flags=0, mpi_eager_max=0,
                  env=(), hold_rank=0):
    """struct ts_manifest for one cluster, as bytes.

    programs: list of (Program, offset of its ELF from the manifest's start).
    args: the argv of each application of the job (argv[0] first), the
    same in every cluster's manifest; an MPI Program starts with that of
    its appnum, a service with none. flags: TS_MANIFEST_*.
    mpi_eager_max: LWMPI's largest eager message in bytes (0: its default).
    env: the environment of every program of the job, "NAME=VALUE" strings.
    hold_rank: the rank the kernel holds for a debugger when flags has
    TS_MANIFEST_HOLD_RANK (mpirun --gdb).
    """
    if len(programs) > TS_MAX_PROGRAMS:
        raise ImageError(f"cluster {cluster_id}: {len(programs)} programs, "
                         f"at most {TS_MAX_PROGRAMS} fit in the manifest")
    if policy not in MAP_POLICIES:
        raise ImageError(f"unknown mapping policy '{policy}' (compact or scatter)")
    blob, arg_offsets = encode_args(args)
    if any(prog.is_mpi and prog.appnum >= len(args) for prog, _ in programs):
        raise ImageError(f"cluster {cluster_id}: an MPI program of an application without argv")
    env_blob = encode_env(env)
    p = layout.profile
    clusters = []
    for c in layout.clusters:
        mailboxes, portals = layout.hw_resources(c)
        clusters.append(dict(window_base=c.window_base, window_size=c.window_size,
                             first_hart=c.first_hart, ncores=c.ncores, kind=c.kind,
                             mailboxes=mailboxes, portals=portals))
    descs = [dict(ring=prog.ring, offset=offset, size=len(prog.data), is_mpi=prog.is_mpi,
                  name=program_label(prog.name), appnum=prog.appnum, first_rank=prog.first_rank,
                  nranks=prog.nranks, argc=len(args[prog.appnum]) if prog.is_mpi else 0,
                  args_offset=arg_offsets[prog.appnum] if prog.is_mpi else 0)
             for prog, offset in programs]
    out = MANIFEST.pack(
        magic=TS_MANIFEST_MAGIC, cluster_id=cluster_id, nclusters=len(layout.clusters),
        nio_clusters=layout.nio, fabric_base=layout.fabric_base, fabric_size=layout.fabric_size,
        mailbox_size=p.mailbox_size, portal_chunk=p.portal_chunk, np=np,
        map_policy=MAP_POLICIES[policy], slots_per_cluster=layout.slots_per_cluster,
        nprograms=len(programs), args_size=len(blob), ikc_buffers=p.ikc_buffers,
        virtual_per_hw=p.virtual_per_hw, timebase_hz=layout.timebase_hz, flags=flags,
        mpi_eager_max=mpi_eager_max, user_stack_size=p.user_stack_kb * 1024, hold_rank=hold_rank,
        clusters=clusters, programs=descs, args=blob, env_size=len(env_blob), env=env_blob)
    assert len(out) == MANIFEST_SIZE
    return out


def build_payload(layout, cluster_id, np, policy, programs, args, flags=0, mpi_eager_max=0,
                  env=(), hold_rank=0):
    """The .payload contents of one cluster: manifest, then each ELF 8-byte aligned."""
    placed = []
    offset = MANIFEST_SIZE
    for prog in programs:
        offset = (offset + ELF_ALIGN - 1) // ELF_ALIGN * ELF_ALIGN
        placed.append((prog, offset))
        offset += len(prog.data)
    out = bytearray(pack_manifest(layout, cluster_id, np, policy, placed, args, flags,
                                  mpi_eager_max, env, hold_rank))
    for prog, at in placed:
        out += bytes(at - len(out)) + prog.data
    return bytes(out)


def io_programs(mpis, np):
    """The I/O rank's program among mpis (a list of one, or empty): the
    MPI program of process np, after the world's np ranks."""
    return [m for m in mpis if m.first_rank >= np and m.runs(np)]


def cluster_programs(layout, cluster_id, mpis, services, policy, np):
    """What cluster cluster_id starts: the services (a list: the name server
    and the file server) on cluster 0, and the I/O rank's program if the
    job has one (the MPI program of process np); on a compute cluster, the
    MPI programs (of mpis, one per application) that run some rank it
    hosts under policy (its spawn server starts each rank with its own);
    nothing on the other I/O clusters."""
    if cluster_id == 0:
        return list(services) + io_programs(mpis, np)
    if layout.clusters[cluster_id].is_io:
        return []
    index = cluster_id - layout.nio
    hosted = [r for r in range(np) if placement(layout, policy, r)[0] == index]
    return [m for m in mpis if any(m.runs(r) for r in hosted)]


# --- checks ------------------------------------------------------------------

def check_segments(cluster, segments):
    """Check one image's PT_LOAD segments against its cluster's window.

    Every segment must be non-empty and inside the window (check_fit then
    says whether the rest holds the cluster's programs). Returns the
    image's end.
    """
    if not segments:
        raise ImageError(f"cluster {cluster.id}: the image has no loadable segment")
    end = cluster.window_base
    for s in segments:
        if s.memsz == 0:
            # OpenSBI would jump to an empty segment's address (often 0).
            raise ImageError(f"cluster {cluster.id}: empty PT_LOAD segment at {s.paddr:#x}; "
                             f"every loadable segment must be non-empty")
        if s.paddr < cluster.window_base or s.paddr + s.memsz > cluster.window_end:
            raise ImageError(
                f"cluster {cluster.id}: segment {s.paddr:#x}..{s.paddr + s.memsz:#x} is outside "
                f"its window {cluster.window_base:#x}..{cluster.window_end:#x}")
        end = max(end, s.paddr + s.memsz)
    return end


def check_overlap(images):
    """Refuse images whose segments overlap. images: {"cluster 3": [Segment], ...}."""
    spans = sorted((s.paddr, s.paddr + s.memsz, name)
                   for name, segs in images.items() for s in segs)
    for (a0, a1, na), (b0, b1, nb) in zip(spans, spans[1:]):
        if b0 < a1:
            who = f"{na} and {nb}" if na != nb else na
            raise ImageError(f"overlapping images: {who} both load {b0:#x}..{min(a1, b1):#x}")


def check_header(cluster, header):
    """Check the ts_image_header bytes read at a cluster's window base.

    Returns the header fields as a dict (entry, image_end, manifest, ...).
    """
    if len(header) < IMAGE_HEADER.size:
        raise ImageError(f"cluster {cluster.id}: no image header at {cluster.window_base:#x}")
    h = IMAGE_HEADER.unpack_from(header)
    magic, cid, first_hart, base = h["magic"], h["cluster_id"], h["first_hart"], h["window_base"]
    entry, image_end, manifest = h["entry"], h["image_end"], h["manifest"]
    if magic != TS_IMAGE_MAGIC:
        raise ImageError(f"cluster {cluster.id}: bad image header magic {magic:#x} at "
                         f"{cluster.window_base:#x} (want {TS_IMAGE_MAGIC:#x})")
    if cid != cluster.id:
        raise ImageError(f"cluster {cluster.id}: the image header says cluster {cid}")
    if first_hart != cluster.first_hart:
        raise ImageError(f"cluster {cluster.id}: the image header's first hart is {first_hart}, "
                         f"want {cluster.first_hart}")
    if base != cluster.window_base:
        raise ImageError(f"cluster {cluster.id}: the image header's window_base is {base:#x}, "
                         f"want {cluster.window_base:#x}")
    for field, value in (("entry", entry), ("manifest", manifest), ("image_end", image_end)):
        if not cluster.window_base <= value <= cluster.window_end:
            raise ImageError(f"cluster {cluster.id}: the image header's {field} {value:#x} is "
                             f"outside the window")
    return {"entry": entry, "image_end": image_end, "manifest": manifest}


def jal_target(word, pc):
    """Where the instruction `word` at `pc` jumps if it is `jal x0` (`j`), else None."""
    if word & 0xFFF != 0x06F:                      # opcode JAL, rd = x0
        return None
    imm = (((word >> 31) & 1) << 20 | ((word >> 12) & 0xFF) << 12
           | ((word >> 20) & 1) << 11 | ((word >> 21) & 0x3FF) << 1)
    if imm & (1 << 20):
        imm -= 1 << 21
    return pc + imm


def check_boot_entry(cluster, header, entry):
    """OpenSBI enters cluster 0's image at its base: code0 must jump to the ELF entry."""
    code0 = IMAGE_HEADER.unpack_field(header, "code0")
    target = jal_target(code0, cluster.window_base)
    if target != entry:
        raise ImageError(f"cluster {cluster.id}: the image header's first word {code0:#010x} "
                         f"must be a jump to the ELF entry {entry:#x} (OpenSBI enters there)")


def ranks_per_cluster(layout, policy, np):
    """How many of np ranks each compute cluster hosts under policy."""
    counts = [0] * layout.ncompute
    for rank in range(np):
        counts[placement(layout, policy, rank)[0]] += 1
    return counts


def larger_profile(profile, profile_dir=PROFILE_DIR):
    """The name of another profile of profile_dir with the same compute
    clusters and cores as `profile` but larger compute windows (the
    smallest such), for the refusal to suggest; None if there is none.
    Never `profile`'s own name: under --cluster-memory its file may have
    larger windows than the job's."""
    best = None
    names = sorted(f[:-5] for f in os.listdir(profile_dir) if f.endswith(".json")) \
        if os.path.isdir(profile_dir) else []
    for name in names:
        try:
            other = load_profile(name, profile_dir)
        except ToolError:
            continue
        if other.name != profile.name and (other.compute_clusters, other.compute_cores) == \
                (profile.compute_clusters, profile.compute_cores) and \
                other.compute_memory_mb > profile.compute_memory_mb and \
                (best is None or other.compute_memory_mb < best.compute_memory_mb):
            best = other
    return best.name if best else None


def program_pages(prog):
    """fit.ProgramPages of a Program; raises ImageError."""
    try:
        return fit.program_pages(prog.data)
    except ValueError as e:
        raise ImageError(f"program {prog.name}: {e}") from None


def hosted_pages(programs):
    """fit.ProgramPages for the ranks of a cluster that run `programs`
    (Programs; several in an MPMD launch): each program's code is loaded
    once, and each rank's data is counted as the largest program's."""
    pages = [program_pages(p) for p in programs]
    return fit.ProgramPages(sum(p.ro_pages for p in pages), max(p.rw_pages for p in pages),
                            max(p.tls_bytes for p in pages), min(p.low for p in pages),
                            max(p.high for p in pages))


def hosted_name(programs):
    """How the fit check names the program(s) a cluster's ranks run."""
    return " and ".join(p.name for p in programs)


def window_needs(layout, images, mpis, services, np, policy, flags):
    """[(Cluster, fit.Need, the MPI Programs it runs)] of every cluster of
    a job: images[c] is what the window holds from its base before the
    kernel's first frame (qemu-riscv64: the linked image; linux64: the
    payload), in bytes; mpis (one per application) and services: Programs
    (job_payloads'); flags: the manifest's (its TS_MANIFEST_RANK_PROCESSES
    says how ranks run)."""
    counts = ranks_per_cluster(layout, policy, np)
    threads = not flags & TS_MANIFEST_RANK_PROCESSES
    out = []
    for cluster, image in zip(layout.clusters, images):
        n = 0 if cluster.is_io else counts[cluster.id - layout.nio]
        hosted = cluster_programs(layout, cluster.id, mpis, services, policy, np) if n else []
        if n:
            need = fit.rank_need(layout, cluster, image, hosted_pages(hosted), n, np, threads)
        else:
            started = [program_pages(s) for s in services] if cluster.id == 0 else []
            io = io_programs(mpis, np) if cluster.id == 0 else []
            io_part = fit.io_rank_part(layout, cluster, program_pages(io[0]), np) if io else None
            need = fit.services_need(layout, cluster, image, started, io_part)
        out.append((cluster, need, hosted))
    return out


def check_fit(layout, images, mpis, services, np, policy, flags, report=None):
    """Refuse a job some cluster's window cannot hold (window_needs; the
    arguments are its), naming the cluster, what does not fit and by how
    much. report: a stream on which to say each hosting cluster's
    estimate (mpirun --verbose)."""
    for cluster, need, hosted in window_needs(layout, images, mpis, services, np, policy, flags):
        name = hosted_name(hosted or mpis)
        if not need.fits():
            raise ImageError(fit.refusal(cluster.id, name, need, larger_profile(layout.profile)))
        if report and need.ranks:
            print(f"mpirun: cluster {cluster.id}: {need.ranks} ranks of {name} need an "
                  f"estimated {fit.kib(need.total())} of its "
                  f"{fit.kib(need.window)} KiB window "
                  f"({fit.describe(need, name)})", file=report)


def check_elf_file(path, what, platform=DEFAULT_PLATFORM):
    """Refuse a file that is not a 64-bit ELF for the platform's processor,
    or that is a program for Linux (it asks for a dynamic loader, as one
    built with the system's mpicc does)."""
    machine, arch = MACHINES[platform]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ImageError(f"cannot read {what} {path}: {e.strerror}") from None
    build = f"build it with tools/mpicc --platform {platform}"
    if data[:4] != b"\x7fELF":
        raise ImageError(f"{what} {path} is not an ELF file")
    if len(data) < 20 or data[4] != 2 or struct.unpack_from("<H", data, 18)[0] != machine:
        raise ImageError(f"{what} {path} is not a 64-bit {arch} ELF, as {platform} needs ({build})")
    try:
        headers = fit.program_headers(data)
    except ValueError:
        headers = []  # the kernel refuses what it cannot load, and says so
    for kind, _, offset, _, filesz, _ in headers:
        if kind == fit.PT_INTERP:
            loader = data[offset:offset + filesz].split(b"\0")[0].decode(errors="replace")
            raise ImageError(f"{what} {path} is a dynamically linked Linux program (it asks for "
                             f"{loader or 'a dynamic loader'}), not a Tessera one: {build}")


def read_image(path):
    """Load facts from a linked image: (entry, [Segment], read(addr, size) -> bytes)."""
    from elftools.elf.elffile import ELFFile  # only needed once images exist

    with open(path, "rb") as f:
        elf = ELFFile(f)
        segments = [Segment(s["p_paddr"], s["p_memsz"])
                    for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"]
        sections = [(s["sh_addr"], s.data()) for s in elf.iter_sections()
                    if s["sh_flags"] & 2 and s["sh_type"] == "SHT_PROGBITS"]  # SHF_ALLOC
        entry = elf.header["e_entry"]

    def read(addr, size):
        for base, data in sections:
            if base <= addr and addr + size <= base + len(data):
                return data[addr - base:addr - base + size]
        return b""

    return entry, segments, read


def verify_images(layout, paths, firmware=None):
    """Check every linked image (segments, header, manifest), Tessera's
    firmware (its ELF's path, or None) and its table, and that none overlap.
    Returns each image's end, in cluster order."""
    loads = {}
    ends = []
    if firmware:
        _, segments, _ = read_image(firmware)
        check_firmware(segments)
        loads["the firmware"] = segments
        loads["the firmware's table"] = [Segment(TS_FW_TABLE_ADDR, FW_TABLE.size)]
        if TS_FW_TABLE_ADDR + FW_TABLE.size > min(c.window_base for c in layout.clusters):
            raise ImageError("the firmware's table reaches into the first cluster window")
    for cluster, path in zip(layout.clusters, paths):
        entry, segments, read = read_image(path)
        end = check_segments(cluster, segments)
        raw = read(cluster.window_base, IMAGE_HEADER.size)
        header = check_header(cluster, raw)
        if not cluster.window_base <= entry < end:
            raise ImageError(f"cluster {cluster.id}: ELF entry {entry:#x} is outside the image")
        if min(s.paddr for s in segments) != cluster.window_base:
            raise ImageError(f"cluster {cluster.id}: the image must start at its window base "
                             f"{cluster.window_base:#x} (the header comes first)")
        if cluster.id == 0:
            check_boot_entry(cluster, raw, entry)
        manifest = read(header["manifest"], MANIFEST_SIZE)
        m = MANIFEST.unpack_from(manifest) if len(manifest) == MANIFEST_SIZE else {}
        if (m.get("magic"), m.get("cluster_id")) != (TS_MANIFEST_MAGIC, cluster.id):
            raise ImageError(f"cluster {cluster.id}: the image header's manifest "
                             f"{header['manifest']:#x} does not point at this cluster's manifest")
        loads[cluster.name] = segments
        ends.append(end)
    check_overlap(loads)
    return ends


def pack_firmware_table(layout):
    """struct ts_fw_table for Tessera's firmware, as bytes: every cluster's
    window and harts, the fabric, the machine's hart count."""
    clusters = [dict(window_base=c.window_base, window_size=c.window_size,
                     first_hart=c.first_hart, ncores=c.ncores) for c in layout.clusters]
    return FW_TABLE.pack(magic=TS_FW_TABLE_MAGIC, nclusters=len(layout.clusters),
                         nharts=layout.harts, reserved=0, fabric_base=layout.fabric_base,
                         fabric_size=layout.fabric_size, clusters=clusters)


def check_firmware(segments):
    """Tessera's firmware must load between TS_FW_BASE (where QEMU's reset
    ROM jumps with -bios none) and its table's page."""
    if not segments:
        raise ImageError("the firmware has no loadable segment")
    for s in segments:
        if s.paddr < TS_FW_BASE or s.paddr + s.memsz > TS_FW_TABLE_ADDR:
            raise ImageError(f"the firmware's segment {s.paddr:#x}..{s.paddr + s.memsz:#x} is "
                             f"outside {TS_FW_BASE:#x}..{TS_FW_TABLE_ADDR:#x}")
    if min(s.paddr for s in segments) != TS_FW_BASE:
        raise ImageError(f"the firmware must start at {TS_FW_BASE:#x}, where QEMU enters it")


# --- QEMU ----------------------------------------------------------------------

# The I/O cluster's kernel reaches the host's files (the job's folder,
# QEMU's working folder) by semihosting; user code may not
# (hal/arch/qemu-riscv64/hostfs.cpp).
SEMIHOSTING = ["-semihosting-config", "enable=on,target=native,userspace=off"]


# QEMU's TCG modes (mpirun --qemu-threads): single, every hart in one host
# thread (deterministic, and what the figures of bench/ use); multi, a host
# thread per hart, so that ranks can run in parallel on a host with cores
# to spare.
TCG_THREADS = ("single", "multi")


def qemu_command(layout, images, firmware=None, table=None, tcg_threads="single"):
    """The QEMU command line booting images[c] for each cluster c.

    Tessera's firmware (layout.firmware "tessera"; firmware: its ELF, table:
    the file of pack_firmware_table): -bios none, so that every hart starts
    at 0x80000000, where the generic loader puts the firmware; the table
    goes raw at TS_FW_TABLE_ADDR and every image at its link address.
    OpenSBI: cluster 0's image goes in with -kernel: OpenSBI's boot hart
    enters it at its lowest address, the header, whose code0 jumps to
    _start_boot; the other images are only loaded.
    """
    if tcg_threads not in TCG_THREADS:
        raise ImageError(f"unknown TCG mode '{tcg_threads}' ({' or '.join(TCG_THREADS)})")
    cmd = ["qemu-system-riscv64", "-machine", "virt,aclint=on", "-accel", f"tcg,thread={tcg_threads}",
           "-smp", str(layout.harts), "-m", f"{layout.ram_mb}M"]
    if layout.firmware == "opensbi":
        cmd += ["-bios", "default"]
        loaded = images[1:]
    else:
        cmd += ["-bios", "none"]
        loaded = images
    cmd += ["-display", "none", "-serial", "stdio", "-monitor", "none", "-no-reboot",
            *SEMIHOSTING]
    if layout.firmware == "opensbi":
        cmd += ["-kernel", images[0]]
    else:
        cmd += ["-device", f"loader,file={firmware}",
                "-device", f"loader,file={table},addr={TS_FW_TABLE_ADDR:#x},force-raw=on"]
    for image in loaded:
        cmd += ["-device", f"loader,file={image}"]
    return cmd


# --- building ----------------------------------------------------------------

def _run(cmd, what):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except FileNotFoundError:
        raise ImageError(f"{cmd[0]} not found; run make first (it installs the toolchain)") \
            from None
    if r.returncode != 0:
        raise ImageError(f"{what} failed:\n$ {shlex.join(cmd)}\n{r.stdout.rstrip()}")
    return r.stdout


def libgcc_path():
    """The cross compiler's libgcc.a (the kernel may need its helpers)."""
    return _run([CROSS + "gcc", *ARCH_FLAGS, "-print-libgcc-file-name"],
                "finding libgcc").strip()


def link_cluster(cluster, payload, outdir, kernel_lib, kernel_ld, libgcc, kernel_stack):
    """Link cluster's image from the kernel library and its payload, with a
    kernel stack of kernel_stack bytes for each of its cores; returns its
    path."""
    stem = os.path.abspath(os.path.join(outdir, f"cluster{cluster.id}"))
    with open(stem + ".payload.bin", "wb") as f:
        f.write(payload)
    # An assembled .incbin carries the lp64d ABI flags; objcopy -I binary would
    # not, and ld refuses to mix the two.
    quoted = (stem + ".payload.bin").replace("\\", "\\\\").replace('"', '\\"')
    with open(stem + ".payload.S", "w") as f:
        f.write(f'\t.section .payload,"a"\n\t.balign 8\n\t.incbin "{quoted}"\n')
    _run([CROSS + "gcc", *ARCH_FLAGS, "-c", stem + ".payload.S", "-o", stem + ".payload.o"],
         f"assembling cluster {cluster.id}'s payload")
    with open(stem + ".ld", "w") as f:
        f.write(f"/* Generated by tools/mkimage.py: cluster {cluster.id}. */\n"
                f"WINDOW_BASE = {cluster.window_base:#x};\n"
                f"WINDOW_SIZE = {cluster.window_size:#x};\n"
                f"CLUSTER_ID = {cluster.id};\n"
                f"FIRST_HART = {cluster.first_hart};\n"
                f"KERNEL_CORES = {cluster.ncores};\n"
                f"KERNEL_STACK_SIZE = {kernel_stack:#x};\n"
                f"INCLUDE {os.path.abspath(kernel_ld)}\n")
    _run([CROSS + "ld", "-nostdlib", "-T", stem + ".ld",
          "--whole-archive", kernel_lib, "--no-whole-archive",
          stem + ".payload.o", libgcc, "-o", stem + ".elf"],
         f"linking cluster {cluster.id}'s image")
    return stem + ".elf"


def default_platform():
    """$TESSERA_PLATFORM when set (the test drivers run on either target
    that way), else qemu-riscv64. Raises ToolError for an unknown name."""
    name = os.environ.get("TESSERA_PLATFORM") or DEFAULT_PLATFORM
    if name not in PLATFORMS:
        raise ToolError(f"TESSERA_PLATFORM names an unknown platform '{name}' "
                        f"(known: {', '.join(PLATFORMS)})")
    return name


def target_out(platform=None):
    """The platform's build folder: $TESSERA_TARGET_OUT, else
    $TESSERA_OUT/<dir>, else <repo>/out/<dir> (where make puts it), <dir>
    being target for qemu-riscv64 and linux64 for linux64. platform
    defaults to default_platform()."""
    if os.environ.get("TESSERA_TARGET_OUT"):
        return os.environ["TESSERA_TARGET_OUT"]
    folder = BUILD_DIRS[check_platform_name(platform or default_platform())]
    return os.path.join(os.environ.get("TESSERA_OUT") or os.path.join(REPO, "out"), folder)


def default_paths(target=None, platform=None):
    """Where make puts the kernel library (qemu-riscv64), the cluster
    executable (linux64), the services (cluster 0's programs: the name
    server, the file server) and the programs."""
    target = target or target_out(platform)
    return {
        "kernel_lib": os.path.join(target, "kernel", "libtessera_kernel.a"),
        "cluster": os.path.join(target, "kernel", "tessera_cluster"),
        "services": [os.path.join(target, "bin", f"{name}.elf") for name in SERVICES],
        "bin": os.path.join(target, "bin"),
        "kernel_ld": os.path.join(REPO, "build", "kernel.ld"),
        "firmware": os.path.join(target, "firmware", "firmware.elf"),
    }


def default_firmware():
    """$TESSERA_FIRMWARE when set, else Tessera's own. Raises ToolError for
    an unknown name."""
    return check_firmware_name(os.environ.get("TESSERA_FIRMWARE") or DEFAULT_FIRMWARE)


def plan_job(profile, np, platform=None, firmware=None, ppr=0, cluster_memory=""):
    """Load the profile and refuse what cannot run on the platform (default:
    default_platform()) under the firmware (qemu-riscv64; default:
    default_firmware()), before anything is built. ppr: N of --map-by
    ppr:N:cluster (parse_map_by), 0 for none; cluster_memory: mpirun
    --cluster-memory's SIZE, which replaces the profile's compute_memory_mb
    ("": none). Returns the Layout."""
    platform = platform or default_platform()
    layout = compute_layout(load_profile(profile), platform, firmware or default_firmware(),
                            cluster_memory)
    if ppr:
        layout = per_cluster_layout(layout, ppr)
    check_platform(layout, platform)
    check_capacity(layout, np)
    return layout


SERVICES = ("nameserver", "fileserver")     # what cluster 0 starts, in order


def _need(path, what):
    if not os.path.isfile(path):
        raise ImageError(f"{what} {path} not found; run make first")


def mpi_programs(apps):
    """The MPI Program of each App, with its MPI_APPNUM and ranks."""
    out, first = [], 0
    for appnum, app in enumerate(apps):
        with open(app.program, "rb") as f:
            data = fit.strip_elf(f.read())
        name = program_name(app.program)
        out.append(Program(name, ring=1, is_mpi=1, data=data, appnum=appnum, first_rank=first,
                           nranks=app.np))
        first += app.np
    return out


def job_payloads(layout, program, args, np, policy, services, flags=0, mpi_eager_max=0,
                 need=(), env=(), hold_rank=0):
    """Every cluster's payload (bytes, in cluster order) for a job, after the
    checks both platforms share: capacity, argument size, and that the
    programs, services and the files in need ([(path, what)]) exist and are
    ELFs for layout.platform. program, args, np: the applications, as
    job_apps takes them; services: the ELF, or list of ELFs, cluster 0
    starts (each named after its file); flags, mpi_eager_max, env,
    hold_rank: as pack_manifest. Each ELF goes in stripped (fit.strip_elf): the
    user's file keeps its symbols and debug information for gdb. Returns
    (payloads, the MPI Programs, one per application, the service Programs)."""
    apps = job_apps(program, args, np)
    if apps[-1].io:
        flags |= TS_MANIFEST_IO_RANK
    if len(apps) > 1 and not flags & TS_MANIFEST_RANK_PROCESSES:
        # A cluster's ranks would be threads of one process: of one program.
        raise ImageError("an MPMD job runs each rank as a process of its own "
                         "(TS_MANIFEST_RANK_PROCESSES, mpirun --ranks processes)")
    check_capacity(layout, np)
    argvs = [[program_name(a.program), *a.args] for a in apps]
    encode_args(argvs)                       # refuse long arguments before any work
    encode_env(env)                          # and a long environment
    services = [services] if isinstance(services, str) else list(services)
    if apps[-1].io:
        io_rank_cores(layout, len(services))
    for path, what in need:
        _need(path, what)
    for path in services:
        _need(path, "service")
    for app in apps:
        _need(app.program, "program")
        check_elf_file(app.program, "program", layout.platform)
    for path in services:
        check_elf_file(path, "service", layout.platform)
    mpis = mpi_programs(apps)
    started = []
    for path in services:
        with open(path, "rb") as f:
            started.append(Program(program_name(path), ring=0, is_mpi=0,
                                   data=fit.strip_elf(f.read())))
    payloads = [build_payload(layout, c.id, np, policy,
                              cluster_programs(layout, c.id, mpis, started, policy, np), argvs,
                              flags, mpi_eager_max, env, hold_rank) for c in layout.clusters]
    return payloads, mpis, started


def build_images(layout, program, args, np, policy, outdir, services=None,
                 kernel_lib=None, kernel_ld=None, flags=0, mpi_eager_max=0, firmware=None,
                 report=None, env=(), tcg_threads="single", hold_rank=0, gdb_port=0):
    """qemu-riscv64: build and check every cluster's image in outdir, and
    that each window holds its image and what the cluster runs
    (check_fit; report: as its); returns the QEMU command.

    program, args, np: the applications, as job_apps takes them (the MPI
    program's ELF, its arguments argv[1:]; or a list of App).
    flags: TS_MANIFEST_* (e.g. TS_MANIFEST_TAG_OUTPUT); mpi_eager_max, env,
    hold_rank: as pack_manifest. gdb_port: QEMU's gdb stub listens on this
    TCP port of 127.0.0.1 (mpirun --gdb); 0: no stub.
    services, kernel_lib, kernel_ld, firmware (Tessera's firmware's ELF,
    when layout.firmware is "tessera") default to the build folder's
    (default_paths).
    """
    if layout.platform != "qemu-riscv64":
        raise ImageError(f"build_images makes QEMU images, not {layout.platform} payloads "
                         f"(use build_payloads)")
    paths = default_paths(platform=layout.platform)
    kernel_lib = kernel_lib or paths["kernel_lib"]
    kernel_ld = kernel_ld or paths["kernel_ld"]
    need = [(kernel_lib, "kernel library"), (kernel_ld, "kernel linker script")]
    table = None
    if layout.firmware != "opensbi":
        firmware = firmware or paths["firmware"]
        need.append((firmware, "firmware"))
    else:
        firmware = None
    payloads, mpis, started = job_payloads(layout, program, args, np, policy,
                                           services or paths["services"], flags, mpi_eager_max,
                                           need=need, env=env, hold_rank=hold_rank)
    os.makedirs(outdir, exist_ok=True)
    if firmware:
        table = os.path.abspath(os.path.join(outdir, "firmware.table"))
        with open(table, "wb") as f:
            f.write(pack_firmware_table(layout))
    libgcc = libgcc_path()
    kernel_stack = layout.profile.kernel_stack_kb * 1024
    images = [link_cluster(cluster, payload, outdir, kernel_lib, kernel_ld, libgcc, kernel_stack)
              for cluster, payload in zip(layout.clusters, payloads)]
    ends = verify_images(layout, images, firmware)
    check_fit(layout, [end - c.window_base for c, end in zip(layout.clusters, ends)], mpis,
              started, np, policy, flags, report)
    cmd = qemu_command(layout, images, firmware, table, tcg_threads)
    return cmd + ["-gdb", f"tcp:127.0.0.1:{gdb_port}"] if gdb_port else cmd


def build_payloads(layout, program, args, np, policy, outdir, services=None, flags=0,
                   mpi_eager_max=0, report=None, env=(), hold_rank=0):
    """linux64: write every cluster's payload to outdir/clusterN.payload
    (build_payload's bytes; each window must hold its payload and what the
    cluster runs, check_fit: the kernel lives outside the window); returns
    their paths in cluster order. Arguments as build_images."""
    if layout.platform != "linux64":
        raise ImageError(f"build_payloads makes linux64 payloads; {layout.platform} needs "
                         f"build_images")
    services = services or default_paths(platform=layout.platform)["services"]
    payloads, mpis, started = job_payloads(layout, program, args, np, policy, services, flags,
                                           mpi_eager_max, env=env, hold_rank=hold_rank)
    check_fit(layout, [len(p) for p in payloads], mpis, started, np, policy, flags, report)
    os.makedirs(outdir, exist_ok=True)
    paths = []
    for cluster, payload in zip(layout.clusters, payloads):
        path = os.path.abspath(os.path.join(outdir, f"cluster{cluster.id}.payload"))
        with open(path, "wb") as f:
            f.write(payload)
        paths.append(path)
    return paths


def resolve_program(spec, bin_dir=None):
    """Path of an MPI program: a spec with a '/' or ending in .elf is a path;
    any other is a built-in program's name (BIN_DIR/NAME.elf, default the
    build folder's bin/, e.g. out/target/bin) when the build has one of that
    name, else the file of that name in the current folder (./NAME), as
    Open MPI's mpirun finds a program given without a folder. Raises
    ImageError naming both places when neither has it."""
    if "/" in spec or os.sep in spec or spec.endswith(".elf"):
        if not os.path.isfile(spec):
            raise ImageError(f"no such program: {spec}")
        return spec
    bin_dir = bin_dir or default_paths()["bin"]
    path = os.path.join(bin_dir, spec + ".elf")
    if os.path.isfile(path):
        return path
    here = os.path.join(os.curdir, spec)
    if os.path.isfile(here):
        return here
    raise ImageError(f"program '{spec}' not found: the build has no {path} (run make first "
                     f"to build the tree's programs) and the current folder ({os.getcwd()}) has "
                     f"no file {spec}")


def main(argv=None):
    """CLI: build the images of a job and print the QEMU command that boots them."""
    import argparse

    ap = argparse.ArgumentParser(prog="mkimage", description=__doc__.split("\n\n")[0])
    ap.add_argument("-np", type=int, default=1, help="MPI processes (default 1)")
    ap.add_argument("--map-by", default="compact", metavar="compact|scatter|ppr:N:cluster",
                    help="as mpirun's (default compact)")
    ap.add_argument("--profile", default="default", help="name or path (default: default)")
    ap.add_argument("--cluster-memory", default="", metavar="SIZE",
                    help="each compute cluster's memory, as mpirun's (default: the profile's)")
    ap.add_argument("--platform", choices=PLATFORMS,
                    help="default: $TESSERA_PLATFORM, else qemu-riscv64")
    ap.add_argument("--firmware", choices=sorted(FIRMWARES),
                    help="qemu-riscv64's M-mode firmware (default: $TESSERA_FIRMWARE, else "
                         "tessera)")
    ap.add_argument("--services", nargs="+",
                    help="cluster 0's ELFs (default: the build folder's name server and file "
                         "server)")
    ap.add_argument("--kernel-lib", help="kernel library (default: the build folder's)")
    ap.add_argument("--kernel-ld", help="kernel linker script (default: build/kernel.ld)")
    ap.add_argument("-o", "--outdir", required=True, help="where the images go")
    ap.add_argument("program", help="MPI program: a path (with a '/' or ending in .elf), "
                                    "a name in the build folder's bin/, else a file in the "
                                    "current folder")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    opts = ap.parse_args(argv)
    if ":" in opts.args:
        print("mkimage: ':' in the program's arguments: mkimage builds a job of one program; "
              "an MPMD job (PROGRAM ... : -np N PROGRAM2 ...) is mpirun's", file=sys.stderr)
        return 2
    try:
        policy, ppr = parse_map_by(opts.map_by)
        layout = plan_job(opts.profile, opts.np, opts.platform, opts.firmware, ppr,
                          opts.cluster_memory)
        program = resolve_program(opts.program, default_paths(platform=layout.platform)["bin"])
        if layout.platform == "linux64":
            out = build_payloads(layout, program, opts.args, opts.np, policy, opts.outdir,
                                 services=opts.services)
        else:
            out = build_images(layout, program, opts.args, opts.np, policy, opts.outdir,
                               services=opts.services, kernel_lib=opts.kernel_lib,
                               kernel_ld=opts.kernel_ld)
    except ToolError as e:
        print(f"mkimage: {e}", file=sys.stderr)
        return 1
    print(shlex.join(out) if layout.platform != "linux64" else "\n".join(out))
    return 0

