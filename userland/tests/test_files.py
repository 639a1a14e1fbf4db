#!/usr/bin/python3
"""On-target test of files (files_test): mpirun --stage puts a file and a
folder in the job's folder, every rank reads them and writes its own files,
which come back to mpirun's working folder when the job ends; the staged
files, unchanged, do not, nor does a file a rank removed. mpirun runs from
one temporary folder, the staged files are in another."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tessera.testing import MPIRUN

VALUES = [3, -7, 12, 40, 1000, 5, 6]
BIG = 1 << 20


def big_bytes():
    """files_test's big.bin: byte i is i * 7 + (i >> 12), mod 256."""
    return bytes((i * 7 + (i >> 12)) & 0xFF for i in range(BIG))


class FilesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tessera-files-test-")
        self.stage = os.path.join(self.tmp, "stage")
        self.cwd = os.path.join(self.tmp, "cwd")
        os.makedirs(os.path.join(self.stage, "data"))
        os.makedirs(self.cwd)
        with open(os.path.join(self.stage, "input.txt"), "w") as f:
            f.write(f"values {len(VALUES)}\n{' '.join(map(str, VALUES))}\n")
        with open(os.path.join(self.stage, "data", "more.txt"), "w") as f:
            f.write("more from a staged folder\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def mpirun(self, *args):
        p = subprocess.run([MPIRUN, *args], cwd=self.cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        return p.returncode, p.stdout

    def read(self, name, mode="r"):
        with open(os.path.join(self.cwd, name), mode) as f:
            return f.read()

    def check_job(self, np, policy, *options):
        # A file of the same name as one a rank writes is replaced.
        with open(os.path.join(self.cwd, "out_0.txt"), "w") as f:
            f.write("old\n")
        rc, out = self.mpirun("-np", str(np), "--map-by", policy, "--timeout", "240", *options,
                              "--stage", os.path.join(self.stage, "input.txt"),
                              "--stage", os.path.join(self.stage, "data") + "/", "files_test")
        self.assertIn(f"files_test: OK (np={np})", out)
        self.assertEqual(rc, 0, out)
        expect = {"big.bin", "data"}
        for r in range(np):
            expect |= {f"out_{r}.txt", f"raw_{r}.bin", f"log_{r}.txt", f"final_{r}.txt",
                       f"unclosed_{r}.txt", f"pos_{r}.bin"}
            self.assertEqual(self.read(f"unclosed_{r}.txt"), "buffered until exit\n")
            self.assertEqual(self.read(f"final_{r}.txt"), "final\n")
            self.assertEqual(self.read(f"out_{r}.txt"),
                             f"rank {r} count {len(VALUES)} sum {sum(VALUES)}\n")
            self.assertEqual(self.read(f"raw_{r}.bin", "rb"), bytes(i ^ r for i in range(256)))
            self.assertEqual(self.read(f"log_{r}.txt"), "first\nsecond\n")
            self.assertEqual(self.read(f"pos_{r}.bin", "rb"), b"aXY\0!")
        # Neither the staged files (unchanged) nor the removed tmp_R.txt.
        self.assertEqual(set(os.listdir(self.cwd)), expect)
        self.assertEqual(sorted(os.listdir(os.path.join(self.cwd, "data"))),
                         sorted(f"rank_{r}.txt" for r in range(np)))
        self.assertEqual(self.read(f"data/rank_{np - 1}.txt"), f"{np - 1}\n")
        self.assertTrue(self.read("big.bin", "rb") == big_bytes(), "big.bin differs")
        # The staged files are as they were.
        self.assertEqual(sorted(os.listdir(self.stage)), ["data", "input.txt"])

    def test_staged_files_and_outputs_scatter(self):
        self.check_job(4, "scatter")

    def test_staged_files_and_outputs_compact(self):
        self.check_job(2, "compact")

    def test_ranks_as_threads_share_the_files_table(self):
        self.check_job(4, "compact", "--ranks", "threads")

    def test_nothing_staged_the_outputs_still_come_back(self):
        rc, out = self.mpirun("-np", "3", "--timeout", "120", "files_test", "write-only")
        self.assertIn("files_test: OK (np=3)", out)
        self.assertEqual(rc, 0, out)
        self.assertEqual(sorted(os.listdir(self.cwd)), ["out_0.txt", "out_1.txt", "out_2.txt"])
        self.assertEqual(self.read("out_2.txt"), "rank 2 count -1 sum -1\n")

    def test_outputs_come_back_when_the_job_fails(self):
        # No input staged: every rank fails to read it, writes its output
        # anyway, and the job ends with status 1.
        rc, out = self.mpirun("-np", "2", "--timeout", "120", "files_test")
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"files_test: rank \d: .*: f != NULL \(errno 2\)")
        self.assertIn("out_0.txt", os.listdir(self.cwd))

    def test_bad_stage(self):
        rc, out = self.mpirun("--stage", os.path.join(self.tmp, "nothing"), "files_test")
        self.assertEqual(rc, 1)
        self.assertIn("no such file or folder", out)
        other = os.path.join(self.tmp, "other")
        os.makedirs(other)
        shutil.copy(os.path.join(self.stage, "input.txt"), other)
        rc, out = self.mpirun("--stage", os.path.join(self.stage, "input.txt"),
                              "--stage", os.path.join(other, "input.txt"), "files_test")
        self.assertEqual(rc, 1)
        self.assertIn("staged under the same name 'input.txt'", out)
        self.assertEqual(os.listdir(self.cwd), [])


if __name__ == "__main__":
    unittest.main()
