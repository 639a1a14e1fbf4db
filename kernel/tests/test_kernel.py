#!/usr/bin/python3
"""On-target tests of the kernel: user faults kill only the faulting
process, with a report, and the job's status says so; kernel calls with bad
arguments get error codes, and random ones all return with known results."""
import os
import re
import struct
import tempfile
import unittest

from tessera import mkimage
from tessera.testing import PLATFORM, mpirun, run_job, target_out

STATUS_FAULT = 139
STATUS_PANIC = 126

# kind -> (cause in the report, faulting address or None, what the report
# says of the address)
FAULTS = {
    "load": ("load page fault", "0x10", ""),
    "kernel": ("load page fault", "0x80200000", " (outside the user area)"),
    "text": ("store page fault", None, " (text)"),
    "illegal": ("illegal instruction", None, ""),
    "stack": ("store page fault", None, " (stack overflow into the guard area)"),
    "misaligned": ("load address misaligned", None, ""),
    "range": ("load page fault", "0x4000000000", " (outside the user area)"),
}
if PLATFORM == "linux64":
    # A hosted cluster's kernel shares its process with the user program,
    # so its window (0x80200000) is readable there; and x86-64 has no
    # misaligned-access fault.
    del FAULTS["kernel"], FAULTS["misaligned"]


class FaultTest(unittest.TestCase):
    def run_fault(self, *args):
        # scatter: rank 0 on cluster 1 faults, rank 1 on cluster 2 goes on.
        return mpirun("-np", "2", "--map-by", "scatter", "--timeout", "120", "fault_test", *args)

    def test_each_fault_kills_only_its_process(self):
        for kind, (cause, addr, place) in FAULTS.items():
            with self.subTest(kind=kind):
                rc, out = self.run_fault(kind)
                report = re.search(r"^tessera: rank 0 \(cluster 1 thread \d+\): process fault_test killed: "
                                   r"(.+) at pc=0x[0-9a-f]+ addr=(0x[0-9a-f]+)(.*)$", out, re.M)
                self.assertIsNotNone(report, out)
                self.assertEqual(report.group(1), cause, out)
                self.assertEqual(report.group(3), place, out)
                if addr:
                    self.assertEqual(report.group(2), addr, out)
                self.assertNotIn("rank 0 survived", out)
                self.assertIn("rank 1 running", out)
                self.assertNotIn("kernel panic", out)
                self.assertEqual(rc, STATUS_FAULT, out)

    def test_fault_ends_what_still_runs(self):
        # wait: rank 1 waits for a message from the killed rank 0; the job
        # must still end at once with the fault's status, not time out.
        # thread: rank 0 starts a thread just before it faults; the kill
        # must end it too.
        for mode, absent in (("wait", "survived"), ("thread", "no core")):
            with self.subTest(mode=mode):
                rc, out = self.run_fault("load", mode)
                self.assertIn("process fault_test killed: load page fault", out)
                self.assertNotIn(absent, out)
                self.assertEqual(rc, STATUS_FAULT, out)

    def test_report_names_the_calls_after_the_output(self):
        # The backtrace, from the frame pointers, with mpirun's places from
        # the program's debug information; after the rank's own last line.
        rc, out = self.run_fault("chain")
        self.assertEqual(rc, STATUS_FAULT, out)
        lines = out.splitlines()
        said = lines.index("rank 0 calls chain_a")
        report = next(i for i, line in enumerate(lines) if "process fault_test killed" in line)
        self.assertLess(said, report, out)
        self.assertRegex(lines[report + 1], r"^tessera: rank 0 \(cluster 1 thread \d+\): backtrace:$")
        frames = [re.match(r"^    #(\d) 0x[0-9a-f]+ in (\w+)(?: at (\S+):(\d+))?", line)
                  for line in lines[report + 2:report + 6]]
        self.assertTrue(all(frames), out)
        self.assertEqual([f.group(2) for f in frames], ["chain_c", "chain_b", "chain_a", "main"], out)
        source = os.path.join(os.path.dirname(os.path.realpath(__file__)), "fault_test.c")
        with open(source) as f:
            text = f.read().splitlines()
        file, line = frames[0].group(3), frames[0].group(4)
        self.assertTrue(file and file.endswith("fault_test.c"), out)
        self.assertIn("the faulting line", text[int(line) - 1], out)

    def test_stack_grows_on_demand(self):
        rc, out = self.run_fault("grow")
        self.assertNotIn("killed", out)
        self.assertIn("rank 0 grew its stack to 700 KiB (175 pages checked)", out)
        self.assertIn("rank 0 survived", out)
        self.assertEqual(rc, 0, out)

    def test_no_fault_no_report(self):
        rc, out = self.run_fault("none")
        self.assertNotIn("killed", out)
        self.assertIn("rank 0 survived", out)
        self.assertIn("rank 1 survived", out)
        self.assertEqual(rc, 0, out)


