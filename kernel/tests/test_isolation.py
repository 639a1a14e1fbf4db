#!/usr/bin/python3
"""On-target tests of qemu-riscv64's M-mode firmware: its SBI calls, and
clusters isolated by PMP (hal/arch/qemu-riscv64/firmware/).

The jobs boot with TS_MANIFEST_PLATFORM_TESTS, which mpirun never sets: it
makes cluster 0's master check the firmware's SBI answers at boot (one
"sbi check" line) and enables TS_SYS_ISOLATION_PROBE, with which
fault_test's rank 0 (cluster 1) tries to reach cluster 2's window, from
user space (`foreign`) or through its kernel (`kforeign`). Under OpenSBI,
which sets no PMP, the same probes read the other cluster's image magic:
the probe really reaches that memory, and only the firmware stops it.
"""
import io
import os
import re
import struct
import tempfile
import unittest

from tessera import launch, mkimage
from tessera.testing import PLATFORM, mpirun, run_job, target_out

STATUS_FAULT = 139
STATUS_PANIC = 126
FLAGS = mkimage.TS_MANIFEST_PLATFORM_TESTS | mkimage.TS_MANIFEST_RANK_PROCESSES
SBI_CHECK = re.compile(r"^\[kernel\] sbi check: firmware impl (0x[0-9a-f]+) .*: (\d+) checks, "
                       r"(\d+) failed; S-mode timer: (stimecmp|SBI set_timer)$", re.M)
IMPL_TESSERA = 0x54455353
IMAGE_MAGIC = f"{mkimage.TS_IMAGE_MAGIC:#x}"
# Where the probe maps the other cluster's first page for user space; the
# process loads its second word (the image's magic).
PROBE_ADDR = f"{mkimage.SYSCALL_H.constant('TS_PROBE_USER_VA') + 4:#x}"


def fault_job(kind, firmware):
    """(status, output) of fault_test KIND, -np 2 scatter: rank 0 on cluster 1."""
    layout = mkimage.plan_job("default", 2, firmware=firmware)
    prog = os.path.join(target_out(), "bin", "fault_test.elf")
    return run_job(layout, prog, [kind], 2, "scatter", timeout=120, flags=FLAGS)


@unittest.skipUnless(PLATFORM == "qemu-riscv64", "the firmware and PMP are qemu-riscv64's")
class IsolationTest(unittest.TestCase):
    def test_user_access_to_another_window_kills_the_process(self):
        rc, out = fault_job("foreign", "tessera")
        self.assertRegex(out, r"(?m)^tessera: rank 0 \(cluster 1 thread \d+\): process fault_test "
                              rf"killed: load access fault at pc=0x[0-9a-f]+ addr={PROBE_ADDR}$")
        self.assertNotIn("read cluster", out)
        self.assertIn("rank 1 survived", out)          # the job went on elsewhere
        self.assertNotIn("kernel panic", out)
        self.assertEqual(rc, STATUS_FAULT, out)

    def test_kernel_access_to_another_window_panics(self):
        layout = mkimage.plan_job("default", 2)
        other = layout.clusters[2].window_base
        rc, out = fault_job("kforeign", "tessera")
        self.assertRegex(out, rf"(?m)^tessera: kernel panic: cluster 1 core 0: load access fault "
                              rf"at pc=0x[0-9a-f]+ addr={other + 4:#x}$")
        self.assertNotIn("the kernel read", out)
        self.assertEqual(rc, STATUS_PANIC, out)

    def test_without_pmp_the_probes_reach_the_other_window(self):
        for kind, said in (("foreign", "read cluster 2's memory"),
                           ("kforeign", "the kernel read cluster 2's memory")):
            with self.subTest(kind=kind):
                rc, out = fault_job(kind, "opensbi")
                self.assertIn(f"{said}: {IMAGE_MAGIC}", out)
                self.assertEqual(rc, 0, out)

    def test_probe_refused_without_the_test_flag(self):
        rc, out = mpirun("-np", "2", "--map-by", "scatter", "--timeout", "120", "fault_test",
                         "foreign")
        self.assertIn("isolation probe refused: -1", out)    # -TS_EPERM
        self.assertEqual(rc, 0, out)


