#!/usr/bin/python3
"""Unit tests of tools/tessera/symbols.py: addresses to function, file and
line, and mpirun's rewriting of the kernel's fault reports. The programs
are built here with the host's gcc (-g), as mpicc builds with -g."""
import os
import shutil
import subprocess
import tempfile
import unittest

from tessera.symbols import FaultReports, Symbols

SOURCE = """\
static inline __attribute__((always_inline)) int inner(volatile int *p) {
    return *p * 3;
}
__attribute__((noinline)) int outer(volatile int *p) {
    return inner(p) + 1;
}
int main(void) {
    static volatile int v;
    return outer(&v);
}
"""
INNER_LINE, OUTER_CALL_LINE, MAIN_LINE = 2, 5, 9


class SymbolsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        source = os.path.join(cls.tmp.name, "prog.c")
        with open(source, "w") as f:
            f.write(SOURCE)
        cls.elf = os.path.join(cls.tmp.name, "prog.elf")
        subprocess.run(["gcc", "-g", "-O2", "-fno-omit-frame-pointer", "-o", cls.elf, source],
                       check=True)
        cls.symbols = Symbols(cls.elf)
        cls.functions = {name: (start, size) for start, name, size in cls.symbols._functions}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def addresses(self, name):
        start, size = self.functions[name]
        return range(start, start + size)

    def test_a_place_has_function_file_and_line(self):
        places = {self.symbols.place(a) for a in self.addresses("main")}
        self.assertTrue(any(p.startswith("main at ") and p.endswith(f"prog.c:{MAIN_LINE}")
                            for p in places), places)

    def test_inlined_functions_name_their_caller_and_call_line(self):
        places = {self.symbols.place(a) for a in self.addresses("outer")}
        want = [p for p in places if p.startswith("inner at ")]
        self.assertTrue(want, places)
        self.assertRegex(want[0], rf"^inner at \S*prog\.c:{INNER_LINE}, inlined into outer at "
                                  rf"\S*prog\.c:{OUTER_CALL_LINE}$")

    def test_a_return_address_is_placed_at_its_call(self):
        # The byte after a function's last one is no part of it; as a
        # return address it is the call at the function's end.
        start, size = self.functions["main"]
        self.assertTrue(self.symbols.place(start + size, call=True).startswith("main"))

    def test_without_debug_information_the_symbol_and_offset(self):
        stripped = os.path.join(self.tmp.name, "nodebug.elf")
        subprocess.run(["objcopy", "--strip-debug", self.elf, stripped], check=True)
        start, _ = self.functions["outer"]
        self.assertEqual(Symbols(stripped).place(start + 2), "outer+0x2")

    def test_not_an_elf(self):
        with self.assertRaises(ValueError):
            Symbols(__file__)

    def test_a_leaf_caller_is_inserted_only_from_another_function(self):
        outer, _ = self.functions["outer"]
        main, _ = self.functions["main"]
        self.assertEqual(self.symbols.with_leaf_caller([outer + 1, main + 9], main + 4),
                         [outer + 1, main + 4, main + 9])
        self.assertEqual(self.symbols.with_leaf_caller([outer + 1, main + 9], outer + 3),
                         [outer + 1, main + 9])
        self.assertEqual(self.symbols.with_leaf_caller([outer + 1, main + 9], main + 9),
                         [outer + 1, main + 9])

    def rewrite(self, lines, program=None):
        reports = FaultReports(program or self.elf)
        return [out for line in lines for out in reports.rewrite(line)]

    def report(self, name, who="rank 1 (cluster 1 thread 2)", tag=""):
        outer, _ = self.functions["outer"]
        main, _ = self.functions["main"]
        return [f"{tag}tessera: {who}: process {name} killed: load page fault at pc={outer:#x} "
                "addr=0x0",
                f"{tag}tessera: {who}: backtrace: {outer:#x} {main + 8:#x}"]

    def test_the_backtrace_line_becomes_a_line_per_frame(self):
        lines = self.rewrite(["hello"] + self.report("prog"))
        self.assertEqual(lines[:3], ["hello"] + self.report("prog")[:1] +
                         ["tessera: rank 1 (cluster 1 thread 2): backtrace:"])
        self.assertRegex(lines[3], r"^    #0 0x[0-9a-f]+ in (outer|inner) at \S*prog\.c:\d+")
        self.assertRegex(lines[4], r"^    #1 0x[0-9a-f]+ in main")
        self.assertEqual(len(lines), 5)

    def test_tagged_output_is_rewritten_too(self):
        lines = self.rewrite(self.report("prog", tag="[rank 1] "))
        self.assertEqual(lines[1], "[rank 1] tessera: rank 1 (cluster 1 thread 2): backtrace:")
        self.assertRegex(lines[2], r"^\[rank 1\]     #0 0x[0-9a-f]+ in ")
        self.assertEqual(len(lines), 4)

    def test_another_programs_report_is_left_alone(self):
        self.assertEqual(self.rewrite(self.report("other")), self.report("other"))

    def test_an_unreadable_program_leaves_every_line_alone(self):
        missing = os.path.join(self.tmp.name, "gone.elf")
        self.assertEqual(self.rewrite(self.report("gone"), missing), self.report("gone"))

    def test_mpmd_every_programs_reports(self):
        """mpirun's filter for a job of several programs rewrites the
        reports of each, with its own symbols, and no other's."""
        from tessera import mpirun
        other = os.path.join(self.tmp.name, "other.elf")
        shutil.copy(self.elf, other)
        rewrite = mpirun.fault_rewriter([self.elf, other, self.elf])
        for name in ("prog", "other"):
            lines = [out for line in self.report(name) for out in rewrite(line)]
            self.assertEqual(len(lines), 4, lines)
            self.assertRegex(lines[3], r"^    #1 0x[0-9a-f]+ in main")
        self.assertEqual([out for line in self.report("third") for out in rewrite(line)],
                         self.report("third"))


if __name__ == "__main__":
    unittest.main()
