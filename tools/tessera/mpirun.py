"""mpirun: run an MPI program on Tessera (the command: tools/mpirun).

Builds one payload per cluster (tools/mkimage.py) in a temporary folder; on
qemu-riscv64 links them into images and boots them all in one QEMU machine,
on linux64 starts one tessera_cluster process per cluster
(tools/tessera/launch.py). It prints the ranks' output as it comes. Exits
with the job's status: 0 when every rank exits 0, the first non-zero status
otherwise (e.g. MPI_Abort's code), 124 on a timeout, 141 when its output's
reader goes away (e.g. `mpirun ... | head -1`: the machine is stopped too).
tools/mpiexec, the MPI standard's name for it (MPI 3.1 section 8.8), is a
symbolic link to tools/mpirun.
"""
import dataclasses
import functools
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass, field

from tessera import gdb, jobdir, mkimage, program_globals, symbols, trace
from tessera.entry import BROKEN_PIPE_STATUS, drop_stdout
from tessera.launch import (TIMEOUT_STATUS, SerialFilter, run_clusters,  # noqa: F401
                            run_machine)
from tessera.profile import (DEFAULT_PLATFORM, FIRMWARES, PLATFORMS, OptionError,
                             ToolError, parse_cluster_memory)

USAGE = """\
usage: mpirun [-np N | -n N] [--map-by compact|scatter|ppr:N:cluster]
              [--profile NAME|PATH] [--cluster-memory SIZE]
              [--platform qemu-riscv64|linux64]
              [--firmware tessera|opensbi] [--qemu-threads single|multi]
              [--ranks processes|threads] [--timeout S]
              [--tag-output] [--local-path shm|ikc] [--eager-threshold BYTES]
              [--wait-policy spin|block|adaptive] [--bind-to core|none] [--report-bindings]
              [--stage PATH]... [-x NAME[=VALUE]]... [--trace FILE] [--verbose]
              [--gdb RANK [--gdb-server | --gdb-batch FILE]] PROGRAM [ARGS...]
              [: [-np N] PROGRAM2 [ARGS2...]]... [: --io-rank IO_PROGRAM [IO_ARGS...]]"""

RANKS_MODES = ("processes", "threads")


