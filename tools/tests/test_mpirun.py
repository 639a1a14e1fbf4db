#!/usr/bin/python3
"""Unit tests of tools/mpirun: its command line, what it puts in the boot
manifest, --report-bindings, --ranks and the warning about global variables
under --ranks threads, its errors before anything boots, and the filter of
the serial output. No QEMU, no toolchain (ELF files from fake_elf.py)."""
import contextlib
import inspect
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from tessera import mpirun
from toolsupport import MPIRUN, REPO, run_mpirun, too_many_processes
from tessera.profile import compute_layout, load_profile
import fake_elf

App = mpirun.mkimage.App



class ParseTest(unittest.TestCase):
    def test_defaults(self):
        o = mpirun.parse_args(["hello"])
        self.assertEqual((o.np, o.map_by, o.profile, o.platform, o.timeout, o.tag_output, o.verbose),
                         (1, "compact", "default", "qemu-riscv64", 300.0, False, False))
        self.assertEqual((o.local_path, o.eager_threshold, o.report_bindings), ("shm", 0, False))
        self.assertEqual(o.apps, [App("hello", (), 1)])
        self.assertEqual(o.ranks, "processes")

    def test_options(self):
        o = mpirun.parse_args(["-np", "8", "--map-by=scatter", "--profile", "x.json",
                               "--timeout", "2.5", "--tag-output", "--verbose", "fn", "1", "4000"])
        self.assertEqual((o.np, o.map_by, o.profile, o.timeout, o.tag_output, o.verbose),
                         (8, "scatter", "x.json", 2.5, True, True))
        self.assertEqual(o.apps, [App("fn", ("1", "4000"), 8)])

    def test_mpi_options(self):
        o = mpirun.parse_args(["--local-path", "ikc", "--eager-threshold=65536",
                               "--report-bindings", "hello"])
        self.assertEqual((o.local_path, o.eager_threshold, o.report_bindings), ("ikc", 65536, True))
        o = mpirun.parse_args(["--local-path=shm", "--eager-threshold", "0", "hello"])
        self.assertEqual((o.local_path, o.eager_threshold, o.wait_policy), ("shm", 0, ""))
        o = mpirun.parse_args(["--wait-policy", "spin", "hello"])
        self.assertEqual(o.wait_policy, "spin")

    def test_map_by_ppr(self):
        """ppr:N:cluster is the compact policy with N per cluster; the last
        --map-by wins."""
        o = mpirun.parse_args(["-np", "6", "--map-by", "ppr:2:cluster", "hello"])
        self.assertEqual((o.map_by, o.ppr), ("compact", 2))
        o = mpirun.parse_args(["--map-by=ppr:12:cluster", "hello"])
        self.assertEqual((o.map_by, o.ppr), ("compact", 12))
        o = mpirun.parse_args(["--map-by", "ppr:2:cluster", "--map-by", "scatter", "hello"])
        self.assertEqual((o.map_by, o.ppr), ("scatter", 0))
        self.assertEqual(mpirun.parse_args(["hello"]).ppr, 0)

    def test_cluster_memory(self):
        """--cluster-memory SIZE is kept as given (the layout applies it);
        the last one wins; none: the profile's."""
        self.assertEqual(mpirun.parse_args(["hello"]).cluster_memory, "")
        self.assertEqual(mpirun.parse_args(["--cluster-memory", "1G", "hello"]).cluster_memory,
                         "1G")
        self.assertEqual(mpirun.parse_args(["--cluster-memory=512", "--cluster-memory", "64M",
                                            "hello"]).cluster_memory, "64M")

    def test_bad_map_by(self):
        for value, words in (("ppr:0:cluster", "needs a positive number N of processes per "
                                               "compute cluster, got 'ppr:0:cluster'"),
                             ("ppr:x:cluster", "got 'ppr:x:cluster'"),
                             ("ppr:4:node", "per compute cluster only (ppr:N:cluster), got "
                                            "'ppr:4:node'"),
                             ("ppr:2", "must be compact, scatter or ppr:N:cluster, got 'ppr:2'")):
            with self.subTest(value=value), self.assertRaises(mpirun.UsageError) as cm:
                mpirun.parse_args(["--map-by", value, "hello"])
            self.assertIn(words, str(cm.exception))

    def test_program_options_pass_through(self):
        o = mpirun.parse_args(["-np", "2", "app.elf", "-np", "3", "--tag-output", "--verbose"])
        self.assertEqual((o.np, o.tag_output, o.verbose, o.apps),
                         (2, False, False,
                          [App("app.elf", ("-np", "3", "--tag-output", "--verbose"), 2)]))
        o = mpirun.parse_args(["--", "-weird-name"])
        self.assertEqual(o.apps, [App("-weird-name", (), 1)])

    def test_mpmd(self):
        """MPI 3.1 section 8.8's form: applications separated by ':', each
        with its own -np, program and arguments, ranks in that order."""
        o = mpirun.parse_args(["-np", "1", "a", ":", "-np", "16", "b", "x", "-np", "2"])
        self.assertEqual(o.apps, [App("a", (), 1), App("b", ("x", "-np", "2"), 16)])
        self.assertEqual(o.np, 17)
        o = mpirun.parse_args(["--map-by", "scatter", "-x", "A=1", "-n", "2", "a", "1", ":",
                               "b", ":", "--np=3", "--", "-c", ":x"])
        self.assertEqual((o.map_by, o.env), ("scatter", {"A": "1"}))
        self.assertEqual(o.apps, [App("a", ("1",), 2), App("b", (), 1), App("-c", (":x",), 3)])

    def test_mpmd_refused(self):
        """What mpirun cannot parse is an error, never a job whose program
        gets ':' and the rest as its arguments."""
        form = "(mpirun [OPTIONS] -np N PROGRAM [ARGS] : -np M PROGRAM2 [ARGS2] ...)"
        for argv, words in (
                (["-np", "1", "a", ":", "-np", "2"], "no program given for application 2 "
                                                     "(after ':') " + form),
                (["-np", "1", "a", ":"], "no program given for application 2 (after ':')"),
                (["a", ":", ":", "b"], "no program given for application 2 (after ':')"),
                ([":", "-np", "2", "b"], "no program given " + form),
                (["-np", "1", "a", ":", "-np", "0", "b"], "-np needs a positive number of "
                                                          "processes, got '0'"),
                (["a", ":", "--map-by", "scatter", "b"], "--map-by is an option of the whole "
                                                         "job: give it before the first program"),
                (["a", ":", "-x", "A=1", "b"], "-x is an option of the whole job"),
                (["a", ":", "--tag-output", "b"], "--tag-output is an option of the whole job"),
                (["a", ":", "--bogus", "b"], "unknown option '--bogus'"),
                (["--ranks", "threads", "a", ":", "b"], "an MPMD launch needs --ranks processes"),
                (["--gdb", "3", "-np", "2", "a", ":", "-np", "1", "b"], "--gdb 3: no such rank "
                                                                       "(the job's ranks are 0 to 2)")):
            with self.subTest(argv=argv), self.assertRaises(mpirun.UsageError) as cm:
                mpirun.parse_args(argv)
            self.assertIn(words, str(cm.exception))

    def test_io_rank(self):
        """--io-rank, in place of -np after a ':', makes the last
        application the job's I/O rank: one process, not counted in -np
        (MPI_COMM_WORLD keeps its size)."""
        o = mpirun.parse_args(["-np", "4", "a", "x", ":", "--io-rank", "srv", "-np", "2"])
        self.assertEqual(o.apps, [App("a", ("x",), 4), App("srv", ("-np", "2"), 1, True)])
        self.assertEqual((o.np, o.io_rank), (4, True))
        o = mpirun.parse_args(["-np", "1", "a", ":", "-np", "2", "b", ":", "--io-rank", "--",
                               "-srv"])
        self.assertEqual((o.np, o.io_rank, o.apps[-1]), (3, True, App("-srv", (), 1, True)))
        self.assertFalse(mpirun.parse_args(["-np", "2", "a", ":", "b"]).io_rank)

    def test_io_rank_refused(self):
        form = "(mpirun [OPTIONS] -np N PROGRAM [ARGS] : --io-rank IO_PROGRAM [IO_ARGS])"
        for argv, words in (
                (["a", ":", "--io-rank"], "--io-rank needs the I/O rank's program " + form),
                (["a", ":", "--io-rank", ":", "b"], "--io-rank needs the I/O rank's program"),
                (["--io-rank", "srv"], "--io-rank starts the I/O rank's application, which "
                                       "follows the world's ranks' " + form),
                (["-np", "2", "--io-rank", "a"], "--io-rank starts the I/O rank's application"),
                (["a", ":", "--io-rank", "-np", "2", "srv"], "--io-rank starts one process, the "
                                                             "I/O rank: give it no -np"),
                (["a", ":", "-np", "1", "--io-rank", "srv"], "give it no -np"),
                (["a", ":", "--io-rank", "srv", ":", "b"], "the I/O rank's application "
                                                           "(--io-rank) must be the last"),
                (["a", ":", "--io-rank", "s", ":", "--io-rank", "t"], "must be the last"),
                (["--ranks", "threads", "a", ":", "--io-rank", "s"], "--io-rank needs --ranks "
                                                                     "processes"),
                (["--gdb", "2", "-np", "2", "a", ":", "--io-rank", "s"], "--gdb 2: no such rank")):
            with self.subTest(argv=argv), self.assertRaises(mpirun.UsageError) as cm:
                mpirun.parse_args(argv)
            self.assertIn(words, str(cm.exception))

    def test_rank_of_application(self):
        apps = [App("a", (), 2), App("b", (), 3)]
        self.assertEqual([mpirun.app_of_rank(apps, r).program for r in range(5)],
                         ["a", "a", "b", "b", "b"])

    def test_bad_values(self):
        cases = [(["-np", "0", "hello"], "-np needs a positive number of processes, got '0'"),
                 (["-np", "x", "hello"], "got 'x'"),
                 (["-np"], "-np needs a value"),
                 (["--map-by", "random", "hello"],
                  "--map-by must be compact, scatter or ppr:N:cluster"),
                 (["--timeout", "-1", "hello"], "--timeout needs a positive number"),
                 (["--platform", "vax", "hello"], "unknown platform 'vax' (qemu-riscv64 or linux64)"),
                 (["--firmware", "bbl", "hello"], "--firmware must be tessera or opensbi, got 'bbl'"),
                 (["--frobnicate", "hello"], "unknown option '--frobnicate'"),
                 (["--tag-output=yes", "hello"], "unknown option '--tag-output=yes'"),
                 (["--local-path", "tcp", "hello"], "--local-path must be shm or ikc, got 'tcp'"),
                 (["--local-path"], "--local-path needs a value"),
                 (["--wait-policy", "poll", "hello"],
                  "--wait-policy must be spin, block or adaptive, got 'poll'"),
                 (["--report-bindings=yes", "hello"], "unknown option '--report-bindings=yes'"),
                 (["--ranks", "foo", "hello"], "--ranks must be processes or threads, got 'foo'"),
                 (["--qemu-threads", "many", "hello"],
                  "--qemu-threads must be single or multi, got 'many'"),
                 (["--ranks", "", "hello"], "--ranks must be processes or threads, got ''"),
                 (["--ranks=Threads", "hello"], "--ranks must be processes or threads"),
                 (["--ranks"], "--ranks needs a value"),
                 (["--cluster-memory", "3M", "hello"],
                  "--cluster-memory 3M: a compute cluster's memory, in MiB as the profile key "
                  "'compute_memory_mb', must be a multiple of 2, got 3"),
                 (["--cluster-memory=1M", "hello"], "must be at least 2, got 1"),
                 (["--cluster-memory", "4096K", "hello"],
                  "--cluster-memory needs a size (e.g. 64M, 512M or 1G; M: MiB, G: GiB, a bare "
                  "number: MiB), got '4096K'"),
                 (["--cluster-memory"], "--cluster-memory needs a value"),
                 (["-np", "2"], "no program given"),
                 ([], "no program given")]
        for argv, words in cases:
            with self.subTest(argv=argv), self.assertRaises(mpirun.UsageError) as cm:
                mpirun.parse_args(argv)
            self.assertIn(words, str(cm.exception))

    def test_bad_eager_thresholds(self):
        for value in ("-1", "65537", "1e3", "0x10", "4k", "", " 8", "\u00b2", "9" * 20):
            with self.subTest(value=value), self.assertRaises(mpirun.UsageError) as cm:
                mpirun.parse_args(["--eager-threshold", value, "hello"])
            self.assertEqual(str(cm.exception), "--eager-threshold needs a number of bytes from 0 "
                                                f"to 65536, got '{value}'")


