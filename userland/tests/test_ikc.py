#!/usr/bin/python3
"""On-target test: raw IKC between 4 compute clusters (ikc_test)."""
import re
import unittest

from tessera_run import mpirun


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
