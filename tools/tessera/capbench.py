"""Running the CAP Bench applications (userland/apps/) and reading their
output, for the tests, `make crosscheck` and `make bench`: on Tessera
through tools/mpirun, on Linux through the system's Open MPI.

The output lines are those of userland/apps/README.md:
    friendly pairs: N                  fn's result
    gf: ... / km: ... / a2a: steps=... the others' result
    a2a: step=S bytes=B messages=M ns=T cycles=C   one per a2a superstep
    verify: OK | verify: MISMATCH ...
    time: ns=T cycles=C
and, with mpirun --verbose, the kernel's line per compute cluster
    [kernel] cluster N: the MPI program used at most K KiB in P processes
"""
import os
import re
import shutil
import subprocess
import time

from tessera.testing import ROOT, mpirun

APPS = ("fn", "gf", "km", "a2a")
BASELINES = ("fn", "gf", "km")     # those with a raw-IKC form, NAME_ikc
HYBRIDS = ("fn", "km")             # those with a hybrid form (OpenMP inside a rank), NAME_omp

_STEP = re.compile(r"^a2a: step=(\d+) bytes=(\d+) messages=(\d+) ns=(\d+) cycles=(\d+)$", re.M)
_TIME = re.compile(r"^time: ns=(\d+) cycles=(\d+)$", re.M)
_VERIFY = re.compile(r"^verify: (.*)$", re.M)
_MEMORY = re.compile(r"^\[kernel\] cluster (\d+): the MPI program used at most (\d+) KiB in (\d+) process",
                     re.M)
_KEPT = re.compile(r"^mpirun: (?:images|payloads) in (\S+) \(kept\)$", re.M)


class Run:
    """One run of an application: exit status, output, host seconds, and
    what the output says (None where a line is missing)."""

    def __init__(self, app, rc, out, seconds):
        self.app, self.rc, self.out, self.seconds = app, rc, out, seconds
        self.result = result_line(app, out)
        m = _TIME.search(out)
        self.ns, self.cycles = (int(m[1]), int(m[2])) if m else (None, None)
        m = _VERIFY.search(out)
        self.verify = m[1] if m else None
        # a2a: (step, bytes, messages, ns, cycles) per superstep.
        self.steps = [tuple(int(x) for x in m.groups()) for m in _STEP.finditer(out)]
        # With mpirun --verbose: {cluster id: (KiB, processes)}, the most
        # memory the program had in use at once on each compute cluster.
        self.memory = {int(m[1]): (int(m[2]), int(m[3])) for m in _MEMORY.finditer(out)}

    @property
    def ok(self):
        """Exited with 0, printed its result and time, and (when asked to
        verify) verified."""
        return self.rc == 0 and self.result is not None and self.ns is not None and \
            self.verify in (None, "OK")

    def describe(self):
        return f"exit {self.rc}, {self.seconds:.1f} s, result {self.result!r}, verify {self.verify!r}"


def result_line(app, out):
    """The application's result line in `out` (None if missing): the one a
    crosscheck compares."""
    pattern = r"^friendly pairs: \d+$" if app == "fn" else rf"^{app}: (?!step=).*$"
    m = re.search(pattern, out, re.M)
    return m[0] if m else None


def run_tessera(program, np, mapping, args=(), local_path=None, eager=None, timeout=600, profile=None,
                ranks=None, memory=False, platform=None, io_rank=None):
    """Runs PROGRAM (a name of out/target/bin, e.g. fn or fn_ikc) on
    Tessera (on mpirun's default profile, or `profile`): a Run (its app is
    PROGRAM without _ikc or _omp). ranks: mpirun's --ranks, "processes" or
    "threads"; None: mpirun's default for an MPI program, threads for a
    raw-IKC form (its rank threads of a cluster compute into arrays they
    share, the stronger baseline; with processes everything moves over IKC:
    userland/apps/ikc/ikcapp.h). memory: run with --verbose, so that
    Run.memory holds the kernel's memory line of each compute cluster (the
    images --verbose keeps are removed). platform: mpirun's --platform
    (None: QEMU). io_rank: (PROGRAM, ARGS) of the job's MPI I/O rank
    (mpirun's `: --io-rank PROGRAM ARGS`), or None."""
    opts = ["-np", str(np), "--map-by", mapping, "--timeout", str(timeout)]
    if ranks is None and program.endswith("_ikc"):
        ranks = "threads"
    if ranks:
        opts += ["--ranks", ranks]
    if profile:
        opts += ["--profile", profile]
    if local_path:
        opts += ["--local-path", local_path]
    if eager is not None:
        opts += ["--eager-threshold", str(eager)]
    if memory:
        opts.append("--verbose")
    if platform:
        opts += ["--platform", platform]
    then = [":", "--io-rank", io_rank[0], *map(str, io_rank[1])] if io_rank else []
    t0 = time.monotonic()
    rc, out = mpirun(*opts, program, *map(str, args), *then, timeout=timeout + 60)
    seconds = time.monotonic() - t0
    for kept in _KEPT.findall(out) if memory else ():
        if os.path.basename(kept).startswith("tessera-mpirun-"):
            shutil.rmtree(kept, ignore_errors=True)
    return Run(re.sub(r"_(ikc|omp)$", "", program), rc, out, seconds)


def linux_mpirun():
    """The system's mpirun (Open MPI), or None when it is not installed."""
    return shutil.which("mpirun") if shutil.which("mpicc") else None


def build_linux(out_dir):
    """Builds the MPI applications with the system's MPI into out_dir
    (cmake -S userland/apps): {app: path of its executable}. Raises
    CalledProcessError, with the build's output, on failure."""
    src = os.path.join(ROOT, "userland", "apps")
    for cmd in (["cmake", "-S", src, "-B", out_dir, "-DCMAKE_BUILD_TYPE=Release"],
                ["cmake", "--build", out_dir, "-j", str(os.cpu_count() or 2)]):
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return {app: os.path.join(out_dir, app, app) for app in APPS}


def run_linux(app, binary, np, args=(), timeout=600):
    """Runs a Linux build of APP with np processes through Open MPI's
    mpirun (oversubscribed: this machine may have fewer cores): a Run."""
    cmd = [linux_mpirun(), "--oversubscribe", "-np", str(np)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    # Containers often forbid the cross-memory attach Open MPI's shared
    # memory transport copies with; plain copies work everywhere.
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")
    t0 = time.monotonic()
    p = subprocess.run(cmd + [binary, *map(str, args)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout, env=env)
    return Run(app, p.returncode, p.stdout, time.monotonic() - t0)