HELP = """
Runs PROGRAM as an MPI job of N processes on Tessera (or several programs
in one job: MPMD, below) and prints its output, whole lines only: lines of
different ranks never mix. PROGRAM is the path
of an ELF made by tools/mpicc when it has a '/' or ends in .elf (./app.elf,
app.elf), else the name of a program of the build (hello: out/target/bin/
hello.elf, or out/linux64/bin/hello.elf on linux64) or, when the build has
none of that name, the file of that name in the current folder (app: ./app).

  -np N, -n N, --np N
                     MPI processes (default 1)
  --map-by POLICY    compact: fill a compute cluster before the next;
                     scatter: deal ranks round-robin; ppr:N:cluster (Open
                     MPI's per-resource form): at most N per compute
                     cluster, filled in order (rank r on compute cluster
                     r / N), N from 1 to the cluster's cores less its
                     master (default compact)
  --profile P        platform profile: a name in build/profiles or a path
                     (default: default)
  --cluster-memory SIZE
                     each compute cluster's memory, in place of the
                     profile's (its key compute_memory_mb): a multiple of
                     2 MiB, at least 2M, such as 64M, 512M or 1G (M: MiB,
                     G: GiB; a bare number is MiB). Up to what the host
                     allows: on qemu-riscv64 the machine's RAM may not
                     exceed the host's (MemTotal); on linux64 each
                     cluster's memory is a file in memory, taken as the
                     ranks touch it
  --firmware F       qemu-riscv64's M-mode firmware: tessera (our own, up to
                     512 harts, clusters isolated by PMP) or opensbi (the
                     OpenSBI 1.1 QEMU ships, up to 128 harts, no PMP
                     isolation); default $TESSERA_FIRMWARE, else tessera
  --qemu-threads T   qemu-riscv64 only: QEMU's TCG mode. single (default):
                     every core in one host thread, so ranks never run at
                     the same time and more ranks give no speed-up; multi:
                     a host thread per core, so ranks run in parallel on
                     as many host CPUs as there are (docs/targets.md,
                     "Speed on QEMU")
  --platform T       qemu-riscv64: one QEMU machine; linux64: one Linux
                     process per cluster (default: $TESSERA_PLATFORM, else
                     qemu-riscv64)
  --ranks M          how the MPI processes of one compute cluster run:
                     processes (the default), each a process of its own,
                     with its own global and static variables, heap and
                     stack; threads, threads of one process, which share
                     its global and static variables (as in AMPI and MPC).
                     With threads, mpirun warns when ranks share a cluster
                     and the program has writable global or static
                     variables of its own
  --timeout S        stop the job after S seconds, exit 124 (default 300);
                     as on ^C (exit 130), the job first prints what each
                     MPI process is doing (docs/debugging.md, "When a
                     job fails or hangs")
  --tag-output       start each line of output with "[rank R] ", R being the
                     rank that wrote it ("[cluster C] " for output written
                     before MPI_Init, or by a thread that is no rank)
  --local-path P     how the MPI processes of one cluster talk: shm, through
                     LWMPI's shared-memory path (default); ikc, through IKC
                     mailboxes and portals, as processes of different
                     clusters do
  --eager-threshold B
                     LWMPI sends messages of at most B bytes (0..65536)
                     eagerly, larger ones by rendezvous (default, or 0:
                     between clusters what one mailbox message carries,
                     88 bytes with the default profile, since each
                     further message of an eager send waits for the one
                     before to be taken and a rendezvous is faster; 512
                     inside a cluster)
  --wait-policy W    what a rank waiting for a message does: spin, poll
                     without sleeping (giving the CPU away between polls);
                     block, poll once, then sleep in the kernel until
                     something arrives; adaptive, poll for a while, then
                     sleep. Default: block on qemu-riscv64 (QEMU runs
                     every core in one host thread: a core that polls
                     delays the one it waits for), adaptive on linux64
  --bind-to B        linux64 only: core, bind the thread of each rank's core
                     to a host CPU, rank r to the r-th CPU mpirun may use
                     (round-robin), so that ranks that poll do not share a
                     CPU while another idles; none, let Linux move them.
                     Default: core when the ranks are no more than the host
                     CPUs, else none. The other cores (masters, idle cores)
                     are never bound
  --report-bindings  before booting, print on stderr how the ranks run (the
                     --ranks mode), then where each rank runs: its cluster,
                     its core (the ranks of a cluster run on cores 1, 2, ...
                     by local rank; core 0, the master, runs the kernel),
                     its local rank and its host CPU if bound
  --stage PATH       make the file or folder PATH readable by every rank, under
                     its base name (--stage data/in.txt: open("in.txt");
                     --stage data: open("data/in.txt"); symbolic links
                     in it are followed); repeatable. The
                     ranks' files (fopen, open, ...; relative paths only,
                     no "..") live in a fresh job folder that starts with
                     the staged paths; when the job ends, whatever its
                     status, every file the ranks created or changed
                     there is copied into the current folder, under its
                     path in the job folder, replacing a file of that
                     name (the job's output wins), and the job folder is
                     removed
  -x NAME=VALUE      set the environment variable NAME to VALUE in every
                     rank (getenv); -x NAME passes NAME's value in
                     mpirun's own environment (as Open MPI does).
                     Repeatable; the last of one NAME wins. NAME is
                     letters, digits and '_', not starting with a digit;
                     all the NAME=VALUE strings, a byte each for a NUL,
                     take at most 1024 bytes. Otherwise a rank's
                     environment starts empty
  --trace FILE       record a timeline of the job into FILE, a trace-event
                     JSON file that https://ui.perfetto.dev and
                     chrome://tracing open: per cluster (pid) and core
                     (tid), the MPI calls, kernel calls and IKC transfers,
                     with an arrow from each send to its receive. Each
                     core keeps a ring of fixed size: events that do not
                     fit are counted as lost, and mpirun says how many.
                     Written by MPI_Finalize: a rank that does not reach
                     it leaves no trace (docs/debugging.md, "Tracing";
                     tools/trace_summary.py FILE sums it up)
  --gdb R            stop rank R before its main, and only it (the kernel
                     holds it), and debug it in gdb with the kernel's and
                     the program's symbols loaded: break, step, bt, info
                     threads work in the rank's code and in its cluster's
                     kernel (docs/debugging.md, "Debugging a rank").
                     qemu-riscv64: gdb-multiarch through QEMU's gdb stub
                     (a gdb thread per core); linux64: the host's gdb
                     attached to the Linux process of the rank's core.
                     While gdb runs, ^C is gdb's; --timeout is off (the
                     session is yours; the job ends when its ranks do, or
                     with gdb's kill)
  --gdb-server       with --gdb R: start no gdb, but print the commands
                     that attach one (QEMU's stub; the linux64 process)
                     once the rank is held, e.g. for an IDE; no timeout
  --gdb-batch FILE   with --gdb R: gdb in batch mode: once rank R stops in
                     main, gdb runs the commands of FILE (e.g. bt, info
                     threads, continue) and ends; --timeout holds for the
                     job, and gdb ends with it
  -v, --verbose      show the boot and kernel messages, the QEMU command (the
                     cluster commands on linux64), and keep the images
  -h, --help         this text

mpiexec (tools/mpiexec) is this same program under the name the MPI
standard gives it (MPI 3.1 section 8.8): mpiexec -n 4 PROGRAM.

MPMD: mpirun -np 1 a : -np 16 b X runs one job of several applications
(MPI 3.1 section 8.8), each with its own program, arguments and -np, in
one MPI_COMM_WORLD: a's rank is 0, b's ranks are 1 to 16. A lone ':'
always starts the next application. Each rank's MPI_APPNUM attribute is
its application's index (0 for a, 1 for b). -np (-n, --np) is the only
option of one application; every other option is the whole job's and
goes before the first program (--map-by places all the job's ranks; -x
sets a variable in every rank, as Open MPI's). Any other word before an
application's program, or a ':' with no program after it, is an error.
MPMD needs --ranks processes (the default).

  --io-rank          only after a ':', in place of -np: this last
                     application is the job's MPI I/O rank (MPPA-MPI's
                     model), one process on I/O cluster 0, next to the
                     file server, outside MPI_COMM_WORLD: the other
                     applications' ranks and MPI_COMM_WORLD stay as
                     without it. It and the world's ranks reach each other
                     through MPIX_COMM_LOCAL (every world rank, keeping its
                     rank, then the I/O rank, the last); its own
                     MPI_COMM_WORLD holds itself alone; its MPI_APPNUM is
                     its application's index. The job ends when the
                     world's ranks have: an I/O rank that still serves
                     requests is then stopped; one that fails (a non-zero
                     status, a fault, MPI_Abort) ends the job at once.
                     e.g. mpirun -np 4 app : --io-rank server ARGS.
                     The profile's I/O cluster needs a free core
                     (docs/lwmpi.md, "The I/O rank")

On linux64, a cluster process that dies (e.g. killed) ends the whole job
with a line naming it and status 128 + its signal.

The build folder is <repo>/out, or $TESSERA_OUT: the platform's build in it
(out/target for qemu-riscv64, out/linux64 for linux64) can also be given
alone as $TESSERA_TARGET_OUT."""