class EnvTest(unittest.TestCase):
    """-x NAME=VALUE and -x NAME (from mpirun's own environment, as in Open
    MPI): the job's environment, in the order given, the last -x of a name
    winning."""

    def env(self, *argv, environ=None):
        with mock.patch.dict(os.environ, environ or {}):
            return mpirun.parse_args([*argv, "hello"]).env

    def test_forms(self):
        self.assertEqual(self.env(), {})
        self.assertEqual(self.env("-x", "A=1", "-x=B=two words=x", "-x", "E="),
                         {"A": "1", "B": "two words=x", "E": ""})
        self.assertEqual(self.env("-x", "HOME_X", environ={"HOME_X": "/h ome"}), {"HOME_X": "/h ome"})
        self.assertEqual(list(self.env("-x", "A=1", "-x", "B=2", "-x", "A=3").items()),
                         [("B", "2"), ("A", "3")])
        self.assertEqual(self.env("-x", "_a9=\u00e9"), {"_a9": "\u00e9"})

    def test_unset_name_warns_and_passes_nothing(self):
        err = io.StringIO()
        with mock.patch.dict(os.environ), mock.patch.object(sys, "stderr", err):
            os.environ.pop("TESSERA_NO_SUCH_VAR", None)
            o = mpirun.parse_args(["-x", "TESSERA_NO_SUCH_VAR", "-x", "A=1", "hello"])
        self.assertEqual(o.env, {"A": "1"})
        self.assertEqual(err.getvalue(), "mpirun: warning: -x TESSERA_NO_SUCH_VAR: "
                                         "TESSERA_NO_SUCH_VAR is not set in mpirun's "
                                         "environment; not passed\n")

    def test_bad_forms(self):
        for argv in (["-x", "=V"], ["-x", "A B=1"], ["-x", "1A=2"], ["-x", ""], ["-x", "A-B"],
                     ["-x", "-np", "2"], ["-x=", "hello"]):
            with self.subTest(argv=argv), self.assertRaises(mpirun.UsageError) as cm:
                mpirun.parse_args([*argv, "hello"])
            self.assertIn("-x needs NAME=VALUE or NAME, NAME made of letters, digits and '_' "
                          "(not starting with a digit), got '", str(cm.exception))
        with self.assertRaises(mpirun.UsageError) as cm:
            mpirun.parse_args(["-x"])
        self.assertEqual(str(cm.exception), "-x needs NAME=VALUE or NAME")

    def test_after_the_program_it_is_the_programs(self):
        o = mpirun.parse_args(["hello", "-x", "A=1"])
        self.assertEqual((o.env, o.apps[0].args), ({}, ("-x", "A=1")))


class RanksTest(unittest.TestCase):
    """--ranks processes|threads: processes by default, on both platforms."""

    def mode(self, *argv, env=None):
        with mock.patch.dict(os.environ, env or {"TESSERA_PLATFORM": ""}):
            return mpirun.parse_args([*argv, "hello"]).ranks

    def test_values(self):
        self.assertEqual(self.mode("--ranks", "threads"), "threads")
        self.assertEqual(self.mode("--ranks=processes"), "processes")
        self.assertEqual(self.mode("--ranks", "processes", "--ranks", "threads"), "threads")
        self.assertEqual(self.mode("--platform", "linux64", "--ranks", "threads"), "threads")

    def test_default_on_both_platforms(self):
        self.assertEqual(self.mode(), "processes")
        self.assertEqual(self.mode("--platform", "qemu-riscv64"), "processes")
        self.assertEqual(self.mode("--platform", "linux64"), "processes")
        self.assertEqual(self.mode(env={"TESSERA_PLATFORM": "linux64"}), "processes")


