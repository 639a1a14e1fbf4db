"""The on-target tests of tests/target_tests.toml: reading the manifest,
running a test's jobs through tools/mpirun and checking their output, and
the CTest registration of every test.

A test is a TOML table named as its CTest test (NAME; NAME_linux64 on
linux64), often one line: `NAME = { run = "...", lines = [...] }`. Keys:

  run        mpirun's arguments as typed after `mpirun` (options, the
             program, its arguments); a list for several jobs, whose items
             may be tables { run = "...", KEY = ... } overriding the
             test's checks for that job
  status     the job's exit status (default 0)
  lines      regular expressions, each matching a whole line of the output
             at least once; one with {rank} must match for every rank 0 ..
             np-1; {np} stands for the job's -np
  contains   text that must be in the output (it may span lines)
  absent     text that must not be in the output
  counts     { regex = N }: exactly N whole lines match regex
  driver     instead of run and the checks: a Python test driver (path from
             the repository's root) with its `args`, for tests whose checks
             need code (they share the rest of the keys below)
  labels     CTest labels besides the platform's (`target`, `qemu`;
             `linux64`)
  platforms  qemu-riscv64, linux64 (default both)
  timeout    CTest's limit for the whole test, in seconds (default 600)

Standard library only (tomllib: Python 3.11).
"""
import os
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass, field

from tessera import REPO, testing
from tessera.mpirun import UsageError, parse_args

MANIFEST = os.path.join(REPO, "tests", "target_tests.toml")
PLATFORMS = ("qemu-riscv64", "linux64")
CHECKS = ("status", "lines", "contains", "absent", "counts")
KEYS = {"run", "driver", "args", "labels", "platforms", "timeout", *CHECKS}
DRIVER_TIMEOUT = 120    # beyond mpirun's own --timeout, for a job's whole run


class ManifestError(Exception):
    """A manifest that cannot be read, or a test in it that makes no sense."""


@dataclass
class Job:
    """One mpirun command of a test and what its output must show."""
    argv: list
    np: int
    timeout: float       # mpirun's --timeout
    status: int = 0
    lines: list = field(default_factory=list)
    contains: list = field(default_factory=list)
    absent: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)

    def failures(self, status, out):
        """What is wrong with a run of this job that exited with `status`
        and printed `out` (stdout and stderr): a list of sentences, empty
        when it passed."""
        wrong = []
        if status != self.status:
            wrong.append(f"exit status {status}, expected {self.status}")
        for pattern in self.lines:
            for rank in range(self.np) if "{rank}" in pattern else (None,):
                regex = self.expand(pattern, rank)
                if not re.search(rf"(?m)^(?:{regex})$", out):
                    wrong.append(f"no line matches '{regex}'")
        wrong += [f"missing: {text!r}" for text in self.contains if text not in out]
        wrong += [f"present: {text!r}" for text in self.absent if text in out]
        for pattern, want in self.counts.items():
            regex = self.expand(pattern)
            seen = len(re.findall(rf"(?m)^(?:{regex})$", out))
            if seen != want:
                wrong.append(f"{seen} lines match '{regex}', expected {want}")
        return wrong

    def expand(self, pattern, rank=None):
        """pattern with {np} (and {rank}, when given) put in."""
        pattern = pattern.replace("{np}", str(self.np))
        return pattern if rank is None else pattern.replace("{rank}", str(rank))


@dataclass
class Test:
    """A test of the manifest: its jobs, or the driver that runs it."""
    name: str
    jobs: list
    driver: str = ""
    args: list = field(default_factory=list)
    labels: list = field(default_factory=list)
    platforms: list = field(default_factory=lambda: list(PLATFORMS))
    timeout: int = 600


def parse_job(name, item, defaults):
    """A Job of test `name` from a `run` item (a string, or a table with run
    and its own checks) and the test's checks `defaults`."""
    checks = dict(defaults)
    if isinstance(item, dict):
        unknown = set(item) - {"run", *CHECKS}
        if unknown or "run" not in item:
            raise ManifestError(f"{name}: a job is a string or {{ run = ..., "
                                f"{', '.join(CHECKS)} }}, not {item}")
        checks.update({k: v for k, v in item.items() if k != "run"})
        item = item["run"]
    argv = shlex.split(item)
    try:
        opts = parse_args(argv)
    except UsageError as e:
        raise ManifestError(f"{name}: mpirun {item}: {e}") from None
    if not opts.apps:
        raise ManifestError(f"{name}: mpirun {item}: no program")
    return Job(argv, opts.np, opts.timeout, **checks)


