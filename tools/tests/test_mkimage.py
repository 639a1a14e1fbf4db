#!/usr/bin/python3
"""Unit tests of tools/mkimage.py's pure logic: manifest packing, payload
layout, image checks, the QEMU command and the linux64 payload files. No
cross toolchain, no QEMU."""
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

import toolsupport
import mkimage
from mkimage import ImageError, Program, Segment
from tessera_profile import MIB, ToolError, compute_layout, load_profile

# Field offsets of struct ts_manifest, from hal/include/hal/image.h (and
# checked against a C compiler below when one is installed).
M = {"magic": 0, "cluster_id": 4, "nclusters": 8, "nio_clusters": 12, "fabric_base": 16,
     "fabric_size": 24, "mailbox_size": 32, "portal_chunk": 36, "np": 40, "map_policy": 44,
     "slots_per_cluster": 48, "nprograms": 52, "argc": 56, "ikc_buffers": 60,
     "virtual_per_hw": 62, "timebase_hz": 64, "flags": 72, "mpi_eager_max": 76, "clusters": 80,
     "programs": 1104, "args": 1296}
CLUSTER = {"window_base": 0, "window_size": 8, "first_hart": 16, "ncores": 20, "kind": 24,
           "mailboxes": 28, "portals": 30}
PROGRAM = {"ring": 0, "offset": 4, "size": 8, "is_mpi": 12, "name": 16}
HEADER = {"code0": 0, "magic": 4, "cluster_id": 8, "first_hart": 12, "entry": 16, "image_end": 24,
          "manifest": 32, "window_base": 40}
SIZES = {"ts_manifest": 1808, "ts_cluster_desc": 32, "ts_program_desc": 48,
         "ts_image_header": 48}
FLAGS = ("TS_MANIFEST_TAG_OUTPUT", "TS_MANIFEST_MPI_LOCAL_IKC")

LAYOUT = compute_layout(load_profile("default"))


def u32(buf, off):
    return struct.unpack_from("<I", buf, off)[0]


def u64(buf, off):
    return struct.unpack_from("<Q", buf, off)[0]


def j_insn(offset):
    """Encode `jal x0, offset` (a RISC-V `j`)."""
    imm = offset & ((1 << 21) - 1)
    return (((imm >> 20) & 1) << 31 | ((imm >> 1) & 0x3FF) << 21 | ((imm >> 11) & 1) << 20
            | ((imm >> 12) & 0xFF) << 12 | 0x6F)


class LayoutMatchesCTest(unittest.TestCase):
    """The offsets above are those a C compiler gives hal/image.h."""

    def test_offsets_match_image_h(self):
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            self.skipTest("no host C compiler")
        checks = [("ts_manifest", f, o) for f, o in M.items()] \
            + [("ts_cluster_desc", f, o) for f, o in CLUSTER.items()] \
            + [("ts_program_desc", f, o) for f, o in PROGRAM.items()] \
            + [("ts_image_header", f, o) for f, o in HEADER.items()]
        lines = [f'printf("%s.%s %zu\\n", "{s}", "{f}", offsetof(struct {s}, {f}));'
                 for s, f, _ in checks]
        lines += [f'printf("%s %zu\\n", "{s}", sizeof(struct {s}));' for s in SIZES]
        lines += [f'printf("%s %u\\n", "{f}", {f});' for f in FLAGS]
        src = ("#include <stddef.h>\n#include <stdio.h>\n#include \"hal/image.h\"\n"
               "int main(void) {\n" + "\n".join(lines) + "\nreturn 0; }\n")
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "t.c"), "w") as f:
                f.write(src)
            subprocess.run([cc, "-I", os.path.join(toolsupport.REPO, "hal", "include"),
                            "-o", os.path.join(d, "t"), os.path.join(d, "t.c")], check=True)
            out = subprocess.run([os.path.join(d, "t")], check=True, stdout=subprocess.PIPE,
                                 text=True).stdout
        got = dict(line.rsplit(" ", 1) for line in out.splitlines())
        for s, f, o in checks:
            self.assertEqual(int(got[f"{s}.{f}"]), o, f"{s}.{f}")
        for s, size in SIZES.items():
            self.assertEqual(int(got[s]), size, s)
        for f in FLAGS:
            self.assertEqual(int(got[f]), getattr(mkimage, f), f)
        self.assertEqual(mkimage.MANIFEST_SIZE, SIZES["ts_manifest"])
        self.assertEqual(mkimage.IMAGE_HEADER.size, SIZES["ts_image_header"])