class UsageError(Exception):
    """A bad command line; mpirun prints it with the usage and exits 2."""


@dataclass
class Options:
    """The parsed command line."""
    # The applications (mkimage.App: a program as given, its arguments, its
    # -np), in rank order: one, or several in an MPMD launch.
    # The I/O rank's application (mpirun ... : --io-rank PROGRAM), if any,
    # is the last, with io set.
    apps: list = field(default_factory=list)
    map_by: str = "compact"     # the policy: a mkimage.MAP_POLICIES key
    ppr: int = 0                # N of --map-by ppr:N:cluster (map_by compact); 0: none
    profile: str = "default"
    cluster_memory: str = ""    # --cluster-memory SIZE as given; "": the profile's
    platform: str = DEFAULT_PLATFORM
    firmware: str = ""      # "": mkimage.default_firmware()
    qemu_threads: str = "single"    # QEMU's TCG mode: a mkimage.TCG_THREADS value
    ranks: str = "processes"
    timeout: float = 300.0
    tag_output: bool = False
    local_path: str = "shm"
    eager_threshold: int = 0
    wait_policy: str = ""   # "": the platform's default (DEFAULT_WAIT_POLICY)
    bind_to: str = ""       # "": the default (rank_cpus())
    report_bindings: bool = False
    stage: list = field(default_factory=list)
    env: dict = field(default_factory=dict)     # -x: {NAME: VALUE}, in the order given
    trace: str = ""     # --trace FILE: "" when not traced
    verbose: bool = False
    gdb_rank: int = -1          # --gdb: the rank held for gdb; -1: none
    gdb_server: bool = False
    gdb_batch: str = ""         # --gdb-batch: gdb's command file
    help: bool = False

    @property
    def np(self):
        """The job's MPI processes in MPI_COMM_WORLD: every application's
        but the I/O rank's."""
        return sum(app.np for app in self.apps if not app.io)

    @property
    def io_rank(self):
        """True when the job has an I/O rank (--io-rank)."""
        return bool(self.apps) and self.apps[-1].io


