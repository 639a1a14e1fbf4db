#!/usr/bin/python3
"""The MPI 3.1 suite on the target: tests/target/mpi_*.c and the unmodified
third-party examples of tests/target/third_party/, booted through
tools/mpirun on the cross build ($TESSERA_TARGET_OUT, default out/target).

Each program runs with both mappings (--map-by compact, scatter) and both
intra-cluster paths (--local-path shm, ikc), mostly with 8 processes (two
clusters when compact, four when scattered), and with 4 (one cluster when
compact) or 16 (every cluster) for some; p2p and stress also with other
eager thresholds (--eager-threshold). A run passes when the job exits
with 0, prints the program's "NAME: OK" line and no "FAIL" line.

The programs are portable MPI programs, checked against Open MPI on Linux
(see tests/target/README.md): a failure here is LWMPI's, not the test's.

    test_mpi_suite.py SUITE [unittest options]   one suite (one CTest test each)
    test_mpi_suite.py [unittest options]         all of them

SUITE: env, p2p, coll, comm, dtype, dtype2, req, err, intercomm, nbc, stress,
topo, info, attr, rma, rma_halo, rma_counter, third_party.
"""
import re
import sys
import time
import unittest

from tessera.testing import mpirun

MAPS = ("compact", "scatter")
PATHS = ("shm", "ikc")
JOB_TIMEOUT = 180          # mpirun --timeout: kills the machine (the programs aim at ~20 s)
DRIVER_TIMEOUT = JOB_TIMEOUT + 120


def run_job(program, np, policy, path, args=(), eager=None):
    """(exit status, output, seconds) of one job; `eager`: the eager
    threshold in bytes (LWMPI's default when None)."""
    t0 = time.monotonic()
    options = ("--eager-threshold", str(eager)) if eager is not None else ()
    rc, out = mpirun("-np", str(np), "--map-by", policy, "--local-path", path, *options,
                     "--timeout", str(JOB_TIMEOUT), program, *args, timeout=DRIVER_TIMEOUT)
    seconds = time.monotonic() - t0
    print(f"{program} {' '.join(args)} np={np} {policy} {path} {' '.join(options)}: "
          f"exit {rc}, {seconds:.1f} s", file=sys.stderr)
    return rc, out, seconds


class Program(unittest.TestCase):
    """A program of the suite. Subclasses set PROGRAM and ARGS; add_runs()
    gives them one test method per (np, mapping, path)."""
    PROGRAM = None
    ARGS = ()

    def check_output(self, np, out):
        """The program's own verdict: its OK line, no FAIL line."""
        self.assertNotIn("FAIL ", out)
        self.assertRegex(out, rf"(?m)^{re.escape(self.PROGRAM)}: OK \(np={np}[,)]")

    def run_config(self, np, policy, path, args=None, eager=None):
        rc, out, _ = run_job(self.PROGRAM, np, policy, path, self.ARGS if args is None else args, eager)
        self.assertEqual(rc, 0, out)
        self.check_output(np, out)


def add_runs(cls, runs):
    """runs: (np, mapping, path[, args[, eager threshold]]) tuples (args None:
    the program's defaults); one test method each."""
    for run in runs:
        np, policy, path = run[:3]
        args = tuple(run[3]) if len(run) > 3 and run[3] is not None else None
        eager = run[4] if len(run) > 4 else None
        name = f"test_np{np}_{policy}_{path}"
        if args is not None:
            name += "_" + "_".join(re.sub(r"\W", "", a) for a in args)
        if eager is not None:
            name += f"_eager{eager}"

        def method(self, np=np, policy=policy, path=path, args=args, eager=eager):
            self.run_config(np, policy, path, args, eager)
        method.__name__ = name
        method.__doc__ = f"{cls.PROGRAM} {' '.join(args or cls.ARGS)}: -np {np} " \
                         f"--map-by {policy} --local-path {path}" + \
                         (f" --eager-threshold {eager}" if eager is not None else "")
        setattr(cls, name, method)
    return cls


def standard_runs(*extra):
    """np 8 with every mapping and path, then `extra`."""
    return [(8, m, p) for m in MAPS for p in PATHS] + list(extra)