class CommandLineTest(unittest.TestCase):
    """tools/mpirun run as a user would: exit 2 and a message for a bad
    command line, 1 for a job that cannot run, before anything boots."""

    def setUp(self):
        # An empty build folder: none of these may need the build.
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        self.env = {"TESSERA_TARGET_OUT": os.path.join(self.out, "target"), "TESSERA_PLATFORM": ""}

    def run_mpirun(self, *args):
        return run_mpirun(*args, env=self.env, timeout=60)

    def test_usage_errors_exit_2(self):
        cases = [(["--map-by", "random", "hello"],
                  "--map-by must be compact, scatter or ppr:N:cluster"),
                 (["-np", "0", "hello"], "-np needs a positive number"),
                 (["--bogus", "hello"], "unknown option '--bogus'"),
                 (["-np", "1", "hello", ":", "-np", "2"],
                  "no program given for application 2 (after ':')"),
                 (["-np", "1", "hello", ":", "--map-by", "scatter", "hello"],
                  "--map-by is an option of the whole job"),
                 (["--platform", "x86", "hello"], "unknown platform 'x86'"),
                 (["--timeout", "soon", "hello"], "--timeout needs a positive number"),
                 (["--local-path", "smh", "hello"], "--local-path must be shm or ikc"),
                 (["--eager-threshold", "70000", "hello"],
                  "--eager-threshold needs a number of bytes from 0 to 65536, got '70000'"),
                 (["--ranks", "foo", "hello"], "--ranks must be processes or threads, got 'foo'"),
                 (["--qemu-threads", "many", "hello"],
                  "--qemu-threads must be single or multi, got 'many'"),
                 (["--map-by", "ppr:0:cluster", "hello"], "--map-by ppr:N:cluster needs a "
                                                          "positive number N"),
                 (["--map-by", "ppr:x:cluster", "hello"], "--map-by ppr:N:cluster needs a "
                                                          "positive number N"),
                 (["--map-by", "ppr:4:node", "hello"],
                  "--map-by ppr:N:RESOURCE: Tessera places processes per compute cluster only "
                  "(ppr:N:cluster), got 'ppr:4:node'"),
                 # Known once the profile is read: above its slots per cluster.
                 (["--map-by", "ppr:5:cluster", "hello"],
                  "--map-by ppr:5:cluster: N must be 1 to 4, the MPI processes a compute cluster "
                  "of profile 'default' can host (5 cores, the master core runs the kernel)"),
                 (["--profile", "mppa256", "--map-by", "ppr:17:cluster", "hello"],
                  "--map-by ppr:17:cluster: N must be 1 to 16"),
                 (["--cluster-memory", "1.5G", "hello"], "--cluster-memory needs a size"),
                 (["--cluster-memory", "0", "hello"], "--cluster-memory 0: a compute cluster's "
                                                      "memory, in MiB as the profile key "
                                                      "'compute_memory_mb', must be at least 2"),
                 (["-np", "1", "hello", ":", "--cluster-memory", "1G", "hello"],
                  "--cluster-memory is an option of the whole job"),
                 # Known once the layout is made: beyond what any host holds.
                 (["--cluster-memory", "15870M", "hello"],
                  "--cluster-memory 15870M: its windows and fabric 0x80200000..0x1000600000 "
                  "overlap the ranks' aliases 0x1000000000..0x1440000000; at most 15868M per "
                  "compute cluster fits"),
                 (["--platform", "linux64", "--cluster-memory", "64G", "hello"],
                  "--cluster-memory 64G: its windows and fabric"),
                 (["-x", "=V", "hello"], "-x needs NAME=VALUE or NAME, NAME made of letters"),
                 (["-x", "A B=1", "hello"], "-x needs NAME=VALUE or NAME, NAME made of letters"),
                 (["-x"], "-x needs NAME=VALUE or NAME"),
                 ([], "no program given")]
        for argv, words in cases:
            with self.subTest(argv=argv):
                rc, out, err = self.run_mpirun(*argv)
                self.assertEqual(rc, 2, err)
                self.assertEqual(out, "")
                self.assertIn(f"mpirun: {words}", err)
                self.assertIn("usage: mpirun", err)

    def test_environment_too_large_refused_first(self):
        """Before anything else is looked at (here: no build, no program)."""
        most = mpirun.mkimage.TS_MANIFEST_ENV
        rc, out, err = self.run_mpirun("-x", "A=" + "v" * 600, "-x", "B=" + "v" * 600, "nothing")
        self.assertEqual((rc, out), (1, ""))
        self.assertEqual(err, f"mpirun: the environment variables take {4 + 1200 + 2} bytes "
                              f"(NAME=VALUE and a NUL each) but the manifest holds at most "
                              f"{most}\n")

    def test_mpiexec_is_mpirun(self):
        """tools/mpiexec, the MPI standard's name (MPI 3.1 section 8.8),
        is mpirun itself and takes the standard's -n."""
        mpiexec = os.path.join(REPO, "tools", "mpiexec")
        self.assertEqual(os.path.realpath(mpiexec), os.path.realpath(MPIRUN))
        help_run = subprocess.run([mpiexec, "--help"], capture_output=True, text=True, timeout=60)
        self.assertEqual((help_run.returncode, help_run.stdout), (0, self.run_mpirun("--help")[1]))
        bad = subprocess.run([mpiexec, "-n", "0", "hello"], capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("-n needs a positive number of processes, got '0'", bad.stderr)
        self.assertEqual(mpirun.parse_args(["-n", "4", "hello"]).np, 4)

    def test_help_lists_every_option(self):
        """Every option the parser takes is in --help's table and in the
        usage line, and every option of the table is one it takes."""
        source = inspect.getsource(mpirun.parse_args)
        taken = (set(mpirun._VALUED) | set(mpirun.APP_OPTIONS) | set(mpirun.FLAGS)
                 | set(mpirun.VALUE_NEEDED) | {mpirun.IO_RANK}
                 | set(re.findall(r'"(--?[a-z][a-z-]*)"', source)))
        rc, out, _ = self.run_mpirun("--help")
        self.assertEqual(rc, 0)
        usage, body = out.split("\n\n", 1)
        table = set()
        for line in body.splitlines():
            m = re.match(r"  (-[^ ].*?)(?:  |$)", line)
            if m:
                table |= set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", m[1]))
        self.assertEqual(table, taken)
        for option in taken - {"-h", "--help", "-v", "--np"}:   # one spelling of each there
            self.assertRegex(usage, rf"[\[|:] ?{re.escape(option)}[ \]|=]")
        self.assertIn(f"at most {mpirun.mkimage.TS_MANIFEST_ENV} bytes", " ".join(body.split()))

    def test_help(self):
        rc, out, _ = self.run_mpirun("--help")
        self.assertEqual(rc, 0)
        self.assertIn("usage: mpirun", out)
        self.assertIn("[--map-by compact|scatter|ppr:N:cluster]", out)
        for option in ("--tag-output", "--local-path", "--eager-threshold", "--report-bindings",
                       "[--ranks processes|threads]", "\n  --ranks M          how the MPI "):
            self.assertIn(option, out)
        words = " ".join(out.split())
        self.assertIn("processes (the default), each a process of its own", words)
        self.assertIn("ppr:N:cluster (Open MPI's per-resource form): at most N per compute "
                      "cluster, filled in order", words)
        self.assertTrue(all(len(line) <= 79 for line in out.split("\n\n", 1)[1].splitlines()))

    def test_too_many_processes_refused_before_boot(self):
        rc, out, err = self.run_mpirun("-np", "21", "hello")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertEqual(err, f"mpirun: {too_many_processes(21)}\n")

    def test_too_many_processes_for_ppr_refused_before_boot(self):
        rc, out, err = self.run_mpirun("-np", "9", "--map-by", "ppr:2:cluster", "hello")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertEqual(err, "mpirun: 9 processes requested but --map-by ppr:2:cluster places "
                              "at most 8: 2 on each of the 4 compute clusters of profile "
                              "'default'\n")

    def test_platform_from_the_environment(self):
        """TESSERA_PLATFORM picks the platform (and so the build folder and
        the checks); --platform wins over it; a bad name is a usage error."""
        rc, _, err = run_mpirun("--profile", "mppa256", "hello", timeout=60,
                                env={"TESSERA_PLATFORM": "linux64", "TESSERA_TARGET_OUT": "",
                                     "TESSERA_OUT": self.out})
        self.assertEqual(rc, 1)
        self.assertIn(f"no {os.path.join(self.out, 'linux64', 'bin', 'hello.elf')}", err)
        rc, _, err = run_mpirun("--platform", "qemu-riscv64", "--firmware", "opensbi",
                                "--profile", "mppa256", "hello",
                                env={"TESSERA_PLATFORM": "linux64"}, timeout=60)
        self.assertEqual(rc, 1)
        self.assertIn("at most 128 (OpenSBI 1.1 limit)", err)
        rc, _, err = run_mpirun("hello", env={"TESSERA_PLATFORM": "vax"}, timeout=60)
        self.assertEqual(rc, 2)
        self.assertIn("mpirun: TESSERA_PLATFORM names an unknown platform 'vax'", err)

    def riscv_elf_header(self):
        """An ELF header of a RISC-V program (nothing else) in out/app.elf."""
        elf = bytearray(64)
        elf[:5] = b"\x7fELF\x02"
        struct.pack_into("<H", elf, 18, 243)
        app = os.path.join(self.out, "app.elf")
        with open(app, "wb") as f:
            f.write(elf)
        return app

    def linux_program(self, machine):
        """out/linux.elf: a program for Linux on `machine`, which asks for
        a dynamic loader (PT_INTERP), as the system's mpicc makes."""
        loader = b"/lib/ld-linux.so.1\0"
        elf = bytearray(64 + 2 * 56)
        elf[:7] = b"\x7fELF\x02\x01\x01"
        struct.pack_into("<HHIQQQIHHH", elf, 16, 2, machine, 1, 0x10000, 64, 0, 0, 64, 56, 2)
        struct.pack_into("<IIQQQQQQ", elf, 64, 3, 4, len(elf), 0, 0, len(loader), len(loader), 1)
        struct.pack_into("<IIQQQQQQ", elf, 120, 1, 5, 0, 0x10000, 0x10000, len(elf), len(elf),
                         0x1000)
        app = os.path.join(self.out, "linux.elf")
        with open(app, "wb") as f:
            f.write(elf + loader)
        return app

    def test_linux_programs_refused_on_both_platforms(self):
        for platform, machine in (("qemu-riscv64", 243), ("linux64", 62)):
            with self.subTest(platform=platform):
                app = self.linux_program(machine)
                bin_dir = os.path.join(self.out, "target", "bin")
                os.makedirs(bin_dir, exist_ok=True)
                for service in ("nameserver", "fileserver"):
                    shutil.copy(app, os.path.join(bin_dir, f"{service}.elf"))
                for part in ("kernel/libtessera_kernel.a", "firmware/firmware.elf"):
                    os.makedirs(os.path.dirname(os.path.join(self.out, "target", part)),
                                exist_ok=True)
                    open(os.path.join(self.out, "target", part), "wb").close()
                rc, _, err = self.run_mpirun("--platform", platform, app)
                self.assertEqual(rc, 1)
                self.assertIn(f"program {app} is a dynamically linked Linux program (it asks "
                              f"for /lib/ld-linux.so.1), not a Tessera one: build it with "
                              f"tools/mpicc --platform {platform}", err)

    def test_linux64_needs_x86_64_programs(self):
        app = self.riscv_elf_header()
        os.makedirs(os.path.join(self.out, "target", "bin"))
        for service in ("nameserver", "fileserver"):
            shutil.copy(app, os.path.join(self.out, "target", "bin", f"{service}.elf"))
        rc, _, err = self.run_mpirun("--platform", "linux64", app)
        self.assertEqual(rc, 1)
        self.assertIn(f"program {app} is not a 64-bit x86-64 ELF, as linux64 needs "
                      f"(build it with tools/mpicc --platform linux64)", err)

    def test_mppa256_refused_on_qemu_under_opensbi(self):
        for how in (["--firmware", "opensbi"], ["--firmware=opensbi"]):
            rc, _, err = self.run_mpirun(*how, "--profile", "mppa256", "hello")
            self.assertEqual(rc, 1)
            self.assertIn("profile 'mppa256' needs 288 harts", err)
            self.assertIn("at most 128 (OpenSBI 1.1 limit)", err)

    def test_bad_profile(self):
        rc, _, err = self.run_mpirun("--profile", "nosuch", "hello")
        self.assertEqual(rc, 1)
        self.assertIn("mpirun: unknown profile 'nosuch'", err)

    def test_profile_whose_tables_cannot_hold_its_ranks(self):
        # Refused before anything boots: a full cluster's 16 ranks and its
        # kernel open 52 inputs on its one hardware mailbox.
        with open(os.path.join(REPO, "build", "profiles", "full-cluster.json")) as f:
            data = json.load(f)
        data["virtual_per_hw"] = 48
        path = os.path.join(self.out, "small-tables.json")
        with open(path, "w") as f:
            json.dump(data, f)
        for platform in ("qemu-riscv64", "linux64"):
            with self.subTest(platform=platform):
                rc, out, err = self.run_mpirun("--platform", platform, "--profile", path, "hello")
                self.assertEqual((rc, out), (1, ""))
                self.assertIn("16 MPI processes open 52 input mailboxes on one hardware "
                              "mailbox, but key 'virtual_per_hw' lets one carry 48: raise it by 4",
                              err)

    def test_missing_program(self):
        rc, _, err = self.run_mpirun("hello")
        self.assertEqual(rc, 1)
        self.assertIn("mpirun: program 'hello' not found", err)
        self.assertIn("run make first", err)
        rc, _, err = self.run_mpirun("/no/such/app.elf")
        self.assertEqual(rc, 1)
        self.assertIn("mpirun: no such program: /no/such/app.elf", err)

    def test_program_of_the_current_folder(self):
        """A name the build has no program of is the current folder's file:
        `mpirun fs64` there gets as far as the (missing) kernel; with no
        such file either, the error names both places looked at."""
        app = self.riscv_elf_header()
        here = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, here)
        shutil.copy(app, os.path.join(here, "fs64"))
        env = dict(os.environ, **self.env)
        for name, error in (("fs64", "libtessera_kernel.a not found; run make first"),
                            ("fs32", f"mpirun: program 'fs32' not found: the build has no "
                                     f"{os.path.join(self.out, 'target', 'bin', 'fs32.elf')} (run "
                                     f"make first to build the tree's programs) and the current "
                                     f"folder ({os.path.realpath(here)}) has no file fs32\n")):
            with self.subTest(name=name):
                p = subprocess.run([MPIRUN, name], cwd=here, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, timeout=60)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn(error, p.stderr)

    def test_missing_kernel(self):
        app = self.riscv_elf_header()
        rc, _, err = self.run_mpirun(app)
        self.assertEqual(rc, 1)
        self.assertIn("libtessera_kernel.a not found; run make first", err)