def parse_test(name, spec):
    """A Test from its manifest table; raises ManifestError."""
    if not isinstance(spec, dict):
        raise ManifestError(f"{name}: a test is a table, not {spec!r}")
    unknown = set(spec) - KEYS
    if unknown:
        raise ManifestError(f"{name}: unknown keys {', '.join(sorted(unknown))} "
                            f"(known: {', '.join(sorted(KEYS))})")
    if ("run" in spec) == ("driver" in spec):
        raise ManifestError(f"{name}: give either run (jobs) or driver (a test program)")
    platforms = spec.get("platforms", list(PLATFORMS))
    if not platforms or set(platforms) - set(PLATFORMS):
        raise ManifestError(f"{name}: platforms are {' and '.join(PLATFORMS)}, not {platforms}")
    if "driver" in spec:
        if set(spec) & set(CHECKS):
            raise ManifestError(f"{name}: a driver does its own checks")
        if not os.path.isfile(os.path.join(REPO, spec["driver"])):
            raise ManifestError(f"{name}: no driver {spec['driver']}")
        jobs = []
    else:
        if "args" in spec:
            raise ManifestError(f"{name}: args are a driver's; a job's go in run")
        runs = spec["run"] if isinstance(spec["run"], list) else [spec["run"]]
        defaults = {k: spec[k] for k in CHECKS if k in spec}
        jobs = [parse_job(name, item, defaults) for item in runs]
    return Test(name, jobs, spec.get("driver", ""), list(spec.get("args", [])),
                list(spec.get("labels", [])), list(platforms), spec.get("timeout", 600))


def load(path=MANIFEST):
    """{name: Test} of the manifest at path, in its order."""
    try:
        with open(path, "rb") as f:
            tables = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ManifestError(f"{path}: {e}") from None
    return {name: parse_test(name, spec) for name, spec in tables.items()}


def cmake(tests, manifest):
    """The CMake lines that register every test with tessera_add_target_test
    (build/tessera.cmake): a driver with its args, the others as
    tests/run_target_test.py NAME."""
    out = [f"# Written from {manifest} by tests/run_target_test.py --cmake; do not edit."]
    for t in tests.values():
        if t.driver:
            words = [t.name, "${CMAKE_SOURCE_DIR}/" + t.driver]
            if t.args:
                words += ["ARGS", *t.args]
        else:
            words = [t.name, "${CMAKE_SOURCE_DIR}/tests/run_target_test.py", "ARGS",
                     *(["--manifest", manifest] if manifest != MANIFEST else []), t.name]
        if t.labels:
            words += ["LABELS", *t.labels]
        words += ["TIMEOUT", str(t.timeout), "PLATFORMS", *t.platforms]
        out.append(f"tessera_add_target_test({' '.join(words)})")
    return "\n".join(out) + "\n"


def run_test(test, report=sys.stdout):
    """Runs every job of test through tools/mpirun on $TESSERA_PLATFORM's
    build, saying how each went (with its output when it failed); True when
    all passed."""
    passed = True
    for job in test.jobs:
        status, out = testing.mpirun(*job.argv, timeout=job.timeout + DRIVER_TIMEOUT)
        wrong = job.failures(status, out)
        print(f"{'ok' if not wrong else 'FAILED'}: mpirun {shlex.join(job.argv)}", file=report)
        if wrong:
            passed = False
            print("".join(f"  {w}\n" for w in wrong) + "  its output:\n" + out, file=report)
    return passed


USAGE = """usage: run_target_test.py [--manifest FILE] NAME...   run the tests NAME
       run_target_test.py [--manifest FILE] --cmake     their CTest registration
       run_target_test.py [--manifest FILE] --list      their names"""


def main(argv=None):
    """The one driver of the manifest's tests; returns the exit status:
    0 when every test named passed, 1 when one failed, 2 on a bad command
    line or manifest."""
    argv = sys.argv[1:] if argv is None else argv
    manifest = MANIFEST
    if argv[:1] == ["--manifest"] and len(argv) > 1:
        manifest, argv = os.path.abspath(argv[1]), argv[2:]
    try:
        tests = load(manifest)
    except ManifestError as e:
        print(f"run_target_test.py: {e}", file=sys.stderr)
        return 2
    if argv == ["--cmake"]:
        print(cmake(tests, manifest), end="")
        return 0
    if argv == ["--list"]:
        print("\n".join(tests))
        return 0
    if not argv or any(a.startswith("-") for a in argv):
        print(USAGE, file=sys.stderr)
        return 2
    passed = True
    for name in argv:
        test = tests.get(name)
        if test is None or test.driver:
            print(f"run_target_test.py: {name}: no such test of jobs in {manifest}",
                  file=sys.stderr)
            return 2
        passed = run_test(test) and passed
    return 0 if passed else 1
