#!/usr/bin/python3
"""The CAP Bench applications on Tessera (ctest label `apps`): each one, in
its MPI form and (fn, gf, km) its raw-IKC form, at a small size with
--verify, in both mappings, with 8 processes (two clusters when compact,
four when scattered) and with 5 (clusters with different numbers of
ranks); the MPI forms also with the local path off, the raw-IKC forms with
the ranks of a cluster as threads that share its memory (--ranks threads)
and as processes that move everything over IKC (--ranks processes); the
hybrid forms (fn_omp, km_omp) with a rank per cluster and OpenMP inside. Every
run must verify and print the same result line (for a2a, the same for the
same np), the raw-IKC form the MPI form's; a bad argument must give a usage
line and exit status 2.

    test_apps.py APP                        one application (fn, gf, km, a2a)
    test_apps.py crosscheck                 the Linux crosscheck, small sizes
    test_apps.py mppa256                    every application (and raw-IKC
                                            form) at MPPA-256's full size, with
                                            each cluster's memory (mppa256-big:
                                            16 MB windows; linux64 only)
    test_apps.py mppa256-2mb                fn with 192 ranks, 12 per compute
                                            cluster, in the chip's 2 MB windows
                                            (profile mppa256), within mpirun's
                                            estimate of each window's need
"""
import re
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
from elftools.elf.elffile import ELFFile

from tessera.capbench import BASELINES, HYBRIDS, linux_mpirun, run_tessera
from tessera.testing import target_out
from crosscheck import SIZES

BAD_ARGS = {"fn": ("5", "1"), "gf": ("2", "64", "4"), "km": ("10", "3", "20"), "a2a": ("0",)}
RUNS = [(8, "compact", None), (8, "scatter", None), (5, "compact", None), (5, "scatter", None),
        (8, "compact", "ikc")]


class App(unittest.TestCase):
    APP = None

    def check_runs(self, program, runs, ranks=None):
        args = ["--verify", *SIZES[self.APP][0]]
        results = {}
        for np, mapping, path in runs:
            with self.subTest(program=program, np=np, mapping=mapping, local_path=path, ranks=ranks):
                run = run_tessera(program, np, mapping, args, local_path=path, timeout=300, ranks=ranks)
                print(f"{program} np={np} {mapping} {path or ''} {ranks or ''}: {run.describe()}",
                      file=sys.stderr)
                self.assertTrue(run.ok, run.out)
                self.assertEqual(run.verify, "OK", run.out)
                results[(np, mapping, path)] = run.result
        # One result per problem: a2a's data, unlike the others', depends on np.
        for np in {k[0] for k in results}:
            self.assertEqual(len({r for k, r in results.items() if k[0] == np}), 1, results)
        return results[runs[0]]

    def test_mpi(self):
        self.check_runs(self.APP, RUNS)

    def check_raw_ikc(self, ranks):
        if self.APP not in BASELINES:
            self.skipTest("no raw-IKC form")
        ikc = self.check_runs(self.APP + "_ikc", [r for r in RUNS if r[2] is None], ranks=ranks)
        mpi = run_tessera(self.APP, 8, "scatter", ["--verify", *SIZES[self.APP][0]], timeout=300)
        self.assertEqual(ikc, mpi.result, mpi.out)

    def test_raw_ikc(self):
        """The rank threads of a cluster share its arrays."""
        self.check_raw_ikc("threads")

    def test_raw_ikc_processes(self):
        """A process per rank, everything over IKC, one alone on its
        cluster too (np 1: no local rank to talk to)."""
        self.check_raw_ikc("processes")
        run = run_tessera(self.APP + "_ikc", 1, "compact", ["--verify", *SIZES[self.APP][0]], timeout=300,
                          ranks="processes")
        self.assertTrue(run.ok, run.out)

    def test_hybrid(self):
        """The hybrid form (APP_omp, MPPA-MPI's model): a rank per compute
        cluster whose kernel runs on an OpenMP team, on 2 and 4 clusters:
        it verifies, gives the MPI form's result, and really is built with
        OpenMP (its image calls libgomp's parallel regions)."""
        if self.APP not in HYBRIDS:
            self.skipTest("no hybrid form")
        program = self.APP + "_omp"
        with open(os.path.join(target_out(), "bin", program + ".elf"), "rb") as f:
            symbols = ELFFile(f).get_section_by_name(".symtab")
            regions = [s.name for s in symbols.iter_symbols() if s.name.startswith("GOMP_parallel")]
        self.assertTrue(regions, f"{program}.elf calls no GOMP_parallel*: not built with -fopenmp")
        hybrid = self.check_runs(program, [(2, "ppr:1:cluster", None), (4, "ppr:1:cluster", None)])
        mpi = run_tessera(self.APP, 8, "compact", ["--verify", *SIZES[self.APP][0]], timeout=300)
        self.assertEqual(hybrid, mpi.result, mpi.out)

    def test_bad_arguments(self):
        runs = [(self.APP, None)]
        if self.APP in BASELINES:
            runs += [(self.APP + "_ikc", "threads"), (self.APP + "_ikc", "processes")]
        for program, ranks in runs:
            run = run_tessera(program, 2, "scatter", BAD_ARGS[self.APP], timeout=120, ranks=ranks)
            self.assertEqual(run.rc, 2, run.out)
            self.assertIn("usage", run.out)


