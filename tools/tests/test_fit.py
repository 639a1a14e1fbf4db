#!/usr/bin/python3
"""Unit tests of tools/tessera/fit.py: what a cluster's window must hold
(no toolchain: ELF files made here)."""
import re
import struct
import unittest

from tessera import fit as fit
from tessera.fit import KIB, PAGE
from tessera.profile import compute_layout, load_profile

PF_X, PF_W, PF_R = 1, 2, 4


def elf(segments, tail=b""):
    """An ELF64 executable with these program headers, (type, flags, vaddr,
    filesz, memsz) each, its segments' bytes after them, then `tail` (what
    a linked file has after its segments: debug information, symbols) and
    section headers pointing there."""
    phoff, n = 64, len(segments)
    body = bytearray(64 + 56 * n)
    offset = len(body)
    for i, (kind, flags, vaddr, filesz, memsz) in enumerate(segments):
        struct.pack_into("<IIQQQQQQ", body, phoff + 56 * i, kind, flags, offset, vaddr, vaddr,
                         filesz, memsz, PAGE)
        offset += filesz
    body += bytes(offset - len(body))
    shoff = len(body) + len(tail)
    body += tail + bytes(64 * 2)
    body[:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<HHIQQQIHHHHHH", body, 16, 2, 243, 1, 0x40000000, phoff, shoff, 0, 64, 56,
                     n, 64, 2, 1)
    return bytes(body)


# fn-like: text, rodata with the TLS template, then data+bss.
FN = [(fit.PT_LOAD, PF_R | PF_X, 0x40000000, 0x11F1A, 0x11F1A),
      (fit.PT_LOAD, PF_R, 0x40012000, 0x3F70, 0x3F70),
      (fit.PT_LOAD, PF_R | PF_W, 0x40016000, 0x78, 0x458C),
      (fit.PT_TLS, PF_R, 0x40015F50, 0x20, 0x1E1C)]
MPPA = compute_layout(load_profile("mppa256"))
MPPA_LINUX = compute_layout(load_profile("mppa256"), "linux64")


class ProgramTest(unittest.TestCase):
    def test_pages(self):
        p = fit.program_pages(elf(FN))
        self.assertEqual((p.ro_pages, p.rw_pages, p.tls_bytes), (18 + 4, 5, 0x1E1C))
        self.assertEqual((p.low, p.high), (0x40000000, 0x4001A58C))

    def test_shared_page_is_writable(self):
        # rodata ends in the page where data starts: that page is private.
        p = fit.program_pages(elf([(fit.PT_LOAD, PF_R, 0x40000000, 0x1800, 0x1800),
                                   (fit.PT_LOAD, PF_R | PF_W, 0x40001800, 0x10, 0x1000)]))
        self.assertEqual((p.ro_pages, p.rw_pages), (1, 2))

    def test_segments_outside_the_user_area_are_left_to_the_kernel(self):
        # It refuses them when it loads the program; counted, a wrapping
        # one would take as long as its billions of pages.
        for vaddr in (0xFFFFFFFFFFFFF000, 0xBFE00000, 0x1000):
            with self.subTest(vaddr=hex(vaddr)):
                p = fit.program_pages(elf([FN[0], (fit.PT_LOAD, PF_R | PF_W, vaddr, 0, 0x2000)]))
                self.assertEqual((p.ro_pages, p.rw_pages), (18, 0))

    def test_nothing_to_load(self):
        p = fit.program_pages(elf([]))
        self.assertEqual((p.ro_pages, p.rw_pages), (0, 0))
        with self.assertRaises(ValueError):
            fit.program_pages(b"\x7fELF\x01" + bytes(60))

    def test_strip(self):
        full = elf(FN, tail=b"debug info and symbols" * 100)
        stripped = fit.strip_elf(full)
        end = 64 + 56 * 4 + 0x11F1A + 0x3F70 + 0x78 + 0x20
        self.assertEqual(len(stripped), end)
        self.assertEqual(stripped[64:end], full[64:end])     # headers and segments unchanged
        self.assertEqual(struct.unpack_from("<Q", stripped, 40)[0], 0)      # no section headers
        self.assertEqual(struct.unpack_from("<HHH", stripped, 58), (0, 0, 0))
        self.assertEqual(fit.program_pages(stripped), fit.program_pages(full))
        self.assertEqual(fit.strip_elf(b"not an ELF"), b"not an ELF")
        self.assertEqual(fit.strip_elf(elf([])), elf([]))     # no program headers: as is

    def test_strip_drops_what_no_loaded_segment_holds(self):
        """A RISC-V attributes header's bytes (in a linked file, after the
        debug information) do not keep the debug information in."""
        attributes = (0x70000003, 4, 0, 0x57, 0)       # PT_RISCV_ATTRIBUTES
        full = elf(FN + [attributes], tail=b"debug info" * 100)
        stripped = fit.strip_elf(full)
        self.assertEqual(len(stripped), 64 + 56 * 5 + 0x11F1A + 0x3F70 + 0x78 + 0x20)
        self.assertEqual(fit.program_pages(stripped), fit.program_pages(full))