PT_LOAD = 1


def patched_elf(src, dst, **fields):
    """Copies ELF src to dst with fields (p_vaddr, p_flags) of its first
    PT_LOAD segment replaced."""
    data = bytearray(open(src, "rb").read())
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        at = phoff + i * phentsize
        if struct.unpack_from("<I", data, at)[0] == PT_LOAD:
            if "p_flags" in fields:
                struct.pack_into("<I", data, at + 4, fields["p_flags"])
            if "p_vaddr" in fields:
                struct.pack_into("<Q", data, at + 16, fields["p_vaddr"])
            break
    with open(dst, "wb") as f:
        f.write(data)


class ElfLoaderTest(unittest.TestCase):
    """Programs the loader must refuse: the cluster reports 127, no panic."""

    def test_bad_segments_are_refused(self):
        hello = os.path.join(target_out(), "bin", "hello.elf")
        cases = {"wrapping address": {"p_vaddr": 0xFFFFFFFFFFFFF000},
                 "kernel's shared tables": {"p_vaddr": 0xBFE00000},
                 "no permission": {"p_flags": 0},
                 "writable and executable": {"p_flags": 7}}
        with tempfile.TemporaryDirectory() as tmp:
            for what, fields in cases.items():
                with self.subTest(what=what):
                    bad = os.path.join(tmp, "bad.elf")
                    patched_elf(hello, bad, **fields)
                    rc, out = mpirun("-np", "1", "--timeout", "60", bad)
                    self.assertIn("tessera: cluster 1: cannot start bad", out)
                    self.assertNotIn("panic", out)
                    self.assertEqual(rc, 127, out)


# How a rank may run on the platform (mpirun --ranks): alone on its
# cluster, as a process of its own or as the one thread of its process.
RANKS_MODES = ("processes", "threads")


class SyscallTest(unittest.TestCase):
    def test_bad_arguments_get_error_codes(self):
        for ranks in RANKS_MODES:
            with self.subTest(ranks=ranks):
                rc, out = mpirun("-np", "1", "--ranks", ranks, "--timeout", "120", "syscall_test")
                self.assertIn("syscall checks: 0 failed", out, out)
                self.assertEqual(rc, 0, out)

    def test_random_calls_all_return_known_results(self):
        # 5000 random calls (fixed seed): each returns, with a result >= 0
        # or a known error code, and the kernel still works afterwards.
        # (Every rank of a full cluster at once: test_kcall_fuzz_ranks.py.)
        for ranks in RANKS_MODES:
            with self.subTest(ranks=ranks):
                rc, out = mpirun("-np", "1", "--ranks", ranks, "--timeout", "60", "kcall_fuzz")
                self.assertIn("kcall_fuzz: 5000 calls, 0 unexpected", out, out)
                self.assertNotIn("killed", out)
                self.assertNotIn("panic", out)
                self.assertEqual(rc, 0, out)


class PanicTest(unittest.TestCase):
    def test_panic_reports_and_powers_off(self):
        # A boot manifest the tools never write (an unknown mapping policy):
        # the compute clusters' kernels must panic with a report and power
        # the machine off with the panic status, not hang.
        policies = dict(mkimage.MAP_POLICIES)
        mkimage.MAP_POLICIES["bogus"] = 7
        try:
            layout = mkimage.plan_job("default", 1)
            hello = os.path.join(target_out(), "bin", "hello.elf")
            rc, out = run_job(layout, hello, [], 1, "bogus", timeout=120)
        finally:
            mkimage.MAP_POLICIES.clear()
            mkimage.MAP_POLICIES.update(policies)
        self.assertRegex(out, r"tessera: kernel panic: cluster \d+ core 0: "
                              r"the boot manifest names an unknown mapping policy")
        self.assertEqual(rc, STATUS_PANIC, out)


if __name__ == "__main__":
    unittest.main()
