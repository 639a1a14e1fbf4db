"""mpirun --gdb RANK: one rank of a job under gdb, stopped before its main.

Every rank runs the same program at the same addresses (and the ranks of a
cluster share its text), so a breakpoint on main alone would stop them
all. mpirun asks the kernel to hold the rank instead (the manifest's
TS_MANIFEST_HOLD_RANK, kernel/core/debug_hold.cpp): the kernel of the
rank's cluster parks the rank's core before the rank's first user
instruction, says so on the console

    [kernel] cluster 2 core 2: rank 1 held before its main for the debugger

and calls tessera_debug_held every few milliseconds until
tessera_debug_release is set. When mpirun sees that line it writes a gdb
script (script()) that

  - loads the kernel's symbols at their addresses: on qemu-riscv64 the
    rank's cluster's own image (each cluster's image is linked at its
    memory window, tools/mkimage.py), and connects to QEMU's gdb stub
    (mpirun starts QEMU with -gdb on a free port of 127.0.0.1); on
    linux64 the cluster executable, attached to the Linux process of the
    rank's core (each core of a cluster is a process, named
    tessera-cC-kK: hal/arch/linux64/linux.cpp);
  - loads the program's symbols at its link address, where the kernel
    loads it (programs are static ELF executables);
  - stops in tessera_debug_held (the held core), releases the rank, and
    puts a temporary breakpoint on main for that gdb thread only, then
    continues: gdb stops in the rank's main.

Then gdb is the user's (interactive), or runs a command file and ends
(batch, for tests), or mpirun only prints how to attach (server, for an
IDE). Standard library only.
"""
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

from tessera.fit import PT_LOAD, program_headers
from tessera.profile import ToolError