_VALUED = {"--map-by": "map_by",
           "--profile": "profile", "--cluster-memory": "cluster_memory",
           "--platform": "platform", "--timeout": "timeout",
           "--local-path": "local_path", "--eager-threshold": "eager_threshold",
           "--wait-policy": "wait_policy", "--bind-to": "bind_to", "--ranks": "ranks",
           "--firmware": "firmware", "--qemu-threads": "qemu_threads", "--trace": "trace",
           "--gdb": "gdb_rank", "--gdb-batch": "gdb_batch"}
# Options without a value: the Options field each sets.
FLAGS = {"-v": "verbose", "--verbose": "verbose", "--tag-output": "tag_output",
         "--report-bindings": "report_bindings", "--gdb-server": "gdb_server",
         "-h": "help", "--help": "help"}
VALUE_NEEDED = {"--stage": "--stage needs a file or folder", "-x": "-x needs NAME=VALUE or NAME"}
LOCAL_PATHS = ("shm", "ikc")
BIND_POLICIES = ("core", "none")
DEFAULT_WAIT_POLICY = {"qemu-riscv64": "block", "linux64": "adaptive"}
EAGER_THRESHOLD_MAX = 65536     # bytes: --eager-threshold's largest value


def _convert(opt, attr, value):
    if attr == "np":
        try:
            n = int(value)
        except ValueError:
            n = 0
        if n < 1:
            raise UsageError(f"{opt} needs a positive number of processes, got '{value}'")
        return n
    if attr == "map_by":
        try:
            return mkimage.parse_map_by(value)      # (policy, ppr)
        except OptionError as e:
            raise UsageError(str(e)) from None
    if attr == "cluster_memory":
        try:
            parse_cluster_memory(value)     # refused now; the layout applies it
        except OptionError as e:
            raise UsageError(str(e)) from None
    if attr == "local_path" and value not in LOCAL_PATHS:
        raise UsageError(f"--local-path must be shm or ikc, got '{value}'")
    if attr == "ranks" and value not in RANKS_MODES:
        raise UsageError(f"--ranks must be processes or threads, got '{value}'")
    if attr == "bind_to" and value not in BIND_POLICIES:
        raise UsageError(f"--bind-to must be core or none, got '{value}'")
    if attr == "wait_policy" and value not in mkimage.WAIT_POLICIES:
        raise UsageError(f"--wait-policy must be spin, block or adaptive, got '{value}'")
    if attr == "eager_threshold":
        if not (value.isascii() and value.isdigit() and int(value) <= EAGER_THRESHOLD_MAX):
            raise UsageError(f"--eager-threshold needs a number of bytes from 0 to "
                             f"{EAGER_THRESHOLD_MAX}, got '{value}'")
        return int(value)
    if attr == "timeout":
        try:
            t = float(value)
        except ValueError:
            t = 0.0
        if not t > 0 or t == float("inf"):
            raise UsageError(f"--timeout needs a positive number of seconds, got '{value}'")
        return t
    if attr == "gdb_rank":
        if not (value.isascii() and value.isdigit()):
            raise UsageError(f"--gdb needs a rank (0, 1, ...), got '{value}'")
        return int(value)
    if attr == "qemu_threads" and value not in mkimage.TCG_THREADS:
        raise UsageError(f"--qemu-threads must be {' or '.join(mkimage.TCG_THREADS)}, "
                         f"got '{value}'")
    if attr == "firmware" and value not in FIRMWARES:
        raise UsageError(f"--firmware must be {' or '.join(FIRMWARES)}, got '{value}'")
    if attr == "trace" and not value:
        raise UsageError("--trace needs a file name")
    if attr == "platform" and value not in PLATFORMS:
        raise UsageError(f"unknown platform '{value}' ({' or '.join(PLATFORMS)})")
    return value


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def env_variable(spec):
    """-x's argument: NAME=VALUE, or NAME for NAME's value in mpirun's own
    environment; returns (NAME, VALUE), VALUE None when NAME is not set
    there (mpirun warns, as Open MPI does, and passes nothing). Raises
    UsageError for a bad NAME."""
    name, eq, value = spec.partition("=")
    if not ENV_NAME.match(name):
        raise UsageError(f"-x needs NAME=VALUE or NAME, NAME made of letters, digits and '_' "
                         f"(not starting with a digit), got '{spec}'")
    if eq:
        return name, value
    if name not in os.environ:
        print(f"mpirun: warning: -x {name}: {name} is not set in mpirun's environment; "
              f"not passed", file=sys.stderr)
        return name, None
    return name, os.environ[name]


