#!/usr/bin/python3
"""Unit tests of tools/tidy.py: .clang-tidy's naming convention refuses a
kName constant (a probe) and takes the tree's lower_snake constants, C
interface enumerators and macros; a cross build's GCC command parses."""
import json
import os
import shutil
import tempfile
import unittest

from toolsupport import REPO
from tessera import tidy

CLEAN = """\
#define TS_PROBE_MACRO 1
enum ts_probe_op { TS_PROBE_LINK = 1 };
enum class Where { local, remote };
enum : unsigned { msg_data = 16 };
namespace n {
inline constexpr int eager_max = 512;
struct Table {
    static constexpr int capacity = 16;
};
int f(const int n) {
    const int twice = 2 * n;
    static const int base = 1;
    return twice + base + TS_PROBE_MACRO + TS_PROBE_LINK;
}
}  // namespace n
"""


def findings(source, compiler="/usr/bin/c++", flags=("-std=gnu++20",)):
    """tidy.py --naming's findings on one file `probe.cpp` holding source,
    compiled by `compiler flags`, with the repository's .clang-tidy."""
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(os.path.join(REPO, ".clang-tidy"), d)
        path = os.path.join(d, "probe.cpp")
        with open(path, "w") as f:
            f.write(source)
        with open(os.path.join(d, "compile_commands.json"), "w") as f:
            json.dump([{"directory": d, "file": path,
                        "command": " ".join([compiler, *flags, "-c", path, "-o", path + ".o"])}], f)
        return tidy.check([d], naming=True, jobs=1)[0]


@unittest.skipUnless(shutil.which("clang-tidy"), "clang-tidy is missing (tools/setup.sh installs it)")
class Naming(unittest.TestCase):
    def test_the_tree_s_conventions_pass(self):
        self.assertEqual(findings(CLEAN), [])

    def test_kname_constant_is_refused(self):
        got = findings(CLEAN + "constexpr int kProbe = 1;\n")
        self.assertEqual(len(got), 1, got)
        self.assertIn("invalid case style for constexpr variable 'kProbe'", got[0])

    def test_every_kind_of_constant_is_checked(self):
        cases = {
            "struct S { static constexpr int kCap = 1; };": "kCap",
            "const int kGlobal = 1;": "kGlobal",
            "int g() { const int kLocal = 1; return kLocal; }": "kLocal",
            "enum class E { kRemote };": "kRemote",
            "enum : int { kBit = 1 };": "kBit",
        }
        for source, name in cases.items():
            with self.subTest(source=source):
                got = findings(source + "\n")
                self.assertTrue(any(f"'{name}'" in f for f in got), got)

    @unittest.skipUnless(shutil.which("riscv64-linux-gnu-g++"), "no riscv64 cross compiler")
    def test_cross_gcc_command_parses(self):
        # The kernel side's flags (out/target): freestanding, GCC's headers.
        source = "#include <stdint.h>\n#include <atomic>\nstd::atomic<uint32_t> kProbe;\nconst uint64_t kLimit = 1;\n"
        got = findings(source, "/usr/bin/riscv64-linux-gnu-g++",
                       ("-march=rv64gc", "-mabi=lp64d", "-mcmodel=medany", "-ffreestanding", "-fno-exceptions",
                        "-fno-tree-loop-distribute-patterns", "-std=gnu++20"))
        self.assertEqual(len(got), 1, got)  # kProbe is no constant; kLimit is
        self.assertIn("'kLimit'", got[0])


if __name__ == "__main__":
    unittest.main()