class ManifestTest(unittest.TestCase):
    def pack(self, cluster_id=2, np=8, policy="scatter", programs=(), args=("hello", "-x")):
        return mkimage.pack_manifest(LAYOUT, cluster_id, np, policy, list(programs), list(args))

    def test_size_and_header_fields(self):
        m = self.pack()
        self.assertEqual(len(m), 1808)
        self.assertEqual(u32(m, M["magic"]), 0x464D5354)
        self.assertEqual(u32(m, M["cluster_id"]), 2)
        self.assertEqual(u32(m, M["nclusters"]), 5)
        self.assertEqual(u32(m, M["nio_clusters"]), 1)
        self.assertEqual(u64(m, M["fabric_base"]), 0x84A00000)
        self.assertEqual(u64(m, M["fabric_size"]), 4 * MIB)
        self.assertEqual(u32(m, M["mailbox_size"]), 128)
        self.assertEqual(u32(m, M["portal_chunk"]), 4096)
        self.assertEqual(u32(m, M["np"]), 8)
        self.assertEqual(u32(m, M["map_policy"]), 1)
        self.assertEqual(u32(m, M["slots_per_cluster"]), 4)
        self.assertEqual(u32(m, M["nprograms"]), 0)
        self.assertEqual(u32(m, M["argc"]), 2)
        self.assertEqual(struct.unpack_from("<2H", m, M["ikc_buffers"]), (128, 32))
        self.assertEqual(u64(m, M["timebase_hz"]), 10000000)
        self.assertEqual(u32(m, M["flags"]), 0)
        self.assertEqual(u32(m, M["mpi_eager_max"]), 0)

    def test_flags(self):
        m = mkimage.pack_manifest(LAYOUT, 2, 8, "scatter", [], ["hello"],
                                  flags=mkimage.TS_MANIFEST_TAG_OUTPUT)
        self.assertEqual(u32(m, M["flags"]), 1)  # hal/image.h: TS_MANIFEST_TAG_OUTPUT
        m = mkimage.pack_manifest(LAYOUT, 2, 8, "scatter", [], ["hello"],
                                  flags=mkimage.TS_MANIFEST_MPI_LOCAL_IKC)
        self.assertEqual(u32(m, M["flags"]), 2)  # TS_MANIFEST_MPI_LOCAL_IKC

    def test_mpi_eager_max(self):
        m = mkimage.pack_manifest(LAYOUT, 2, 8, "scatter", [], ["hello"], mpi_eager_max=65536)
        self.assertEqual((u32(m, M["flags"]), u32(m, M["mpi_eager_max"])), (0, 65536))
        payload = mkimage.build_payload(LAYOUT, 2, 8, "scatter", [], ["hello"], flags=3,
                                        mpi_eager_max=100)
        self.assertEqual((u32(payload, M["flags"]), u32(payload, M["mpi_eager_max"])), (3, 100))

    def test_compact_is_0(self):
        self.assertEqual(u32(self.pack(policy="compact"), M["map_policy"]), 0)
        with self.assertRaisesRegex(ImageError, "mapping policy"):
            self.pack(policy="random")

    def test_cluster_descs(self):
        m = self.pack()
        # The default profile: 2 hardware mailboxes and portals on the I/O
        # cluster, 1 on each compute cluster.
        expect = [(0x80200000, 8 * MIB, 0, 2, 0, 2, 2), (0x80A00000, 16 * MIB, 2, 5, 1, 1, 1),
                  (0x81A00000, 16 * MIB, 7, 5, 1, 1, 1), (0x82A00000, 16 * MIB, 12, 5, 1, 1, 1),
                  (0x83A00000, 16 * MIB, 17, 5, 1, 1, 1)]
        for i in range(32):
            at = M["clusters"] + 32 * i
            got = (u64(m, at + CLUSTER["window_base"]), u64(m, at + CLUSTER["window_size"]),
                   u32(m, at + CLUSTER["first_hart"]), u32(m, at + CLUSTER["ncores"]),
                   u32(m, at + CLUSTER["kind"]),
                   *struct.unpack_from("<2H", m, at + CLUSTER["mailboxes"]))
            self.assertEqual(got, expect[i] if i < 5 else (0,) * 7, f"cluster {i}")

    def test_program_descs(self):
        progs = [(Program("nameserver", 0, 0, b"x" * 100), 1808),
                 (Program("fn", 1, 1, b"y" * 7), 1904)]
        m = self.pack(programs=progs)
        self.assertEqual(u32(m, M["nprograms"]), 2)
        for i, (ring, off, size, mpi, name) in enumerate([(0, 1808, 100, 0, b"nameserver"),
                                                          (1, 1904, 7, 1, b"fn")]):
            at = M["programs"] + 48 * i
            self.assertEqual((u32(m, at), u32(m, at + 4), u32(m, at + 8), u32(m, at + 12)),
                             (ring, off, size, mpi))
            self.assertEqual(m[at + 16:at + 48], name.ljust(32, b"\0"))
        self.assertEqual(m[M["programs"] + 96:M["args"]], bytes(96))

    def test_args_back_to_back(self):
        m = self.pack(args=["fn", "1", "4000"])
        self.assertEqual(u32(m, M["argc"]), 3)
        self.assertEqual(m[M["args"]:M["args"] + 10], b"fn\x001\x004000\x00")
        self.assertEqual(m[M["args"] + 10:], bytes(502))

    def test_args_limit(self):
        self.pack(args=["p", "a" * 509])                 # "p\0" + 510 bytes: exactly 512
        with self.assertRaisesRegex(ImageError, "513 bytes.*at most 512"):
            self.pack(args=["p", "a" * 510])

    def label(self, m, i=0):
        at = M["programs"] + 48 * i + PROGRAM["name"]
        return m[at:at + 32]

    def test_long_program_name(self):
        """Only the manifest's label is cut to 31 bytes; argv[0] stays whole."""
        name = "a_rather_long_program_name_for_mpirun_x"
        m = self.pack(programs=[(Program(name, 1, 1, b""), 1808)], args=[name, "-v"])
        self.assertEqual(self.label(m), name.encode()[:31] + b"\0")
        self.assertEqual(m[M["args"]:M["args"] + len(name) + 4], name.encode() + b"\0-v\0")
        m = self.pack(programs=[(Program("n" * 31, 1, 1, b""), 1808)])
        self.assertEqual(self.label(m), b"n" * 31 + b"\0")

    def test_label_keeps_whole_characters(self):
        m = self.pack(programs=[(Program("x" * 30 + "\u00e9t\u00e9", 1, 1, b""), 1808)])
        self.assertEqual(self.label(m), b"x" * 30 + bytes(2))     # no half of the "\u00e9"

    def test_too_many_programs(self):
        with self.assertRaisesRegex(ImageError, "at most 4"):
            self.pack(programs=[(Program("p", 1, 1, b""), 1808)] * 5)


