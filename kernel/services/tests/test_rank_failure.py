#!/usr/bin/python3
"""On-target tests of the job monitor when a rank dies or leaves early
while the other ranks wait for it (8 ranks, scatter: rank 0 shares cluster
1 with rank 4, a thread of the same process). The job must end at once, not
at mpirun's timeout, with a non-zero status and a last line that names the
rank and its cluster."""
import time
import unittest

from tessera.testing import mpirun

TIMEOUT = 120  # mpirun's: a job that hangs ends only then
PROMPT = 60    # a job that ends by itself ends well before that
STATUS_FAULT = 139


class RankFailureTest(unittest.TestCase):
    def run_job(self, *program):
        start = time.monotonic()
        rc, out = mpirun("-np", "8", "--map-by", "scatter", "--timeout", str(TIMEOUT), *program)
        self.assertLess(time.monotonic() - start, PROMPT, out)
        return rc, out

    def test_fault(self):
        # fault_test load wait: rank 0 faults; every other rank waits in
        # MPI_Recv for a message from it.
        rc, out = self.run_job("fault_test", "load", "wait")
        self.assertRegex(out, r"(?m)^tessera: rank 0 \(cluster 1 thread \d+\): process fault_test killed: "
                              r"load page fault at ")
        self.assertRegex(out, r"(?m)^tessera: job ended: rank 0 \(cluster 1 thread \d+\) was killed by a "
                              r"fault, status 139$")
        self.assertEqual(rc, STATUS_FAULT, out)

    def test_exit_without_finalize(self):
        # lwmpi_fatal_test exit 3: rank 0 returns 3 from main without
        # MPI_Finalize; every other rank waits in MPI_Recv for it.
        rc, out = self.run_job("lwmpi_fatal_test", "exit", "3")
        self.assertIn("MPI error: rank 0 exited with status 3 without calling MPI_Finalize\n", out)
        self.assertRegex(out, r"(?m)^tessera: job ended: rank 0 \(cluster 1 thread \d+\) aborted the job "
                              r"with status 3$")
        self.assertEqual(rc, 3, out)

    def test_exit_before_init(self):
        # lwmpi_fatal_test early 5: rank 0 returns 5 before MPI_Init; the
        # other ranks (rank 4 a thread of the same process) wait for it.
        rc, out = self.run_job("lwmpi_fatal_test", "early", "5")
        self.assertIn("tessera: rank 0 on cluster 1 exited with status 5 before MPI_Init\n", out)
        self.assertRegex(out, r"(?m)^tessera: job ended: rank 0 \(cluster 1 thread \d+\) aborted the job "
                              r"with status 5$")
        self.assertEqual(rc, 5, out)


if __name__ == "__main__":
    unittest.main()
