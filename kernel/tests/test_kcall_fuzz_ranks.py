#!/usr/bin/python3
"""On-target test: kcall_fuzz from every rank of a full compute cluster at
once, each rank a process of its own (mpirun --ranks processes). Every copy
must end with 0 unexpected results, and the console's prefixes, the job's
end report and fault reports must name the rank the kernel keeps for the
process, not a label the program chose (ts_thread_tag with random values:
the fuzzer's random calls, and an explicit relabel before it ends).
Both platforms; the fuzzer alone on a cluster runs in test_kernel.py."""
import re
import unittest

from tessera.testing import mpirun

STATUS_FAULT = 139
END_STATUS = 77  # kcall_fuzz's status for the rank END names (0 unexpected)

# Full clusters: the default profile's compute clusters have 4 cores for
# ranks (5 with the master), full-cluster's 16 (17), as on the MPPA-256.
FULL = {"default": 4, "full-cluster": 16}


def place(rank, per_cluster):
    """(cluster, core) of `rank` under --map-by compact: compute clusters
    start at 1 (one I/O cluster), ranks of a cluster run on cores 1, 2, ..."""
    return 1 + rank // per_cluster, 1 + rank % per_cluster


class FullClusterFuzzTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the job's output, once

    def fuzz(self, profile, *args, ranks="processes", np=None):
        np = FULL[profile] if np is None else np
        return mpirun("--profile", profile, "-np", str(np), "--map-by", "compact", "--ranks", ranks,
                      "--tag-output", "--timeout", "120", "kcall_fuzz", *args)

    def check_prefixes(self, out, np):
        # Every line a rank wrote carries the rank the kernel keeps: the
        # random ts_thread_tag calls (refused) changed none of them.
        for label in re.findall(r"(?m)^\[rank (-?\d+)\] ", out):
            self.assertIn(int(label), range(np), out)

    def check_full_cluster(self, profile):
        n = FULL[profile]
        rc, out = self.fuzz(profile)
        for r in range(n):
            # Each copy says who the kernel says it is: its rank, and its
            # local index on cluster 1, which it shares with all the others.
            self.assertIn(f"[rank {r}] kcall_fuzz: rank {r}, local index {r} of {n} on cluster 1 "
                          f"(ranks as processes)", out, out)
            self.assertIn(f"[rank {r}] kcall_fuzz: 5000 calls, 0 unexpected\n", out, out)
        self.assertNotIn("UNEXPECTED", out, out)
        self.assertNotIn("killed", out, out)
        self.assertNotIn("panic", out, out)
        self.check_prefixes(out, n)
        self.assertEqual(rc, 0, out)

    def test_every_rank_of_a_full_cluster(self):
        # -np 4 compact on the default profile: cluster 1's 4 cores.
        self.check_full_cluster("default")

    def test_every_rank_of_a_16_core_cluster(self):
        # 16 copies: the ports of every local index, and many more chances
        # for one copy to meet another's objects and cores.
        self.check_full_cluster("full-cluster")

    def test_reports_name_the_rank_the_kernel_keeps(self):
        # Rank 2 of a full cluster, once fuzzed, asks to be labelled 102
        # (refused), then fails: by its exit status (the runtime ends the
        # job), or by a fault (the kernel kills the ranks' group).
        cluster, core = place(2, FULL["default"])
        who = rf"rank 2 \(cluster {cluster} thread {core}\)"
        # END -> (the job's status, the report lines that must name rank 2)
        ends = {
            "exit:2": (END_STATUS, [rf"tessera: job ended: {who} aborted the job with status {END_STATUS}"]),
            "fault:2": (STATUS_FAULT, [
                # The report is the rank's own output: tagged with its rank.
                rf"\[rank 2\] tessera: {who}: process kcall_fuzz killed: load page fault at pc=0x[0-9a-f]+ "
                rf"addr=0x10",
                rf"tessera: job ended: {who} was killed by a fault, status {STATUS_FAULT}"]),
        }
        for end, (status, lines) in ends.items():
            with self.subTest(end=end):
                rc, out = self.fuzz("default", "1000", "1", end)
                self.assertIn("[rank 2] kcall_fuzz: rank 2 asked to be labelled 102: refused\n", out, out)
                self.assertIn("[rank 2] kcall_fuzz: 1000 calls, 0 unexpected\n", out, out)
                for line in lines:
                    self.assertRegex(out, rf"(?m)^{line}$")
                self.assertNotIn("rank 102", out, out)
                self.check_prefixes(out, FULL["default"])
                self.assertEqual(rc, status, out)

    def test_join_after_another_rank_reused_the_core(self):
        # A thread id is a core number: the kernel keeps an ended thread's
        # status with its process, so another rank's thread on that core
        # changes nothing for the join (join_ranks_test says how).
        rc, out = mpirun("-np", "2", "--map-by", "compact", "--ranks", "processes", "--timeout", "120",
                         "join_ranks_test")
        self.assertIn("join_ranks_test: OK\n", out, out)
        self.assertNotIn("FAIL", out, out)
        self.assertEqual(rc, 0, out)

    def test_threads_mode_reports_follow_the_label(self):
        # The contrast that shows the checks above can fail: in threads
        # mode the label is the program's, so the same relabel is taken
        # and the reports name rank 100, not the rank 0 that failed.
        rc, out = self.fuzz("default", "1000", "1", "exit:0", ranks="threads", np=1)
        self.assertIn("kcall_fuzz: rank 0 asked to be labelled 100: taken\n", out, out)
        self.assertRegex(out, rf"(?m)^tessera: job ended: rank 100 \(cluster 1 thread 1\) aborted the job "
                              rf"with status {END_STATUS}$")
        self.assertEqual(rc, END_STATUS, out)

    def test_threads_mode_alone_and_refused_when_shared(self):
        # Threads mode: alone on its cluster as always (its random labels
        # are put back before it ends); ranks that share a cluster would
        # share its globals, break and label, so it refuses to run.
        rc, out = self.fuzz("default", ranks="threads", np=1)
        self.assertIn("[rank 0] kcall_fuzz: 5000 calls, 0 unexpected\n", out, out)
        self.assertEqual(rc, 0, out)
        rc, out = self.fuzz("default", "100", ranks="threads", np=2)
        self.assertIn("kcall_fuzz: 2 ranks share the process of cluster 1 (--ranks threads): run it alone "
                      "(-np 1) or with --ranks processes", out, out)
        self.assertNotIn("calls, 0 unexpected", out, out)
        self.assertEqual(rc, 1, out)


if __name__ == "__main__":
    unittest.main()