class FullMppa256(unittest.TestCase):
    """The LWMPI study's configuration: MPPA-256 at full size (4 I/O
    clusters, 16 compute clusters of 16 PEs), 192 ranks, 12 on each
    compute cluster, with 16 MB windows (mppa256-big: the applications'
    arrays at these sizes need more than the chip's 2 MB). a2a's messages
    stay small: its buffers grow with np, and 12 ranks share a compute
    cluster's 16 MiB."""
    SIZES = {"fn": ("1", "20000"), "gf": SIZES["gf"][0], "km": SIZES["km"][0], "a2a": ("2", "1")}

    def test_every_app_verifies(self):
        """Each MPI application (ranks as mpirun's default has them) and
        each raw-IKC form (as processes), with the most memory a compute
        cluster used (mpirun --verbose)."""
        with open(os.path.join(HERE, "..", "..", "..", "build", "profiles", "mppa256-big.json")) as f:
            limit = json.load(f)["compute_memory_mb"] * 1024
        for app, args in self.SIZES.items():
            runs = [(app, None)]
            if app in BASELINES:
                runs.append((app + "_ikc", "processes"))
            for program, ranks in runs:
                with self.subTest(program=program):
                    run = run_tessera(program, 192, "scatter", ["--verify", *args], timeout=600,
                                      profile="mppa256-big", ranks=ranks, memory=True)
                    most = max((kib for kib, _ in run.memory.values()), default=None)
                    print(f"{program} np=192 mppa256 {ranks or ''}: {run.describe()}, at most {most} KiB "
                          f"of {limit} on a compute cluster", file=sys.stderr)
                    self.assertTrue(run.ok, run.out)
                    self.assertEqual(run.verify, "OK", run.out)
                    self.assertLessEqual(most or 0, limit, run.memory)


_ESTIMATE = re.compile(r"^mpirun: cluster (\d+): (\d+) ranks of \S+ need an estimated (\d+) of its (\d+) KiB window",
                       re.M)
_FREE = re.compile(r"^\[kernel\] cluster (\d+) up: \d+ cores, (\d+) KiB free", re.M)


class Mppa256Window(unittest.TestCase):
    """fn in the chip's 2 MB compute windows (profile mppa256): 192 ranks,
    12 on each of the 16 compute clusters, verified. Each cluster's window
    as the kernel used it (what the image and the kernel's boot frames
    took, from its boot line, plus the program's peak) stays within
    mpirun's estimate (tools/tessera/fit.py), which must fit the window."""

    def test_fn_12_ranks_per_cluster(self):
        run = run_tessera("fn", 192, "ppr:12:cluster", ["--verify", "1", "2000"], timeout=300,
                          profile="mppa256", memory=True)
        print(f"fn np=192 ppr:12:cluster mppa256: {run.describe()}", file=sys.stderr)
        self.assertTrue(run.ok, run.out)
        self.assertEqual(run.verify, "OK", run.out)
        estimates = {int(m[1]): (int(m[2]), int(m[3]), int(m[4])) for m in _ESTIMATE.finditer(run.out)}
        free = {int(m[1]): int(m[2]) for m in _FREE.finditer(run.out)}
        self.assertEqual(sorted(estimates), list(range(4, 20)), run.out)
        for cluster, (ranks, estimate, window) in estimates.items():
            used = window - free[cluster] + run.memory[cluster][0]
            print(f"cluster {cluster}: {ranks} ranks, estimate {estimate} KiB, used {used} KiB "
                  f"of {window}", file=sys.stderr)
            self.assertEqual((ranks, window), (12, 2048))
            self.assertLessEqual(used, estimate, run.out)
            self.assertLessEqual(estimate, window)


class Crosscheck(unittest.TestCase):
    def test_same_results_on_linux(self):
        if not linux_mpirun():
            self.skipTest("no system MPI (tools/setup.sh installs Open MPI)")
        p = subprocess.run([sys.executable, os.path.join(HERE, "crosscheck.py"), "--small"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
        print(p.stdout, file=sys.stderr)
        self.assertEqual(p.returncode, 0, p.stdout)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    which = sys.argv.pop(1)
    special = {"crosscheck": Crosscheck, "mppa256": FullMppa256, "mppa256-2mb": Mppa256Window}
    if which in special:
        cls = special[which]
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    else:
        cls = type(f"App_{which}", (App,), {"APP": which})
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
