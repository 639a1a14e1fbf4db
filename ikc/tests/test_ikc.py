#!/usr/bin/python3
"""On-target IKC tests (label ikc): the kernel calls' behaviour and errors
(ikc_api), windows (ikc_window), and mailboxes, portals and the buffers table under load between
every pair of compute clusters (ikc_stress)."""
import re
import unittest

from tessera.testing import mpirun


def oks(name, out):
    """Clusters that printed '<name> ok cluster C'."""
    return re.findall(rf"^{name} ok cluster (\d+)", out, re.M)


class IkcApiTest(unittest.TestCase):
    def test_api_and_errors_on_two_clusters(self):
        rc, out = mpirun("-np", "2", "--map-by", "scatter", "--timeout", "120", "ikc_api")
        self.assertNotIn("FAIL", out, out)
        self.assertEqual(sorted(oks("ikc_api", out)), ["1", "2"], out)
        self.assertEqual(rc, 0, out)


class IkcWindowTest(unittest.TestCase):
    """Windows: api and faults on every cluster, writes, reads and a
    counter of atomics between four clusters."""

    def test_windows_of_four_clusters(self):
        rc, out = mpirun("-np", "4", "--map-by", "scatter", "--timeout", "300", "ikc_window")
        self.assertNotIn("FAIL", out, out)
        self.assertEqual(sorted(oks("ikc_window", out)), ["1", "2", "3", "4"], out)
        self.assertEqual(rc, 0, out)


class IkcStressTest(unittest.TestCase):
    def test_all_pairs_of_four_clusters(self):
        rc, out = mpirun("-np", "4", "--map-by", "scatter", "--timeout", "400", "ikc_stress", "1000")
        self.assertNotIn("FAIL", out, out)
        self.assertEqual(sorted(oks("ikc_stress", out)), ["1", "2", "3", "4"], out)
        self.assertEqual(rc, 0, out)


class IkcBenchSmokeTest(unittest.TestCase):
    """bench/ikc/ikc_bench --quick: the benchmark still runs and its data
    checks pass (it fails on a wrong byte)."""

    def test_quick_run(self):
        rc, out = mpirun("-np", "2", "--map-by", "scatter", "--timeout", "300", "ikc_bench", "--quick")
        self.assertNotIn("FAIL", out, out)
        self.assertIn("ikc_bench: done", out, out)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
