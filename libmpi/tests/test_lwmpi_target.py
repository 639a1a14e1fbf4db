#!/usr/bin/python3
"""On-target tests of LWMPI: tests/target/*.c booted through tools/mpirun
on the cross build ($TESSERA_TARGET_OUT, default out/target)."""
import unittest

from tessera.testing import mpirun

MPI_ERR_RANK = 6
MPI_ERR_TRUNCATE = 15
MPI_ERR_OTHER = 16


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
    """lwmpi_fatal_test: each way a job ends early, with its report."""

    def run_mode(self, *args, np=3, policy="compact"):
        return mpirun("-np", str(np), "--map-by", policy, "--timeout", "120",
                      "lwmpi_fatal_test", *args)

    def test_default_handler_ends_the_job_with_the_error_class(self):
        rc, out = self.run_mode()
        self.assertEqual(rc, MPI_ERR_RANK, out)
        self.assertIn("MPI error: rank 2: MPI_Send: invalid rank "
                      "(dest 3; the communicator has 3 ranks)\n", out)

    def test_rank_ending_without_finalize_ends_the_job(self):
        for status, want in (("7", 7), ("0", 1)):
            with self.subTest(status=status):
                rc, out = self.run_mode("exit", status, policy="scatter")
                self.assertEqual(rc, want, out)
                self.assertIn(f"rank 0: leaving early\nMPI error: rank 0 exited with status "
                              f"{status} without calling MPI_Finalize\n", out)

    def test_report_follows_the_ranks_output(self):
        rc, out = self.run_mode("truncate")
        self.assertEqual(rc, MPI_ERR_TRUNCATE, out)
        self.assertIn("rank 1: partial line\nMPI error: rank 1: MPI_Recv: message truncated on "
                      "receive (received 4 of 16 bytes from rank 0, tag 5)\n", out)


class ThreadOfARankTest(unittest.TestCase):
    """Another thread of a rank calls MPI and finds the rank's state."""
    longMessage = False

    def test_processes(self):
        for policy in ("compact", "scatter"):
            with self.subTest(policy=policy):
                rc, out = mpirun("-np", "2", "--map-by", policy, "--ranks", "processes", "--timeout", "120",
                                 "mpi_thread_test")
                for r in range(2):
                    self.assertIn(f"mpi_thread_test: rank {r} OK", out, out)
                self.assertNotIn("FAIL", out, out)
                self.assertEqual(rc, 0, out)

    def test_threads_mode_has_no_rank_state_for_other_threads(self):
        # The contrast that shows the test can fail: in threads mode each
        # rank is a thread, and a thread it starts is no rank.
        rc, out = mpirun("-np", "2", "--map-by", "scatter", "--ranks", "threads", "--timeout", "120",
                         "mpi_thread_test")
        # Either rank's failure may end the job first.
        self.assertRegex(out, r"mpi_thread_test: FAIL: rank [01]'s thread sees MPI not initialized")
        self.assertNotEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
