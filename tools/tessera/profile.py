"""Platform profiles: parsing, validation and the machine layout they imply.

A profile (build/profiles/NAME.json) describes a topology as data. From it we
derive where each cluster's memory window sits, which harts it owns, where the
emulated NoC fabric lives and how much RAM QEMU must give the machine.

Layout on qemu-riscv64 (docs/targets.md, "Booting on QEMU"):

    0x80000000     the M-mode firmware (Tessera's, or OpenSBI), below
                   memory_base; Tessera's keeps its table in its last page
    memory_base    I/O cluster windows (ids 0..nio-1), then compute windows
    ...            fabric region (fabric_mb), right after the last window
    ...            4 MiB for the device tree QEMU puts in the last 2 MiB of RAM

Harts are numbered cluster by cluster; a cluster's first hart is its master,
which runs only the kernel, so a compute cluster hosts compute_cores - 1 MPI
processes. Standard library only, so that unit tests need no toolchain.

On linux64 the same addresses hold (each cluster process maps its window and
the fabric there); harts are threads, so there is no hart limit, RAM size is
moot, and the user clock counts nanoseconds (timebase 1 GHz, whatever the
profile says).
"""
import json
import os
import re
from dataclasses import dataclass, replace

from tessera import REPO, abi

MIB = 1 << 20
WINDOW_ALIGN = 2 * MIB          # Sv39 megapages: windows map with 2 MiB pages
RAM_BASE = 0x80000000           # QEMU virt: start of DRAM
DTB_RESERVE = 4 * MIB           # QEMU puts the DTB in the last 2 MiB of RAM

# From include/tessera/image.h (tools/tessera/abi.py reads it).
_IMAGE_H = abi.load_header("tessera/image.h")
TS_MAX_CLUSTERS = _IMAGE_H.constant("TS_MAX_CLUSTERS")
TS_MAX_CORES = _IMAGE_H.constant("TS_MAX_CORES")
TS_CLUSTER_IO = _IMAGE_H.constant("TS_CLUSTER_IO")
TS_CLUSTER_COMPUTE = _IMAGE_H.constant("TS_CLUSTER_COMPUTE")
_SYSCALL_H = abi.load_header("tessera/syscall.h", layouts=False)

PLATFORMS = ("qemu-riscv64", "linux64")
DEFAULT_PLATFORM = "qemu-riscv64"
LINUX64_TIMEBASE_HZ = 1_000_000_000   # linux64: user time is CLOCK_MONOTONIC in ns
# The M-mode firmware QEMU runs (mkimage --firmware): Tessera's own
# (hal/arch/qemu-riscv64/firmware/, booted with -bios none) or the OpenSBI
# 1.1 that QEMU ships (-bios default). firmware -> (most harts it brings up,
# why).
FIRMWARES = {"tessera": (512, "QEMU 7.2 virt limit"), "opensbi": (128, "OpenSBI 1.1 limit")}
DEFAULT_FIRMWARE = "tessera"
QEMU_MIN_BASE = 0x80200000      # the firmware owns everything below
# linux64: user programs are mirrored at their VAs in the cluster process,
# 0x40000000..0x70000000 (userland/runtime/user.ld); windows must stay clear.
USER_AREA = (0x40000000, 0x70000000)
LINUX64_ADDRESS_END = 1 << 46   # well inside x86-64's 47-bit user half
# The ranks' aliases (kernel/core/include/kernel/core.hpp, rank_alias_base):
# a GiB per core of a cluster from 64 GiB, in every rank's address space on
# both platforms (linux64 reserves them in every cluster process): the
# windows and the fabric, which the kernel maps at their own addresses,
# must stay clear.
ALIAS_AREA = (0x1000000000, 0x1000000000 + TS_MAX_CORES * (1 << 30))
MEMINFO = "/proc/meminfo"       # qemu-riscv64: the host's RAM (MemTotal) bounds the machine's

PROFILE_DIR = os.path.join(REPO, "build", "profiles")


class ToolError(Exception):
    """An error the user can fix; the tools print its message, no traceback."""


class ProfileError(ToolError):
    """A profile is missing, unreadable or has a bad key."""


class OptionError(ToolError):
    """A bad value of a command-line option (e.g. --map-by), found by the
    code that knows its meaning; the tools print it with their usage."""


