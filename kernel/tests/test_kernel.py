#!/usr/bin/python3
"""On-target tests of the kernel: user faults kill only the faulting
process, with a report, and the job's status says so; kernel calls with bad
arguments get error codes."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                "..", "..", "tools"))
from tessera_run import mpirun  # noqa: E402

STATUS_FAULT = 139

# kind -> (cause in the report, faulting address or None)
FAULTS = {
    "load": ("load page fault", "0x10"),
    "kernel": ("load page fault", "0x80200000"),
    "text": ("store page fault", None),
    "illegal": ("illegal instruction", None),
    "stack": ("store page fault", None),
}


class FaultTest(unittest.TestCase):
    def run_fault(self, kind):
        # scatter: rank 0 on cluster 1 faults, rank 1 on cluster 2 goes on.
        return mpirun("-np", "2", "--map-by", "scatter", "--timeout", "120", "fault_test", kind)

    def test_each_fault_kills_only_its_process(self):
        for kind, (cause, addr) in FAULTS.items():
            with self.subTest(kind=kind):
                rc, out = self.run_fault(kind)
                report = re.search(r"^tessera: cluster 1 core \d+: process fault_test killed: "
                                   r"(.+) at pc=0x[0-9a-f]+ addr=(0x[0-9a-f]+)$", out, re.M)
                self.assertIsNotNone(report, out)
                self.assertEqual(report.group(1), cause, out)
                if addr:
                    self.assertEqual(report.group(2), addr, out)
                self.assertNotIn("rank 0 survived", out)
                self.assertIn("rank 1 survived", out)
                self.assertNotIn("kernel panic", out)
                self.assertEqual(rc, STATUS_FAULT, out)

    def test_fault_ends_the_job_while_peers_wait(self):
        # Rank 1 waits for a message from the killed rank 0: the job must
        # still end at once with the fault's status, not time out.
        rc, out = mpirun("-np", "2", "--map-by", "scatter", "--timeout", "60",
                         "fault_test", "load", "wait")
        self.assertIn("process fault_test killed: load page fault", out)
        self.assertNotIn("survived", out)
        self.assertEqual(rc, STATUS_FAULT, out)

    def test_no_fault_no_report(self):
        rc, out = self.run_fault("none")
        self.assertNotIn("killed", out)
        self.assertIn("rank 0 survived", out)
        self.assertIn("rank 1 survived", out)
        self.assertEqual(rc, 0, out)


class SyscallTest(unittest.TestCase):
    def test_bad_arguments_get_error_codes(self):
        rc, out = mpirun("-np", "1", "--timeout", "120", "syscall_test")
        self.assertIn("syscall checks: 0 failed", out, out)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
