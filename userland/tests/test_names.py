#!/usr/bin/python3
"""On-target test: the name client and server (names_test), with 4 clients
as threads of one cluster (compact) and on 4 clusters (scatter)."""
import re
import unittest

from tessera.testing import mpirun


class NamesTest(unittest.TestCase):
    def check(self, policy):
        rc, out = mpirun("-np", "4", "--map-by", policy, "--timeout", "120", "names_test")
        self.assertNotIn("names FAIL", out, out)
        ranks = sorted(int(r) for r in re.findall(r"^names ok rank (\d+)$", out, re.M))
        self.assertEqual(ranks, [0, 1, 2, 3], out)
        self.assertEqual(rc, 0, out)

    def test_threads_of_one_cluster(self):
        self.check("compact")

    def test_several_clusters(self):
        self.check("scatter")


if __name__ == "__main__":
    unittest.main()