# A stand-in for QEMU: the kernel's first line, then output without end.
FAKE_QEMU = """
import os, sys
with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
print("[kernel] up")
while True:
    print("hello from rank 0 of 1 on cluster 1", flush=True)
"""

# mpirun's main() with the image builder stubbed out to run FAKE_QEMU.
DRIVER = """
import sys
from tessera import mpirun
qemu = [sys.executable, "-c", sys.argv[1], sys.argv[2]]
mpirun.mkimage.plan_job = lambda *args: None
mpirun.mkimage.resolve_program = lambda spec, *args: spec
mpirun.mkimage.build_images = lambda *args, **kwargs: qemu
sys.exit(mpirun.main(["hello"]))
"""


class ManifestTest(unittest.TestCase):
    """Options reach the boot manifest: --tag-output as TS_MANIFEST_TAG_OUTPUT,
    --local-path ikc as TS_MANIFEST_MPI_LOCAL_IKC, --wait-policy (or the
    platform's default) in the TS_MANIFEST_MPI_WAIT bits, --eager-threshold
    as mpi_eager_max (without it, TS_MANIFEST_MPI_EAGER_ONE_MESSAGE),
    --ranks processes (the default on QEMU) as TS_MANIFEST_RANK_PROCESSES."""

    ONE = mpirun.mkimage.TS_MANIFEST_MPI_EAGER_ONE_MESSAGE
    PROC = mpirun.mkimage.TS_MANIFEST_RANK_PROCESSES

    @staticmethod
    def wait(policy):
        return mpirun.mkimage.WAIT_POLICIES[policy] << mpirun.mkimage.TS_MANIFEST_MPI_WAIT_SHIFT

    def manifest(self, *options):
        """(flags, mpi_eager_max) main() gives the image builder (nothing boots)."""
        kwargs = self.builder_kwargs(*options)
        return kwargs["flags"], kwargs["mpi_eager_max"]

    @staticmethod
    def launched(build):
        """main() with the image builders replaced by `build` and nothing
        booted: the patches, as one context manager."""
        stack = contextlib.ExitStack()
        for target, name, kwargs in ((mpirun.mkimage, "resolve_program", {"side_effect": lambda spec, *args: spec}),
                                     (mpirun.mkimage, "build_images", {"new": build}),
                                     (mpirun.mkimage, "build_payloads", {"new": build}),
                                     (mpirun, "run_machine", {"return_value": (0, False)}),
                                     (mpirun, "run_clusters", {"return_value": (0, False)}),
                                     (mpirun, "globals_warning", {"return_value": None}),
                                     (mpirun, "cluster_cpus", {})):
            stack.enter_context(mock.patch.object(target, name, **kwargs))
        return stack

    def builder_kwargs(self, *options):
        """The keyword arguments main() gives the image builder."""
        build = mock.Mock(return_value=["qemu"])
        with self.launched(build), mock.patch.object(mpirun.mkimage, "plan_job"):
            self.assertEqual(mpirun.main([*options, "hello"]), 0)
        return build.call_args.kwargs

    def test_environment(self):
        """-x reaches the image builder as NAME=VALUE strings, on both platforms."""
        for platform in ("qemu-riscv64", "linux64"):
            env = self.builder_kwargs("--platform", platform, "-x", "A=1", "-x", "B=a b=c")["env"]
            self.assertEqual(env, ["A=1", "B=a b=c"])
        self.assertEqual(self.builder_kwargs()["env"], [])

    def test_defaults(self):
        block = self.wait("block")
        self.assertEqual(self.manifest(), (self.PROC | block | self.ONE, 0))
        self.assertEqual(self.manifest("--local-path", "shm"), (self.PROC | block | self.ONE, 0))

    def test_tag_output(self):
        self.assertEqual(self.manifest("--tag-output"),
                         (mpirun.mkimage.TS_MANIFEST_TAG_OUTPUT | self.PROC | self.wait("block")
                          | self.ONE, 0))

    def test_local_path_ikc(self):
        ikc, tag = mpirun.mkimage.TS_MANIFEST_MPI_LOCAL_IKC, mpirun.mkimage.TS_MANIFEST_TAG_OUTPUT
        block = self.PROC | self.wait("block") | self.ONE
        self.assertEqual(self.manifest("--local-path", "ikc"), (ikc | block, 0))
        self.assertEqual(self.manifest("--local-path=ikc", "--tag-output"), (ikc | tag | block, 0))

    def test_eager_threshold(self):
        # A threshold given holds as it is, on every platform.
        self.assertEqual(self.manifest("--eager-threshold", "1024"),
                         (self.PROC | self.wait("block"), 1024))
        self.assertEqual(self.manifest("--eager-threshold=65536"),
                         (self.PROC | self.wait("block"), 65536))
        self.assertEqual(self.manifest("--platform", "linux64", "--eager-threshold", "100"),
                         (self.PROC | self.wait("adaptive"), 100))

    def test_ranks(self):
        """processes (the default) sets the flag, threads clears it, on
        both platforms; no other flag moves."""
        block = self.wait("block") | self.ONE
        self.assertEqual(self.manifest("--ranks", "processes"), (self.PROC | block, 0))
        self.assertEqual(self.manifest("--ranks", "threads"), (block, 0))
        self.assertEqual(self.manifest("--ranks=threads", "--local-path", "ikc"),
                         (mpirun.mkimage.TS_MANIFEST_MPI_LOCAL_IKC | block, 0))
        self.assertEqual(self.manifest("--platform", "linux64"),
                         (self.PROC | self.wait("adaptive") | self.ONE, 0))
        self.assertEqual(self.manifest("--platform", "linux64", "--ranks", "threads"),
                         (self.wait("adaptive") | self.ONE, 0))

    def test_rank_processes_is_a_flag_of_its_own(self):
        """include/tessera/image.h's bit, apart from every other flag's."""
        m = mpirun.mkimage
        others = (m.TS_MANIFEST_TAG_OUTPUT | m.TS_MANIFEST_MPI_LOCAL_IKC | self.ONE
                  | 3 << m.TS_MANIFEST_MPI_WAIT_SHIFT)
        self.assertEqual(bin(self.PROC).count("1"), 1)
        self.assertEqual(self.PROC & others, 0)
        self.assertEqual(self.PROC, m.IMAGE_H.constant("TS_MANIFEST_RANK_PROCESSES"))

    def test_map_by_ppr(self):
        """ppr:N:cluster reaches the image builder as the compact policy on
        a layout of N slots per cluster (pack_manifest writes both)."""
        build = mock.Mock(return_value=["qemu"])
        with mock.patch.object(mpirun.mkimage, "resolve_program", side_effect=lambda spec, *args: spec), \
                mock.patch.object(mpirun.mkimage, "build_images", build), \
                mock.patch.object(mpirun, "run_machine", return_value=(0, False)), \
                mock.patch.object(mpirun, "globals_warning", return_value=None), \
                mock.patch.dict(os.environ, {"TESSERA_PLATFORM": ""}):
            self.assertEqual(mpirun.main(["-np", "6", "--map-by", "ppr:2:cluster", "hello"]), 0)
        layout, _, _, np, policy = build.call_args.args[:5]
        self.assertEqual((np, policy, layout.slots_per_cluster, layout.ppr), (6, "compact", 2, 2))

    def test_cluster_memory(self):
        """--cluster-memory reaches the image builder as the layout's
        compute windows, which the manifest's cluster descriptions and
        QEMU's -m follow, on both platforms."""
        build = mock.Mock(return_value=["qemu"])
        for platform in ("qemu-riscv64", "linux64"):
            with self.subTest(platform=platform), self.launched(build), \
                    mock.patch("tessera.profile.host_memory_mb", return_value=8192):
                self.assertEqual(mpirun.main(["--platform", platform, "--cluster-memory", "1G",
                                              "-np", "4", "hello"]), 0)
                layout = build.call_args.args[0]
                self.assertEqual([c.window_size for c in layout.clusters],
                                 [8 << 20] + [1 << 30] * 4)
                manifest = mpirun.mkimage.MANIFEST.unpack_from(
                    mpirun.mkimage.pack_manifest(layout, 1, 4, "compact", [], [["hello"]]))
                self.assertEqual([c["window_size"] for c in manifest["clusters"][:5]],
                                 [8 << 20] + [1 << 30] * 4)
                command = mpirun.mkimage.qemu_command(layout, ["img"] * 5, "fw", "table")
                self.assertEqual(command[command.index("-m") + 1], "4114M")

    def test_wait_policy(self):
        for policy in ("spin", "block", "adaptive"):
            self.assertEqual(self.manifest("--wait-policy", policy),
                             (self.PROC | self.wait(policy) | self.ONE, 0))
        # Each platform has its own default; the three values are distinct.
        self.assertEqual(self.manifest("--platform", "linux64"),
                         (self.PROC | self.wait("adaptive") | self.ONE, 0))
        self.assertEqual(len({self.wait(p) for p in ("spin", "block", "adaptive")}), 3)


