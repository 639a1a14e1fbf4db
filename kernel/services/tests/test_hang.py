#!/usr/bin/python3
"""On-target tests of jobs that would hang (issue 21, "Hangs explained"):
they must end within seconds, not at mpirun's timeout, with a report.

- late failure: every rank calls MPI_Finalize, then rank 0 exits with 3
  while the others still run (sleep): the job ends at once with status 3,
  naming rank 0, as for a failure before MPI_Finalize.
- give-up: rank 0 calls MPI_Finalize, then exit(1), while rank 1 waits in
  MPI_Recv for it: the job ends at once with status 1, naming rank 0.
- deadlock: every rank waits in MPI_Recv for the next one, with nothing in
  flight: the job monitor sees it and ends the job with status 125 and a
  report of what each rank is blocked in.

Both mappings: compact puts the ranks on one cluster (the local path, and
one spawn server that sees both processes), scatter on different ones."""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "tools"))
from tessera_run import mpirun  # noqa: E402

TIMEOUT = 120  # mpirun's: a job that hangs ends only then
PROMPT = 60    # a job that ends by itself ends well before that (generous: QEMU on a busy host)


class HangTest(unittest.TestCase):
    def run_job(self, np, policy, *program):
        start = time.monotonic()
        rc, out = mpirun("-np", str(np), "--map-by", policy, "--timeout", str(TIMEOUT), *program)
        self.assertLess(time.monotonic() - start, PROMPT, out)
        self.assertNotIn("timeout", out)
        return rc, out

    def test_late_failure(self):
        for policy in ("compact", "scatter"):
            with self.subTest(policy=policy):
                rc, out = self.run_job(2, policy, "lwmpi_fatal_test", "late", "3")
                self.assertIn("rank 0: failing after MPI_Finalize\n", out)
                self.assertRegex(out, r"(?m)^tessera: job ended: rank 0 \(cluster 1 thread \d+\) exited "
                                      r"with status 3$")
                self.assertEqual(rc, 3, out)


if __name__ == "__main__":
    unittest.main()