GDB = {"qemu-riscv64": "gdb-multiarch", "linux64": "gdb"}
HELD = re.compile(r"\[kernel\] cluster (\d+) core (\d+): rank (\d+) held before its main")
PF_X = 1
BATCH_GRACE = 20        # seconds a batch gdb may take to end after the job has ended
FIND_TRIES = 100        # linux64: looks for the held core's process, 50 ms apart


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on now (QEMU's gdb stub)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_gdb(platform):
    """The gdb of the platform (gdb-multiarch for QEMU's RISC-V, the host's
    gdb for linux64): its path; raises ToolError when it is missing."""
    path = shutil.which(GDB[platform])
    if not path:
        raise ToolError(f"{GDB[platform]} not found; run tools/setup.sh (or make), which "
                        f"installs it")
    return path


def text_span(program):
    """[lo, hi) of the program's executable segments (its text), or None."""
    with open(program, "rb") as f:
        headers = program_headers(f.read())
    spans = [(vaddr, vaddr + memsz) for kind, flags, _, vaddr, _, memsz in headers
             if kind == PT_LOAD and flags & PF_X and memsz]
    if not spans:
        return None
    return min(lo for lo, _ in spans), max(hi for _, hi in spans)


def children(ppid):
    """{pid: comm} of the processes whose parent is ppid (from /proc)."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        if int(stat[stat.rindex(")") + 2:].split()[1]) == ppid:
            out[int(name)] = comm
    return out


def core_process(cluster, core, launcher=None):
    """linux64: the pid of core `core` of cluster `cluster`, a child of
    the cluster's master (tessera-cC-k0), itself a child of the launcher
    (default: this process). Raises ToolError when it cannot be found."""
    launcher = launcher or os.getpid()
    for _ in range(FIND_TRIES):
        masters = [pid for pid, comm in children(launcher).items()
                   if comm == f"tessera-c{cluster}-k0"]
        for master in masters:
            for pid, comm in children(master).items():
                if comm == f"tessera-c{cluster}-k{core}":
                    return pid
        time.sleep(0.05)
    raise ToolError(f"cannot find the process of cluster {cluster} core {core}")


def script(platform, program, target, kernel):
    """The gdb commands that stop the held rank in its main.

    target: qemu-riscv64, the gdb stub's "HOST:PORT"; linux64, the pid of
    the held core's process. kernel: the kernel's ELF (the rank's
    cluster's image on qemu-riscv64, the cluster executable on linux64).
    """
    program = os.path.abspath(program)
    lines = ["set pagination off", "set confirm off", "set print thread-events off",
             f"file {kernel}"]
    if platform == "linux64":
        span = text_span(program)
        lines += [
            "# The kernel mirrors user pages on demand (a SIGSEGV is a TLB miss) and",
            "# interrupts user code with SIGUSR1 (hal/arch/linux64): not for gdb.",
            "handle SIGSEGV nostop noprint pass",
            "handle SIGUSR1 nostop noprint pass",
        ]
        if span:
            lines += [
                "# The ranks of a cluster share the program's text: a breakpoint written",
                "# into it would trap them all. Read-only there: gdb uses hardware",
                "# breakpoints, which only this core's process has.",
                "set mem inaccessible-by-default off",
                f"mem {span[0]:#x} {span[1]:#x} ro",
                "set breakpoint auto-hw on",
            ]
        lines.append(f"attach {target}")
    else:
        lines.append(f"target remote {target}")
    lines += [
        f"add-symbol-file {program}",
        "tbreak tessera_debug_held",
        "continue",
        'printf "rank %d is held in its kernel (tessera_debug_held); releasing it to its main\\n", '
        'tessera_debug_held_rank',
        "set variable tessera_debug_release = 1",
        'eval "tbreak main thread %d", $_thread',
        "continue",
    ]
    return "".join(line + "\n" for line in lines)


class Debugger:
    """Watches the console for the held rank, then starts or offers gdb.

    mode: "interactive" (gdb on the terminal, until the user quits it),
    "batch" (gdb -batch runs batch_file after the stop in main) or
    "server" (no gdb: print how to attach). workdir: where the job's
    images are (qemu-riscv64: clusterC.elf) and the script goes.
    """

    def __init__(self, platform, rank, mode, program, workdir, kernel_exe=None, port=0,
                 batch_file=None, out=None):
        self.platform, self.rank, self.mode = platform, rank, mode
        self.program, self.workdir, self.kernel_exe = program, workdir, kernel_exe
        self.port, self.batch_file = port, batch_file
        self.out = out or sys.stderr
        self.gdb = check_gdb(platform) if mode != "server" else GDB[platform]
        self.proc = None
        self.held = False
        self.sigint = None

    def watch(self, line):
        """Called with every console line: on the held line, starts gdb."""
        m = HELD.search(line)
        if self.held or not m or int(m[3]) != self.rank:
            return
        self.held = True
        cluster, core = int(m[1]), int(m[2])
        if self.platform == "linux64":
            target, kernel = str(core_process(cluster, core)), self.kernel_exe
            where = f"cluster {cluster} core {core}, Linux process {target}"
        else:
            target = f"127.0.0.1:{self.port}"
            kernel = os.path.join(self.workdir, f"cluster{cluster}.elf")
            where = f"cluster {cluster} core {core}, QEMU's gdb stub at {target}"
        path = os.path.join(self.workdir, f"gdb-rank{self.rank}.gdb")
        with open(path, "w") as f:
            f.write(script(self.platform, self.program, target, kernel))
        if self.mode == "server":
            print(f"mpirun: rank {self.rank} is held before its main ({where}); to debug it:\n"
                  f"  {self.gdb} -x {path}\n"
                  f"mpirun: or give an IDE's gdb these commands:\n"
                  + "".join(f"  {c}\n" for c in open(path).read().splitlines()
                            if not c.startswith("#"))
                  + "mpirun: the job waits for them; ^C ends it", file=self.out, flush=True)
            return
        cmd = [self.gdb, "-q", "-nx"]
        if self.mode == "batch":
            cmd += ["-batch", "-x", path, "-x", self.batch_file]
            stdin = subprocess.DEVNULL
        else:
            cmd += ["-x", path]
            stdin = None
            # ^C is gdb's, to stop the rank; mpirun leaves it alone while gdb runs.
            self.sigint = signal.signal(signal.SIGINT, signal.SIG_IGN)
        print(f"mpirun: rank {self.rank} is held before its main ({where}): {shlex.join(cmd)}",
              file=self.out, flush=True)
        # A batch gdb is a process group of its own, so that killing it
        # takes what it started (shell commands) too.
        self.proc = subprocess.Popen(cmd, stdin=stdin, start_new_session=self.mode == "batch")

    def finish(self, timed_out=False):
        """After the job has ended: waits for gdb (interactive: until the
        user quits it; batch: BATCH_GRACE seconds, then kills it; at once
        when the job timed out). Returns gdb's exit status, or None when no
        gdb ran."""
        if self.proc is None:
            if not self.held:
                print(f"mpirun: rank {self.rank} was never held (the job ended before it "
                      f"started)", file=self.out)
            return None
        try:
            if self.mode == "interactive" and self.proc.poll() is None:
                print("mpirun: the job has ended; quit gdb to return", file=self.out, flush=True)
                return self.proc.wait()
            try:
                return self.proc.wait(0 if timed_out else BATCH_GRACE)
            except subprocess.TimeoutExpired:
                print("mpirun: gdb did not end with the job; killed", file=self.out)
                self.kill()
                return self.proc.returncode
        finally:
            if self.sigint is not None:
                signal.signal(signal.SIGINT, self.sigint)

    def kill(self):
        """On a way out that is no end of the job (^C, an error): gdb goes too."""
        if self.proc and self.proc.poll() is None:
            try:
                if self.mode == "batch":
                    os.killpg(self.proc.pid, signal.SIGKILL)
                else:
                    self.proc.kill()
            except ProcessLookupError:
                pass
            self.proc.wait()