class ReportBindingsTest(unittest.TestCase):
    """--report-bindings: how the ranks run (--ranks), then one line per
    rank, from the mapping policies."""
    PROCESSES = ("mpirun: --ranks processes: each MPI process is a process of its own, with its "
                 "own global variables, heap and stack")
    THREADS = ("mpirun: --ranks threads: the MPI processes of a compute cluster are threads of "
               "one process and share its global variables")

    def report_all(self, np, policy, *more):
        out = io.StringIO()
        with mock.patch.dict(os.environ, {"TESSERA_PLATFORM": ""}):
            opts = mpirun.parse_args(["-np", str(np), "--map-by", policy, *more, "hello"])
        layout = mpirun.mkimage.plan_job("default", np, opts.platform, ppr=opts.ppr)
        mpirun.report_bindings(layout, opts, mpirun.rank_cpus(opts), out)
        return out.getvalue().splitlines()

    def report(self, np, policy, *more):
        """The rank lines, after the mode's."""
        lines = self.report_all(np, policy, *more)
        self.assertTrue(lines[0].startswith("mpirun: --ranks "), lines[0])
        return lines[1:]

    def test_mode_line(self):
        self.assertEqual(self.report_all(2, "compact")[0], self.PROCESSES)
        self.assertEqual(self.report_all(2, "compact", "--ranks", "processes")[0], self.PROCESSES)
        self.assertEqual(self.report_all(2, "compact", "--ranks", "threads")[0], self.THREADS)
        self.assertEqual(self.report_all(2, "compact", "--platform", "linux64")[0], self.PROCESSES)
        # The rank lines do not change with the mode.
        self.assertEqual(self.report_all(5, "scatter")[1:],
                         self.report_all(5, "scatter", "--ranks", "threads")[1:])

    def test_compact(self):
        lines = self.report(6, "compact")
        self.assertEqual(lines[0], "mpirun: rank 0 -> cluster 1 core 1 "
                                   "(compute cluster 0 of 4, local rank 0)")
        self.assertEqual(lines[3], "mpirun: rank 3 -> cluster 1 core 4 "
                                   "(compute cluster 0 of 4, local rank 3)")
        self.assertEqual(lines[5], "mpirun: rank 5 -> cluster 2 core 2 "
                                   "(compute cluster 1 of 4, local rank 1)")
        self.assertEqual(len(lines), 6)

    def test_io_rank(self):
        """The I/O rank's line follows the world's ranks': cluster 0, the
        core after the services'."""
        out = io.StringIO()
        with mock.patch.dict(os.environ, {"TESSERA_PLATFORM": ""}):
            opts = mpirun.parse_args(["-np", "2", "hello", ":", "--io-rank", "server"])
        layout = mpirun.mkimage.plan_job("default", opts.np, opts.platform)
        mpirun.report_bindings(layout, opts, {}, out)
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), 4)
        self.assertEqual(lines[3], "mpirun: the I/O rank (rank 2 of MPIX_COMM_LOCAL) -> cluster 0 "
                                   "core 3")

    def test_scatter(self):
        lines = self.report(9, "scatter")
        self.assertEqual(lines[3], "mpirun: rank 3 -> cluster 4 core 1 "
                                   "(compute cluster 3 of 4, local rank 0)")
        self.assertEqual(lines[8], "mpirun: rank 8 -> cluster 1 core 3 "
                                   "(compute cluster 0 of 4, local rank 2)")
        self.assertEqual(len(lines), 9)

    def test_ppr(self):
        """ppr:2:cluster: two ranks per compute cluster, on cores 1 and 2."""
        lines = self.report(6, "ppr:2:cluster")
        self.assertEqual([line.split(" -> ")[1] for line in lines],
                         [f"cluster {1 + r // 2} core {1 + r % 2} (compute cluster {r // 2} of 4, "
                          f"local rank {r % 2})" for r in range(6)])
        # ppr:4:cluster, the whole cluster, is compact.
        self.assertEqual(self.report(16, "ppr:4:cluster"), self.report(16, "compact"))

    def test_every_slot_once(self):
        for policy in ("compact", "scatter"):
            with self.subTest(policy=policy):
                lines = self.report(16, policy)
                slots = {line.split(" (")[0].split("-> ")[1] for line in lines}
                self.assertEqual(len(slots), 16)

    def test_host_cpus(self):
        """linux64 --bind-to core: rank r on the r-th usable CPU, round-robin."""
        cpus = [3, 5]
        with mock.patch.object(mpirun.os, "sched_getaffinity", return_value=set(cpus)):
            lines = self.report(3, "compact", "--platform", "linux64", "--bind-to", "core")
        self.assertEqual([line.rsplit(", ", 1)[1] for line in lines],
                         ["host CPU 3)", "host CPU 5)", "host CPU 3)"])