@unittest.skipUnless(PLATFORM == "qemu-riscv64", "the firmware is qemu-riscv64's")
class SbiTest(unittest.TestCase):
    def check(self, out):
        m = SBI_CHECK.search(out)
        self.assertIsNotNone(m, out)
        self.timer = m.group(4)
        return int(m.group(1), 16), int(m.group(2)), int(m.group(3))

    def boot_hello(self, firmware, extra=()):
        """Output of hello under `firmware`, QEMU given `extra` arguments."""
        layout = mkimage.plan_job("default", 1, firmware=firmware)
        hello = os.path.join(target_out(), "bin", "hello.elf")
        with tempfile.TemporaryDirectory(prefix="tessera-sbi-") as tmp:
            cmd = mkimage.build_images(layout, hello, [], 1, "compact", tmp, flags=FLAGS)
            out = io.StringIO()
            rc, _ = launch.run_machine(cmd + list(extra), 120, verbose=True, out=out)
        self.assertEqual(rc, 0, out.getvalue())
        return out.getvalue()

    def test_our_firmware_answers_as_the_spec_says(self):
        out = self.boot_hello("tessera")
        self.assertIn("Sstc timer", out)
        impl, checks, failed = self.check(out)
        self.assertEqual((impl, failed), (IMPL_TESSERA, 0), out)
        self.assertGreaterEqual(checks, 19, out)
        self.assertEqual(self.timer, "stimecmp", out)     # Sstc: the HAL's own timer

    def test_timer_without_sstc(self):
        # Harts without Sstc: set_timer goes through the ACLINT MTIMER and
        # the firmware forwards its interrupt to S-mode.
        out = self.boot_hello("tessera", ["-cpu", "rv64,sstc=false"])
        self.assertIn("ACLINT MTIMER timer", out)
        impl, _, failed = self.check(out)
        self.assertEqual((impl, failed), (IMPL_TESSERA, 0), out)
        self.assertEqual(self.timer, "SBI set_timer", out)

    def test_opensbi_passes_the_generic_checks(self):
        impl, checks, failed = self.check(self.boot_hello("opensbi"))
        self.assertEqual((impl, failed), (1, 0))           # OpenSBI's id is 1
        self.assertGreaterEqual(checks, 14)


def patch_at_base(path, at, data):
    """Overwrites bytes `at` bytes into the first PT_LOAD segment of ELF `path`."""
    with open(path, "r+b") as f:
        elf = f.read()
        phoff, = struct.unpack_from("<Q", elf, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
        for i in range(phnum):
            ptype, _, offset = struct.unpack_from("<IIQ", elf, phoff + i * phentsize)
            if ptype == 1:
                f.seek(offset + at)
                f.write(data)
                return
    raise AssertionError(f"{path}: no PT_LOAD segment")


@unittest.skipUnless(PLATFORM == "qemu-riscv64", "the firmware is qemu-riscv64's")
class FirmwareBootTest(unittest.TestCase):
    """The firmware refuses a machine whose images or table are wrong,
    before any hart enters S-mode (exit status 125, as the HAL's check)."""

    def boot_spoiled(self, spoil):
        layout = mkimage.plan_job("default", 1)
        hello = os.path.join(target_out(), "bin", "hello.elf")
        with tempfile.TemporaryDirectory(prefix="tessera-fw-") as tmp:
            cmd = mkimage.build_images(layout, hello, [], 1, "compact", tmp)
            spoil(tmp)
            out = io.StringIO()
            rc, timed_out = launch.run_machine(cmd, 60, verbose=True, out=out)
        self.assertFalse(timed_out, out.getvalue())
        return rc, out.getvalue()

    def test_bad_image_magic(self):
        rc, out = self.boot_spoiled(
            lambda d: patch_at_base(os.path.join(d, "cluster2.elf"), 4, b"XXXX"))
        self.assertIn("[kernel] boot: cluster 2: bad image magic, not starting the machine", out)
        self.assertNotIn("cluster 0 up", out)
        self.assertEqual(rc, 125, out)

    def test_bad_table(self):
        # A table without its magic, and one whose fabric (S-mode may
        # write it) lies over the firmware.
        for field, value in (("magic", struct.pack("<I", 0)),
                             ("fabric_base", struct.pack("<Q", mkimage.TS_FW_BASE))):
            with self.subTest(field=field):
                def spoil(d):
                    with open(os.path.join(d, "firmware.table"), "r+b") as f:
                        f.seek(mkimage.FW_TABLE.offsets[field])
                        f.write(value)
                rc, out = self.boot_spoiled(spoil)
                self.assertIn("[kernel] firmware: no valid table at 0x801ff000, not starting the "
                              "machine", out)
                self.assertNotIn("cluster 0 up", out)
                self.assertEqual(rc, 125, out)


if __name__ == "__main__":
    unittest.main()
