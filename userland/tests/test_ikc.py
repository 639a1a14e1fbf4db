#!/usr/bin/python3
"""On-target test: raw IKC between 4 compute clusters (ikc_test)."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "tools"))
from tessera_run import mpirun  # noqa: E402


class IkcTest(unittest.TestCase):
    def test_mailbox_portal_sync_between_clusters(self):
        rc, out = mpirun("-np", "4", "--map-by", "scatter", "--timeout", "120", "ikc_test")
        self.assertNotIn("ikc FAIL", out, out)
        oks = re.findall(r"^ikc ok cluster (\d+)$", out, re.M)
        self.assertEqual(len(oks), 4, out)
        self.assertEqual(len(set(oks)), 4, out)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
