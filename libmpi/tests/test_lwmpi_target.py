#!/usr/bin/python3
"""On-target tests of LWMPI: tests/target/*.c booted through tools/mpirun
on the cross build ($TESSERA_TARGET_OUT, default out/target)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "tools"))
from tessera_run import mpirun  # noqa: E402

MPI_ERR_RANK = 6


class Pt2ptTest(unittest.TestCase):
    def check(self, np, policy):
        rc, out = mpirun("-np", str(np), "--map-by", policy, "--timeout", "240", "lwmpi_test")
        self.assertEqual(rc, 0, out)
        self.assertIn(f"lwmpi_test: all passed (np={np})", out)

    def test_one_rank(self):
        self.check(1, "compact")

    def test_two_clusters(self):
        self.check(2, "scatter")

    def test_one_cluster(self):
        self.check(4, "compact")

    def test_odd_count_compact(self):
        self.check(7, "compact")

    def test_sixteen_ranks_scatter(self):
        self.check(16, "scatter")


class FatalTest(unittest.TestCase):
    def test_default_handler_ends_the_job_with_the_error_class(self):
        rc, out = mpirun("-np", "3", "--timeout", "120", "lwmpi_fatal_test")
        self.assertEqual(rc, MPI_ERR_RANK, out)
        self.assertIn("MPI error: MPI_Send: invalid rank", out)


if __name__ == "__main__":
    unittest.main()