class PayloadTest(unittest.TestCase):
    def test_elfs_follow_8_byte_aligned(self):
        a = Program("nameserver", 0, 0, bytes(range(13)))
        b = Program("hello", 1, 1, b"\x7fELF" + b"z" * 20)
        p = mkimage.build_payload(LAYOUT, 0, 4, "compact", [a, b], ["hello"])
        off_a, size_a = u32(p, M["programs"] + 4), u32(p, M["programs"] + 8)
        off_b, size_b = u32(p, M["programs"] + 52), u32(p, M["programs"] + 56)
        self.assertEqual((off_a, size_a), (1808, 13))
        self.assertEqual((off_b, size_b), (1824, 24))     # 1821 rounded up to 8
        self.assertEqual(p[off_a:off_a + size_a], a.data)
        self.assertEqual(p[off_b:off_b + size_b], b.data)
        self.assertEqual(len(p), off_b + size_b)

    def test_who_starts_what(self):
        mpi = Program("hello", 1, 1, b"m")
        ns = Program("nameserver", 0, 0, b"n")
        self.assertEqual(mkimage.cluster_programs(LAYOUT, 0, mpi, ns), [ns])
        for c in range(1, 5):
            self.assertEqual(mkimage.cluster_programs(LAYOUT, c, mpi, ns), [mpi])
        mppa = compute_layout(load_profile("mppa256"))
        self.assertEqual(mkimage.cluster_programs(mppa, 0, mpi, ns), [ns])
        for c in (1, 2, 3):                               # the other I/O clusters
            self.assertEqual(mkimage.cluster_programs(mppa, c, mpi, ns), [])
        self.assertEqual(mkimage.cluster_programs(mppa, 4, mpi, ns), [mpi])

    def test_program_name(self):
        self.assertEqual(mkimage.program_name("/x/out/target/bin/fn.elf"), "fn")
        self.assertEqual(mkimage.program_name("app"), "app")


