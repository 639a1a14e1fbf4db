#!/usr/bin/python3
"""Unit tests of the on-target tests' manifest and driver
(tools/tessera/target_tests.py, tests/target_tests.toml): what a job's
checks accept and refuse, the manifest's errors, the CTest registration,
and that the tree's manifest reads. Nothing runs on a target."""
import os
import tempfile
import unittest

from tessera import target_tests
from tessera.target_tests import ManifestError, load, parse_test

NAMES_OUT = "".join(f"names ok rank {r}\n" for r in (1, 3, 0, 2))


def job(run="-np 4 --map-by scatter names_test", **checks):
    """The Job of a one-job test with these checks."""
    return parse_test("t", {"run": run, **checks}).jobs[0]


class ChecksTest(unittest.TestCase):
    def test_passing_output_has_no_failures(self):
        j = job(lines=["names ok rank {rank}"], counts={r"names ok rank \d+": 4},
                absent=["FAIL"], contains=["rank 3\nnames ok rank 0\n"])
        self.assertEqual(j.failures(0, NAMES_OUT), [])

    def test_status(self):
        self.assertEqual(job().failures(3, ""), ["exit status 3, expected 0"])
        self.assertEqual(job(status=3).failures(3, ""), [])

    def test_every_rank_of_a_rank_line(self):
        out = NAMES_OUT.replace("names ok rank 3\n", "")
        self.assertEqual(job(lines=["names ok rank {rank}"]).failures(0, out),
                         ["no line matches 'names ok rank 3'"])

    def test_lines_match_whole_lines(self):
        self.assertEqual(job(lines=["ok rank 1"]).failures(0, NAMES_OUT),
                         ["no line matches 'ok rank 1'"])
        self.assertEqual(job(lines=["names ok rank 1|nothing"]).failures(0, NAMES_OUT), [])

    def test_np_in_patterns(self):
        j = job("-np 3 lwmpi_test", lines=[r"lwmpi_test: all passed \(np={np}\)"])
        self.assertEqual(j.failures(0, "lwmpi_test: all passed (np=3)\n"), [])
        self.assertEqual(j.failures(0, "lwmpi_test: all passed (np=4)\n"),
                         [r"no line matches 'lwmpi_test: all passed \(np=3\)'"])

    def test_contains_absent_counts(self):
        j = job(contains=["a\nb"], absent=["FAIL"], counts={"x": 2})
        self.assertEqual(j.failures(0, "a\nb\nx\nx\n"), [])
        self.assertEqual(j.failures(0, "a\nc\nFAIL x\nx\n"),
                         ["missing: 'a\\nb'", "present: 'FAIL'",
                          "1 lines match 'x', expected 2"])

    def test_a_job_overrides_the_tests_checks(self):
        t = parse_test("t", {"run": ["-np 1 abort_test 0", {"run": "-np 1 abort_test 3",
                                                           "status": 3}],
                             "lines": ["x"]})
        self.assertEqual([(j.status, j.lines) for j in t.jobs], [(0, ["x"]), (3, ["x"])])


class ManifestTest(unittest.TestCase):
    def test_jobs_are_read_as_mpirun_reads_them(self):
        j = job("-np 6 --map-by scatter --timeout 60 libc_test processes 4")
        self.assertEqual((j.np, j.timeout), (6, 60.0))
        self.assertEqual(j.argv[-3:], ["libc_test", "processes", "4"])

    def test_refused(self):
        cases = [({"run": "-np 0 hello"}, "-np needs a positive number"),
                 ({"run": "-np 2"}, "no program"),
                 ({"run": "hello", "line": ["x"]}, "unknown keys line"),
                 ({}, "either run .* or driver"),
                 ({"run": "hello", "driver": "x.py"}, "either run"),
                 ({"driver": "no/such.py"}, "no driver no/such.py"),
                 ({"driver": "tools/tests/test_mpirun.py", "lines": ["x"]}, "does its own checks"),
                 ({"run": "hello", "args": ["x"]}, "args are a driver's"),
                 ({"run": "hello", "platforms": ["x86"]}, "platforms are"),
                 ({"run": [{"run": "hello", "labels": ["x"]}]}, "a job is a string or"),
                 ("hello", "a test is a table")]
        for spec, error in cases:
            with self.subTest(spec=spec):
                with self.assertRaisesRegex(ManifestError, error):
                    parse_test("t", spec)

    def test_a_header_swallows_what_follows_and_is_refused(self):
        """TOML puts every line after a [NAME] header into NAME: a one-line
        test written after one is refused, not silently dropped."""
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
            f.write('[a]\nrun = "hello"\nb = { run = "hello" }\n')
            f.flush()
            with self.assertRaisesRegex(ManifestError, "a: unknown keys b"):
                load(f.name)

    def test_cmake(self):
        tests = {"userland_sync": parse_test("userland_sync", {
                     "run": "-np 1 sync_test", "labels": ["kernel"]}),
                 "tools_launcher": parse_test("tools_launcher", {
                     "driver": "tools/tests/test_linux64_launcher.py", "args": ["real"],
                     "platforms": ["linux64"], "timeout": 300})}
        lines = target_tests.cmake(tests, target_tests.MANIFEST).splitlines()[1:]
        self.assertEqual(lines, [
            "tessera_add_target_test(userland_sync ${CMAKE_SOURCE_DIR}/tests/run_target_test.py "
            "ARGS userland_sync LABELS kernel TIMEOUT 600 PLATFORMS qemu-riscv64 linux64)",
            "tessera_add_target_test(tools_launcher ${CMAKE_SOURCE_DIR}/tools/tests/"
            "test_linux64_launcher.py ARGS real TIMEOUT 300 PLATFORMS linux64)"])

    def test_the_trees_manifest(self):
        tests = load()
        self.assertIn("userland_sync", tests)
        for name, t in tests.items():
            with self.subTest(test=name):
                self.assertTrue(t.driver or t.jobs)
                self.assertTrue(os.path.isfile(os.path.join(target_tests.REPO, t.driver))
                                if t.driver else all(j.argv for j in t.jobs))


if __name__ == "__main__":
    unittest.main()
