#!/usr/bin/python3
"""On-target test: the local name daemons' API, their counters and their
answers to malformed messages (name_daemon_api, one rank alone on each of
two compute clusters)."""
import re
import unittest

from tessera.testing import mpirun


class NameDaemonApiTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the program's output, once

    def test_api(self):
        rc, out = mpirun("-np", "2", "--map-by", "scatter", "--timeout", "120", "name_daemon_api")
        self.assertNotIn("FAIL", out, out)
        ranks = sorted(int(r) for r in re.findall(r"^name_daemon_api ok rank (\d+)$", out, re.M))
        self.assertEqual(ranks, [0, 1], out)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