class SegmentTest(unittest.TestCase):
    c1 = LAYOUT.clusters[1]          # 0x80A00000, 16 MiB

    def test_good_image(self):
        end = mkimage.check_segments(self.c1, [Segment(0x80A00000, 0x5000),
                                               Segment(0x80A06000, 0x100)])
        self.assertEqual(end, 0x80A06100)

    def test_empty_segment(self):
        with self.assertRaisesRegex(ImageError, "cluster 1: empty PT_LOAD"):
            mkimage.check_segments(self.c1, [Segment(0x80A00000, 0x5000), Segment(0, 0)])

    def test_no_segment(self):
        with self.assertRaisesRegex(ImageError, "no loadable segment"):
            mkimage.check_segments(self.c1, [])

    def test_outside_window(self):
        for seg in (Segment(0x80200000, 0x1000), Segment(0x819FF000, 0x2000),
                    Segment(0x81A00000, 0x10)):
            with self.subTest(seg=seg), self.assertRaisesRegex(ImageError, "outside its window"):
                mkimage.check_segments(self.c1, [seg])

    def test_oversized(self):
        # Exactly 2 MiB left is fine, one byte more is not.
        mkimage.check_segments(self.c1, [Segment(0x80A00000, 14 * MIB)])
        with self.assertRaisesRegex(ImageError, "cluster 1: oversized image"):
            mkimage.check_segments(self.c1, [Segment(0x80A00000, 14 * MIB + 1)])

    def test_overlap(self):
        mkimage.check_overlap({"cluster 0": [Segment(0x80200000, 0x1000)],
                               "cluster 1": [Segment(0x80A00000, 0x1000)]})
        with self.assertRaisesRegex(ImageError, "overlapping images: cluster 0 and cluster 1"):
            mkimage.check_overlap({"cluster 0": [Segment(0x80200000, 0x900000)],
                                   "cluster 1": [Segment(0x80A00000, 0x1000)]})


class HeaderTest(unittest.TestCase):
    c2 = LAYOUT.clusters[2]          # 0x81A00000

    def header(self, **f):
        v = dict(code0=j_insn(0x40), magic=0x53534554, cluster_id=2, first_hart=7, entry=0x81A00040,
                 image_end=0x81A40000, manifest=0x81A10000, window_base=0x81A00000)
        v.update(f)
        return mkimage.IMAGE_HEADER.pack(v["code0"], v["magic"], v["cluster_id"], v["first_hart"], v["entry"],
                                         v["image_end"], v["manifest"], v["window_base"])

    def test_good(self):
        got = mkimage.check_header(self.c2, self.header())
        self.assertEqual(got, {"entry": 0x81A00040, "image_end": 0x81A40000,
                               "manifest": 0x81A10000})

    def test_bad(self):
        cases = [({"magic": 0x12345678}, "bad image header magic 0x12345678"),
                 ({"cluster_id": 3}, "the image header says cluster 3"),
                 ({"first_hart": 2}, "first hart is 2, want 7"),
                 ({"window_base": 0x80A00000}, "window_base"),
                 ({"entry": 0x80000000}, "entry"),
                 ({"manifest": 0x82A00000 + 8}, "manifest"),
                 ({"image_end": 0x90000000}, "image_end")]
        for fields, words in cases:
            with self.subTest(fields=fields), self.assertRaisesRegex(ImageError, words):
                mkimage.check_header(self.c2, self.header(**fields))

    def test_missing(self):
        with self.assertRaisesRegex(ImageError, "no image header"):
            mkimage.check_header(self.c2, b"")

    def test_boot_jump(self):
        c0 = LAYOUT.clusters[0]
        for off in (0x40, 0x2000, 0xFFFFE, -0x100000, -4):
            self.assertEqual(mkimage.jal_target(j_insn(off), 0x80200000), 0x80200000 + off)
        self.assertIsNone(mkimage.jal_target(0x53534554, 0x80200000))
        self.assertIsNone(mkimage.jal_target(j_insn(8) | 1 << 7, 0x80200000))  # jal ra
        mkimage.check_boot_entry(c0, struct.pack("<I", j_insn(0x40)), 0x80200040)
        with self.assertRaisesRegex(ImageError, "must be a jump to the ELF entry 0x80200050"):
            mkimage.check_boot_entry(c0, struct.pack("<I", j_insn(0x40)), 0x80200050)