class NeedTest(unittest.TestCase):
    program = fit.program_pages(elf(FN))

    def need(self, n, threads=False, layout=MPPA, image=524 * KIB, np=192):
        return fit.rank_need(layout, layout.clusters[4], image, self.program, n, np, threads)

    def test_boot_tables(self):
        # qemu: root, GiB 0 (devices) and GiB 2 (windows, fabric), 3 device leaf tables.
        self.assertEqual(fit.boot_tables(MPPA, MPPA.clusters[4]), 6 * PAGE)
        self.assertEqual(fit.boot_tables(MPPA_LINUX, MPPA_LINUX.clusters[4]), PAGE)

    def test_kernel_tables(self):
        # 128 parked messages of 272 bytes: 9 pages; an I/O cluster adds
        # the host files' 6 KiB table and 256 KiB bounce buffer.
        self.assertEqual(fit.kernel_tables(MPPA, MPPA.clusters[4]), 9 * PAGE)
        self.assertEqual(fit.kernel_tables(MPPA, MPPA.clusters[0]), 75 * PAGE)

    def test_lwmpi_floor(self):
        # ring: 16 + 32 x (8 + 120) = 4112 bytes; 8 bytes per rank; 12 KiB more.
        self.assertEqual(fit.lwmpi_heap(MPPA.profile, 192), 5 * PAGE)
        self.assertEqual(fit.lwmpi_heap(MPPA.profile, 1000), 6 * PAGE)

    def test_processes(self):
        n = self.need(12)
        self.assertEqual(dict(n.per_rank), {"stack": 32 * KIB, "data": 5 * PAGE,
                                            "page tables": 4 * PAGE, "LWMPI": 5 * PAGE})
        self.assertEqual(n.total(), 524 * KIB + 6 * PAGE + 9 * PAGE + 22 * PAGE + fit.HEAP_RESERVE
                         + 12 * (32 * KIB + 14 * PAGE))
        self.assertTrue(n.fits())
        self.assertEqual(n.most_ranks(), 12)
        self.assertEqual(self.need(16).most_ranks(), 14)
        self.assertFalse(self.need(16).fits())

    def test_threads(self):
        n = self.need(12, threads=True)
        self.assertEqual(dict(n.per_rank), {"stack": 32 * KIB, "TLS": 0x1E1C + 132,
                                            "LWMPI": 5 * PAGE})
        self.assertIn(("data", 5 * PAGE), n.fixed)
        # Stacks 1 MiB apart: cores 1..12 touch 7 leaf tables.
        self.assertEqual(n.stack_tables(12), 7 * PAGE)
        self.assertLess(n.total(), self.need(12).total())

    def test_linux64(self):
        n = fit.rank_need(MPPA_LINUX, MPPA_LINUX.clusters[4], 155 * KIB, self.program, 12, 192,
                          False)
        self.assertEqual(n.fixed[:2], (("payload", 155 * KIB), ("kernel page tables", PAGE)))

    def test_services(self):
        n = fit.services_need(MPPA, MPPA.clusters[0], 600 * KIB, [self.program] * 2)
        self.assertEqual(n.ranks, 0)
        self.assertIn(("console lines", 20 * PAGE), n.fixed)
        self.assertTrue(n.fits())
        idle = fit.services_need(MPPA, MPPA.clusters[5], 524 * KIB, [])
        self.assertEqual(idle.total(), 524 * KIB + 6 * PAGE + 9 * PAGE)

    def test_refusal(self):
        n = self.need(12, image=1500 * KIB)
        self.assertFalse(n.fits())
        msg = fit.refusal(4, "fn", n, "mppa256-big")
        m = re.fullmatch(r"cluster 4 cannot hold its 12 ranks of fn: its 2048 KiB window needs "
                         r"(\d+) KiB, (\d+) KiB more \(kernel image 1500 KiB, kernel page tables "
                         r"24 KiB, kernel tables 36 KiB, fn's code 88 KiB, heap reserve 64 KiB; 12 ranks x 88 KiB: "
                         r"stack 32, data 20, page tables 16, LWMPI 20\); at most (\d+) ranks "
                         r"fit; give each compute cluster (\d+) MiB or more \(mpirun "
                         r"--cluster-memory (\d+)M\), or use a profile with larger windows "
                         r"\(e\.g\. mppa256-big\)", msg)
        self.assertIsNotNone(m, msg)
        self.assertEqual(int(m[1]) - int(m[2]), 2048)
        self.assertEqual(int(m[1]), fit.kib(n.total()))
        most = int(m[3])
        # The size suggested: the need, rounded up to a window's 2 MiB.
        self.assertEqual(m[4], m[5])
        self.assertEqual(int(m[4]) % 2, 0)
        self.assertLessEqual(n.total(), int(m[4]) * 1024 * KIB)
        self.assertGreater(n.total(), (int(m[4]) - 2) * 1024 * KIB)
        self.assertLessEqual(self.need(most, image=1500 * KIB).total(), 2048 * KIB)
        self.assertGreater(self.need(most + 1, image=1500 * KIB).total(), 2048 * KIB)
        none = self.need(12, image=2000 * KIB)
        self.assertIn("not even one rank fits; give each compute cluster ",
                      fit.refusal(4, "fn", none))
        self.assertTrue(fit.refusal(4, "fn", none).endswith("or use a profile with larger "
                                                            "windows"))


if __name__ == "__main__":
    unittest.main()
