#!/usr/bin/python3
"""On-target stress test of the name service: 16 ranks on 4 compute
clusters register names and resolve every rank's names through their daemons
and the name server, all at once (name_daemon_stress)."""
import re
import unittest

from tessera.testing import mpirun


class NameDaemonStressTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the program's output, once

    def test_all_clusters_at_once(self):
        rc, out = mpirun("-np", "16", "--map-by", "scatter", "--timeout", "300", "name_daemon_stress", "10",
                         timeout=400)
        self.assertNotIn("FAIL", out, out)
        ranks = sorted(int(r) for r in re.findall(r"^name_daemon_stress ok rank (\d+)$", out, re.M))
        self.assertEqual(ranks, list(range(16)), out)
        self.assertEqual(len(re.findall(r"^name_daemon_stress: cluster \d+:", out, re.M)), 4, out)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
