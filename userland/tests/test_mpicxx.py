#!/usr/bin/python3
"""On-target test: a C++17 MPI program (mpicxx_test.cpp: std::vector,
std::map, std::sort, lambdas, virtual functions, templates, new/delete,
printf) runs on both platforms: as the build makes it (tessera_add_program)
and as tools/mpicxx makes it, ranks as processes and as threads."""
import os
import subprocess
import tempfile
import unittest

from tessera.testing import ROOT, mpirun

MPICXX = os.path.join(ROOT, "tools", "mpicxx")


class MpicxxTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the job's output, once

    def run_test(self, program, np, mapping, ranks="processes"):
        rc, out = mpirun("-np", str(np), "--map-by", mapping, "--ranks", ranks, "--timeout", "120",
                         program)
        self.assertRegex(out, rf"(?m)^mpicxx_test: OK \(np={np}, sum \d+\)$", out)
        self.assertNotIn("FAILED", out, out)
        self.assertEqual(rc, 0, out)

    def test_built_in_tree(self):
        for np, mapping, ranks in ((1, "compact", "processes"), (4, "compact", "processes"),
                                   (6, "scatter", "processes"), (4, "compact", "threads")):
            with self.subTest(np=np, mapping=mapping, ranks=ranks):
                self.run_test("mpicxx_test", np, mapping, ranks)

    def test_built_by_mpicxx(self):
        """With the options of an ordinary C++ build, and the default a.out."""
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(ROOT, "userland", "tests", "mpicxx_test.cpp")
            p = subprocess.run([MPICXX, src, "-O3", "-Wall", "-Wextra", "-pedantic", "-std=c++17",
                                "-ffast-math"], cwd=tmp, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual((p.returncode, p.stdout), (0, ""))
            self.run_test(os.path.join(tmp, "a.out"), 5, "scatter")


if __name__ == "__main__":
    unittest.main()
