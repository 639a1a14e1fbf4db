#!/usr/bin/python3
"""The CAP Bench applications on Tessera (ctest label `apps`): each one, in
its MPI form and (fn, gf, km) its raw-IKC form, at a small size with
--verify, in both mappings, with 8 processes (two clusters when compact,
four when scattered) and with 5 (clusters with different numbers of
ranks); the MPI forms also with the local path off. Every run must verify
and print the same result line (for a2a, the same for the same np), the
raw-IKC form the MPI form's; a bad argument must give a usage line and
exit status 2.

    test_apps.py APP                        one application (fn, gf, km, a2a)
    test_apps.py crosscheck                 the Linux crosscheck, small sizes
    test_apps.py mppa256                    every application at MPPA-256's
                                            full size (linux64 only)
"""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools"))
from capbench import BASELINES, linux_mpirun, run_tessera  # noqa: E402
from crosscheck import SIZES  # noqa: E402

BAD_ARGS = {"fn": ("5", "1"), "gf": ("2", "64", "4"), "km": ("10", "3", "20"), "a2a": ("0",)}
RUNS = [(8, "compact", None), (8, "scatter", None), (5, "compact", None), (5, "scatter", None),
        (8, "compact", "ikc")]


class App(unittest.TestCase):
    APP = None

    def check_runs(self, program, runs):
        args = ["--verify", *SIZES[self.APP][0]]
        results = {}
        for np, mapping, path in runs:
            with self.subTest(program=program, np=np, mapping=mapping, local_path=path):
                run = run_tessera(program, np, mapping, args, local_path=path, timeout=300)
                print(f"{program} np={np} {mapping} {path or ''}: {run.describe()}", file=sys.stderr)
                self.assertTrue(run.ok, run.out)
                self.assertEqual(run.verify, "OK", run.out)
                results[(np, mapping, path)] = run.result
        # One result per problem: a2a's data, unlike the others', depends on np.
        for np in {k[0] for k in results}:
            self.assertEqual(len({r for k, r in results.items() if k[0] == np}), 1, results)
        return results[runs[0]]

    def test_mpi(self):
        self.check_runs(self.APP, RUNS)

    def test_raw_ikc(self):
        if self.APP not in BASELINES:
            self.skipTest("no raw-IKC form")
        ikc = self.check_runs(self.APP + "_ikc", [r for r in RUNS if r[2] is None])
        mpi = run_tessera(self.APP, 8, "scatter", ["--verify", *SIZES[self.APP][0]], timeout=300)
        self.assertEqual(ikc, mpi.result, mpi.out)

    def test_bad_arguments(self):
        for program in (self.APP, self.APP + "_ikc") if self.APP in BASELINES else (self.APP,):
            run = run_tessera(program, 2, "scatter", BAD_ARGS[self.APP], timeout=120)
            self.assertEqual(run.rc, 2, run.out)
            self.assertIn("usage", run.out)


class FullMppa256(unittest.TestCase):
    """The LWMPI study's configuration: the mppa256 profile at full size
    (4 I/O clusters, 16 compute clusters of 16 PEs), 192 ranks, 12 on each
    compute cluster. a2a's messages stay small: its buffers grow with np,
    and 12 ranks share a compute cluster's 16 MiB."""
    SIZES = {"fn": ("1", "20000"), "gf": SIZES["gf"][0], "km": SIZES["km"][0], "a2a": ("2", "1")}

    def test_every_app_verifies(self):
        for app, args in self.SIZES.items():
            with self.subTest(app=app):
                run = run_tessera(app, 192, "scatter", ["--verify", *args], timeout=600, profile="mppa256")
                print(f"{app} np=192 mppa256: {run.describe()}", file=sys.stderr)
                self.assertTrue(run.ok, run.out)
                self.assertEqual(run.verify, "OK", run.out)


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
    if which in ("crosscheck", "mppa256"):
        cls = Crosscheck if which == "crosscheck" else FullMppa256
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    else:
        cls = type(f"App_{which}", (App,), {"APP": which})
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
