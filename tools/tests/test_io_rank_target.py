#!/usr/bin/python3
"""On-target test of --io-rank command lines (the MPI I/O rank) that
mpirun must refuse before anything boots: an exit status, a message that
says what is wrong, and no rank's output. The launches that run are in
tests/target_tests.toml (io_rank). Needs the build of $TESSERA_PLATFORM
(make build): its io_rank_test."""
import unittest

from toolsupport import run_mpirun

WORLD = ["-np", "2", "io_rank_test", "world", "2", "finalize"]
IO = ["io_rank_test", "io", "2", "finalize"]
FORM = "(mpirun [OPTIONS] -np N PROGRAM [ARGS] : --io-rank IO_PROGRAM [IO_ARGS])"


class Refused(unittest.TestCase):
    def refused(self, status, message, *args):
        rc, out, err = run_mpirun("--timeout", "60", *args, timeout=120)
        self.assertEqual(rc, status, out + err)
        self.assertIn(message, err)
        self.assertNotIn("io_rank:", out)          # no rank ran
        return err

    def test_no_program(self):
        err = self.refused(2, f"mpirun: --io-rank needs the I/O rank's program {FORM}",
                           *WORLD, ":", "--io-rank")
        self.assertIn("usage: mpirun", err)

    def test_no_world(self):
        self.refused(2, "--io-rank starts the I/O rank's application, which follows the world's "
                        "ranks'", "--io-rank", *IO)

    def test_one_process_only(self):
        self.refused(2, "--io-rank starts one process, the I/O rank: give it no -np",
                     *WORLD, ":", "--io-rank", "-np", "2", *IO)

    def test_last_application(self):
        self.refused(2, "the I/O rank's application (--io-rank) must be the last",
                     *WORLD, ":", "--io-rank", *IO, ":", "-np", "1", "io_rank_test")

    def test_threads(self):
        self.refused(2, "--io-rank needs --ranks processes", "--ranks", "threads", *WORLD, ":",
                     "--io-rank", *IO)

    def test_no_free_core(self):
        """full-cluster's I/O cluster has 3 cores, all taken by the master
        and the services."""
        self.refused(1, "--io-rank: profile 'full-cluster' has no core for the I/O rank: its I/O "
                        "cluster 0 has 3 cores, all taken", "--profile", "full-cluster", *WORLD,
                     ":", "--io-rank", *IO)


if __name__ == "__main__":
    unittest.main()