@dataclass(frozen=True)
class Profile:
    """A validated profile; sizes in MiB exactly as in the JSON file."""
    name: str
    description: str
    memory_base: int
    io_clusters: int
    io_cores: int
    io_memory_mb: int
    compute_clusters: int
    compute_cores: int
    compute_memory_mb: int
    fabric_mb: int
    mailbox_size: int
    portal_chunk: int
    io_mailboxes: int
    io_portals: int
    compute_mailboxes: int
    compute_portals: int
    virtual_per_hw: int
    ikc_buffers: int
    timebase_hz: int
    user_stack_kb: int
    kernel_stack_kb: int
    source: str = "<profile>"


@dataclass(frozen=True)
class Cluster:
    """One cluster: its memory window and harts first_hart..first_hart+ncores-1."""
    id: int
    kind: int
    window_base: int
    window_size: int
    first_hart: int
    ncores: int

    @property
    def window_end(self):
        """First byte after the window."""
        return self.window_base + self.window_size

    @property
    def name(self):
        return f"cluster {self.id}"

    @property
    def is_io(self):
        return self.kind == TS_CLUSTER_IO


@dataclass(frozen=True)
class Layout:
    """The machine a profile describes on a platform: clusters, fabric,
    harts and RAM (harts and RAM matter on qemu-riscv64 only)."""
    profile: Profile
    clusters: tuple
    fabric_base: int
    fabric_size: int
    harts: int
    ram_mb: int
    slots_per_cluster: int              # MPI processes a compute cluster may host
    platform: str = DEFAULT_PLATFORM
    firmware: str = DEFAULT_FIRMWARE   # qemu-riscv64 only: a FIRMWARES key
    ppr: int = 0    # N of --map-by ppr:N:cluster, which set slots_per_cluster; 0: none
    # mpirun --cluster-memory SIZE, as given, which set the profile's
    # compute_memory_mb; "": the profile's own.
    cluster_memory: str = ""

    @property
    def timebase_hz(self):
        """Ticks per second of the user clock: the profile's on qemu-riscv64
        (the time CSR), 1 GHz on linux64 (nanoseconds)."""
        return LINUX64_TIMEBASE_HZ if self.platform == "linux64" else self.profile.timebase_hz

    @property
    def nio(self):
        return self.profile.io_clusters

    @property
    def ncompute(self):
        return self.profile.compute_clusters

    def hw_resources(self, cluster):
        """(hardware input mailboxes, hardware input portals) of a cluster."""
        p = self.profile
        if cluster.is_io:
            return p.io_mailboxes, p.io_portals
        return p.compute_mailboxes, p.compute_portals

    @property
    def capacity(self):
        """Most MPI processes a job may have on this platform."""
        return self.ncompute * self.slots_per_cluster


# key -> (lowest, highest or None, must be a multiple of, what it is)
_INT_KEYS = {
    "io_clusters": (1, None, 1, "I/O clusters"),
    "io_cores": (1, TS_MAX_CORES, 1, "cores per I/O cluster"),
    # A window as small as MPPA-256's 2 MB SRAM; whether a job's programs
    # fit is the image builder's check (tools/tessera/fit.py).
    "io_memory_mb": (2, None, 2, "MiB per I/O cluster window"),
    "compute_clusters": (1, None, 1, "compute clusters"),
    # A compute cluster needs a master plus at least one core for ranks.
    "compute_cores": (2, TS_MAX_CORES, 1, "cores per compute cluster"),
    "compute_memory_mb": (2, None, 2, "MiB per compute cluster window"),
    "fabric_mb": (2, None, 2, "MiB of NoC fabric"),
    # A name request (84 bytes) and its 8-byte IKC header must fit; the
    # kernel carries no message larger than 256 bytes.
    "mailbox_size": (96, 256, 8, "bytes of one mailbox message, IKC header included"),
    "portal_chunk": (64, None, 8, "bytes of one portal chunk"),
    # The kernel's tables (ikc/) hold at most 4 hardware resources of each
    # kind per cluster, 64 virtual ones per resource and 256 parked messages.
    "io_mailboxes": (1, 4, 1, "hardware input mailboxes per I/O cluster"),
    "io_portals": (1, 4, 1, "hardware input portals per I/O cluster"),
    "compute_mailboxes": (1, 4, 1, "hardware input mailboxes per compute cluster"),
    "compute_portals": (1, 4, 1, "hardware input portals per compute cluster"),
    "virtual_per_hw": (2, 64, 1, "virtual abstractions one hardware resource carries"),
    "ikc_buffers": (8, 256, 1, "messages the kernel's buffers table parks"),
    "timebase_hz": (1, None, 1, "frequency of the time CSR"),
    # A thread's stack grows on demand below what is mapped at its start,
    # up to 960 KiB (kernel/core/include/kernel/core.hpp, user_stack_max).
    "user_stack_kb": (4, 960, 4, "KiB of user stack mapped when a thread starts"),
    "kernel_stack_kb": (4, 64, 4, "KiB of kernel stack per core"),
}
_KNOWN_KEYS = set(_INT_KEYS) | {"name", "description", "memory_base"}


