#!/usr/bin/python3
"""tools/mpicc builds a program like the build does, and every user program
has the memory layout the kernel loads: PT_LOAD segments from 0x40000000
(text R X, rodata R, data R W), none empty, all below 0x70000000."""
import math
import os
import subprocess
import tempfile
import unittest

from tessera.testing import MPICC, ROOT, load_segments, mpirun, target_out

R, W, X = 4, 2, 1


class LayoutTest(unittest.TestCase):
    def check_layout(self, path):
        entry, segs = load_segments(path)
        self.assertEqual(entry, 0x40000000, path)
        self.assertEqual([s[3] for s in segs], [R | X, R, R | W], path)
        self.assertEqual(segs[0][0], 0x40000000, path)
        for vaddr, filesz, memsz, _ in segs:
            self.assertGreater(filesz, 0, path)
            self.assertEqual(vaddr % 4096, 0, path)
            self.assertLess(vaddr + memsz, 0x70000000, path)
        for (a, _, amem, _), (b, _, _, _) in zip(segs, segs[1:]):
            self.assertLessEqual(a + amem, b, path)

    def test_built_programs(self):
        for name in ("nameserver", "ikc_api", "names_test", "hello", "fn", "abort_test"):
            path = os.path.join(target_out(), "bin", name + ".elf")
            self.assertTrue(os.path.isfile(path), path + " is missing: run make first")
            with self.subTest(program=name):
                self.check_layout(path)

    def test_mpicc_builds_hello(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "hello.elf")
            src = os.path.join(ROOT, "userland", "apps", "hello", "hello.c")
            p = subprocess.run([MPICC, "-o", out, src, "-lm", "-O2", "-DUNUSED=1"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            self.check_layout(out)

    def test_mpicc_program_runs(self):
        """A single-file MPI program with libc, libm and sleeps, built by mpicc, runs."""
        np = 16
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "libc.elf")
            src = os.path.join(ROOT, "userland", "tests", "mpicc_libc.c")
            p = subprocess.run([MPICC, "-o", out, src, "-lm"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            rc, output = mpirun("-np", str(np), "--timeout", "240", out)
        self.assertEqual(rc, 0, output)
        for rank in range(np):
            self.assertIn(f"rank {rank} heap {256 * (rank + 1)}\n", output)
        want = sum(math.sqrt(r + 1) * 2 ** (r % 3) for r in range(np))
        self.assertIn(f"sum {want:.6f}\n", output)
        self.assertIn("usleep 0 slept, sleep 0 slept\n", output)

    def test_mpicc_usage_errors(self):
        p = subprocess.run([MPICC], stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage", p.stderr)
        src = os.path.join(ROOT, "userland", "apps", "hello", "hello.c")
        p = subprocess.run([MPICC, "-o", "x.elf", src, "-o", "y.elf"], stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("more than one -o", p.stderr)

    def test_mpicc_without_build(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "a.c")
            with open(src, "w") as f:
                f.write("int main(void) { return 0; }\n")
            env = dict(os.environ, TESSERA_TARGET_OUT=os.path.join(tmp, "nowhere"))
            p = subprocess.run([MPICC, "-o", os.path.join(tmp, "a.elf"), src], env=env,
                               stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertIn("run make first", p.stderr)


if __name__ == "__main__":
    unittest.main()
