#!/usr/bin/python3
"""On-target test: threads, futexes, the runtime's mutexes, semaphores and
condition variables, kernel call counters, the core a thread runs on and
memory info (sync_test, one process alone on a compute cluster)."""
import re
import unittest

from tessera.testing import mpirun


class SyncTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the program's output, once

    def test_threads_futexes_and_locks(self):
        rc, out = mpirun("-np", "1", "--timeout", "120", "sync_test")
        self.assertNotIn("FAIL", out, out)
        self.assertIsNotNone(re.search(r"^sync checks: 0 failed$", out, re.M), out)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