def _fail(source, message):
    raise ProfileError(f"profile {source}: {message}")


def key_problem(key, value):
    """What is wrong with `value` for the integer key `key` of _INT_KEYS
    ("must be at least 2, got 0"), or None when it is good. The profile
    loader and the options that stand for a key (mpirun --cluster-memory)
    both judge a value by it."""
    lo, hi, multiple, _ = _INT_KEYS[key]
    # bool is an int in Python, but `true` is never a sensible count.
    if not isinstance(value, int) or isinstance(value, bool):
        return f"must be an integer, got {value!r}"
    if value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
        return f"must be {bound}, got {value}"
    if value % multiple:
        return f"must be a multiple of {multiple}, got {value}"
    return None


def _check_int(source, data, key):
    problem = key_problem(key, data[key])
    if problem:
        _fail(source, f"key '{key}' ({_INT_KEYS[key][3]}) {problem}")
    return data[key]


def _parse_address(source, value):
    if isinstance(value, str):
        try:
            value = int(value, 0)
        except ValueError:
            _fail(source, f"key 'memory_base' must be an address like \"0x80200000\", got {value!r}")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        _fail(source, f"key 'memory_base' must be an address like \"0x80200000\", got {value!r}")
    if value % WINDOW_ALIGN:
        _fail(source, f"key 'memory_base' must be 2 MiB aligned, got {value:#x}")
    return value


def compute_cluster_inputs(ranks):
    """{"mailbox": ports, "portal": ports}: the input ports a compute
    cluster's kernel and `ranks` MPI processes open (<tessera/syscall.h>,
    after TS_PORT_FILE_CLIENT_LOW), every process using files."""
    port = _SYSCALL_H.constant
    first, last = port("TS_PORT_FILE_CLIENT_HIGH"), port("TS_PORTS") - 1
    low, low_end = port("TS_PORT_FILE_CLIENT_LOW"), port("TS_PORT_NAME_REPLY_BASE") - 1
    file_ports = [*range(first, last + 1), *range(low, low_end + 1)][:ranks]
    mpi = [port("TS_PORT_MPI_BASE") + local for local in range(ranks)]
    window = [port("TS_PORT_WINDOW"), port("TS_PORT_WINDOW_REPLY")]
    name_replies = [port("TS_PORT_NAME_REPLY_BASE") + local + 1 for local in range(ranks)]
    return {"mailbox": [port("TS_PORT_KERNEL"), port("TS_PORT_NAME_DAEMON"), *window, *mpi,
                        *name_replies, *file_ports],
            "portal": [*window, *mpi, *file_ports]}


def _check_ikc_tables(source, values):
    """Refuse a profile whose compute clusters cannot carry the inputs of
    their own kernel and ranks: a hardware resource carries at most
    virtual_per_hw of them, and an input on port p uses resource p mod the
    cluster's count of them (ikc/ikc.cpp, key_for)."""
    ranks = values["compute_cores"] - 1
    carry = values["virtual_per_hw"]
    plurals = {"mailbox": "mailboxes", "portal": "portals"}
    for kind, ports in compute_cluster_inputs(ranks).items():
        key = f"compute_{plurals[kind]}"
        hardware = values[key]
        busiest = max(sum(1 for p in ports if p % hardware == hw) for hw in range(hardware))
        if busiest > carry:
            _fail(source, f"a compute cluster's kernel and its {ranks} MPI processes open "
                          f"{busiest} input {plurals[kind]} on one hardware {kind}, but key "
                          f"'virtual_per_hw' lets one carry {carry}: raise it by "
                          f"{busiest - carry}, or lower 'compute_cores' or raise '{key}'")