# Options each application of an MPMD launch has its own of (MPI 3.1
# section 8.8: mpirun -np 1 a : -np 4 b); every other option is the job's,
# given before the first program.
APP_OPTIONS = ("-np", "-n", "--np")
MPMD_FORM = "mpirun [OPTIONS] -np N PROGRAM [ARGS] : -np M PROGRAM2 [ARGS2] ..."
# In place of an application's -np: that application is the I/O rank's.
IO_RANK = "--io-rank"
IO_RANK_FORM = "mpirun [OPTIONS] -np N PROGRAM [ARGS] : --io-rank IO_PROGRAM [IO_ARGS]"


def parse_args(argv):
    """Parse mpirun's command line into Options; raises UsageError.

    The job's options come first; the first other word is the program, and
    every word after it belongs to the program (so its own options pass
    through), up to a lone ':', which starts the next application of an
    MPMD launch: its own -np N, program and arguments. Only -np (-n, --np)
    may be given per application; the job's options go before the first
    program. --io-rank, in place of -np in the last application, makes it
    the job's I/O rank.
    """
    opts = Options()
    if os.environ.get("TESSERA_PLATFORM"):
        value = os.environ["TESSERA_PLATFORM"]
        if value not in PLATFORMS:
            raise UsageError(f"TESSERA_PLATFORM names an unknown platform '{value}' "
                             f"({' or '.join(PLATFORMS)})")
        opts.platform = value
    i = 0
    while True:
        if opts.io_rank:
            raise UsageError(f"the I/O rank's application (--io-rank) must be the last "
                             f"({IO_RANK_FORM})")
        np, io, i = parse_options(argv, i, opts, first=not opts.apps)
        if opts.help:
            return opts
        if i >= len(argv) or argv[i] == ":":
            if io:
                raise UsageError(f"--io-rank needs the I/O rank's program ({IO_RANK_FORM})")
            if not opts.apps and i >= len(argv):
                raise UsageError("no program given")
            where = f" for application {len(opts.apps) + 1} (after ':')" if opts.apps else ""
            raise UsageError(f"no program given{where} ({MPMD_FORM})")
        end = argv.index(":", i) if ":" in argv[i:] else len(argv)
        opts.apps.append(mkimage.App(argv[i], tuple(argv[i + 1:end]), np, io))
        if end == len(argv):
            break
        i = end + 1
    if opts.io_rank and opts.ranks == "threads":
        raise UsageError("--io-rank needs --ranks processes (the default): the I/O rank is a "
                         "process of its own")
    if len(opts.apps) > 1 and opts.ranks == "threads":
        raise UsageError("--ranks threads runs one program's ranks as threads of one process: an "
                         "MPMD launch needs --ranks processes (the default)")
    if opts.bind_to == "core" and opts.platform != "linux64":
        raise UsageError("--bind-to core needs --platform linux64 (QEMU runs every core in one "
                         "host thread)")
    check_gdb_options(opts)
    return opts


def parse_options(argv, i, opts, first):
    """The options of one application from argv[i]: sets the job's options
    in opts (first: the first application, the only one that may give
    them); returns (its -np, whether it is the I/O rank's (--io-rank), the
    index of the word after its options)."""
    np, io, np_given = 1, False, False
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return np, io, i + 1
        if not word.startswith("-") or word == "-":
            break
        opt, eq, value = word.partition("=")
        takes_value = opt in _VALUED or opt in APP_OPTIONS or opt in VALUE_NEEDED
        if takes_value:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(VALUE_NEEDED.get(opt, f"{opt} needs a value"))
                i += 1
                value = argv[i]
        if not first and opt not in APP_OPTIONS and word != IO_RANK and \
                (takes_value or word in FLAGS):
            raise UsageError(f"{opt} is an option of the whole job: give it before the first "
                             f"program (an application after ':' takes only -np N, its program "
                             f"and its arguments)")
        if opt in APP_OPTIONS:
            np, np_given = _convert(opt, "np", value), True
        elif word == IO_RANK:
            if first:
                raise UsageError(f"--io-rank starts the I/O rank's application, which follows "
                                 f"the world's ranks' ({IO_RANK_FORM})")
            io = True
        elif opt in _VALUED:
            value = _convert(opt, _VALUED[opt], value)
            if opt == "--map-by":
                opts.map_by, opts.ppr = value
            else:
                setattr(opts, _VALUED[opt], value)
        elif opt == "--stage":
            opts.stage.append(value)
        elif opt == "-x":
            name, value = env_variable(value)
            if value is not None:
                opts.env.pop(name, None)        # the last -x of a name wins, in its place
                opts.env[name] = value
        elif word in FLAGS:
            setattr(opts, FLAGS[word], True)
            if word in ("-h", "--help"):
                return np, io, i
        else:
            raise UsageError(f"unknown option '{word}'")
        i += 1
    if io and np_given:
        raise UsageError(f"--io-rank starts one process, the I/O rank: give it no -np "
                         f"({IO_RANK_FORM})")
    return np, io, i


