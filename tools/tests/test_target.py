#!/usr/bin/python3
"""On-target tests: run Tessera through tools/mpirun and check the
exact output and exit status of hello, fn and abort_test, and that
--report-bindings, --local-path, --eager-threshold, --wait-policy and --ranks tell the truth
(probe.c), also under --map-by ppr:N:cluster; that -x reaches every rank's
environment and mpiexec runs a job (env_probe.c); that --gdb R stops rank R,
and only it, in its main under a batch gdb, and the job then ends cleanly.

Each test is registered with CTest on its own (tools/CMakeLists.txt), e.g.
    /usr/bin/python3 tools/tests/test_target.py Hello.test_np8_scatter
Needs the build of the platform $TESSERA_PLATFORM (default qemu-riscv64,
or linux64; make build); TESSERA_TARGET_OUT selects the build folder.
"""
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from toolsupport import TESTS, TOOLS, run_mpirun, too_many_processes
from tessera import testing
from tessera.mkimage import MAP_POLICIES, SYSCALL_H, TS_MANIFEST_ENV, parse_map_by, placement
from tessera.profile import compute_layout, load_profile

TIMEOUT = "240"      # mpirun's, below CTest's 300 s so that mpirun reports it
LAYOUT = compute_layout(load_profile("default"))
LINUX64 = os.environ.get("TESSERA_PLATFORM") == "linux64"
# ts_job_info.ranks_mode (<tessera/syscall.h>) under --ranks
RANKS_MODE = {"processes": SYSCALL_H.constant("TS_RANKS_PROCESSES"),
              "threads": SYSCALL_H.constant("TS_RANKS_THREADS")}


def cluster_of(rank, policy):
    """The cluster id hosting `rank` under --map-by compact or scatter (ids
    of compute clusters follow the I/O clusters')."""
    return LAYOUT.nio + placement(LAYOUT, policy, rank)[0]