class Env(Program):
    """Init_thread, Query_thread, Wtime/Wtick, versions, error strings,
    attributes of MPI_COMM_WORLD."""
    PROGRAM = "mpi_env_test"


class P2p(Program):
    """Every send mode, completion calls, probe, persistent requests,
    protocols (0 B .. 256 KB), ordering."""
    PROGRAM = "mpi_p2p_test"


class Coll(Program):
    """Every collective, root, predefined and user operation, on the world
    and on a split communicator."""
    PROGRAM = "mpi_coll_test"


class Comm(Program):
    """Groups, communicators, context isolation, Cartesian topologies."""
    PROGRAM = "mpi_comm_test"


class Dtype(Program):
    """Derived datatypes, in messages and collectives; packing."""
    PROGRAM = "mpi_dtype_test"


class Dtype2(Program):
    """Subarray, darray, hindexed_block, envelope/contents, names,
    external32, Status_set_elements."""
    PROGRAM = "mpi_dtype2_test"


class Req(Program):
    """Cancel, Request_get_status, generalized requests."""
    PROGRAM = "mpi_req_test"


class Err(Program):
    """Error classes of bad arguments; error handlers."""
    PROGRAM = "mpi_err_test"


class Intercomm(Program):
    """Intercommunicators: create, queries, point-to-point, every blocking
    collective, merge, dup/create/split of them; Comm_create_group."""
    PROGRAM = "mpi_intercomm_test"


class Nbc(Program):
    """Every non-blocking collective and Alltoallw; several outstanding on
    one and two communicators, with blocking collectives and messages."""
    PROGRAM = "mpi_nbc_test"


class Topo(Program):
    """Graph and distributed graph topologies, Cart_sub, Cart_map, the
    neighbourhood collectives on every kind of topology."""
    PROGRAM = "mpi_topo_test"


class Info(Program):
    """Info objects, MPI_INFO_ENV, communicators made with info."""
    PROGRAM = "mpi_info_test"


class Attr(Program):
    """Attribute caching on communicators and datatypes, predefined
    attributes, added error codes, the MPI-1 names."""
    PROGRAM = "mpi_attr_test"

    def check_output(self, np, out):
        super().check_output(np, out)
        self.assertIn("MPI-1 names yes", out)   # LWMPI offers them


class Rma(Program):
    """One-sided communication: windows of every flavor, put, get,
    accumulates, fences, PSCW, locks, flushes, request-based operations,
    error classes of section 11.8."""
    PROGRAM = "mpi_rma"


class RmaHalo(Program):
    """A 1-D halo exchange with MPI_Put and fences, exact results."""
    PROGRAM = "mpi_rma_halo"


class RmaCounter(Program):
    """A counter under MPI_Fetch_and_op from every rank: the values fetched
    are a permutation, the final count exact."""
    PROGRAM = "mpi_rma_counter"


class Stress(Program):
    """Thousands of messages of mixed sizes between all pairs."""
    PROGRAM = "mpi_stress"


add_runs(Env, standard_runs((1, "compact", "shm"), (16, "scatter", "ikc")))
add_runs(P2p, standard_runs((4, "compact", "shm"), (4, "compact", "ikc"),
                            (3, "scatter", "shm"), (16, "scatter", "shm", ("65536", "20")),
                            (8, "scatter", "ikc", None, 64), (8, "compact", "shm", None, 4096)))
add_runs(Coll, standard_runs((4, "compact", "shm"), (5, "scatter", "ikc", ("100",)),
                             (16, "compact", "shm", ("100",))))
add_runs(Comm, standard_runs((4, "compact", "ikc"), (6, "scatter", "shm"),
                             (16, "scatter", "ikc")))
add_runs(Dtype, standard_runs((4, "compact", "shm")))
add_runs(Dtype2, standard_runs((1, "compact", "shm"), (6, "scatter", "ikc")))
add_runs(Req, standard_runs((3, "compact", "shm"), (4, "scatter", "ikc", None, 64)))
add_runs(Err, standard_runs((4, "compact", "shm"), (3, "scatter", "ikc")))
add_runs(Intercomm, standard_runs((2, "compact", "shm"), (3, "scatter", "ikc"), (1, "compact", "shm"),
                                  (16, "scatter", "shm")))