class BindToTest(unittest.TestCase):
    """--bind-to: which ranks are bound to which host CPU, and the CPUS
    argument each cluster process gets."""
    LAYOUT = compute_layout(load_profile("default"))

    def bound(self, *argv, cpus=(0, 1)):
        opts = mpirun.parse_args(["--platform", "linux64", *argv, "hello"])
        layout = mpirun.mkimage.plan_job("default", opts.np, "linux64", ppr=opts.ppr)
        with mock.patch.object(mpirun.os, "sched_getaffinity", return_value=set(cpus)):
            bound = mpirun.rank_cpus(opts)
        return bound, mpirun.cluster_cpus(layout, opts, bound)

    def test_default_binds_when_ranks_fit_the_cpus(self):
        self.assertEqual(self.bound("-np", "2"), ({0: 0, 1: 1}, [None, "-,0,1", None, None, None]))
        self.assertEqual(self.bound("-np", "2", "--map-by", "scatter"),
                         ({0: 0, 1: 1}, [None, "-,0", "-,1", None, None]))

    def test_ppr(self):
        self.assertEqual(self.bound("-np", "3", "--map-by", "ppr:2:cluster", "--bind-to", "core"),
                         ({0: 0, 1: 1, 2: 0}, [None, "-,0,1", "-,0", None, None]))

    def test_default_leaves_oversubscribed_ranks_unbound(self):
        self.assertEqual(self.bound("-np", "3"), ({}, [None] * 5))

    def test_explicit(self):
        self.assertEqual(self.bound("-np", "3", "--bind-to", "core")[1],
                         [None, "-,0,1,0", None, None, None])
        self.assertEqual(self.bound("-np", "2", "--bind-to", "none"), ({}, [None] * 5))

    def test_qemu_is_never_bound(self):
        opts = mpirun.parse_args(["-np", "2", "hello"])
        self.assertEqual(mpirun.rank_cpus(opts), {})
        with self.assertRaises(mpirun.UsageError) as cm:
            mpirun.parse_args(["--bind-to", "core", "hello"])
        self.assertIn("--bind-to core needs --platform linux64", str(cm.exception))

    def test_bad_value(self):
        with self.assertRaises(mpirun.UsageError) as cm:
            mpirun.parse_args(["--bind-to", "socket", "hello"])
        self.assertEqual(str(cm.exception), "--bind-to must be core or none, got 'socket'")

    def test_printed_before_boot_on_stderr(self):
        """Through mpirun itself: stderr has the lines, stdout nothing, and
        the capacity check comes first."""
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        env = {"TESSERA_TARGET_OUT": out}       # no build: it fails after the report
        rc, stdout, err = run_mpirun("-np", "2", "--report-bindings", "/bin/sh", env=env,
                                     timeout=60)
        self.assertEqual((rc, stdout), (1, ""))
        self.assertEqual(err.splitlines()[:3], [
            ReportBindingsTest.PROCESSES,
            "mpirun: rank 0 -> cluster 1 core 1 (compute cluster 0 of 4, local rank 0)",
            "mpirun: rank 1 -> cluster 1 core 2 (compute cluster 0 of 4, local rank 1)"])
        rc, _, err = run_mpirun("-np", "1", "--report-bindings", "--ranks", "threads", "/bin/sh",
                                env=env, timeout=60)
        self.assertEqual(err.splitlines()[:2], [
            ReportBindingsTest.THREADS,
            "mpirun: rank 0 -> cluster 1 core 1 (compute cluster 0 of 4, local rank 0)"])
        rc, _, err = run_mpirun("-np", "17", "--report-bindings", "/bin/sh", env=env, timeout=60)
        self.assertEqual((rc, err), (1, f"mpirun: {too_many_processes(17)}\n"))


