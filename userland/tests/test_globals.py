#!/usr/bin/python3
"""On-target test: ordinary C globals, static locals and the heap are
private to each MPI rank with mpirun --ranks processes (globals_test), on
full clusters and spread out, and shared, as the test must detect, with
--ranks threads when ranks share a cluster. Both platforms."""
import re
import unittest

from tessera.testing import mpirun

CHECKS = ("data", "bss", "static", "global", "neighbour", "heap", "alias")
# What sharing breaks: every check but alias, which needs processes.
SHARED = ("data", "bss", "static", "global", "neighbour", "heap")


class GlobalsTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the job's output, once

    def run_test(self, np, mapping, ranks="processes", profile="default", *options):
        rc, out = mpirun("--profile", profile, "-np", str(np), "--map-by", mapping, "--ranks", ranks,
                         "--timeout", "120", *options, "globals_test")
        verdicts = dict((name, word) for word, name in re.findall(r"(?m)^(PASS|FAIL|SKIP) (\w+): ", out))
        self.assertEqual(sorted(verdicts), sorted(CHECKS), out)
        return rc, out, verdicts

    def expect_private(self, np, mapping, profile="default", alias="PASS", *options):
        rc, out, verdicts = self.run_test(np, mapping, "processes", profile, *options)
        for check in SHARED:
            self.assertEqual(verdicts[check], "PASS", out)
        # alias: PASS when some rank's neighbour shares its cluster, else SKIP.
        self.assertEqual(verdicts["alias"], alias, out)
        skipped = 0 if alias == "PASS" else 1
        self.assertRegex(out, rf"(?m)^globals_test: 7 checks, 0 failed, {skipped} skipped$")
        self.assertEqual(rc, 0, out)

    def test_processes_default_profile(self):
        # 4 ranks: one full cluster (compact), or one per cluster (scatter,
        # where no neighbour shares a cluster, so there is no alias to read).
        for mapping, alias in (("compact", "PASS"), ("scatter", "SKIP")):
            with self.subTest(mapping=mapping):
                self.expect_private(4, mapping, "default", alias)
        # The local path over IKC too (ranks of a cluster talk as remote
        # ones do), as well as the default shared-memory one above.
        with self.subTest(mapping="compact", local_path="ikc"):
            self.expect_private(4, "compact", "default", "PASS", "--local-path", "ikc")

    def test_processes_full_16_core_clusters(self):
        # full-cluster: 2 compute clusters of 16 ranks each. 16 ranks fill
        # one; 32 fill both, compact or dealt round-robin.
        for np, mapping, alias in ((16, "compact", "PASS"), (32, "compact", "PASS"), (32, "scatter", "SKIP")):
            with self.subTest(np=np, mapping=mapping):
                self.expect_private(np, mapping, "full-cluster", alias)

    def test_threads_share_and_the_test_sees_it(self):
        # Ranks as threads of one process on a cluster share its globals:
        # the test must report exactly that (this is what shows it can
        # fail).
        rc, out, verdicts = self.run_test(4, "compact", "threads")
        for check in SHARED:
            self.assertEqual(verdicts[check], "FAIL", out)
        self.assertEqual(verdicts["alias"], "SKIP", out)
        self.assertRegex(out, r"(?m)^globals_test: rank \d+: global: the global holds \d+, not its own \d+ "
                              r"\(another rank wrote it\)$")
        self.assertRegex(out, r"(?m)^globals_test: 7 checks, 6 failed, 1 skipped$")
        self.assertNotEqual(rc, 0, out)
        # Threads that share no cluster share nothing: the same checks pass.
        rc, out, verdicts = self.run_test(4, "scatter", "threads")
        for check in SHARED:
            self.assertEqual(verdicts[check], "PASS", out)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