add_runs(Nbc, standard_runs((1, "compact", "shm"), (3, "scatter", "shm"), (3, "compact", "ikc"),
                            (16, "compact", "shm", ("20",)), (16, "scatter", "ikc", ("20",))))
add_runs(Topo, standard_runs((1, "compact", "shm"), (2, "scatter", "ikc"), (4, "compact", "shm"),
                             (16, "scatter", "ikc"), (16, "compact", "shm")))
add_runs(Info, standard_runs((1, "compact", "shm"), (5, "scatter", "ikc")))
add_runs(Attr, standard_runs((1, "compact", "shm"), (3, "scatter", "ikc"), (16, "compact", "shm")))
# Ranks span clusters in most runs: 2 scattered, 5 and 16 both ways.
RMA_RUNS = standard_runs((1, "compact", "shm"), (2, "scatter", "ikc"), (2, "compact", "shm"),
                         (5, "compact", "ikc"), (5, "scatter", "shm"), (16, "compact", "shm"),
                         (16, "scatter", "ikc"))
add_runs(Rma, RMA_RUNS)
add_runs(RmaHalo, RMA_RUNS)
# (16 ranks contending for one counter take ~10 ms an increment on QEMU,
# whose harts share one host thread: fewer increments there.)
add_runs(RmaCounter, [r if r[0] < 16 else r + (("25",),) for r in RMA_RUNS])
add_runs(Stress, standard_runs((4, "compact", "shm", ("4000",)),
                               (16, "scatter", "shm", ("3000", "8192", "65536", "4")),
                               (8, "scatter", "ikc", None, 100), (8, "compact", "ikc", None, 16384)))


class ThirdParty(unittest.TestCase):
    """MPICH's example programs, unmodified (tests/target/third_party/):
    their own output is the check."""

    def job(self, program, np, policy, path):
        rc, out, _ = run_job(program, np, policy, path)
        self.assertEqual(rc, 0, out)
        return out

    def check_cpi(self, np, policy, path):
        out = self.job("mpich_cpi", np, policy, path)
        for r in range(np):
            self.assertRegex(out, rf"(?m)^Process {r} of {np} is on \S+")
        m = re.search(r"(?m)^pi is approximately (\d+\.\d+), Error is (\d+\.\d+)$", out)
        self.assertIsNotNone(m, out)
        self.assertAlmostEqual(float(m.group(1)), 3.141592653589793, places=8)
        self.assertLess(float(m.group(2)), 1e-8)   # 10000 intervals: 8.3e-10

    def test_cpi(self):
        for policy, path in (("compact", "shm"), ("scatter", "ikc")):
            with self.subTest(policy=policy, path=path):
                self.check_cpi(8, policy, path)

    def test_hellow(self):
        for np, policy, path in ((8, "scatter", "shm"), (16, "compact", "ikc")):
            with self.subTest(np=np, policy=policy, path=path):
                out = self.job("mpich_hellow", np, policy, path)
                lines = sorted(re.findall(r"(?m)^Hello world from process (\d+) of (\d+)$", out))
                self.assertEqual(lines, sorted((str(r), str(np)) for r in range(np)), out)

    def test_srtest(self):
        for policy, path in (("compact", "ikc"), ("scatter", "shm")):
            with self.subTest(policy=policy, path=path):
                out = self.job("mpich_srtest", 8, policy, path)
                for r in range(8):
                    self.assertRegex(out, rf"(?m)^{r} received 'hello there' ?$")
                for r in range(1, 8):
                    self.assertRegex(out, rf"(?m)^{r} sent 'hello there' ?$")


SUITES = {"env": "Env", "p2p": "P2p", "coll": "Coll", "comm": "Comm", "dtype": "Dtype",
          "dtype2": "Dtype2", "req": "Req", "err": "Err", "intercomm": "Intercomm", "nbc": "Nbc",
          "stress": "Stress", "topo": "Topo", "info": "Info", "attr": "Attr", "rma": "Rma",
          "rma_halo": "RmaHalo", "rma_counter": "RmaCounter", "third_party": "ThirdParty"}

if __name__ == "__main__":
    argv = sys.argv[1:]
    if argv and argv[0] in SUITES:
        argv[0] = SUITES[argv[0]]
    unittest.main(argv=[sys.argv[0]] + argv, verbosity=2)