class GlobalsWarningTest(unittest.TestCase):
    """Under --ranks threads, when some compute cluster hosts several ranks,
    mpirun warns (one line on stderr, the job still runs) about the writable
    global/static variables the program defines itself: from mpicc's record
    in the ELF, else compared with the runtime's files (mpicc.cfg)."""
    LAYOUT = compute_layout(load_profile("default"))
    # The C library's and the runtime's variables, in every program.
    RUNTIME = [("__malloc_free_list", ".sbss.total", 8), ("none.0", ".data", 4)]
    ADVICE = ('(run with --ranks processes, the default, or declare them _Thread_local; see '
              'docs/programs.md, "Global variables in MPI programs")')

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mpirun-globals-")
        self.addCleanup(shutil.rmtree, self.dir)
        # A build folder whose mpicc.cfg names the runtime's files.
        self.out = os.path.join(self.dir, "target")
        os.mkdir(self.out)
        runtime = self.write("libc.a", fake_elf.archive({"malloc.o": fake_elf.elf(self.RUNTIME)}))
        with open(os.path.join(self.out, "mpicc.cfg"), "w") as f:
            f.write(f"cc=/bin/false\nstartfiles=\nlibs={runtime}\nsyslibs=-Wl,--start-group;"
                    f"{runtime};-Wl,--end-group\n")
        env = mock.patch.dict(os.environ, {"TESSERA_TARGET_OUT": self.out, "TESSERA_PLATFORM": ""})
        env.start()
        self.addCleanup(env.stop)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def program(self, own=(), record=None):
        """A linked program's ELF: the runtime's variables, `own` ones
        ([(name, size)], in .bss), and mpicc's record (None: none)."""
        symbols = self.RUNTIME + [(name, ".bss", size) for name, size in own]
        return self.write("app.elf", fake_elf.elf(symbols, record, local=("none.0",)))

    def pi(self):
        """A student's pi, built by mpicc: its globals are in the record."""
        return self.program([("sum", 8), ("n", 4), ("calls.0", 4)], record=["sum", "n", "calls.0"])

    def warning(self, program, *argv):
        opts = mpirun.parse_args([*argv, program])
        return mpirun.globals_warning(self.LAYOUT, opts, program)

    def test_threads_with_a_shared_cluster(self):
        self.assertEqual(
            self.warning(self.pi(), "-np", "4", "--ranks", "threads"),
            "mpirun: warning: --ranks threads: the MPI processes of a compute cluster share the "
            f"program's writable global/static variables: calls, n, sum {self.ADVICE}")

    def test_not_with_processes(self):
        self.assertIsNone(self.warning(self.pi(), "-np", "4"))
        self.assertIsNone(self.warning(self.pi(), "-np", "16", "--ranks", "processes"))

    def test_not_when_every_cluster_has_one_rank(self):
        self.assertIsNone(self.warning(self.pi(), "--ranks", "threads"))
        self.assertIsNone(self.warning(self.pi(), "-np", "4", "--map-by", "scatter",
                                       "--ranks", "threads"))
        # A fifth rank goes to the first cluster again.
        self.assertIsNotNone(self.warning(self.pi(), "-np", "5", "--map-by", "scatter",
                                          "--ranks", "threads"))
        self.assertIsNotNone(self.warning(self.pi(), "-np", "2", "--ranks", "threads"))

    def test_shares_a_cluster(self):
        def shared(np, policy):
            opts = mpirun.parse_args(["-np", str(np), "--map-by", policy, "hello"])
            layout = mpirun.mkimage.plan_job("default", np, opts.platform, ppr=opts.ppr)
            return mpirun.shares_a_cluster(layout, opts)
        self.assertEqual([shared(np, "compact") for np in (1, 2, 16)], [False, True, True])
        self.assertEqual([shared(np, "scatter") for np in (1, 4, 5, 16)],
                         [False, False, True, True])
        self.assertEqual([shared(np, "ppr:1:cluster") for np in (1, 4)], [False, False])
        self.assertEqual([shared(np, "ppr:2:cluster") for np in (1, 2)], [False, True])

    def test_not_for_a_program_without_globals_of_its_own(self):
        """The C library's and the runtime's variables are no reason to warn:
        neither with mpicc's record, nor without (compared with the runtime)."""
        for record in ([], None):
            with self.subTest(record=record):
                app = self.program(record=record)
                self.assertIsNone(self.warning(app, "-np", "16", "--ranks", "threads"))

    def test_program_not_built_by_mpicc(self):
        """No record (e.g. the build's own programs): the ELF's variables
        that the runtime's files do not define."""
        app = self.program([("total", 4), ("counts.1", 32)])
        self.assertIn("variables: counts, total (",
                      self.warning(app, "-np", "2", "--ranks", "threads"))
        # Without a build to compare with, it cannot tell: no warning.
        os.remove(os.path.join(self.out, "mpicc.cfg"))
        self.assertIsNone(self.warning(app, "-np", "2", "--ranks", "threads"))

    def test_record_wins(self):
        """The record lists the variables the linker kept; a name it lists
        that the program no longer has (--gc-sections) is left out."""
        app = self.program([("total", 4), ("kept", 4)], record=["kept", "dropped"])
        self.assertIn("variables: kept (", self.warning(app, "-np", "2", "--ranks", "threads"))

    def test_many_names(self):
        app = self.program([(f"v{i:02}", 4) for i in range(11)],
                           record=[f"v{i:02}" for i in range(11)])
        self.assertIn("variables: v00, v01, v02, v03, v04, v05, v06, v07, ... (11 in all) (run",
                      self.warning(app, "-np", "2", "--ranks", "threads"))

    def launch(self, *argv):
        """(status, stderr) of main() on the argv, nothing built or booted;
        asserts that the job was started."""
        run = mock.Mock(return_value=(0, False))
        err = io.StringIO()
        work = tempfile.mkdtemp(dir=self.dir)          # --verbose keeps it
        with mock.patch.object(mpirun.mkimage, "build_images", return_value=["qemu"]), \
                mock.patch.object(mpirun, "run_machine", run), \
                mock.patch.object(mpirun.tempfile, "mkdtemp", return_value=work), \
                mock.patch.object(sys, "stderr", err):
            status = mpirun.main(list(argv))
        run.assert_called_once()
        return status, err.getvalue()

    def test_at_launch_one_line_and_the_job_runs(self):
        status, err = self.launch("-np", "4", "--ranks", "threads", self.pi())
        self.assertEqual(status, 0)
        self.assertEqual(err.splitlines(),
                         [self.warning(self.pi(), "-np", "4", "--ranks", "threads")])
        status, err = self.launch("-np", "4", "--report-bindings", "--ranks", "threads", self.pi())
        self.assertEqual(len(err.splitlines()), 6, err)     # mode, 4 ranks, warning
        self.assertTrue(err.splitlines()[5].startswith("mpirun: warning: --ranks threads: "), err)
        self.assertEqual(self.launch("-np", "4", self.pi()), (0, ""))
        self.assertEqual(self.launch("-np", "4", "--ranks", "threads", self.program(record=[])),
                         (0, ""))

    def test_verbose_says_when_it_cannot_tell(self):
        os.remove(os.path.join(self.out, "mpicc.cfg"))
        app = self.program([("total", 4)])
        self.assertEqual(self.launch("-np", "2", "--ranks", "threads", app), (0, ""))
        _, err = self.launch("-np", "2", "--ranks", "threads", "--verbose", app)
        self.assertIn(f"mpirun: cannot tell the global variables of {app} from the runtime's (not "
                      f"built by tools/mpicc, and no build to compare with): not checked\n", err)

    def test_runtime_files_from_the_build(self):
        self.assertEqual(mpirun.runtime_files("qemu-riscv64"),
                         [os.path.join(self.dir, "libc.a")] * 2)
        os.remove(os.path.join(self.out, "mpicc.cfg"))
        self.assertEqual(mpirun.runtime_files("qemu-riscv64"), [])