def parse_profile(data, source="<profile>"):
    """Validate a profile's decoded JSON and return a Profile.

    Raises ProfileError naming the first missing, unknown or bad key.
    """
    if not isinstance(data, dict):
        _fail(source, "must be a JSON object")
    for key in sorted(data):
        if key not in _KNOWN_KEYS:
            _fail(source, f"unknown key '{key}'")
    for key in ["name", "memory_base", *_INT_KEYS]:
        if key not in data:
            _fail(source, f"missing key '{key}'")
    name = data["name"]
    if not isinstance(name, str) or not name:
        _fail(source, f"key 'name' must be a non-empty string, got {name!r}")
    description = data.get("description", "")
    if not isinstance(description, str):
        _fail(source, f"key 'description' must be a string, got {description!r}")
    values = {key: _check_int(source, data, key) for key in _INT_KEYS}
    nclusters = values["io_clusters"] + values["compute_clusters"]
    if nclusters > TS_MAX_CLUSTERS:
        _fail(source, f"keys 'io_clusters' + 'compute_clusters' give {nclusters} clusters; "
                      f"the manifest holds at most {TS_MAX_CLUSTERS}")
    _check_ikc_tables(source, values)
    return Profile(name=name, description=description,
                   memory_base=_parse_address(source, data["memory_base"]),
                   source=source, **values)


def resolve_profile(spec, profile_dir=PROFILE_DIR):
    """Path of a profile given by name (build/profiles/NAME.json) or by path."""
    if os.sep in spec or spec.endswith(".json") or os.path.isfile(spec):
        if not os.path.isfile(spec):
            raise ProfileError(f"profile file {spec} not found")
        return spec
    path = os.path.join(profile_dir, spec + ".json")
    if not os.path.isfile(path):
        known = sorted(f[:-5] for f in os.listdir(profile_dir) if f.endswith(".json")) \
            if os.path.isdir(profile_dir) else []
        raise ProfileError(f"unknown profile '{spec}' (known: {', '.join(known) or 'none'})")
    return path