def check_gdb_options(opts):
    """Refuse --gdb's options that do not go together; raises UsageError."""
    if opts.gdb_rank < 0:
        if opts.gdb_server or opts.gdb_batch:
            raise UsageError(f"{'--gdb-server' if opts.gdb_server else '--gdb-batch'} needs "
                             f"--gdb RANK (the rank to debug)")
        return
    if opts.gdb_rank >= opts.np:
        raise UsageError(f"--gdb {opts.gdb_rank}: no such rank (the job's ranks are 0 to "
                         f"{opts.np - 1})")
    if opts.gdb_server and opts.gdb_batch:
        raise UsageError("--gdb-server and --gdb-batch do not go together")
    if opts.gdb_batch and not os.path.isfile(opts.gdb_batch):
        raise UsageError(f"--gdb-batch: no such file: {opts.gdb_batch}")


def gdb_mode(opts):
    """How --gdb runs gdb (gdb.Debugger's mode), None without --gdb."""
    if opts.gdb_rank < 0:
        return None
    return "server" if opts.gdb_server else "batch" if opts.gdb_batch else "interactive"


def manifest_flags(opts):
    """The boot manifest's TS_MANIFEST_* flags for the options."""
    flags = mkimage.TS_MANIFEST_TAG_OUTPUT if opts.tag_output else 0
    if opts.ranks == "processes":
        flags |= mkimage.TS_MANIFEST_RANK_PROCESSES
    if opts.local_path == "ikc":
        flags |= mkimage.TS_MANIFEST_MPI_LOCAL_IKC
    if opts.trace:
        flags |= mkimage.TS_MANIFEST_TRACE
    if not opts.eager_threshold:
        flags |= mkimage.TS_MANIFEST_MPI_EAGER_ONE_MESSAGE
    if opts.gdb_rank >= 0:
        flags |= mkimage.TS_MANIFEST_HOLD_RANK
    wait = opts.wait_policy or DEFAULT_WAIT_POLICY[opts.platform]
    return flags | mkimage.WAIT_POLICIES[wait] << mkimage.TS_MANIFEST_MPI_WAIT_SHIFT


def rank_cpus(opts):
    """{rank: host CPU} under --bind-to (empty when unbound): rank r gets
    the r-th CPU of the ones mpirun may use, round-robin."""
    cpus = sorted(os.sched_getaffinity(0))
    bind = opts.bind_to or ("core" if opts.np <= len(cpus) else "none")
    if opts.platform != "linux64" or bind == "none":
        return {}
    return {rank: cpus[rank % len(cpus)] for rank in range(opts.np)}


def cluster_cpus(layout, opts, bound):
    """The CPUS argument of each cluster process (tessera_cluster): per
    core, its host CPU or '-'; None for a cluster with no bound core."""
    per_cluster = [None] * len(layout.clusters)
    for rank, cpu in bound.items():
        index, local = mkimage.placement(layout, opts.map_by, rank)
        cores = per_cluster[layout.nio + index] = per_cluster[layout.nio + index] or {}
        cores[local + 1] = cpu
    return [None if not cores else ",".join(str(cores.get(c, "-")) for c in range(max(cores) + 1))
            for cores in per_cluster]


RANKS_REPORT = {
    "processes": "each MPI process is a process of its own, with its own global variables, "
                 "heap and stack",
    "threads": "the MPI processes of a compute cluster are threads of one process and share "
               "its global variables",
}