class BrokenPipeTest(unittest.TestCase):
    def test_every_command_ends_quietly(self):
        """`tools/mpicc --help | head -1`: every command of tools/ whose
        reader has gone exits 141, as a shell reports SIGPIPE, without a
        traceback. The pipe's read end is closed before the command
        starts, so its first write fails."""
        commands = [["mpirun", "--help"], ["mpiexec", "--help"], ["mpicc", "--help"],
                    ["mpicxx", "--help"], ["mkimage.py", "--help"], ["trace_summary.py", "--help"],
                    ["check_layers.py", "--graph"]]
        for name, *args in commands:
            with self.subTest(command=name):
                read, write = os.pipe()
                os.close(read)
                try:
                    p = subprocess.run([os.path.join(REPO, "tools", name), *args], stdout=write,
                                       stderr=subprocess.PIPE, text=True, timeout=60)
                finally:
                    os.close(write)
                self.assertEqual((p.returncode, p.stderr), (141, ""))

    def test_reader_gone(self):
        """`mpirun ... | head -1`: QEMU stopped, exit 141, no traceback."""
        with tempfile.TemporaryDirectory() as tmp:
            pidfile = os.path.join(tmp, "qemu.pid")
            p = subprocess.Popen([sys.executable, "-c", DRIVER, FAKE_QEMU, pidfile],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.stdout.readline(), "hello from rank 0 of 1 on cluster 1\n")
            p.stdout.close()                 # as head does after its line
            err = p.stderr.read()
            p.stderr.close()
            self.assertEqual(p.wait(timeout=30), 141, err)
            self.assertEqual(err, "")
            with open(pidfile) as f:
                qemu = int(f.read())
        with self.assertRaises(ProcessLookupError):
            os.kill(qemu, 0)


class GdbOptionsTest(unittest.TestCase):
    """--gdb R, --gdb-server and --gdb-batch FILE: what goes together, the
    rank's range, what reaches the manifest, and the timeout each gets."""

    def test_modes(self):
        o = mpirun.parse_args(["-np", "3", "--gdb", "2", "hello"])
        self.assertEqual((o.gdb_rank, mpirun.gdb_mode(o)), (2, "interactive"))
        o = mpirun.parse_args(["-np", "3", "--gdb=0", "--gdb-server", "hello"])
        self.assertEqual((o.gdb_rank, mpirun.gdb_mode(o)), (0, "server"))
        o = mpirun.parse_args(["-np", "2", "--gdb", "1", "--gdb-batch", __file__, "hello"])
        self.assertEqual((o.gdb_batch, mpirun.gdb_mode(o)), (__file__, "batch"))
        self.assertIsNone(mpirun.gdb_mode(mpirun.parse_args(["hello"])))

    def test_bad_uses_are_usage_errors(self):
        for args, said in (
                (["-np", "3", "--gdb", "3"], "--gdb 3: no such rank (the job's ranks are 0 to 2)"),
                (["--gdb", "-1"], "--gdb needs a rank (0, 1, ...), got '-1'"),
                (["--gdb", "x"], "--gdb needs a rank (0, 1, ...), got 'x'"),
                (["--gdb-server"], "--gdb-server needs --gdb RANK"),
                (["--gdb-batch", __file__], "--gdb-batch needs --gdb RANK"),
                (["--gdb", "0", "--gdb-server", "--gdb-batch", __file__],
                 "--gdb-server and --gdb-batch do not go together"),
                (["--gdb", "0", "--gdb-batch", "/no/such.gdb"],
                 "--gdb-batch: no such file: /no/such.gdb")):
            with self.subTest(args=args):
                rc, out, err = run_mpirun(*args, "hello")
                self.assertEqual((rc, out), (2, ""))
                self.assertIn(f"mpirun: {said}", err)
                self.assertIn("usage: mpirun", err)

    def run_main(self, *options):
        """(the image builder's keyword arguments, the timeout the job got,
        the watch it got) for mpirun's options; nothing boots, no gdb."""
        build = mock.Mock(return_value=["qemu"])
        run = mock.Mock(return_value=(0, False))
        with mock.patch.object(mpirun.mkimage, "plan_job"), \
                mock.patch.object(mpirun.mkimage, "resolve_program", side_effect=lambda spec, *args: spec), \
                mock.patch.object(mpirun.mkimage, "build_images", build), \
                mock.patch.object(mpirun, "run_machine", run), \
                mock.patch.object(mpirun, "globals_warning", return_value=None), \
                mock.patch.object(mpirun.gdb, "check_gdb", return_value="gdb"):
            self.assertEqual(mpirun.main([*options, "hello"]), 0)
        return build.call_args.kwargs, run.call_args.args[1], run.call_args.kwargs["watch"]

    def test_manifest_and_timeout(self):
        hold = mpirun.mkimage.TS_MANIFEST_HOLD_RANK
        kwargs, timeout, watch = self.run_main("-np", "4", "--timeout", "9")
        self.assertEqual((kwargs["flags"] & hold, kwargs["hold_rank"], kwargs["gdb_port"]),
                         (0, 0, 0))
        self.assertEqual((timeout, watch), (9.0, None))
        kwargs, timeout, watch = self.run_main("-np", "4", "--timeout", "9", "--gdb", "3")
        self.assertEqual((kwargs["flags"] & hold, kwargs["hold_rank"]), (hold, 3))
        self.assertGreater(kwargs["gdb_port"], 0)
        self.assertIsNone(timeout)                      # the interactive session is the user's
        self.assertIsNotNone(watch)
        _, timeout, _ = self.run_main("-np", "4", "--timeout", "9", "--gdb", "3", "--gdb-server")
        self.assertIsNone(timeout)
        _, timeout, _ = self.run_main("-np", "4", "--timeout", "9", "--gdb", "3",
                                      "--gdb-batch", __file__)
        self.assertEqual(timeout, 9.0)                  # batch: the job's timeout holds

    def test_script(self):
        """The gdb commands: symbols of the kernel and of the program, the
        target, then release the held rank and stop in its main, in its
        thread only."""
        qemu = mpirun.gdb.script("qemu-riscv64", "/p/hello.elf", "127.0.0.1:1234",
                                         "/w/cluster2.elf").splitlines()
        self.assertEqual(qemu[qemu.index("file /w/cluster2.elf") + 1:],
                         ["target remote 127.0.0.1:1234", "add-symbol-file /p/hello.elf",
                          "tbreak tessera_debug_held", "continue",
                          'printf "rank %d is held in its kernel (tessera_debug_held); '
                          'releasing it to its main\\n", tessera_debug_held_rank',
                          "set variable tessera_debug_release = 1",
                          'eval "tbreak main thread %d", $_thread', "continue"])

    def test_held_line(self):
        """The console line mpirun waits for is the one the kernel writes."""
        with open(os.path.join(REPO, "kernel", "core", "debug_hold.cpp")) as f:
            source = f.read()
        fmt = re.search(r'kprintf\("(\[kernel\] cluster %d core %d: rank %d held[^"]*)\\n"',
                        source)[1]
        m = mpirun.gdb.HELD.search(fmt.replace("%d", "{}").format(2, 3, 17))
        self.assertEqual(m.groups(), ("2", "3", "17"))


class SerialFilterTest(unittest.TestCase):
    LINES = ["", "OpenSBI v1.1", "Boot HART ID : 0", "[kernel] cluster 0 up",
             "hello from rank 0 of 1 on cluster 1", "[kernel] job done: 0", "bye"]

    def test_quiet(self):
        f = mpirun.SerialFilter(verbose=False)
        self.assertEqual([l for l in self.LINES if f.keep(l)],
                         ["hello from rank 0 of 1 on cluster 1", "bye"])

    def test_verbose_shows_everything(self):
        f = mpirun.SerialFilter(verbose=True)
        self.assertEqual([l for l in self.LINES if f.keep(l)], self.LINES)

    def test_nothing_before_the_kernel(self):
        f = mpirun.SerialFilter()
        self.assertFalse(f.keep("hello"))
        self.assertFalse(f.kernel_seen)

    def test_no_banner_on_linux64(self):
        f = mpirun.SerialFilter(banner=False)
        self.assertEqual([l for l in ["early", "[kernel] up", "late"] if f.keep(l)],
                         ["early", "late"])


if __name__ == "__main__":
    unittest.main()
