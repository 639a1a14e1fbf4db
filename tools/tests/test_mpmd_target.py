#!/usr/bin/python3
"""On-target test of MPMD command lines (MPI 3.1 section 8.8) that mpirun
must refuse before anything boots: an exit status, a message that says
what is wrong, and no rank's output. The launches that run are in
tests/target_tests.toml (mpmd). Needs the build of $TESSERA_PLATFORM
(make build): its mpmd_a and mpmd_b."""
import os
import unittest

from toolsupport import run_mpirun
from tessera.testing import TOOLS, run

A = ["mpmd_a", "0", "0", "1", "ta"]     # what a good first application is given


class Refused(unittest.TestCase):
    def refused(self, status, message, *args):
        rc, out, err = run_mpirun("--timeout", "60", *args, timeout=120)
        self.assertEqual(rc, status, out + err)
        self.assertIn(message, err)
        self.assertNotIn("mpmd:", out)          # no rank ran
        return err

    def test_no_program_after_the_colon(self):
        err = self.refused(2, "mpirun: no program given for application 2 (after ':') "
                              "(mpirun [OPTIONS] -np N PROGRAM [ARGS] : -np M PROGRAM2 [ARGS2] ...)",
                           "-np", "1", *A, ":", "-np", "2")
        self.assertIn("usage: mpirun", err)
        self.refused(2, "no program given for application 2 (after ':')", "-np", "1", *A, ":")

    def test_job_option_after_the_colon(self):
        self.refused(2, "--map-by is an option of the whole job: give it before the first program",
                     "-np", "1", *A, ":", "--map-by", "scatter", "-np", "1", "mpmd_b", "1", "1", "1",
                     "tb")
        self.refused(2, "-x is an option of the whole job", *A, ":", "-x", "A=1", "mpmd_b")

    def test_mpiexec_alike(self):
        p = run(os.path.join(TOOLS, "mpiexec"), "-n", "1", *A, ":", "-n", "x", "mpmd_b",
                timeout=120, merge=False)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("-n needs a positive number of processes, got 'x'", p.stderr)

    def test_threads(self):
        self.refused(2, "an MPMD launch needs --ranks processes", "--ranks", "threads", *A, ":",
                     "mpmd_b", "1", "1", "1", "tb")

    def test_the_job_must_fit(self):
        """The applications' processes count together (the default
        profile places 16)."""
        self.refused(1, "17 processes requested", "-np", "16", *A, ":", "-np", "1", "mpmd_b")

    def test_every_program_must_exist(self):
        self.refused(1, "program 'no_such_program' not found", *A, ":", "no_such_program")


if __name__ == "__main__":
    unittest.main()
