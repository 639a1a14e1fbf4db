#!/usr/bin/python3
"""On-target tests of the job monitor: the machine's exit status is the
job's, folded into QEMU's 8 bits without ever turning a failure into 0."""
import unittest

from tessera.testing import mpirun


class AbortStatusTest(unittest.TestCase):
    def test_abort_codes(self):
        for code, status in ((3, 3), (300, 44), (256, 1), (512, 1), (0, 0)):
            with self.subTest(code=code):
                rc, out = mpirun("-np", "5", "--map-by", "scatter", "--timeout", "120",
                                 "abort_test", str(code))
                self.assertEqual(rc, status, out)


if __name__ == "__main__":
    unittest.main()