class QemuCommandTest(unittest.TestCase):
    def test_default(self):
        images = [f"/tmp/x/cluster{c}.elf" for c in range(5)]
        self.assertEqual(mkimage.qemu_command(LAYOUT, images), [
            "qemu-system-riscv64", "-machine", "virt", "-accel", "tcg,thread=single",
            "-smp", "22", "-m", "82M", "-bios", "default", "-display", "none",
            "-serial", "stdio", "-monitor", "none", "-no-reboot",
            "-kernel", "/tmp/x/cluster0.elf",
            "-device", "loader,file=/tmp/x/cluster1.elf",
            "-device", "loader,file=/tmp/x/cluster2.elf",
            "-device", "loader,file=/tmp/x/cluster3.elf",
            "-device", "loader,file=/tmp/x/cluster4.elf"])


class InputsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def file(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_elf_checks(self):
        elf = bytearray(64)
        elf[:5] = b"\x7fELF\x02"
        struct.pack_into("<H", elf, 18, 243)
        mkimage.check_elf_file(self.file("ok.elf", bytes(elf)), "program")
        with self.assertRaisesRegex(ImageError, "not an ELF file"):
            mkimage.check_elf_file(self.file("t.txt", b"hello"), "program")
        struct.pack_into("<H", elf, 18, 62)                    # x86-64
        with self.assertRaisesRegex(ImageError, "not a 64-bit RISC-V ELF"):
            mkimage.check_elf_file(self.file("x86.elf", bytes(elf)), "program")

    def test_resolve_program(self):
        path = self.file("app.elf", b"\x7fELF")
        self.assertEqual(mkimage.resolve_program(path), path)
        self.assertEqual(mkimage.resolve_program("app", self.dir), path)
        with self.assertRaisesRegex(ImageError, "program 'nope' not found.*run make first"):
            mkimage.resolve_program("nope", self.dir)
        with self.assertRaisesRegex(ImageError, "no such program: /no/such.elf"):
            mkimage.resolve_program("/no/such.elf", self.dir)

    def test_paths_and_names_are_told_apart(self):
        """A '/' or .elf makes a path (from the current folder); any other
        word is a built-in program, whatever files the current folder has."""
        builtin = self.file("app.elf", b"\x7fELF")
        cwd = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, cwd)
        for name in ("app", "mine.elf"):
            with open(os.path.join(cwd, name), "wb") as f:
                f.write(b"\x7fELF")
        old = os.getcwd()
        os.chdir(cwd)
        self.addCleanup(os.chdir, old)
        self.assertEqual(mkimage.resolve_program("app", self.dir), builtin)
        self.assertEqual(mkimage.resolve_program("./app", self.dir), "./app")
        self.assertEqual(mkimage.resolve_program("mine.elf", self.dir), "mine.elf")
        with self.assertRaisesRegex(ImageError, "no such program: app.elf"):
            mkimage.resolve_program("app.elf", self.dir)    # not the built-in one
        with self.assertRaisesRegex(ImageError, "program 'mine' not found"):
            mkimage.resolve_program("mine", self.dir)

    def test_missing_kernel_library(self):
        prog = self.file("app.elf", b"\x7fELF")
        with self.assertRaisesRegex(ImageError, "kernel library .* not found; run make first"):
            mkimage.build_images(LAYOUT, prog, [], 4, "compact", self.dir,
                                 services=prog, kernel_lib=os.path.join(self.dir, "no.a"))

    def test_capacity_checked_first(self):
        with self.assertRaisesRegex(ToolError, "17 processes requested"):
            mkimage.build_images(LAYOUT, "/none", [], 17, "compact", self.dir)

    def test_long_args_checked_before_linking(self):
        with self.assertRaisesRegex(ImageError, "at most 512"):
            mkimage.build_images(LAYOUT, "/none.elf", ["a" * 600], 1, "compact", self.dir)