def load_profile(spec, profile_dir=PROFILE_DIR):
    """Read and validate a profile given by name or path."""
    path = resolve_profile(spec, profile_dir)
    source = f"'{os.path.basename(path)[:-5] if path.endswith('.json') else path}' ({path})"
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ProfileError(f"profile {source}: cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ProfileError(f"profile {source}: bad JSON at line {e.lineno}: {e.msg}") from None
    return parse_profile(data, source)


def check_platform_name(platform):
    """Refuse an unknown platform name; returns it."""
    if platform not in PLATFORMS:
        raise ToolError(f"unknown platform '{platform}' (known: {', '.join(PLATFORMS)})")
    return platform


def check_firmware_name(firmware):
    """Refuse an unknown firmware name; returns it."""
    if firmware not in FIRMWARES:
        raise ToolError(f"unknown firmware '{firmware}' (known: {', '.join(FIRMWARES)})")
    return firmware


# mpirun --cluster-memory SIZE: a number and a unit, binary either way: M
# (or MB, MiB) for MiB, G (or GB, GiB) for GiB, in any case; a bare number
# is MiB, the unit of the profile key compute_memory_mb that SIZE stands
# for. No K or T: a window is a multiple of 2 MiB, and the host's memory
# bounds it long before a TiB.
_SIZE_UNITS = {"": 1, "m": 1, "mb": 1, "mib": 1, "g": 1024, "gb": 1024, "gib": 1024}
_SIZE = re.compile(r"([0-9]+)([A-Za-z]*)\Z")
CLUSTER_MEMORY_FORMS = "e.g. 64M, 512M or 1G; M: MiB, G: GiB, a bare number: MiB"


def parse_cluster_memory(spec):
    """The MiB that mpirun --cluster-memory SIZE gives each compute cluster
    (SIZE as _SIZE_UNITS says), judged as the profile key compute_memory_mb
    is (key_problem: at least 2 MiB, a multiple of 2 MiB). Raises
    OptionError naming SIZE and what is wrong with it."""
    m = _SIZE.match(spec)
    unit = m and _SIZE_UNITS.get(m.group(2).lower())
    if not unit:
        raise OptionError(f"--cluster-memory needs a size ({CLUSTER_MEMORY_FORMS}), "
                          f"got '{spec}'")
    mb = int(m.group(1)) * unit
    problem = key_problem("compute_memory_mb", mb)
    if problem:
        raise OptionError(f"--cluster-memory {spec}: a compute cluster's memory, in MiB as the "
                          f"profile key 'compute_memory_mb', {problem}")
    return mb


def compute_layout(profile, platform=DEFAULT_PLATFORM, firmware=DEFAULT_FIRMWARE,
                   cluster_memory=""):
    """Place windows, harts and the fabric for a profile on a platform (and,
    on qemu-riscv64, under a firmware); returns a Layout. cluster_memory:
    mpirun --cluster-memory's SIZE, which replaces the profile's
    compute_memory_mb ("": keep it). Raises ToolError for an unknown
    platform or firmware, OptionError for a bad SIZE."""
    check_platform_name(platform)
    check_firmware_name(firmware)
    if cluster_memory:
        profile = replace(profile, compute_memory_mb=parse_cluster_memory(cluster_memory))
    clusters = []
    base = profile.memory_base
    hart = 0
    kinds = [(TS_CLUSTER_IO, profile.io_memory_mb, profile.io_cores)] * profile.io_clusters \
        + [(TS_CLUSTER_COMPUTE, profile.compute_memory_mb, profile.compute_cores)] \
        * profile.compute_clusters
    for cid, (kind, mb, cores) in enumerate(kinds):
        clusters.append(Cluster(cid, kind, base, mb * MIB, hart, cores))
        base += mb * MIB
        hart += cores
    # Windows are 2 MiB multiples from a 2 MiB aligned base, so base is aligned.
    fabric_base = base
    fabric_size = profile.fabric_mb * MIB
    ram = fabric_base + fabric_size - RAM_BASE + DTB_RESERVE
    return Layout(profile=profile, clusters=tuple(clusters), fabric_base=fabric_base,
                  fabric_size=fabric_size, harts=hart, ram_mb=ram // MIB,
                  slots_per_cluster=profile.compute_cores - 1, platform=platform,
                  firmware=firmware, cluster_memory=cluster_memory)


def host_memory_mb(path=MEMINFO):
    """The host's RAM in MiB (MemTotal of /proc/meminfo), None when it
    cannot be read."""
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                m = re.match(r"MemTotal:\s+([0-9]+) kB", line)
                if m:
                    return int(m.group(1)) // 1024
    except (OSError, UnicodeDecodeError):
        pass
    return None


def _memory_refusal(layout, text, room_mb):
    """A refusal of the layout's memory: an OptionError naming
    --cluster-memory SIZE when that set the compute windows (mpirun says
    it with its usage, status 2), with the most SIZE that room_mb (MiB the
    layout may take in all) leaves each compute cluster; else a ToolError
    naming the profile."""
    p = layout.profile
    if not layout.cluster_memory:
        return ToolError(f"profile '{p.name}': {text}")
    others = (layout.fabric_base + layout.fabric_size - p.memory_base) // MIB \
        - p.compute_clusters * p.compute_memory_mb
    most = (room_mb - others) // p.compute_clusters // 2 * 2
    hint = f"; at most {most}M per compute cluster fits" if most >= 2 else ""
    return OptionError(f"--cluster-memory {layout.cluster_memory}: {text}{hint}")


def check_memory(layout, platform, host_mb=None):
    """Refuse a layout whose windows and fabric the platform cannot hold:
    on both, they must stay clear of the ranks' aliases (ALIAS_AREA); on
    linux64, of the user area and below LINUX64_ADDRESS_END (each cluster
    process maps its window and the fabric at their own addresses; the
    memory itself is a memfd's, taken as pages are touched); on
    qemu-riscv64 the machine's RAM may not exceed the host's (host_mb,
    default host_memory_mb(); QEMU takes it as the guest touches it)."""
    p = layout.profile
    end = layout.fabric_base + layout.fabric_size
    span = f"its windows and fabric {p.memory_base:#x}..{end:#x}"
    if p.memory_base < ALIAS_AREA[1] and end > ALIAS_AREA[0]:
        raise _memory_refusal(layout, f"{span} overlap the ranks' aliases "
                                      f"{ALIAS_AREA[0]:#x}..{ALIAS_AREA[1]:#x}",
                              (ALIAS_AREA[0] - p.memory_base) // MIB)
    if platform == "linux64":
        if p.memory_base < USER_AREA[1] and end > USER_AREA[0]:
            raise _memory_refusal(layout, f"{span} overlap the user area "
                                          f"{USER_AREA[0]:#x}..{USER_AREA[1]:#x}", 0)
        if end > LINUX64_ADDRESS_END:
            raise _memory_refusal(layout, f"its windows and fabric end at {end:#x}, above "
                                          f"linux64's limit {LINUX64_ADDRESS_END:#x}",
                                  (LINUX64_ADDRESS_END - p.memory_base) // MIB)
        return
    host_mb = host_mb or host_memory_mb()
    if host_mb is None or layout.ram_mb <= host_mb:
        return
    raise _memory_refusal(
        layout, f"QEMU's machine needs {layout.ram_mb} MiB of RAM ({p.compute_clusters} compute "
                f"cluster{'s' if p.compute_clusters != 1 else ''} x {p.compute_memory_mb} MiB, "
                f"{p.io_clusters} I/O cluster{'s' if p.io_clusters != 1 else ''} x "
                f"{p.io_memory_mb} MiB, {p.fabric_mb} MiB of fabric, the firmware and the device "
                f"tree), more than the host's {host_mb} MiB (MemTotal, {MEMINFO})",
        host_mb - (layout.ram_mb - (end - p.memory_base) // MIB))


def check_platform(layout, platform):
    """Refuse a layout the platform cannot run (e.g. more harts than its
    firmware brings up, or memory it cannot hold: check_memory)."""
    p = layout.profile
    check_platform_name(platform)
    check_memory(layout, platform)
    if platform == "linux64":
        return
    most, why = FIRMWARES[layout.firmware]
    if layout.harts > most:
        hint = ("it needs --platform linux64" if layout.firmware == DEFAULT_FIRMWARE
                else "Tessera's firmware (--firmware tessera) brings up more")
        raise ToolError(
            f"profile '{p.name}' needs {layout.harts} harts ({p.io_clusters} I/O clusters x "
            f"{p.io_cores} + {p.compute_clusters} compute clusters x {p.compute_cores}) but "
            f"qemu-riscv64 with firmware '{layout.firmware}' brings up at most {most} ({why}); "
            f"{hint}")
    if p.memory_base < QEMU_MIN_BASE:
        raise ToolError(f"profile '{p.name}': memory_base {p.memory_base:#x} is inside "
                        f"the firmware's region; on qemu-riscv64 it must be at least "
                        f"{QEMU_MIN_BASE:#x}")


def per_cluster_layout(layout, ppr):
    """The layout of a job mapped by --map-by ppr:N:cluster (N = ppr): at
    most N MPI processes per compute cluster, filled in order, which is the
    compact policy with N slots per cluster. N must be 1 to the profile's
    slots per cluster (compute_cores - 1); raises OptionError otherwise."""
    most = layout.profile.compute_cores - 1
    if not 1 <= ppr <= most:
        raise OptionError(
            f"--map-by ppr:{ppr}:cluster: N must be 1 to {most}, the MPI processes a compute "
            f"cluster of profile '{layout.profile.name}' can host ({layout.profile.compute_cores} "
            f"cores, the master core runs the kernel)")
    return replace(layout, slots_per_cluster=ppr, ppr=ppr)


def check_capacity(layout, np):
    """Refuse a job with more MPI processes than the compute clusters have
    slots: one per core, the master core excepted (it runs the kernel and the
    local name daemon; the I/O clusters run the services and host no rank),
    or under --map-by ppr:N:cluster, N per cluster."""
    if np < 1:
        raise ToolError(f"{np} processes requested; a job needs at least 1")
    if np > layout.capacity and layout.ppr:
        raise ToolError(
            f"{np} processes requested but --map-by ppr:{layout.ppr}:cluster places at most "
            f"{layout.capacity}: {layout.ppr} on each of the {layout.ncompute} compute clusters "
            f"of profile '{layout.profile.name}'")
    if np > layout.capacity:
        raise ToolError(
            f"{np} processes requested but profile '{layout.profile.name}' hosts at most "
            f"{layout.capacity}: {layout.ncompute} compute clusters x {layout.slots_per_cluster} "
            f"cores (each cluster's master core runs the kernel and the local name daemon; "
            f"I/O clusters host no MPI process)")
