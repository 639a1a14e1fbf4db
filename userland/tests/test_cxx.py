#!/usr/bin/python3
"""On-target test: C++ programs with the whole standard library.

cxx_stdlib_test (strings, streams on the console and on files, <regex>,
<memory>, <chrono>, <random>, exceptions across functions and translation
units, RTTI, std::thread with std::mutex, std::condition_variable,
std::async, std::atomic) in every rank, as the build makes it and as
tools/mpicxx makes it; and cxx_uncaught_test, whose uncaught exception must
end the job with the exception's type and what(), the rank, a backtrace
through the function that threw, and status 134. Jobs run in a temporary
folder, where the ranks' files come back."""
import os
import subprocess
import tempfile
import unittest

from tessera.testing import MPIRUN, ROOT

MPICXX = os.path.join(ROOT, "tools", "mpicxx")
TESTS = os.path.join(ROOT, "userland", "tests")


def job(cwd, *args):
    """(exit status, combined output) of tools/mpirun ARGS in folder cwd."""
    p = subprocess.run([MPIRUN, *args], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    return p.returncode, p.stdout


class CxxTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the job's output, once

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tessera-cxx-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def stdlib_job(self, program, np, mapping, threads):
        rc, out = job(self.dir, "-np", str(np), "--map-by", mapping, "--timeout", "120", program)
        self.assertNotIn("FAILED", out, out)
        for rank in range(np):
            self.assertRegex(out, rf"(?m)^cxx_stdlib_test: rank {rank} OK \({threads} threads\)$", out)
            self.assertRegex(out, rf"(?m)^cxx_stdlib_test: rank {rank} on std::cerr$", out)
            with open(os.path.join(self.dir, f"cxx_{rank}.txt")) as f:
                lines = f.read().splitlines()
            self.assertEqual(lines, [f"line {i * rank}" for i in range(100)])
        self.assertEqual(rc, 0, out)

    def test_stdlib_one_rank_per_cluster(self):
        """Each rank alone on its cluster: 3 threads of its own."""
        self.stdlib_job("cxx_stdlib_test", 4, "scatter", 3)

    def test_stdlib_full_clusters(self):
        """Every core of the clusters runs a rank: std::thread throws
        std::system_error."""
        self.stdlib_job("cxx_stdlib_test", 8, "compact", 0)

    def test_built_by_mpicxx(self):
        """Two translation units, compiled and linked by tools/mpicxx."""
        p = subprocess.run([MPICXX, "-O2", "-Wall", "-o", "app.elf",
                            os.path.join(TESTS, "cxx_stdlib_test.cpp"),
                            os.path.join(TESTS, "cxx_throw.cpp")],
                           cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual((p.returncode, p.stdout), (0, ""))
        self.stdlib_job("./app.elf", 2, "scatter", 3)

    def test_uncaught_exception(self):
        rc, out = job(self.dir, "-np", "4", "--timeout", "120", "cxx_uncaught_test")
        self.assertEqual(rc, 134, out)
        # Whole lines, between which other ranks' lines may come.
        self.assertRegex(out, r"(?m)^terminate called after throwing an instance of "
                              r"'std::runtime_error'$")
        self.assertRegex(out, r"(?m)^  what\(\):  no input file$")
        self.assertRegex(out, r"(?m)^tessera: rank 1 \(cluster \d+ thread \d+\): process "
                              r"cxx_uncaught_test killed: abort\(\)$")
        self.assertRegex(out, r"(?m)^    #\d+ 0x[0-9a-f]+ in __cxa_throw at .*eh_throw\.cc:\d+$")
        self.assertRegex(out, r"(?m)^    #\d+ 0x[0-9a-f]+ in load_input at .*cxx_uncaught_test\.cpp:15$")
        self.assertRegex(out, r"(?m)^    #\d+ 0x[0-9a-f]+ in main at .*cxx_uncaught_test\.cpp:\d+$")
        self.assertNotIn("FAILED", out)


if __name__ == "__main__":
    unittest.main()