class Linux64Test(unittest.TestCase):
    """linux64: payload files instead of images, a 1 GHz timebase, no hart
    limit (mppa256 at full size)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        elf = bytearray(64)
        elf[:5] = b"\x7fELF\x02"
        struct.pack_into("<H", elf, 18, mkimage.EM_X86_64)
        self.elf = bytes(elf) + b"program"
        self.prog = os.path.join(self.dir, "app.elf")
        self.services = os.path.join(self.dir, "nameserver.elf")
        for path in (self.prog, self.services):
            with open(path, "wb") as f:
                f.write(self.elf)

    def test_mppa256_full_size(self):
        layout = mkimage.plan_job("mppa256", 256, "linux64")
        self.assertEqual((len(layout.clusters), layout.nio, layout.capacity), (20, 4, 256))
        self.assertEqual([c.ncores for c in layout.clusters], [4] * 4 + [17] * 16)
        with self.assertRaisesRegex(ToolError, "257 processes requested"):
            mkimage.plan_job("mppa256", 257, "linux64")
        with self.assertRaisesRegex(ToolError, "288 harts"):
            mkimage.plan_job("mppa256", 1, "qemu-riscv64")

    def test_payload_files(self):
        layout = mkimage.plan_job("default", 4, "linux64")
        out = os.path.join(self.dir, "job")
        paths = mkimage.build_payloads(layout, self.prog, ["x"], 4, "scatter", out,
                                       services=self.services,
                                       flags=mkimage.TS_MANIFEST_TAG_OUTPUT, mpi_eager_max=64)
        self.assertEqual(paths, [os.path.join(out, f"cluster{c}.payload") for c in range(5)])
        for c, path in enumerate(paths):
            with open(path, "rb") as f:
                data = f.read()
            programs = mkimage.cluster_programs(layout, c, Program("app", 1, 1, self.elf),
                                                Program("nameserver", 0, 0, self.elf))
            self.assertEqual(data, mkimage.build_payload(layout, c, 4, "scatter", programs,
                                                         ["app", "x"], 1, 64))
            self.assertEqual(u64(data, M["timebase_hz"]), 1_000_000_000)
            self.assertEqual(u32(data, M["cluster_id"]), c)
        qemu = mkimage.build_payload(LAYOUT, 1, 4, "scatter", [], ["app"])
        self.assertEqual(u64(qemu, M["timebase_hz"]), 10_000_000)    # the profile's

    def test_platform_from_the_environment(self):
        from unittest import mock
        with mock.patch.dict(os.environ, {"TESSERA_PLATFORM": "linux64", "TESSERA_OUT": self.dir,
                                          "TESSERA_TARGET_OUT": ""}):
            self.assertEqual(mkimage.plan_job("default", 1).timebase_hz, 1_000_000_000)
            self.assertEqual(mkimage.target_out(), os.path.join(self.dir, "linux64"))
            self.assertEqual(mkimage.target_out("qemu-riscv64"), os.path.join(self.dir, "target"))
            self.assertEqual(mkimage.default_paths()["cluster"],
                             os.path.join(self.dir, "linux64", "kernel", "tessera_cluster"))
            os.environ["TESSERA_PLATFORM"] = "qemu-riscv64"
            self.assertEqual(mkimage.plan_job("default", 1).timebase_hz, 10_000_000)
            self.assertEqual(mkimage.target_out(), os.path.join(self.dir, "target"))
            os.environ["TESSERA_TARGET_OUT"] = "/x"
            self.assertEqual(mkimage.target_out("linux64"), "/x")
            os.environ["TESSERA_PLATFORM"] = "pdp11"
            with self.assertRaisesRegex(ToolError, "unknown platform 'pdp11'"):
                mkimage.plan_job("default", 1)

    def test_checks(self):
        layout = mkimage.plan_job("default", 4, "linux64")
        with open(self.prog, "wb") as f:                      # oversized: 15 MiB of program
            f.write(self.elf + bytes(15 * MIB))
        with self.assertRaisesRegex(ImageError, "cluster 1: oversized payload"):
            mkimage.build_payloads(layout, self.prog, [], 4, "compact", self.dir,
                                   services=self.services)
        riscv = bytearray(self.elf)
        struct.pack_into("<H", riscv, 18, mkimage.EM_RISCV)
        with open(self.prog, "wb") as f:
            f.write(riscv)
        with self.assertRaisesRegex(ImageError, "not a 64-bit x86-64 ELF, as linux64 needs"):
            mkimage.build_payloads(layout, self.prog, [], 4, "compact", self.dir,
                                   services=self.services)
        with self.assertRaisesRegex(ImageError, "use build_payloads"):
            mkimage.build_images(layout, self.prog, [], 4, "compact", self.dir)
        with self.assertRaisesRegex(ImageError, "needs build_images"):
            mkimage.build_payloads(LAYOUT, self.prog, [], 4, "compact", self.dir)

    def test_user_area_stays_clear(self):
        from tessera_profile import check_platform, parse_profile
        with open(os.path.join(mkimage.REPO, "build", "profiles", "default.json")) as f:
            import json
            data = json.load(f)
        data["memory_base"] = "0x60000000"
        layout = compute_layout(parse_profile(data), "linux64")
        with self.assertRaisesRegex(ToolError, "overlap the user area"):
            check_platform(layout, "linux64")


if __name__ == "__main__":
    unittest.main()
