#!/usr/bin/python3
"""The image builder and mpirun on QEMU with a stand-in kernel (stub/).

The stub kernel prints the user arguments it finds in its manifest and
powers the machine off with their count as exit status, so these tests
check the whole path (payload, link, checks, QEMU command, OpenSBI entering
cluster 0, output filter, exit status, timeout) without the real kernel.
Needs the cross toolchain and QEMU (make setup installs them).
"""
import io
import os
import shutil
import subprocess
import tempfile
import unittest

import toolsupport
from tessera import mkimage, mpirun
from tessera.profile import compute_layout, load_profile

STUB = os.path.join(toolsupport.TESTS, "stub")
TOOLS_PRESENT = all(shutil.which(t) for t in ("riscv64-linux-gnu-gcc", "riscv64-linux-gnu-ld",
                                               "riscv64-linux-gnu-ar", "qemu-system-riscv64"))


@unittest.skipUnless(TOOLS_PRESENT, "needs the riscv64 cross toolchain and QEMU (make setup)")
class StubBootTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tessera-stub-")
        # A fake build folder: the stub as kernel library, itself (any
        # RISC-V ELF will do) as the name server and the MPI program.
        target = os.path.join(cls.dir, "target")
        os.makedirs(os.path.join(target, "kernel"))
        os.makedirs(os.path.join(target, "bin"))
        obj = os.path.join(cls.dir, "stub.o")
        abi = [f"-DTS_IMAGE_MAGIC={mkimage.TS_IMAGE_MAGIC:#x}",
               f"-DARGS_SIZE={mkimage.MANIFEST.offsets['args_size']}",
               f"-DARGS={mkimage.MANIFEST.offsets['args']}"]
        subprocess.run(["riscv64-linux-gnu-gcc", *mkimage.ARCH_FLAGS, *abi, "-c",
                        os.path.join(STUB, "stub.S"), "-o", obj], check=True)
        cls.kernel_lib = os.path.join(target, "kernel", "libtessera_kernel.a")
        subprocess.run(["riscv64-linux-gnu-ar", "rcs", cls.kernel_lib, obj], check=True)
        cls.program = os.path.join(target, "bin", "prog.elf")
        cls.services = os.path.join(target, "bin", "nameserver.elf")
        shutil.copy(obj, cls.program)
        shutil.copy(obj, cls.services)
        shutil.copy(obj, os.path.join(target, "bin", "fileserver.elf"))   # for mpirun
        cls.target = target
        # OpenSBI enters cluster 0 as it did before our firmware; the
        # firmware's own test below needs the build's firmware.
        cls.layout = compute_layout(load_profile("default"), firmware="opensbi")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def build(self, args, np=8, policy="scatter", program=None, layout=None):
        out = tempfile.mkdtemp(dir=self.dir)
        return mkimage.build_images(layout or self.layout, program or self.program, args, np,
                                    policy, out,
                                    services=self.services, kernel_lib=self.kernel_lib,
                                    kernel_ld=os.path.join(STUB, "kernel.ld")), out

    def boot(self, args, timeout=60, verbose=False, layout=None):
        cmd, _ = self.build(args, layout=layout)
        out = io.StringIO()
        status, timed_out = mpirun.run_machine(cmd, timeout, verbose, out)
        return status, timed_out, out.getvalue()

    def test_output_and_exit_status(self):
        status, timed_out, out = self.boot(["a", "b c", "d"])
        self.assertEqual((status, timed_out), (3, False), out)
        self.assertEqual(out, "a\nb c\nd\n")          # banner and [kernel] lines dropped

    def test_exit_status_zero(self):
        self.assertEqual(self.boot([]), (0, False, ""))

    def test_verbose_shows_boot(self):
        status, _, out = self.boot(["x"], verbose=True)
        self.assertEqual(status, 1, out)
        self.assertIn("OpenSBI v", out)
        self.assertIn("[kernel] stub prog\nx\n", out)

    @unittest.skipUnless(os.path.isfile(mkimage.default_paths()["firmware"]),
                         "needs the build's firmware (make build)")
    def test_our_firmware_enters_every_cluster(self):
        layout = compute_layout(load_profile("default"))
        status, timed_out, out = self.boot(["a", "b"], verbose=True, layout=layout)
        self.assertEqual((status, timed_out), (2, False), out)
        self.assertIn("[kernel] firmware: Tessera M-mode firmware, 24 harts", out)
        self.assertIn("[kernel] stub prog\na\nb\n", out)

    def test_timeout(self):
        status, timed_out, out = self.boot(["@hang"], timeout=3)
        self.assertEqual((status, timed_out), (124, True))
        self.assertEqual(out, "@hang\n")

    def test_manifests_in_images(self):
        _, out = self.build(["1", "2"], np=6, policy="compact")
        with open(self.program, "rb") as f:
            prog = f.read()
        with open(self.services, "rb") as f:
            ns = f.read()
        for c in self.layout.clusters:
            _, _, read = mkimage.read_image(os.path.join(out, f"cluster{c.id}.elf"))
            header = mkimage.check_header(c, read(c.window_base, mkimage.IMAGE_HEADER.size))
            m = mkimage.MANIFEST.unpack_from(read(header["manifest"], mkimage.MANIFEST_SIZE))
            keys = ("magic", "cluster_id", "nclusters", "nio_clusters", "np", "map_policy",
                    "slots_per_cluster")
            self.assertEqual(tuple(m[k] for k in keys),
                             (mkimage.TS_MANIFEST_MAGIC, c.id, 5, 1, 6, 0, 4))
            # 6 ranks, compact: clusters 1 and 2 host them, 3 and 4 start nothing.
            self.assertEqual(m["nprograms"], 0 if c.id > 2 else 1)
            if c.id > 2:
                continue
            p = m["programs"][0]
            want = (0, 0, b"nameserver", ns) if c.id == 0 else (1, 1, b"prog", prog)
            self.assertEqual((p["ring"], p["is_mpi"], p["name"].rstrip(b"\0")), want[:3])
            self.assertEqual(p["offset"] % 8, 0)
            self.assertEqual(read(header["manifest"] + p["offset"], p["size"]), want[3])
            if c.id:
                self.assertEqual((p["argc"], p["args_offset"], p["nranks"]), (3, 0, 6))
            self.assertEqual((m["args_size"], m["args"][:9]), (9, b"prog\x001\x002\x00"))

    def test_oversized_image_refused(self):
        big = os.path.join(self.dir, "big.elf")
        with open(self.program, "rb") as f:
            data = f.read()
        with open(big, "wb") as f:                    # a 15.75 MiB "program"
            f.write(data + bytes(15 * 1024 * 1024 + 768 * 1024))
        small = compute_layout(load_profile("default"), firmware="opensbi", cluster_memory="16M")
        with self.assertRaisesRegex(mkimage.ImageError, "cluster 1 cannot hold its 2 ranks of big: "
                                                        "its 16384 KiB window needs"):
            self.build([], program=big, layout=small)

    def test_mkimage_cli(self):
        out = os.path.join(self.dir, "cli")
        p = subprocess.run([os.path.join(toolsupport.TOOLS, "mkimage.py"), "-np", "4",
                            "--firmware", "opensbi",
                            "--services", self.services, "--kernel-lib", self.kernel_lib,
                            "--kernel-ld", os.path.join(STUB, "kernel.ld"), "-o", out,
                            self.program, "x"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("qemu-system-riscv64 -machine virt,aclint=on "), p.stdout)
        self.assertIn(f"-kernel {out}/cluster0.elf", p.stdout)
        self.assertTrue(all(os.path.isfile(os.path.join(out, f"cluster{c}.elf"))
                            for c in range(5)))

    def test_mpirun_end_to_end(self):
        """tools/mpirun itself, on the fake build folder and build/kernel.ld."""
        env = {"TESSERA_TARGET_OUT": self.target, "TESSERA_FIRMWARE": "opensbi"}
        rc, out, err = toolsupport.run_mpirun("-np", "2", "prog", "one", "two", env=env)
        self.assertEqual((rc, out), (2, "one\ntwo\n"), err)
        rc, out, err = toolsupport.run_mpirun("--timeout", "2", "prog", "@x", env=env)
        self.assertEqual((rc, out, err), (124, "@x\n", "mpirun: timeout after 2 s\n"))


if __name__ == "__main__":
    unittest.main()
