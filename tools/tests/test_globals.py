#!/usr/bin/python3
"""Unit tests of tools/tessera/program_globals.py: which writable global/static
variables a program defines itself, from mpicc's record or, without one,
by comparison with the runtime's files. ELF files and archives made by
tests/fake_elf.py; no toolchain."""
import os
import shutil
import tempfile
import unittest

import fake_elf
from tessera import program_globals as g

# What a linked program holds besides its own variables: the C library's and
# the runtime's, global and static, and the linker's empty GOT symbol.
RUNTIME_SYMBOLS = [("__malloc_free_list", ".sbss.total", 8), ("cur", ".bss", 8),
                   ("none.0", ".data", 4), ("job_info", ".bss", 256)]
RUNTIME_LOCALS = ("cur", "none.0")


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="globals-test-")
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def program(self, own=(), record=None, symtab=True, name="app.elf"):
        """A linked program: the runtime's variables, `own` ones, mpicc's record."""
        symbols = RUNTIME_SYMBOLS + [("_GLOBAL_OFFSET_TABLE_", ".data", 0)] + list(own)
        return self.write(name, fake_elf.elf(symbols, record, symtab, local=RUNTIME_LOCALS))

    def runtime(self):
        """The runtime's files: a start file and a library of two members."""
        crt = self.write("crt0.o", fake_elf.elf(RUNTIME_SYMBOLS[1:2], local=RUNTIME_LOCALS))
        lib = self.write("libc.a", fake_elf.archive({
            "malloc.o": fake_elf.elf(RUNTIME_SYMBOLS[:1]),
            "a_long_member_name_for_gnu_ar.o": fake_elf.elf(RUNTIME_SYMBOLS[2:],
                                                            local=RUNTIME_LOCALS)}))
        return [crt, lib]


class WritableVariables(Files):
    def test_exactly_the_writable_objects(self):
        """.data/.bss/.sdata/.sbss (suffixed too) and COMMON; not read-only
        data, TLS, functions."""
        data = fake_elf.elf([("total", ".sbss.total", 4), ("counts", ".bss", 32),
                             ("scale", ".sdata", 8), ("calls.1", ".data", 4),
                             ("shared_common", "COMMON", 4), ("limit", ".rodata", 4),
                             ("mine", ".tdata", 4, "tls"), ("acc", ".tbss", 8, "tls"),
                             ("step", ".text", 16, "func")], local=("calls.1",))
        self.assertEqual(g.ElfFile(data).writable_variables(),
                         {"total": 4, "counts": 32, "scale": 8, "calls.1": 4, "shared_common": 4})

    def test_archive_members(self):
        self.assertEqual(g.file_variables(self.runtime()[1]),
                         {"__malloc_free_list", "none.0", "job_info"})

    def test_not_elf(self):
        path = self.write("x.o", b"not an ELF file at all" * 4)
        with self.assertRaises(ValueError):
            g.file_variables(path)
        with self.assertRaises(ValueError):
            g.ElfFile(b"\x7fELF\x01\x01" + bytes(58))      # ELF32

    def test_display_names(self):
        self.assertEqual(g.display_names({"calls.0", "calls.3", "total", "a.b", "x.12"}),
                         ["a.b", "calls", "total", "x"])


class Record(Files):
    def test_round_trip(self):
        elf = g.ElfFile(fake_elf.elf([], record=["sum", "n", "calls.0", "n"]))
        self.assertEqual(g.read_record(elf), {"sum", "n", "calls.0"})

    def test_empty_record_is_a_record(self):
        self.assertEqual(g.read_record(g.ElfFile(fake_elf.elf([], record=[]))), set())

    def test_no_record(self):
        self.assertIsNone(g.read_record(g.ElfFile(fake_elf.elf([("x", ".data", 4)]))))

    def test_note_layout(self):
        """An ELF note: namesz, descsz, type, "Tessera\\0", the names; 4-byte padded."""
        data = g.record_bytes(["b", "a"])
        self.assertEqual(data, b"\x08\0\0\0\x04\0\0\0\x01\0\0\0Tessera\0a\0b\0")
        self.assertEqual(len(g.record_bytes(["abc"])) % 4, 0)

    def test_asm_is_a_note_that_takes_no_memory(self):
        asm = g.record_asm(["total"])
        self.assertIn('.section .note.tessera.globals,"",@note', asm)   # no "a" flag
        values = [int(v) for line in asm.splitlines() if line.startswith("\t.byte ")
                  for v in line.split(None, 1)[1].split(",")]
        self.assertEqual(bytes(values), g.record_bytes(["total"]))


class OwnVariables(Files):
    def test_from_the_record(self):
        """The record's names that the program still has (the linker may
        have dropped some), as written in C."""
        app = self.program([("sum", ".sbss.total", 8), ("calls.0", ".bss", 4)],
                           record=["sum", "calls.0", "dropped_by_gc"])
        self.assertEqual(g.own_variables(app), (["calls", "sum"], "record"))

    def test_record_wins_over_the_runtime(self):
        app = self.program([("sum", ".sbss.total", 8)], record=[])
        self.assertEqual(g.own_variables(app, self.runtime()), ([], "record"))

    def test_stripped_program_record_as_is(self):
        app = self.program(record=["sum", "dropped_by_gc"], symtab=False)
        self.assertEqual(g.own_variables(app), (["dropped_by_gc", "sum"], "record"))

    def test_without_record_minus_the_runtime(self):
        app = self.program([("total", ".bss", 4), ("count.2", ".sdata", 4)])
        runtime = self.runtime()
        self.assertEqual(g.own_variables(app, runtime), (["count", "total"], "runtime"))
        self.assertEqual(g.own_variables(app, lambda: runtime), (["count", "total"], "runtime"))

    def test_runtime_only_program(self):
        """No false warning from the C library's or the runtime's variables,
        global or static, nor from the linker's empty GOT symbol."""
        self.assertEqual(g.own_variables(self.program(), self.runtime()), ([], "runtime"))

    def test_cannot_tell(self):
        app = self.program([("total", ".bss", 4)])
        self.assertEqual(g.own_variables(app), ([], None))             # no build
        self.assertEqual(g.own_variables(app, lambda: []), ([], None))
        self.assertEqual(g.own_variables(self.program(symtab=False), self.runtime()), ([], None))
        self.assertEqual(g.own_variables(os.path.join(self.dir, "none.elf")), ([], None))
        self.assertEqual(g.own_variables(self.write("t.elf", b"#!/bin/sh\n")), ([], None))

    def test_runtime_files_from_mpicc_cfg(self):
        crt, lib = self.runtime()
        cfg_path = self.write("mpicc.cfg", (
            "# comment\ncc=/usr/bin/gcc\n"
            f"startfiles={crt}\nlibs={lib};{self.dir}/missing.a\n"
            f"syslibs=-Wl,--start-group;{lib};-Wl,--end-group\n").encode())
        cfg = g.read_config(cfg_path)
        self.assertEqual(cfg["cc"], ["/usr/bin/gcc"])
        self.assertEqual(g.runtime_files(cfg), [crt, lib, lib])


if __name__ == "__main__":
    unittest.main()
