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
- a hang nobody can see (ranks that compute forever): mpirun's timeout and
  ^C stop the job with the same report, status 124 and 130.

Both mappings: compact puts the ranks on one cluster (the local path, and
one spawn server that sees both processes), scatter on different ones."""
import signal
import subprocess
import time
import unittest

from tessera.launch import STOP_GRACE
from tessera.testing import MPIRUN, mpirun

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

    def check_deadlock(self, rc, out):
        self.assertIn("tessera: deadlock: every MPI process is blocked in MPI or finalized, and no message is "
                      "in flight\n", out)
        self.assertRegex(out, r"(?m)^tessera: job ended: deadlock, status 125$")
        self.assertEqual(rc, 125, out)

    def test_giveup(self):
        # MPI_Finalize is collective: rank 0 waits in it for rank 1, which
        # waits in MPI_Recv for rank 0.
        for policy in ("compact", "scatter"):
            with self.subTest(policy=policy):
                rc, out = self.run_job(2, policy, "lwmpi_fatal_test", "giveup", "1")
                self.assertIn("rank 0: giving up\n", out)
                self.check_deadlock(rc, out)
                self.assertRegex(out, r"(?m)^tessera: rank 0 \(cluster 1 thread \d+\): blocked in MPI_Finalize for "
                                      r"\d+ ms, waiting for rank 1, tag \d+, MPI_COMM_WORLD \(collective\)$")
                self.assertRegex(out, r"(?m)^tessera: rank 1 \(cluster \d thread \d+\): blocked in MPI_Recv for "
                                      r"\d+ ms, waiting for rank 0, tag 0, MPI_COMM_WORLD$")

    def test_deadlock(self):
        # Rank r waits for rank r + 1; rank 1 has an unreceived message
        # (tag 5) from rank 0.
        for np, policy in ((2, "compact"), (5, "scatter")):
            with self.subTest(np=np, policy=policy):
                rc, out = self.run_job(np, policy, "lwmpi_fatal_test", "deadlock")
                self.check_deadlock(rc, out)
                for r in range(np):
                    self.assertRegex(out, rf"(?m)^tessera: rank {r} \(cluster \d thread \d+\): blocked in MPI_Recv "
                                          rf"for \d+ ms, waiting for rank {(r + 1) % np}, tag 7, MPI_COMM_WORLD$")
                self.assertRegex(out, r"(?m)^tessera: rank 1 \(cluster \d thread \d+\): 1 message sent to it and "
                                      r"not yet received, the oldest from rank 0, tag 5, MPI_COMM_WORLD$")


STOPPED = "tessera: the job is stopped: what each MPI process was doing\n"
SPIN = ("-np", "3", "--map-by", "scatter", "lwmpi_fatal_test", "spin")


class StopTest(unittest.TestCase):
    """mpirun's timeout and ^C on a job that computes forever: the report
    of what each rank was doing, then mpirun's status."""

    def check_report(self, out):
        self.assertIn(STOPPED, out)
        # Rank 0 never entered MPI again; rank 1 left its MPI_Recv seconds
        # ago; rank 2 still waits.
        self.assertRegex(out, r"(?m)^tessera: rank 0: running, or blocked for less than a second$")
        self.assertRegex(out, r"(?m)^tessera: rank 1 \(cluster 2 thread \d+\): running, not blocked in MPI for "
                              r"\d+ ms \(it was blocked in MPI_Recv before\)$")
        self.assertRegex(out, r"(?m)^tessera: rank 2 \(cluster 3 thread \d+\): blocked in MPI_Recv for \d+ ms, "
                              r"waiting for rank 0, tag 3, MPI_COMM_WORLD$")
        self.assertLess(out.index("rank 1: computing"), out.index(STOPPED), out)

    def test_timeout(self):
        timeout = 12
        start = time.monotonic()
        rc, out = mpirun(*("--timeout", str(timeout)) + SPIN)
        self.assertLess(time.monotonic() - start, PROMPT + timeout, out)
        self.check_report(out)
        self.assertRegex(out, r"(?m)^tessera: job ended: mpirun's timeout, status 124$")
        self.assertRegex(out, rf"(?m)^mpirun: timeout after {timeout} s$")
        self.assertEqual(rc, 124, out)

    def test_interrupt(self):
        proc = subprocess.Popen([MPIRUN, "--timeout", str(TIMEOUT), *SPIN], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        try:
            seen = []
            for line in proc.stdout:            # until rank 1 left its MPI_Recv
                seen.append(line)
                if line.startswith("rank 1: computing"):
                    break
            time.sleep(2)                       # long enough for rank 1 to be seen not blocked
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            rest, _ = proc.communicate(timeout=PROMPT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        out = "".join(seen) + rest
        self.assertLess(time.monotonic() - sent, STOP_GRACE + 5, out)
        self.check_report(out)
        self.assertRegex(out, r"(?m)^tessera: job ended: mpirun was interrupted, status 130$")
        self.assertIn("mpirun: interrupted\n", out)
        self.assertEqual(proc.returncode, 130, out)


if __name__ == "__main__":
    unittest.main()
