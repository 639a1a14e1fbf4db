#!/usr/bin/python3
"""On-target test: MPICH's example programs, unmodified
(tests/target/third_party/), booted through tools/mpirun on the platform's
build; their own output is the check (cpi's value of pi needs code). The
rest of the MPI 3.1 suite (tests/target/mpi_*.c) is checked by its OK line
alone: the tests mpi_* of tests/target_tests.toml.

    test_third_party.py [unittest options]
"""
import re
import sys
import time
import unittest

from tessera.testing import mpirun

JOB_TIMEOUT = 180          # mpirun --timeout: kills the machine (the programs aim at ~20 s)
DRIVER_TIMEOUT = JOB_TIMEOUT + 120


class ThirdParty(unittest.TestCase):
    """MPICH's example programs: each with both intra-cluster paths."""

    def job(self, program, np, policy, path):
        t0 = time.monotonic()
        rc, out = mpirun("-np", str(np), "--map-by", policy, "--local-path", path,
                         "--timeout", str(JOB_TIMEOUT), program, timeout=DRIVER_TIMEOUT)
        print(f"{program} np={np} {policy} {path}: exit {rc}, {time.monotonic() - t0:.1f} s",
              file=sys.stderr)
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