def report_bindings(layout, opts, bound, out=None):
    """--report-bindings on `out` (stderr): how the ranks run, e.g.
    "mpirun: --ranks processes: each MPI process is a process of its own, ...",
    then one line per rank, e.g.
    "mpirun: rank 5 -> cluster 2 core 2 (compute cluster 1 of 4, local rank 1)".

    The core is certain: the job's ranks are all a compute cluster runs.
    With --ranks processes the kernel starts local rank l on core l + 1
    (process_spawn_ranks), whichever application's program it runs. With
    --ranks threads (one program) the kernel gives a new thread the first
    free core (core 0, the master, runs none), the program's first thread
    is the rank of local index 0, and crt0 starts every other rank of the
    cluster, in order, before any runs main (userland/runtime/start.c):
    local rank l runs on core l + 1 too.
    """
    out = out or sys.stderr
    mode = opts.ranks
    print(f"mpirun: --ranks {mode}: {RANKS_REPORT[mode]}", file=out)
    for rank in range(opts.np):
        index, local = mkimage.placement(layout, opts.map_by, rank)
        cpu = f", host CPU {bound[rank]}" if rank in bound else ""
        print(f"mpirun: rank {rank} -> cluster {layout.nio + index} core {local + 1} "
              f"(compute cluster {index} of {layout.ncompute}, local rank {local}{cpu})", file=out)
    if opts.io_rank:
        # Cluster 0's spawn server starts it on the first free core, after
        # the services' (kernel/services/spawn.cpp).
        print(f"mpirun: the I/O rank (rank {opts.np} of MPIX_COMM_LOCAL) -> cluster 0 core "
              f"{1 + len(mkimage.SERVICES)}", file=out)


def shares_a_cluster(layout, opts):
    """True when some compute cluster hosts more than one rank of the job
    (as --report-bindings shows: a rank of local index 1 or more)."""
    return any(mkimage.placement(layout, opts.map_by, rank)[1] > 0 for rank in range(opts.np))


def runtime_files(platform):
    """What every program of the platform's build links besides its own
    code (start files, LWMPI, the runtime, the C library), from the build's
    mpicc.cfg; [] without one."""
    path = os.path.join(mkimage.target_out(platform), "mpicc.cfg")
    if not os.path.isfile(path):
        return []
    return program_globals.runtime_files(program_globals.read_config(path))


GLOBALS_SHOWN = 8   # the globals warning names at most this many variables


def globals_warning(layout, opts, program, verbose_out=None):
    """The one-line warning that the job's ranks share the program's own
    writable global/static variables (--ranks threads, and some cluster
    hosts several ranks); None when they do not. The program's own
    variables: tools/tessera/program_globals.py. verbose_out: where to say that
    the program could not be checked."""
    if opts.ranks != "threads" or not shares_a_cluster(layout, opts):
        return None
    names, how = program_globals.own_variables(program, lambda: runtime_files(opts.platform))
    if how is None and verbose_out:
        print(f"mpirun: cannot tell the global variables of {program} from the runtime's (not "
              f"built by tools/mpicc, and no build to compare with): not checked",
              file=verbose_out)
    if not names:
        return None
    shown = ", ".join(names[:GLOBALS_SHOWN])
    if len(names) > GLOBALS_SHOWN:
        shown += f", ... ({len(names)} in all)"
    return (f"mpirun: warning: --ranks threads: the MPI processes of a compute cluster share "
            f"the program's writable global/static variables: {shown} (run with --ranks "
            f"processes, the default, or declare them _Thread_local; see "
            f'docs/programs.md, "Global variables in MPI programs")')


def app_of_rank(apps, rank):
    """The application (mkimage.App) that runs `rank` of the job."""
    for app in apps:
        if rank < app.np:
            return app
        rank -= app.np
    raise ValueError("no such rank")


def fault_rewriter(programs):
    """mpirun's console filter: adds places to the fault reports of each
    program's processes (symbols.FaultReports; one per program, each
    rewriting its own processes' reports only)."""
    reports = [symbols.FaultReports(p) for p in dict.fromkeys(programs)]

    def rewrite(line):
        lines = [line]
        for r in reports:
            lines = [out for one in lines for out in r.rewrite(one)]
        return lines
    return rewrite


def usage_error(e):
    """Say what is wrong with the command line, with the usage; returns 2."""
    print(f"mpirun: {e}\n{USAGE}", file=sys.stderr)
    return 2


