#!/usr/bin/python3
"""On-target test of <pthread.h> (pthread_test.c) in MPI ranks, on both
platforms: a rank gets exactly the free cores of its cluster as threads
(EAGAIN beyond, and at once on a full cluster), and threads, joins,
detach, mutexes, condition variables, once and keys work, and a thread
of a rank may call MPI. Ranks as processes (the default): the program's
globals are its rank's."""
import re
import unittest

from tessera.testing import mpirun

# The default profile: compute clusters of 4 cores for ranks and threads.
CORES = 4


class PthreadTest(unittest.TestCase):
    def run_test(self, np, mapping, ranks_per_cluster):
        rc, out = mpirun("-np", str(np), "--map-by", mapping, "--timeout", "120", "pthread_test")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("FAIL", out)
        free = CORES - ranks_per_cluster
        for r in range(np):
            self.assertIn(f"rank {r}: {free} threads\n", out)
            self.assertIn(f"pthread_test: rank {r} OK ({free} threads)\n", out)

    def test_one_rank_per_cluster(self):
        self.run_test(4, "scatter", 1)

    def test_two_ranks_share_the_free_cores(self):
        self.run_test(2, "compact", 2)

    def test_full_clusters_give_eagain(self):
        self.run_test(8, "compact", 4)


if __name__ == "__main__":
    unittest.main(verbosity=2)