def friendly_pairs(a, b):
    """Pairs i < j in [a, b] with the same abundancy sigma(n)/n, sequentially."""
    sigma = [0] * (b + 1)
    for d in range(1, b + 1):
        for m in range(d, b + 1, d):
            sigma[m] += d
    groups = {}
    for n in range(a, b + 1):
        g = math.gcd(sigma[n], n)
        key = (sigma[n] // g, n // g)
        groups[key] = groups.get(key, 0) + 1
    return sum(k * (k - 1) // 2 for k in groups.values())


class Hello(unittest.TestCase):
    def check(self, np, policy):
        rc, out, err = run_mpirun("-np", str(np), "--map-by", policy, "--timeout", TIMEOUT,
                                  "hello")
        self.assertEqual(rc, 0, f"stdout:\n{out}\nstderr:\n{err}")
        want = [f"hello from rank {r} of {np} on cluster {cluster_of(r, policy)}"
                for r in range(np)]
        # Ranks print concurrently: any order, but every line exactly once.
        self.assertEqual(sorted(out.splitlines()), sorted(want), f"stderr:\n{err}")

    def test_np1_compact(self):
        self.check(1, "compact")

    def test_np1_scatter(self):
        self.check(1, "scatter")

    def test_np8_compact(self):
        self.check(8, "compact")

    def test_np8_scatter(self):
        self.check(8, "scatter")

    def test_np16_compact(self):
        self.check(16, "compact")

    def test_np16_scatter(self):
        self.check(16, "scatter")


class Fn(unittest.TestCase):
    def check(self, np, policy, a, b):
        rc, out, err = run_mpirun("-np", str(np), "--map-by", policy, "--timeout", TIMEOUT,
                                  "fn", str(a), str(b))
        self.assertEqual(rc, 0, f"stdout:\n{out}\nstderr:\n{err}")
        # The result, then the time line every CAP Bench application prints last.
        self.assertRegex(out, rf"\Afriendly pairs: {friendly_pairs(a, b)}\ntime: ns=\d+ cycles=\d+\n\Z",
                         f"stderr:\n{err}")

    def test_reference(self):
        # Known small case: in 1..30, 6 ~ 28 (sigma/n = 2) is the only pair.
        self.assertEqual(friendly_pairs(1, 30), 1)

    def test_np4_1_500(self):
        self.check(4, "compact", 1, 500)

    def test_np16_1_4000(self):
        self.check(16, "compact", 1, 4000)

    def test_np5_scatter_100_2000(self):
        self.check(5, "scatter", 100, 2000)

    def test_np6_ppr2_1_500(self):
        # LWMPI between and inside clusters of 2 ranks each (slots_per_cluster 2).
        self.check(6, "ppr:2:cluster", 1, 500)


class Abort(unittest.TestCase):
    def test_exit_status(self):
        rc, out, err = run_mpirun("-np", "4", "--timeout", TIMEOUT, "abort_test")
        self.assertEqual(rc, 3, f"stdout:\n{out}\nstderr:\n{err}")


class ProbeCase(unittest.TestCase):
    """Tests of a probe program of tests/ (SOURCE), built once with mpicc
    into cls.probe."""
    SOURCE = ""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tessera-probe-")
        cls.probe = os.path.join(cls.tmp, "probe.elf")
        subprocess.run([os.path.join(TOOLS, "mpicc"), "-o", cls.probe,
                        os.path.join(TESTS, cls.SOURCE)], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)


class Bindings(ProbeCase):
    """Each rank of probe.c prints where it runs and its job info; mpirun's
    --report-bindings must have said the same, and --local-path,
    --eager-threshold, --wait-policy and --ranks must reach the job info."""
    SOURCE = "probe.c"

    def check(self, np, map_by, options, mpi_flags, eager_max, wait_policy, ranks):
        """Runs probe.c; returns where the ranks ran: sorted (rank, cluster,
        core, local) tuples of numbers."""
        rc, out, err = run_mpirun("-np", str(np), "--map-by", map_by, "--report-bindings",
                                  *options, "--timeout", TIMEOUT, self.probe)
        self.assertEqual(rc, 0, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertRegex(err, rf"\Ampirun: --ranks {ranks}: ")
        self.assertNotIn("mpirun: warning", err)        # probe.c has no global variable
        # The job info has the policy, and the slots per cluster (ppr's N).
        policy, ppr = parse_map_by(map_by)
        reported = re.findall(r"^mpirun: rank (\d+) -> cluster (\d+) core (\d+) "
                              r"\(compute cluster \d+ of \d+, local rank (\d+)\)$", err, re.M)
        seen = re.findall(r"^rank (\d+) cluster (\d+) core (\d+) local (\d+) "
                          rf"mpi_flags {mpi_flags} mpi_eager_max {eager_max} "
                          rf"mpi_wait_policy {wait_policy} ranks_mode {RANKS_MODE[ranks]} "
                          rf"map_policy {MAP_POLICIES[policy]} "
                          rf"slots_per_cluster {ppr or LAYOUT.slots_per_cluster}$",
                          out, re.M)
        self.assertEqual(len(reported), np, err)
        self.assertEqual(sorted(seen), sorted(reported), f"stdout:\n{out}\nstderr:\n{err}")
        return sorted(tuple(int(n) for n in where) for where in seen)

    def test_np8_compact(self):
        # The defaults: TS_JOB_MPI_EAGER_ONE_MESSAGE, ranks as processes;
        # on QEMU TS_MPI_WAIT_BLOCK, on linux64 TS_MPI_WAIT_ADAPTIVE.
        self.check(8, "compact", [], 2, 0, 3 if LINUX64 else 2, "processes")

    def test_np7_scatter_ikc(self):
        self.check(7, "scatter", ["--local-path", "ikc", "--eager-threshold", "4096", "--wait-policy", "spin"],
                   1, 4096, 1, "processes")  # TS_MPI_WAIT_SPIN

    def test_np6_compact_threads(self):
        self.check(6, "compact", ["--ranks", "threads"], 2, 0, 3 if LINUX64 else 2, "threads")

    def test_np6_ppr2(self):
        """--map-by ppr:2:cluster: rank r on compute cluster r / 2, core
        1 + r % 2 (cores 3 and 4 of each cluster stay free), the fourth
        compute cluster unused."""
        seen = self.check(6, "ppr:2:cluster", [], 2, 0, 3 if LINUX64 else 2, "processes")
        self.assertEqual(seen, [(r, LAYOUT.nio + r // 2, 1 + r % 2, r % 2) for r in range(6)])


class Env(ProbeCase):
    """mpirun -x: every rank's getenv and environ see the variables, in the
    order given, under both --ranks modes, a block of exactly the
    manifest's size included; without -x the environment is empty; and
    mpiexec -n N runs the job as mpirun -np N does (env_probe.c)."""
    SOURCE = "env_probe.c"

    def check(self, np, ranks, variables, names, command=None, count="-np"):
        """Runs env_probe with -x NAME=VALUE of each of `variables`
        ({NAME: VALUE}) and getenv of `names`; every rank must see exactly
        `variables` in environ, and getenv agree."""
        options = [a for name, value in variables.items() for a in ("-x", f"{name}={value}")]
        p = testing.run(command or os.path.join(TOOLS, "mpirun"), count, str(np),
                            "--ranks", ranks, *options, "--timeout", TIMEOUT, self.probe, *names,
                            merge=False, timeout=300)
        self.assertEqual(p.returncode, 0, f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")

        def shown(name, value):
            if len(value) <= 64:
                return f"{name}={value}"
            return f"{name}=({len(value)} bytes, sum {sum(value.encode())})"
        want = []
        for r in range(np):
            want += [f"rank {r} env {shown(n, v)}" for n, v in variables.items()]
            want += [f"rank {r} getenv {shown(n, variables[n])}" if n in variables
                     else f"rank {r} getenv {n} unset" for n in names]
        want.append("rank 0 env checks: 0 failed")
        got = p.stdout.splitlines()
        self.assertEqual(sorted(got), sorted(want), f"stderr:\n{p.stderr}")
        for r in range(np):     # each rank's own lines in order: environ keeps -x's order
            self.assertEqual([line for line in got if line.startswith(f"rank {r} env ")],
                             [line for line in want if line.startswith(f"rank {r} env ")])

    def variables(self):
        """Values with spaces, '=' and UTF-8, an empty one, and one that
        fills the manifest's TS_MANIFEST_ENV bytes to the last."""
        v = {"A": "1", "B": "two words=x", "E": "", "U": "\u00e9t\u00e9"}
        used = sum(len(f"{n}={x}".encode()) + 1 for n, x in v.items())
        v["BIG"] = "x" * (TS_MANIFEST_ENV - used - len("BIG=") - 1)
        return v

    def test_np6_processes(self):
        self.check(6, "processes", self.variables(), ["A", "B", "E", "BIG", "NOPE"])

    def test_np6_threads(self):
        self.check(6, "threads", self.variables(), ["A", "U", "NOPE"])

    def test_mpiexec_np4_empty(self):
        """mpiexec -n 4, no -x: nothing in any rank's environment."""
        self.check(4, "processes", {}, ["A", "HOME", "PATH"], os.path.join(TOOLS, "mpiexec"), "-n")

    def test_from_mpiruns_environment(self):
        """-x NAME passes the value mpirun has."""
        p = testing.run(os.path.join(TOOLS, "mpirun"), "-np", "2", "-x", "TESSERA_ENV_FROM",
                            "--timeout", TIMEOUT, self.probe, "TESSERA_ENV_FROM", merge=False,
                            timeout=300, env={"TESSERA_ENV_FROM": "from mpirun's env"})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(p.stdout.splitlines()),
                         sorted([f"rank {r} {k} TESSERA_ENV_FROM=from mpirun's env"
                                 for r in range(2) for k in ("env", "getenv")] +
                                ["rank 0 env checks: 0 failed"]))


# What Gdb's batch session does once the held rank stops in its main: a
# backtrace, the threads, then on to the rank's printf (a breakpoint for
# its thread only), its `rank`, and the job's end.
GDB_COMMANDS = """\
bt
info threads
advance printf
up
print rank
continue
"""


class Gdb(unittest.TestCase):
    """mpirun --gdb R --gdb-batch FILE: only rank R stops in its main,
    gdb sees the program's code and the kernel's, and the job then ends
    as it would without gdb."""

    def check(self, np, policy, rank):
        with tempfile.TemporaryDirectory() as tmp:
            commands = os.path.join(tmp, "session.gdb")
            with open(commands, "w") as f:
                f.write(GDB_COMMANDS)
            rc, out, err = run_mpirun("-np", str(np), "--map-by", policy, "--timeout", "120",
                                      "--gdb", str(rank), "--gdb-batch", commands, "hello",
                                      timeout=200)
        said = f"stdout:\n{out}\nstderr:\n{err}"
        self.assertEqual(rc, 0, said)
        cluster = cluster_of(rank, policy)
        core = placement(LAYOUT, policy, rank)[1] + 1
        self.assertIn(f"mpirun: rank {rank} is held before its main (cluster {cluster} core "
                      f"{core}", err)
        self.assertIn(f"rank {rank} is held in its kernel (tessera_debug_held)", out, said)
        # One stop in main (the thread-specific breakpoint), in hello.c.
        stops = re.findall(r"(?m)^(?:Thread \S+ hit )?Temporary breakpoint \d+, main \(.*\) at "
                           r"\S*hello\.c:\d+", out)
        self.assertEqual(len(stops), 1, said)
        self.assertRegex(out, r"(?m)^#0  main \(.*\) at \S*hello\.c:\d+$", said)
        # info threads: the current thread (*) is the held core's: on QEMU
        # gdb thread hart + 1; on linux64 the core's process, its only thread.
        current = re.findall(r"(?m)^\* (\d+) +(.*)$", out)
        self.assertTrue(current, said)
        if LINUX64:
            self.assertRegex(current[0][1], r"process \d+", said)
        else:
            hart = LAYOUT.clusters[cluster].first_hart + core
            self.assertEqual(int(current[0][0]), hart + 1, said)
            self.assertIn(f"Thread 1.{hart + 1}", current[0][1], said)
        self.assertRegex(out, r"(?m)^#1  .*main \(.*\) at \S*hello\.c:\d+$", said)   # up from printf
        self.assertRegex(out, r"(?m)^\$1 = %d$" % rank, said)          # it is rank `rank`
        # The job ran to its end: every rank's line, once.
        want = [f"hello from rank {r} of {np} on cluster {cluster_of(r, policy)}"
                for r in range(np)]
        got = [line for line in out.splitlines() if line.startswith("hello from")]
        self.assertEqual(sorted(got), sorted(want), said)

    def test_np3_rank1_compact(self):
        # Three ranks on one cluster, sharing the program's text: only rank 1 stops.
        self.check(3, "compact", 1)

    def test_np5_rank0_scatter(self):
        self.check(5, "scatter", 0)

    def test_timeout_ends_gdb(self):
        """A batch session that never lets the rank go: --timeout ends the
        job (124) and gdb with it, at once."""
        with tempfile.TemporaryDirectory() as tmp:
            commands = os.path.join(tmp, "stuck.gdb")
            with open(commands, "w") as f:
                f.write("shell sleep 300\ncontinue\n")
            start = time.monotonic()
            rc, out, err = run_mpirun("-np", "2", "--timeout", "5", "--gdb", "1",
                                      "--gdb-batch", commands, "hello", timeout=120)
            took = time.monotonic() - start
        said = f"stdout:\n{out}\nstderr:\n{err}"
        self.assertEqual(rc, 124, said)
        self.assertIn("mpirun: timeout after 5 s", err)
        self.assertIn("mpirun: gdb did not end with the job; killed", err)
        self.assertLess(took, 60, said)


class Capacity(unittest.TestCase):
    def test_np17_refused(self):
        rc, out, err = run_mpirun("-np", "17", "--timeout", TIMEOUT, "hello", timeout=60)
        self.assertNotEqual(rc, 0)
        self.assertEqual(out, "")
        self.assertEqual(err, f"mpirun: {too_many_processes(17)}\n")


class Fit(unittest.TestCase):
    def test_window_too_small_refused(self):
        """16 ranks of fn with 128 KiB stacks in a 2 MiB window: mpirun
        refuses before anything boots, naming the cluster, its need, what
        takes it and how many ranks fit, and suggests mppa256-big."""
        with open(os.path.join(TOOLS, "..", "build", "profiles", "mppa256.json")) as f:
            data = json.load(f)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mppa256-deep.json")
            with open(path, "w") as f:
                json.dump(dict(data, name="mppa256-deep", user_stack_kb=128), f)
            rc, out, err = run_mpirun("--profile", path, "-np", "32", "--timeout", TIMEOUT,
                                      "fn", "1", "500", timeout=120)
        self.assertEqual((rc, out), (1, ""), err)
        m = re.fullmatch(r"mpirun: cluster 4 cannot hold its 16 ranks of fn: its 2048 KiB window "
                         r"needs (\d+) KiB, (\d+) KiB more \((.*)\); at most (\d+) ranks? fits?; "
                         r"give each compute cluster \d+ MiB or more \(mpirun --cluster-memory "
                         r"\d+M\), or use a profile with larger windows \(e\.g\. mppa256-big\)\n",
                         err)
        self.assertIsNotNone(m, err)
        need, more, parts, most = int(m[1]), int(m[2]), m[3], int(m[4])
        self.assertEqual(need - more, 2048)
        self.assertIn("16 ranks x ", parts)
        self.assertIn("stack 128", parts)
        self.assertIn("payload" if LINUX64 else "kernel image", parts)
        self.assertLess(most, 16)


if __name__ == "__main__":
    unittest.main()