def main(argv=None):
    """mpirun's entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
    except UsageError as e:
        return usage_error(e)
    if opts.help:
        print(USAGE + "\n" + HELP)
        return 0
    # SIGTERM unwinds like ^C: QEMU (or every cluster process) is killed and
    # the images removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    workdir = job_folder = debugger = None
    staged = {}
    try:
        env = [f"{name}={value}" for name, value in opts.env.items()]
        mkimage.encode_env(env)             # too large: say so before any other work
        layout = mkimage.plan_job(opts.profile, opts.np, opts.platform, opts.firmware or None,
                                  opts.ppr, opts.cluster_memory)
        paths = mkimage.default_paths(platform=opts.platform)
        apps = [dataclasses.replace(app, program=mkimage.resolve_program(app.program, paths["bin"]))
                for app in opts.apps]
        program = apps[0].program
        bound = rank_cpus(opts)
        if opts.report_bindings:
            report_bindings(layout, opts, bound)
        warning = globals_warning(layout, opts, program, sys.stderr if opts.verbose else None)
        if warning:
            print(warning, file=sys.stderr)
        job_folder = jobdir.make(opts.stage, program_copies(apps))
        staged = jobdir.snapshot(job_folder)
        workdir = tempfile.mkdtemp(prefix="tessera-mpirun-")
        build = mkimage.build_payloads
        timeout, watch = opts.timeout, None
        if gdb_mode(opts):
            debugger = gdb.Debugger(
                opts.platform, opts.gdb_rank, gdb_mode(opts), app_of_rank(apps, opts.gdb_rank).program,
                workdir,
                kernel_exe=paths["cluster"], batch_file=opts.gdb_batch,
                port=gdb.free_port() if opts.platform != "linux64" else 0)
            watch = debugger.watch
            timeout = opts.timeout if gdb_mode(opts) == "batch" else None
        if opts.platform != "linux64":
            build = functools.partial(mkimage.build_images, tcg_threads=opts.qemu_threads,
                                      gdb_port=debugger.port if debugger else 0)
        job = build(layout, apps, (), opts.np, opts.map_by, workdir,
                    flags=manifest_flags(opts), mpi_eager_max=opts.eager_threshold,
                    report=sys.stderr if opts.verbose else None, env=env,
                    hold_rank=max(opts.gdb_rank, 0))
        rewrite = fault_rewriter([app.program for app in apps])
        if opts.platform == "linux64":
            if opts.verbose:
                print(f"mpirun: payloads in {workdir} (kept)", file=sys.stderr)
            status, timed_out = run_clusters(paths["cluster"], job, layout.fabric_size,
                                             timeout, opts.verbose,
                                             cpus=cluster_cpus(layout, opts, bound), cwd=job_folder,
                                             watch=watch, rewrite=rewrite)
        else:
            if opts.verbose:
                print(f"mpirun: images in {workdir} (kept)\nmpirun: {shlex.join(job)}",
                      file=sys.stderr)
            status, timed_out = run_machine(job, timeout, opts.verbose, cwd=job_folder, watch=watch,
                                            rewrite=rewrite)
        if timed_out:
            print(f"mpirun: timeout after {opts.timeout:g} s", file=sys.stderr)
        if debugger:
            debugger.finish(timed_out)
        return status
    except OptionError as e:        # e.g. ppr:N:cluster with N above the profile's slots
        return usage_error(e)
    except ToolError as e:
        print(f"mpirun: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mpirun: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:             # run_machine / run_clusters killed the job
        drop_stdout()
        return BROKEN_PIPE_STATUS
    finally:
        if debugger:
            debugger.kill()
        if job_folder and opts.trace:
            write_trace(job_folder, opts.trace)
        if job_folder:
            files_back(job_folder, staged, opts.verbose)
        if workdir and not opts.verbose:
            shutil.rmtree(workdir, ignore_errors=True)


def write_trace(job_folder, path):
    """--trace: the rings the ranks wrote into the job folder become the
    JSON file `path` (tools/tessera/trace.py); says how many events were
    lost, or why there is no trace."""
    try:
        meta = trace.convert(job_folder, path)
    except (trace.TraceError, OSError) as e:
        print(f"mpirun: --trace: no trace written: {e}", file=sys.stderr)
        return
    if meta is None:
        print("mpirun: --trace: the job wrote no trace (no rank reached MPI_Finalize)",
              file=sys.stderr)
        return
    print(f"mpirun: trace written to {path}: {meta['messages_paired']} messages, "
          f"{meta['lost_total']} events lost", file=sys.stderr)


def program_copies(apps):
    """(argv[0], path) of each application's executable that is a file, for
    the job folder (jobdir.make), so that a rank may open its argv[0]."""
    return [(mkimage.program_name(a.program), a.program) for a in apps if os.path.isfile(a.program)]


def files_back(job_folder, staged, verbose):
    """The job has ended: the files its ranks created or changed go to the
    current folder (saying which could not), and the job folder goes."""
    try:
        copied, failed = jobdir.collect(job_folder, staged, os.getcwd())
        for path, why in failed:
            print(f"mpirun: the job's file {path} was not copied back: {why}", file=sys.stderr)
        if verbose and copied:
            print(f"mpirun: the job's files copied back: {' '.join(copied)}", file=sys.stderr)
    finally:
        jobdir.remove(job_folder)

