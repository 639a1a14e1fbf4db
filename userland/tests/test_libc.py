#!/usr/bin/python3
"""On-target test: the C library surface of user programs (libc_test.c:
sysconf, posix_memalign, aligned_alloc, clocks and sleeps, getpid,
gethostname, getenv, atexit, strerror, rand_r), the same on both platforms,
with ranks as processes and as threads, on one cluster and spread out, and
on 16-core clusters (where sysconf(_SC_NPROCESSORS_ONLN) is 16)."""
import unittest

from tessera.profile import load_profile
from tessera.testing import mpirun


class LibcTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the job's output, once

    def run_test(self, np, mapping, ranks, profile="default"):
        # A compute cluster runs a program's threads on all its cores but
        # the master.
        nprocs = load_profile(profile).compute_cores - 1
        rc, out = mpirun("--profile", profile, "-np", str(np), "--map-by", mapping, "--ranks",
                         ranks, "--timeout", "120", "libc_test", ranks, str(nprocs))
        self.assertIn(f"libc_test: OK (np={np})\n", out, out)
        self.assertNotIn("FAILED", out, out)
        self.assertEqual(out.count("libc_test: atexit handler ran\n"), 1, out)
        self.assertEqual(rc, 0, out)

    def test_processes(self):
        for np, mapping in ((1, "compact"), (4, "compact"), (6, "scatter")):
            with self.subTest(np=np, mapping=mapping):
                self.run_test(np, mapping, "processes")

    def test_threads(self):
        for np, mapping in ((4, "compact"), (6, "scatter")):
            with self.subTest(np=np, mapping=mapping):
                self.run_test(np, mapping, "threads")

    def test_full_cluster(self):
        self.run_test(17, "compact", "processes", "full-cluster")


if __name__ == "__main__":
    unittest.main()
