#!/usr/bin/python3
"""Unit tests of tools/mkimage.py's pure logic: manifest packing, payload
layout, image checks, the QEMU command and the linux64 payload files; and of
tools/tessera/abi.py, which reads the layouts and constants from the ABI
headers: its reading must be what C compilers make of them. No cross
toolchain, no QEMU (the riscv64 compiler is used when installed)."""
import contextlib
import io
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest

from tessera import abi, fit, mkimage
from tessera.mkimage import ImageError, Program, Segment
from tessera.abi import AbiError
from tessera.profile import MIB, TS_MAX_CLUSTERS, ToolError, compute_layout, load_profile

# Field offsets, from include/tessera/image.h as tools/tessera/abi.py reads
# it (AbiMatchesCTest checks that reading against C compilers).
M = mkimage.MANIFEST.offsets
CLUSTER = mkimage.CLUSTER_DESC.offsets
PROGRAM = mkimage.PROGRAM_DESC.offsets
MANIFEST_SIZE = mkimage.MANIFEST_SIZE
CLUSTER_SIZE, PROGRAM_SIZE = mkimage.CLUSTER_DESC.size, mkimage.PROGRAM_DESC.size
NAME_SIZE, ARGS_SIZE = mkimage.TS_PROGRAM_NAME, mkimage.TS_MANIFEST_ARGS

# The ABI headers the tools read, and whether they read their layouts.
ABI_HEADERS = (("tessera/image.h", True), ("tessera/syscall.h", False), ("tessera/firmware.h", True))

# The default profile with 16 MiB compute windows (mpirun --cluster-memory
# 16M): the addresses below are written for it.
LAYOUT = compute_layout(load_profile("default"), cluster_memory="16M")


def u16(buf, off):
    return struct.unpack_from("<H", buf, off)[0]


def u32(buf, off):
    return struct.unpack_from("<I", buf, off)[0]


def u64(buf, off):
    return struct.unpack_from("<Q", buf, off)[0]


def j_insn(offset):
    """Encode `jal x0, offset` (a RISC-V `j`)."""
    imm = offset & ((1 << 21) - 1)
    return (((imm >> 20) & 1) << 31 | ((imm >> 1) & 0x3FF) << 21 | ((imm >> 11) & 1) << 20
            | ((imm >> 12) & 0xFF) << 12 | 0x6F)


def abi_checks(header):
    """(what, the tools' value, C expression) for everything the tools read
    from a abi.Header: each constant; each struct's size and
    alignment; each field's offset and size."""
    checks = [(name, value % (1 << 64), name) for name, value in header.constants.items()]
    for tag, s in header.structs.items():
        checks += [(f"sizeof(struct {tag})", s.size, f"sizeof(struct {tag})"),
                   (f"_Alignof(struct {tag})", s.align, f"_Alignof(struct {tag})")]
        for f in s.fields:
            checks += [(f"offsetof(struct {tag}, {f.name})", f.offset,
                        f"offsetof(struct {tag}, {f.name})"),
                       (f"sizeof {tag}.{f.name}", f.size,
                        f"sizeof(((struct {tag} *)0)->{f.name})")]
    return checks


def compiler_values(cc, name, exprs, include=abi.INCLUDE, flags=()):
    """The values the C compiler cc gives the integer constant expressions
    exprs, in a file including <name> from include. It compiles an object
    holding them as 64-bit values and reads them back (pyelftools), so it
    works for cross compilers as well as for the host's."""
    from elftools.elf.elffile import ELFFile

    src = (f"#include <stddef.h>\n#include <{name}>\n"
           "const unsigned long long ts_abi_values[] = {\n"
           + "".join(f"    (unsigned long long)({e}),\n" for e in exprs) + "};\n")
    with tempfile.TemporaryDirectory() as d:
        c, obj = os.path.join(d, "abi.c"), os.path.join(d, "abi.o")
        with open(c, "w") as f:
            f.write(src)
        r = subprocess.run([cc, *flags, "-I", include, "-c", c, "-o", obj],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise AssertionError(f"{cc} cannot compile the checks of <{name}>:\n{r.stdout}")
        with open(obj, "rb") as f:
            elf = ELFFile(f)
            sym = elf.get_section_by_name(".symtab").get_symbol_by_name("ts_abi_values")[0]
            data = elf.get_section(sym["st_shndx"]).data()
            order = "<" if elf.little_endian else ">"
            return list(struct.unpack_from(f"{order}{len(exprs)}Q", data, sym["st_value"]))


def abi_mismatches(cc, include=abi.INCLUDE, flags=(), headers=ABI_HEADERS):
    """Lines 'header: what: tools X, cc Y' for every value the tools read
    from the ABI headers that the C compiler cc sees otherwise (nothing when
    all agree). include: where cc finds the headers (the tools read
    tools/../include)."""
    out = []
    for name, layouts in headers:
        checks = abi_checks(abi.load_header(name, layouts=layouts))
        got = compiler_values(cc, name, [expr for _, _, expr in checks], include, flags)
        out += [f"<{name}>: {what}: tools {mine}, {os.path.basename(cc)} {theirs}"
                for (what, mine, _), theirs in zip(checks, got) if mine != theirs]
    return out


class AbiMatchesCTest(unittest.TestCase):
    """What tools/tessera/abi.py reads from the ABI headers (every struct's
    size and alignment, every field's offset and size, every constant) is
    what C compilers make of the same headers: the host's (linux64's layout)
    and the riscv64 cross compiler when installed (the kernel's)."""

    def check(self, cc, flags=()):
        bad = abi_mismatches(cc, flags=flags)
        if bad:
            self.fail(f"the tools read the ABI headers otherwise than {cc}:\n" + "\n".join(bad))

    def test_host_compiler(self):
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            self.skipTest("no host C compiler")
        self.check(cc)

    def test_riscv64_compiler(self):
        cc = shutil.which(mkimage.CROSS + "gcc")
        if not cc:
            self.skipTest("no riscv64 cross compiler (make setup installs it)")
        self.check(cc, mkimage.ARCH_FLAGS)

    def test_a_disagreement_fails(self):
        """The check is not blind: a copy of the headers with a field added
        to the first struct of image.h, seen by the compiler while the tools
        read the real one, gives mismatches."""
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            self.skipTest("no host C compiler")
        tag = next(iter(mkimage.IMAGE_H.structs))
        with tempfile.TemporaryDirectory() as d:
            include = os.path.join(d, "include")
            shutil.copytree(abi.INCLUDE, include)
            path = os.path.join(include, "tessera", "image.h")
            with open(path) as f:
                text = f.read()
            text, n = re.subn(r"struct\s+" + tag + r"\s*\{",
                              "struct " + tag + " { uint64_t injected;", text, count=1)
            self.assertEqual(n, 1)
            with open(path, "w") as f:
                f.write(text)
            bad = abi_mismatches(cc, include, headers=[("tessera/image.h", True)])
        self.assertTrue(any(f"sizeof(struct {tag}): tools" in line for line in bad), bad)

    def test_checks_cover_the_tools_layouts(self):
        """Every struct and constant mkimage uses is among those checked."""
        image = abi.load_header("tessera/image.h")
        whats = {what for what, _, _ in abi_checks(image)}
        for s in (mkimage.MANIFEST, mkimage.CLUSTER_DESC, mkimage.PROGRAM_DESC,
                  mkimage.IMAGE_HEADER):
            self.assertIs(image.struct(s.name), s)
            self.assertIn(f"sizeof(struct {s.name})", whats)
            self.assertEqual(s.format.size, s.size)
        self.assertIn("TS_MAP_SCATTER", {w for w, _, _ in abi_checks(mkimage.SYSCALL_H)})


def parse(text, layouts=True):
    """abi's Header of a header's text (named t.h in errors)."""
    return abi.parse_header(text, "t.h", layouts=layouts)


class AbiParserTest(unittest.TestCase):
    """tools/tessera/abi.py: C's layout rules, and strictness: whatever it
    does not read for sure is an error naming the header and the line."""

    def refused(self, text, words, layouts=True):
        with self.assertRaisesRegex(AbiError, words):
            parse(text, layouts)

    def test_natural_alignment_and_padding(self):
        h = parse("#include <stdint.h>\n#define N 2\n"
                  "struct p { uint8_t a; uint64_t b; uint16_t c; };\n"
                  "struct q { uint16_t x; struct p ps[N]; char tag[3]; int32_t v[N + 1]; };\n")
        p, q = h.struct("p"), h.struct("q")
        self.assertEqual((p.offsets, p.size, p.align), ({"a": 0, "b": 8, "c": 16}, 24, 8))
        self.assertEqual((q.offsets, q.size, q.align),
                         ({"x": 0, "ps": 8, "tag": 56, "v": 60}, 72, 8))
        self.assertEqual(q.format.format, "<H6x48s3s1x3i")
        self.assertEqual([(f.ctype, f.count, f.size) for f in q.fields],
                         [("uint16_t", None, 2), ("struct p", 2, 48), ("char", 3, 3),
                          ("int32_t", 3, 12)])

    def test_pack_and_unpack_by_name(self):
        h = parse("struct p { uint8_t a; uint64_t b; uint16_t c; };\n"
                  "struct q { uint16_t x; struct p ps[2]; char tag[3]; int32_t v[3]; };\n")
        q = h.struct("q")
        data = q.pack(x=7, ps=[dict(a=1, b=2, c=3)], tag=b"ab", v=[-1, 5])
        self.assertEqual(len(data), 72)
        self.assertEqual((u16(data, 0), data[8], u64(data, 16), u16(data, 24)), (7, 1, 2, 3))
        self.assertEqual(data[32:56], bytes(24))                     # ps[1]: zeros
        self.assertEqual(q.unpack_from(data), {
            "x": 7, "ps": [{"a": 1, "b": 2, "c": 3}, {"a": 0, "b": 0, "c": 0}],
            "tag": b"ab\0", "v": [-1, 5, 0]})
        self.assertEqual(q.unpack_field(data[56:], "tag", -56), b"ab\0")
        cases = [(dict(x=1, ps=[], tag=b""), "struct q: no value for field 'v'"),
                 (dict(x=1, ps=[], tag=b"", v=[], y=2), "struct q .* has no field 'y'"),
                 (dict(x=1 << 16, ps=[], tag=b"", v=[]), "q.x: 65536 does not fit a uint16_t"),
                 (dict(x=-1, ps=[], tag=b"", v=[]), "q.x: -1 does not fit a uint16_t"),
                 (dict(x=1, ps=[], tag=b"", v=[1 << 31]), "q.v: 2147483648 does not fit"),
                 (dict(x=1, ps=[], tag=b"abcd", v=[]), "q.tag: want at most 3 bytes"),
                 (dict(x=1, ps=[{}] * 3, tag=b"", v=[]), "q.ps: want a list of at most 2"),
                 (dict(x=1, ps=[dict(a=1)], tag=b"", v=[]), "struct p: no value for field 'b'")]
        for values, words in cases:
            with self.subTest(values=values), self.assertRaisesRegex(AbiError, words):
                q.pack(**values)
        with self.assertRaisesRegex(AbiError, "struct q needs 72 bytes, got 71"):
            q.unpack_from(data[1:])

    def test_constants(self):
        h = parse("/* a header */\n#ifndef T_H\n#define T_H\n"
                  "#define A 0x10u  /* a comment */\n"
                  "#define B \\\n    2u /* clang-format splits long lines: a comment\n"
                  "                 * over two lines */\n"
                  "#define C ((A | B) << 1) - 010 / 3\n#define NEG (-7 / 2)\n"
                  "#define F(x) ((x) + 1)\n#endif\n")
        self.assertEqual(h.constants, {"A": 16, "B": 2, "C": 34, "NEG": -3})
        with self.assertRaisesRegex(AbiError, "t.h defines no integer constant F"):
            h.constant("F")
        with self.assertRaisesRegex(AbiError, "t.h defines no struct s"):
            h.struct("s")

    def test_constants_only_skips_code(self):
        h = parse("#include <tessera/syscall.h>\n#include <stddef.h>\n"
                  "#define X (TS_PORTS + 1)\n"
                  "enum e { E1 = 1 };\nstatic inline int f(void) { return X; }\n"
                  "#ifdef __cplusplus\nstatic_assert(1);\n"
                  "#else\n_Static_assert(1, \"\");\n#endif\n", layouts=False)
        self.assertEqual(h.constant("X"), mkimage.SYSCALL_H.constant("TS_PORTS") + 1)
        self.assertEqual(h.structs, {})
        for text, words in [("#ifdef Y\n#define X 1\n#endif\n", r"t.h:2: #define X inside #if"),
                            ("#define X 1\n#if 0\n#undef X\n#endif\n", r"t.h:3: #undef X inside"),
                            ("#ifndef G\n#define G\n#else\n#define X 1\n#endif\n",
                             r"t.h:4: #define X inside #if"),
                            ("#if 0\n#include <tessera/syscall.h>\n#endif\n",
                             r"t.h:2: #include <tessera/syscall.h> inside #if")]:
            with self.subTest(text=text):
                self.refused(text, words, layouts=False)

    def test_unknown_types(self):
        cases = [("unsigned long bytes;", r"'unsigned long bytes;' has type 'unsigned long'"),
                 ("int x;", r"has type 'int', which the tools do not read"),
                 ("size_t n[4];", r"has type 'size_t'"),
                 ("const uint32_t x;", r"has type 'const uint32_t'"),
                 ("char *p;", r"cannot read 'char \* p;'.*no pointers"),
                 ("uint32_t a : 3;", r"cannot read 'uint32_t a : 3;'"),
                 ("uint32_t a, b;", r"cannot read 'uint32_t a , b;'.*one field per declaration"),
                 ("uint32_t a __attribute__((aligned(8)));", r"cannot read"),
                 ("uint8_t m[2][2];", r"arrays have one dimension"),
                 ("uint8_t m[];", r"m's length: empty expression"),
                 ("uint8_t m[0];", r"m has 0 elements"),
                 ("uint8_t m[N];", r"m's length: 'N' is not an integer constant defined earlier"),
                 ("char c;", r"char field 'c' must be an array"),
                 ("struct other o;", r"'o' is a struct other, which this header does not define"),
                 ("struct { uint32_t a; } anon;", r"nested definitions are not read"),
                 ("uint32_t a; uint32_t a;", r"field 'a' twice")]
        for field, words in cases:
            with self.subTest(field=field):
                self.refused(f"#include <stdint.h>\n\nstruct s {{\n    {field}\n}};\n",
                             r"^t.h:4: struct s: .*" + words)

    def test_unknown_constructs(self):
        cases = [("union u { uint32_t a; };", r"t.h:2: unsupported construct at 'union'"),
                 ("enum e { A = 1 };", r"t.h:2: unsupported construct at 'enum'"),
                 ("typedef uint32_t u32;", r"t.h:2: unsupported construct at 'typedef'"),
                 ("static inline int f(void) { return 0; }", r"unsupported construct at 'static'"),
                 ("struct s;", r"t.h:2: struct s: only definitions"),
                 ("struct s { uint32_t a; } __attribute__((packed));",
                  r"t.h:2: struct s: '__attribute__' after its '}'"),
                 ("struct s { uint32_t a; } v;", r"'v' after its '}'"),
                 ("struct s { };", r"struct s has no fields"),
                 ("struct s { uint32_t a; };\nstruct s { uint32_t b; };",
                  r"t.h:3: .*defined twice"),
                 ("#pragma pack(1)", r"t.h:2: #pragma pack \( 1 \): a directive the tools do not"),
                 ("#ifdef BIG\n#endif", r"t.h:2: #ifdef: conditional compilation"),
                 ("#if 1\n#endif", r"t.h:2: #if: conditional compilation"),
                 ("#include <stddef.h>", r"t.h:2: #include <stddef.h>: a header the tools do not"),
                 ('#include "local.h"', r"t.h:2: #include \"local.h\": the tools follow only"),
                 ('#define S "text"', r"t.h:2: #define S: '\"text\"' has no place in a constant"),
                 ("#define X 1.5", r"t.h:2: '1.5' is not an integer literal"),
                 ("#define X (1", r"t.h:2: #define X: '\( 1' is not an integer constant"),
                 ("#define X 1 / 0", r"t.h:2: division by zero"),
                 ("#define X 1\n#define X 2", r"t.h:3: #define X redefines it as 2"),
                 ("#endif", r"t.h:2: #endif without #if"),
                 ("/* unterminated", r"t.h:2: unterminated comment"),
                 ("@", r"t.h:2: unexpected character '@'")]
        for text, words in cases:
            with self.subTest(text=text):
                self.refused(f"#include <stdint.h>\n{text}\n", words)

    def test_errors_name_the_header_file(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "tessera"))
            with open(os.path.join(d, "tessera", "n.h"), "w") as f:
                f.write("#define N 3\n")
            with open(os.path.join(d, "tessera", "a.h"), "w") as f:
                f.write("#include <tessera/n.h>\nstruct a { uint32_t v[N]; };\n")
            with open(os.path.join(d, "tessera", "bad.h"), "w") as f:
                f.write("#include <stdint.h>\n\nstruct s {\n    long x;\n};\n")
            with open(os.path.join(d, "tessera", "loop.h"), "w") as f:
                f.write("#include <tessera/loop.h>\n")
            self.assertEqual(abi.load_header("tessera/a.h", d).struct("a").size, 12)
            bad = os.path.join(d, "tessera", "bad.h")
            with self.assertRaisesRegex(AbiError, "^" + re.escape(bad) + r":4: struct s: "
                                                   r"'long x;' has type 'long'"):
                abi.load_header("tessera/bad.h", d)
            with self.assertRaisesRegex(AbiError, r"loop.h includes itself"):
                abi.load_header("tessera/loop.h", d)
            with self.assertRaisesRegex(AbiError, r"cannot read ABI header .*none.h"):
                abi.load_header("tessera/none.h", d)
        with self.assertRaisesRegex(AbiError, r"^include/tessera/image.h defines no struct nope"):
            mkimage.IMAGE_H.struct("nope")


class ManifestTest(unittest.TestCase):
    def pack(self, cluster_id=2, np=8, policy="scatter", programs=(), args=(("hello", "-x"),)):
        return mkimage.pack_manifest(LAYOUT, cluster_id, np, policy, list(programs),
                                     [list(a) for a in args])

    def test_size_and_header_fields(self):
        m = self.pack()
        self.assertEqual(len(m), MANIFEST_SIZE)
        self.assertEqual(u32(m, M["magic"]), mkimage.TS_MANIFEST_MAGIC)
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
        self.assertEqual(u32(m, M["args_size"]), 9)
        self.assertEqual((u16(m, M["ikc_buffers"]), u16(m, M["virtual_per_hw"])), (128, 32))
        self.assertEqual(u64(m, M["timebase_hz"]), 10000000)
        self.assertEqual(u32(m, M["flags"]), 0)
        self.assertEqual(u32(m, M["mpi_eager_max"]), 0)

    def test_flags(self):
        for flag in (mkimage.TS_MANIFEST_TAG_OUTPUT, mkimage.TS_MANIFEST_MPI_LOCAL_IKC):
            m = mkimage.pack_manifest(LAYOUT, 2, 8, "scatter", [], [["hello"]], flags=flag)
            self.assertEqual(u32(m, M["flags"]), flag)

    def test_mpi_eager_max(self):
        m = mkimage.pack_manifest(LAYOUT, 2, 8, "scatter", [], [["hello"]], mpi_eager_max=65536)
        self.assertEqual((u32(m, M["flags"]), u32(m, M["mpi_eager_max"])), (0, 65536))
        payload = mkimage.build_payload(LAYOUT, 2, 8, "scatter", [], [["hello"]], flags=3,
                                        mpi_eager_max=100)
        self.assertEqual((u32(payload, M["flags"]), u32(payload, M["mpi_eager_max"])), (3, 100))

    def test_compact_is_0(self):
        self.assertEqual(u32(self.pack(policy="compact"), M["map_policy"]), 0)
        with self.assertRaisesRegex(ImageError, "mapping policy"):
            self.pack(policy="random")

    def test_cluster_descs(self):
        m = self.pack()
        # The default profile (16 MiB compute windows): 2 hardware mailboxes
        # and portals on the I/O cluster, 1 on each compute cluster.
        expect = [(0x80200000, 8 * MIB, 0, 4, 0, 2, 2), (0x80A00000, 16 * MIB, 4, 5, 1, 1, 1),
                  (0x81A00000, 16 * MIB, 9, 5, 1, 1, 1), (0x82A00000, 16 * MIB, 14, 5, 1, 1, 1),
                  (0x83A00000, 16 * MIB, 19, 5, 1, 1, 1)]
        for i in range(TS_MAX_CLUSTERS):
            at = M["clusters"] + CLUSTER_SIZE * i
            got = (u64(m, at + CLUSTER["window_base"]), u64(m, at + CLUSTER["window_size"]),
                   u32(m, at + CLUSTER["first_hart"]), u32(m, at + CLUSTER["ncores"]),
                   u32(m, at + CLUSTER["kind"]), u16(m, at + CLUSTER["mailboxes"]),
                   u16(m, at + CLUSTER["portals"]))
            self.assertEqual(got, expect[i] if i < 5 else (0,) * 7, f"cluster {i}")

    def test_program_descs(self):
        progs = [(Program("nameserver", 0, 0, b"x" * 100), MANIFEST_SIZE),
                 (Program("fn", 1, 1, b"y" * 7), MANIFEST_SIZE + 104)]
        m = self.pack(programs=progs)
        self.assertEqual(u32(m, M["nprograms"]), 2)
        for i, (ring, off, size, mpi, name) in enumerate(
                [(0, MANIFEST_SIZE, 100, 0, b"nameserver"), (1, MANIFEST_SIZE + 104, 7, 1, b"fn")]):
            at = M["programs"] + PROGRAM_SIZE * i
            self.assertEqual((u32(m, at + PROGRAM["ring"]), u32(m, at + PROGRAM["offset"]),
                              u32(m, at + PROGRAM["size"]), u32(m, at + PROGRAM["is_mpi"])),
                             (ring, off, size, mpi))
            self.assertEqual(m[at + PROGRAM["name"]:at + PROGRAM["name"] + NAME_SIZE],
                             name.ljust(NAME_SIZE, b"\0"))
        unused = M["programs"] + 2 * PROGRAM_SIZE
        self.assertEqual(m[unused:M["args"]], bytes(M["args"] - unused))

    def argv_desc(self, m, i):
        at = M["programs"] + PROGRAM_SIZE * i
        return u32(m, at + PROGRAM["argc"]), u32(m, at + PROGRAM["args_offset"])

    def test_args_back_to_back(self):
        """Every application's argv, one after the other; an MPI program
        starts with its application's, a service with none."""
        fn = Program("fn", 1, 1, b"")
        m = self.pack(programs=[(fn, 0), (Program("nameserver", 0, 0, b""), 0)],
                      args=[["fn", "1", "4000"], ["b"]])
        self.assertEqual(u32(m, M["args_size"]), 12)
        self.assertEqual((self.argv_desc(m, 0), self.argv_desc(m, 1)), ((3, 0), (0, 0)))
        self.assertEqual(m[M["args"]:M["args"] + 12], b"fn\x001\x004000\x00b\x00")
        self.assertEqual(m[M["args"] + 12:M["args"] + ARGS_SIZE], bytes(ARGS_SIZE - 12))
        with self.assertRaisesRegex(ImageError, "an application without argv"):
            self.pack(programs=[(Program("b", 1, 1, b"", appnum=1), 0)], args=[["a"]])

    def argv_desc(self, m, i):
        at = M["programs"] + PROGRAM_SIZE * i
        return u32(m, at + PROGRAM["argc"]), u32(m, at + PROGRAM["args_offset"])

    def test_applications(self):
        """An MPMD launch: each MPI program says its application, its ranks
        and where its application's argv starts."""
        a = Program("a", 1, 1, b"", appnum=0, first_rank=0, nranks=1)
        b = Program("b", 1, 1, b"", appnum=1, first_rank=1, nranks=16)
        m = self.pack(np=17, programs=[(b, 0), (a, 0)], args=[["a", "x"], ["b"]])
        for i, want in enumerate([(1, 1, 16, 1, 4), (0, 0, 1, 2, 0)]):
            at = M["programs"] + PROGRAM_SIZE * i
            self.assertEqual(tuple(u32(m, at + PROGRAM[k]) for k in
                                   ("appnum", "first_rank", "nranks", "argc", "args_offset")), want)
        self.assertEqual(m[M["args"]:M["args"] + 6], b"a\0x\0b\0")
        self.assertEqual(([a.runs(r) for r in range(3)], [b.runs(r) for r in (0, 1, 16, 17)]),
                         ([True, False, False], [False, True, True, False]))

    def test_args_limit(self):
        self.pack(args=[["p", "a" * (ARGS_SIZE - 3)]])     # "p\0" + the rest and its NUL: full
        with self.assertRaisesRegex(ImageError, f"the program's arguments take {ARGS_SIZE + 1} "
                                                f"bytes.*at most {ARGS_SIZE}"):
            self.pack(args=[["p", "a" * (ARGS_SIZE - 2)]])
        with self.assertRaisesRegex(ImageError, "the applications' arguments take 604 bytes"):
            self.pack(args=[["p", "a" * 300], ["q", "b" * 298]])

    def label(self, m, i=0):
        at = M["programs"] + PROGRAM_SIZE * i + PROGRAM["name"]
        return m[at:at + NAME_SIZE]

    def test_long_program_name(self):
        """Only the manifest's label is cut to TS_PROGRAM_NAME - 1 bytes;
        argv[0] stays whole."""
        name = "a_rather_long_program_name_for_mpirun_x".ljust(NAME_SIZE + 8, "x")
        m = self.pack(programs=[(Program(name, 1, 1, b""), MANIFEST_SIZE)], args=[[name, "-v"]])
        self.assertEqual(self.label(m), name.encode()[:NAME_SIZE - 1] + b"\0")
        self.assertEqual(m[M["args"]:M["args"] + len(name) + 4], name.encode() + b"\0-v\0")
        m = self.pack(programs=[(Program("n" * (NAME_SIZE - 1), 1, 1, b""), MANIFEST_SIZE)])
        self.assertEqual(self.label(m), b"n" * (NAME_SIZE - 1) + b"\0")

    def test_label_keeps_whole_characters(self):
        name = "x" * (NAME_SIZE - 2) + "\u00e9t\u00e9"
        m = self.pack(programs=[(Program(name, 1, 1, b""), MANIFEST_SIZE)])
        self.assertEqual(self.label(m), b"x" * (NAME_SIZE - 2) + bytes(2))  # no half an "\u00e9"

    def test_too_many_programs(self):
        most = mkimage.TS_MAX_PROGRAMS
        with self.assertRaisesRegex(ImageError, f"{most + 1} programs, at most {most} fit"):
            self.pack(programs=[(Program("p", 1, 1, b""), MANIFEST_SIZE)] * (most + 1))

    def test_environment(self):
        """mpirun -x's NAME=VALUE strings: NUL-terminated, back to back,
        env_size bytes of them; none: env_size 0 and zeroes."""
        env = ["A=1", "B=two words=x", "E="]
        m = mkimage.pack_manifest(LAYOUT, 2, 8, "scatter", [], [["hello"]], env=env)
        blob = b"A=1\0B=two words=x\0E=\0"
        self.assertEqual(u32(m, M["env_size"]), len(blob))
        self.assertEqual(m[M["env"]:M["env"] + len(blob) + 1], blob + b"\0")
        m = self.pack()
        self.assertEqual(u32(m, M["env_size"]), 0)
        self.assertEqual(m[M["env"]:M["env"] + mkimage.TS_MANIFEST_ENV],
                         bytes(mkimage.TS_MANIFEST_ENV))

    def test_environment_limit(self):
        """At most TS_MANIFEST_ENV bytes, the NULs included."""
        most = mkimage.TS_MANIFEST_ENV
        full = ["A=" + "v" * (most - 3)]
        m = mkimage.pack_manifest(LAYOUT, 2, 8, "scatter", [], [["hello"]], env=full)
        self.assertEqual(u32(m, M["env_size"]), most)
        with self.assertRaisesRegex(ImageError, f"the environment variables take {most + 1} "
                                                f"bytes .* at most {most}"):
            mkimage.pack_manifest(LAYOUT, 2, 8, "scatter", [], [["hello"]], env=[full[0] + "v"])

    def test_environment_keeps_undecodable_bytes(self):
        """A value from mpirun's environment that is no UTF-8 (os.environ
        holds its bytes as surrogate escapes) goes in byte for byte."""
        self.assertEqual(mkimage.encode_env(["A=\udcff\u00e9"]), b"A=\xff\xc3\xa9\0")


class MapByTest(unittest.TestCase):
    """--map-by: compact, scatter, and ppr:N:cluster, which is compact on a
    layout of N slots per cluster."""

    def test_parse(self):
        self.assertEqual(mkimage.parse_map_by("compact"), ("compact", 0))
        self.assertEqual(mkimage.parse_map_by("scatter"), ("scatter", 0))
        self.assertEqual(mkimage.parse_map_by("ppr:12:cluster"), ("compact", 12))
        self.assertEqual(mkimage.parse_map_by("ppr:1:cluster"), ("compact", 1))

    def test_bad_forms(self):
        form = "--map-by must be compact, scatter or ppr:N:cluster, got '{}'"
        count = "--map-by ppr:N:cluster needs a positive number N of processes per compute " \
                "cluster, got '{}'"
        resource = "--map-by ppr:N:RESOURCE: Tessera places processes per compute cluster " \
                   "only (ppr:N:cluster), got '{}'"
        for value, message in (("random", form), ("", form), ("Compact", form), ("ppr", form),
                               ("ppr:2", form), ("ppr:2:cluster:pe=2", form),
                               ("PPR:2:cluster", form), ("ppr:0:cluster", count),
                               ("ppr:x:cluster", count), ("ppr:-1:cluster", count),
                               ("ppr::cluster", count), ("ppr:\u00b2:cluster", count),
                               ("ppr:4:node", resource), ("ppr:4:core", resource),
                               ("ppr:4:", resource)):
            with self.subTest(value=value), self.assertRaises(mkimage.OptionError) as cm:
                mkimage.parse_map_by(value)
            self.assertEqual(str(cm.exception), message.format(value))

    def test_plan_job(self):
        layout = mkimage.plan_job("default", 6, "linux64", ppr=2)
        self.assertEqual((layout.slots_per_cluster, layout.capacity), (2, 8))
        # Rank r on compute cluster r // 2, local index r % 2.
        self.assertEqual([mkimage.placement(layout, "compact", r) for r in range(6)],
                         [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)])
        self.assertEqual(mkimage.plan_job("default", 6, "linux64").slots_per_cluster, 4)
        with self.assertRaisesRegex(ToolError, "^9 processes requested but --map-by "
                                               "ppr:2:cluster places at most 8"):
            mkimage.plan_job("default", 9, "linux64", ppr=2)
        with self.assertRaisesRegex(mkimage.OptionError, "N must be 1 to 4"):
            mkimage.plan_job("default", 1, "linux64", ppr=5)

    def test_mppa256_12_per_cluster(self):
        layout = mkimage.plan_job("mppa256", 192, "linux64", ppr=12)
        self.assertEqual([mkimage.placement(layout, "compact", r) for r in (0, 11, 12, 191)],
                         [(0, 0), (0, 11), (1, 0), (15, 11)])
        with self.assertRaisesRegex(ToolError, "places at most 192"):
            mkimage.plan_job("mppa256", 193, "linux64", ppr=12)
        mkimage.plan_job("mppa256", 256, "qemu-riscv64", ppr=16)
        with self.assertRaisesRegex(mkimage.OptionError, "N must be 1 to 16"):
            mkimage.plan_job("mppa256", 1, "linux64", ppr=17)

    def test_manifest(self):
        """What the kernel, crt0 and LWMPI read: the compact policy and N
        slots per cluster."""
        layout = mkimage.plan_job("default", 6, "linux64", ppr=2)
        m = mkimage.pack_manifest(layout, 2, 6, "compact", [], [["hello"]])
        self.assertEqual((u32(m, M["np"]), u32(m, M["map_policy"]), u32(m, M["slots_per_cluster"])),
                         (6, mkimage.MAP_POLICIES["compact"], 2))


class PayloadTest(unittest.TestCase):
    def test_elfs_follow_8_byte_aligned(self):
        a = Program("nameserver", 0, 0, bytes(range(13)))
        b = Program("hello", 1, 1, b"\x7fELF" + b"z" * 20)
        p = mkimage.build_payload(LAYOUT, 0, 4, "compact", [a, b], [["hello"]])
        a_at, b_at = M["programs"], M["programs"] + PROGRAM_SIZE
        off_a, size_a = u32(p, a_at + PROGRAM["offset"]), u32(p, a_at + PROGRAM["size"])
        off_b, size_b = u32(p, b_at + PROGRAM["offset"]), u32(p, b_at + PROGRAM["size"])
        self.assertEqual(MANIFEST_SIZE % 8, 0)
        self.assertEqual((off_a, size_a), (MANIFEST_SIZE, 13))
        self.assertEqual((off_b, size_b), (MANIFEST_SIZE + 16, 24))   # + 13 rounded up to 8
        self.assertEqual(p[off_a:off_a + size_a], a.data)
        self.assertEqual(p[off_b:off_b + size_b], b.data)
        self.assertEqual(len(p), off_b + size_b)

    def test_who_starts_what(self):
        mpi = Program("hello", 1, 1, b"m", nranks=16)
        ns = Program("nameserver", 0, 0, b"n")
        fs = Program("fileserver", 0, 0, b"f")
        self.assertEqual(mkimage.cluster_programs(LAYOUT, 0, [mpi], [ns, fs], "scatter", 16),
                         [ns, fs])
        for c in range(1, 5):
            self.assertEqual(mkimage.cluster_programs(LAYOUT, c, [mpi], [ns, fs], "scatter", 16),
                             [mpi])
        mppa = compute_layout(load_profile("mppa256"))
        self.assertEqual(mkimage.cluster_programs(mppa, 0, [mpi], [ns, fs], "compact", 1), [ns, fs])
        for c in (1, 2, 3):                               # the other I/O clusters
            self.assertEqual(mkimage.cluster_programs(mppa, c, [mpi], [ns, fs], "compact", 1), [])
        self.assertEqual(mkimage.cluster_programs(mppa, 4, [mpi], [ns, fs], "compact", 1), [mpi])
        self.assertEqual(mkimage.cluster_programs(mppa, 5, [mpi], [ns, fs], "compact", 1), [])

    def test_who_starts_which_application(self):
        """An MPMD launch: a compute cluster starts the programs of the
        applications whose ranks it hosts (default profile: 4 per cluster)."""
        a = Program("a", 1, 1, b"a", appnum=0, first_rank=0, nranks=1)
        b = Program("b", 1, 1, b"b", appnum=1, first_rank=1, nranks=6)
        hosted = [mkimage.cluster_programs(LAYOUT, c, [a, b], [], "compact", 7) for c in range(1, 5)]
        self.assertEqual(hosted, [[a, b], [b], [], []])
        hosted = [mkimage.cluster_programs(LAYOUT, c, [a, b], [], "scatter", 7) for c in range(1, 5)]
        self.assertEqual(hosted, [[a, b], [b], [b], [b]])

    def test_who_starts_the_io_rank(self):
        """The I/O rank's program (process np, after the world's) goes to
        cluster 0, with the services; no compute cluster starts it."""
        a = Program("a", 1, 1, b"a", appnum=0, first_rank=0, nranks=5)
        server = Program("io", 1, 1, b"i", appnum=1, first_rank=5, nranks=1)
        ns = Program("nameserver", 0, 0, b"n")
        self.assertEqual(mkimage.cluster_programs(LAYOUT, 0, [a, server], [ns], "compact", 5), [ns, server])
        hosted = [mkimage.cluster_programs(LAYOUT, c, [a, server], [ns], "compact", 5) for c in range(1, 5)]
        self.assertEqual(hosted, [[a], [a], [], []])

    def test_io_rank_needs_a_free_core(self):
        full = compute_layout(load_profile("full-cluster"))
        with self.assertRaisesRegex(ImageError, "--io-rank: profile 'full-cluster' has no core for "
                                                "the I/O rank: its I/O cluster 0 has 3 cores, all "
                                                "taken .*'io_cores' at least 4"):
            mkimage.io_rank_cores(full, 2)
        mkimage.io_rank_cores(LAYOUT, 2)                  # the default profile has its core
        mkimage.io_rank_cores(compute_layout(load_profile("mppa256")), 2)

    def test_io_rank_application_comes_last(self):
        apps = [mkimage.App("a", (), 2), mkimage.App("io", (), 1, True)]
        self.assertEqual(mkimage.job_apps(apps, (), 2), apps)
        for bad, np in (([mkimage.App("io", (), 1, True), mkimage.App("a", (), 2)], 2),
                        ([mkimage.App("a", (), 2), mkimage.App("io", (), 2, True)], 2),
                        ([mkimage.App("a", (), 2), mkimage.App("io", (), 1, True)], 3)):
            with self.subTest(apps=bad), self.assertRaises(ImageError):
                mkimage.job_apps(bad, (), np)

    def test_program_name(self):
        self.assertEqual(mkimage.program_name("/x/out/target/bin/fn.elf"), "fn")
        self.assertEqual(mkimage.program_name("app"), "app")


class FitTest(unittest.TestCase):
    def test_larger_profile(self):
        """The refusal names the profile of the same machine with the
        smallest larger windows."""
        self.assertEqual(mkimage.larger_profile(load_profile("mppa256")), "mppa256-big")
        self.assertIsNone(mkimage.larger_profile(load_profile("mppa256-big")))

    def test_several_programs_on_a_cluster(self):
        """MPMD: a cluster's ranks of two programs need each program's code
        once, and for each rank the larger program's data; the estimate
        names both programs."""
        from unittest import mock
        pages = {b"a": fit.ProgramPages(10, 3, 64, 0x40000000, 0x40020000),
                 b"b": fit.ProgramPages(20, 5, 0, 0x40000000, 0x40030000)}
        a = Program("a", 1, 1, b"a", appnum=0, first_rank=0, nranks=1)
        b = Program("b", 1, 1, b"b", appnum=1, first_rank=1, nranks=5)
        with mock.patch.object(fit, "program_pages", side_effect=pages.get):
            self.assertEqual(mkimage.hosted_pages([a, b]),
                             fit.ProgramPages(30, 5, 64, 0x40000000, 0x40030000))
            needs = mkimage.window_needs(LAYOUT, [MIB] * 5, [a, b], [], 6, "compact",
                                         mkimage.TS_MANIFEST_RANK_PROCESSES)
            self.assertEqual([hosted for _, _, hosted in needs], [[], [a, b], [b], [], []])
            self.assertEqual([need.ranks for _, need, _ in needs], [0, 4, 2, 0, 0])
            report = io.StringIO()
            mkimage.check_fit(LAYOUT, [MIB] * 5, [a, b], [], 6, "compact",
                              mkimage.TS_MANIFEST_RANK_PROCESSES, report)
        self.assertIn("mpirun: cluster 1: 4 ranks of a and b need an estimated", report.getvalue())
        self.assertIn("mpirun: cluster 2: 2 ranks of b need", report.getvalue())

    def test_ranks_per_cluster(self):
        mppa = compute_layout(load_profile("mppa256"))
        self.assertEqual(mkimage.ranks_per_cluster(mppa, "scatter", 192), [12] * 16)
        self.assertEqual(mkimage.ranks_per_cluster(mppa, "compact", 40), [16, 16, 8] + [0] * 13)


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

    def test_whole_window(self):
        # An image may fill its window: whether the rest holds what the
        # cluster runs is check_fit's (tessera.fit).
        self.assertEqual(mkimage.check_segments(self.c1, [Segment(0x80A00000, 16 * MIB)]),
                         0x81A00000)

    def test_overlap(self):
        mkimage.check_overlap({"cluster 0": [Segment(0x80200000, 0x1000)],
                               "cluster 1": [Segment(0x80A00000, 0x1000)]})
        with self.assertRaisesRegex(ImageError, "overlapping images: cluster 0 and cluster 1"):
            mkimage.check_overlap({"cluster 0": [Segment(0x80200000, 0x900000)],
                                   "cluster 1": [Segment(0x80A00000, 0x1000)]})


class HeaderTest(unittest.TestCase):
    c2 = LAYOUT.clusters[2]          # 0x81A00000

    def header(self, **f):
        v = dict(code0=j_insn(0x40), magic=mkimage.TS_IMAGE_MAGIC, cluster_id=2, first_hart=9,
                 entry=0x81A00040, image_end=0x81A40000, manifest=0x81A10000,
                 window_base=0x81A00000)
        v.update(f)
        return mkimage.IMAGE_HEADER.pack(**v)

    def test_good(self):
        got = mkimage.check_header(self.c2, self.header())
        self.assertEqual(got, {"entry": 0x81A00040, "image_end": 0x81A40000,
                               "manifest": 0x81A10000})

    def test_bad(self):
        cases = [({"magic": 0x12345678}, "bad image header magic 0x12345678"),
                 ({"cluster_id": 3}, "the image header says cluster 3"),
                 ({"first_hart": 2}, "first hart is 2, want 9"),
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
        self.assertIsNone(mkimage.jal_target(mkimage.TS_IMAGE_MAGIC, 0x80200000))
        self.assertIsNone(mkimage.jal_target(j_insn(8) | 1 << 7, 0x80200000))  # jal ra
        mkimage.check_boot_entry(c0, struct.pack("<I", j_insn(0x40)), 0x80200040)
        with self.assertRaisesRegex(ImageError, "must be a jump to the ELF entry 0x80200050"):
            mkimage.check_boot_entry(c0, struct.pack("<I", j_insn(0x40)), 0x80200050)


class QemuCommandTest(unittest.TestCase):
    def test_default(self):
        images = [f"/tmp/x/cluster{c}.elf" for c in range(5)]
        self.assertEqual(mkimage.qemu_command(LAYOUT, images, "/fw.elf", "/tmp/x/fw.table"), [
            "qemu-system-riscv64", "-machine", "virt,aclint=on", "-accel", "tcg,thread=single",
            "-smp", "24", "-m", "82M", "-bios", "none", "-display", "none",
            "-serial", "stdio", "-monitor", "none", "-no-reboot",
            "-semihosting-config", "enable=on,target=native,userspace=off",
            "-device", "loader,file=/fw.elf",
            "-device", "loader,file=/tmp/x/fw.table,addr=0x801ff000,force-raw=on",
            *[arg for c in range(5) for arg in ("-device", f"loader,file=/tmp/x/cluster{c}.elf")]])

    def test_tcg_threads(self):
        images = [f"/tmp/x/cluster{c}.elf" for c in range(5)]
        cmd = mkimage.qemu_command(LAYOUT, images, "/fw.elf", "/t", tcg_threads="multi")
        self.assertEqual(cmd[3:5], ["-accel", "tcg,thread=multi"])
        with self.assertRaisesRegex(mkimage.ImageError, "unknown TCG mode 'many'"):
            mkimage.qemu_command(LAYOUT, images, "/fw.elf", "/t", tcg_threads="many")

    def test_firmware_table(self):
        table = mkimage.FW_TABLE.unpack_from(mkimage.pack_firmware_table(LAYOUT))
        self.assertEqual((table["magic"], table["nclusters"], table["nharts"]),
                         (mkimage.TS_FW_TABLE_MAGIC, 5, 24))
        self.assertEqual((table["fabric_base"], table["fabric_size"]),
                         (LAYOUT.fabric_base, LAYOUT.fabric_size))
        for c in LAYOUT.clusters:
            self.assertEqual(table["clusters"][c.id],
                             {"window_base": c.window_base, "window_size": c.window_size,
                              "first_hart": c.first_hart, "ncores": c.ncores})
        self.assertEqual(table["clusters"][5]["ncores"], 0)

    def test_firmware_segments(self):
        Seg = mkimage.Segment
        mkimage.check_firmware([Seg(0x80000000, 0x1000), Seg(0x80001000, 0x100000)])
        for bad, why in (([Seg(0x80000000, 0x1ff001)], "outside"),
                         ([Seg(0x80001000, 0x1000)], "must start at 0x80000000"),
                         ([], "no loadable segment")):
            with self.assertRaisesRegex(ImageError, why):
                mkimage.check_firmware(bad)

    def test_opensbi(self):
        images = [f"/tmp/x/cluster{c}.elf" for c in range(5)]
        layout = mkimage.compute_layout(LAYOUT.profile, firmware="opensbi")
        self.assertEqual(mkimage.qemu_command(layout, images), [
            "qemu-system-riscv64", "-machine", "virt,aclint=on", "-accel", "tcg,thread=single",
            "-smp", "24", "-m", "82M", "-bios", "default", "-display", "none",
            "-serial", "stdio", "-monitor", "none", "-no-reboot",
            "-semihosting-config", "enable=on,target=native,userspace=off",
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

    def test_one_application(self):
        """mkimage builds a job of one program: ':' among its arguments is
        refused (an MPMD job is mpirun's), and a list of App must give each
        its own arguments and add up to np."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(mkimage.main(["-o", self.dir, "a.elf", "x", ":", "b.elf"]), 2)
        self.assertIn("':' in the program's arguments", err.getvalue())
        apps = [mkimage.App("a.elf", (), 1), mkimage.App("b.elf", ("x",), 2)]
        self.assertEqual(mkimage.job_apps(apps, (), 3), apps)
        self.assertEqual(mkimage.job_apps("a.elf", ["x"], 2), [mkimage.App("a.elf", ("x",), 2)])
        for args, np in (((), 2), (("x",), 3)):
            with self.assertRaisesRegex(ImageError, "its own arguments and processes"):
                mkimage.job_apps(apps, args, np)

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
        word is a built-in program when the build has one of that name (a
        file of that name in the current folder notwithstanding), else the
        current folder's file of that name."""
        builtin = self.file("app.elf", b"\x7fELF")
        cwd = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, cwd)
        for name in ("app", "mine.elf", "fs64"):
            with open(os.path.join(cwd, name), "wb") as f:
                f.write(b"\x7fELF")
        os.mkdir(os.path.join(cwd, "folder"))
        old = os.getcwd()
        os.chdir(cwd)
        self.addCleanup(os.chdir, old)
        self.assertEqual(mkimage.resolve_program("app", self.dir), builtin)
        self.assertEqual(mkimage.resolve_program("./app", self.dir), "./app")
        self.assertEqual(mkimage.resolve_program("mine.elf", self.dir), "mine.elf")
        self.assertEqual(mkimage.resolve_program("fs64", self.dir), os.path.join(".", "fs64"))
        with self.assertRaisesRegex(ImageError, "no such program: app.elf"):
            mkimage.resolve_program("app.elf", self.dir)    # not the built-in one
        # Neither the build nor the current folder has it (a folder is no
        # program): the error names both places.
        for name in ("mine", "folder"):
            with self.subTest(name=name):
                with self.assertRaises(ImageError) as e:
                    mkimage.resolve_program(name, self.dir)
                self.assertEqual(str(e.exception),
                                 f"program '{name}' not found: the build has no "
                                 f"{os.path.join(self.dir, name + '.elf')} (run make first to "
                                 f"build the tree's programs) and the current folder "
                                 f"({os.getcwd()}) has no file {name}")

    def test_missing_kernel_library(self):
        prog = self.file("app.elf", b"\x7fELF")
        with self.assertRaisesRegex(ImageError, "kernel library .* not found; run make first"):
            mkimage.build_images(LAYOUT, prog, [], 4, "compact", self.dir,
                                 services=prog, kernel_lib=os.path.join(self.dir, "no.a"))

    def test_capacity_checked_first(self):
        with self.assertRaisesRegex(ToolError, "17 processes requested"):
            mkimage.build_images(LAYOUT, "/none", [], 17, "compact", self.dir)

    def test_long_args_checked_before_linking(self):
        with self.assertRaisesRegex(ImageError, f"at most {ARGS_SIZE}"):
            mkimage.build_images(LAYOUT, "/none.elf", ["a" * ARGS_SIZE], 1, "compact", self.dir)


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

    def test_sixteen_applications_on_a_cluster(self):
        """An MPMD job of one rank per application: an MPPA-256 compute
        cluster hosts 16, each its own program, argv and MPI_APPNUM."""
        layout = mkimage.plan_job("mppa256", 16, "linux64")
        apps = [mkimage.App(self.prog, (f"{k}",), 1) for k in range(16)]
        with self.assertRaisesRegex(ImageError, "an MPMD job runs each rank as a process"):
            mkimage.build_payloads(layout, apps, (), 16, "compact", self.dir,
                                   services=self.services)
        paths = mkimage.build_payloads(layout, apps, (), 16, "compact",
                                       os.path.join(self.dir, "job"), services=self.services,
                                       flags=mkimage.TS_MANIFEST_RANK_PROCESSES)
        with open(paths[layout.nio], "rb") as f:
            m = mkimage.MANIFEST.unpack_from(f.read())
        progs = m["programs"][:m["nprograms"]]
        self.assertEqual(m["nprograms"], 16)
        self.assertEqual([(p["appnum"], p["first_rank"], p["nranks"], p["argc"]) for p in progs],
                         [(k, k, 1, 2) for k in range(16)])
        self.assertEqual(m["args"][progs[11]["args_offset"]:][:7], b"app\x0011\x00")
        with open(paths[layout.nio + 1], "rb") as f:
            self.assertEqual(mkimage.MANIFEST.unpack_from(f.read())["nprograms"], 0)

    def test_mppa256_full_size(self):
        layout = mkimage.plan_job("mppa256", 256, "linux64")
        self.assertEqual((len(layout.clusters), layout.nio, layout.capacity), (20, 4, 256))
        self.assertEqual([c.ncores for c in layout.clusters], [4] * 4 + [17] * 16)
        with self.assertRaisesRegex(ToolError, "257 processes requested"):
            mkimage.plan_job("mppa256", 257, "linux64")
        self.assertEqual(mkimage.plan_job("mppa256", 1, "qemu-riscv64").harts, 288)
        with self.assertRaisesRegex(ToolError, "288 harts"):
            mkimage.plan_job("mppa256", 1, "qemu-riscv64", "opensbi")

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
            app = Program("app", 1, 1, self.elf, nranks=4)
            programs = mkimage.cluster_programs(layout, c, [app],
                                                [Program("nameserver", 0, 0, self.elf)],
                                                "scatter", 4)
            self.assertEqual(data, mkimage.build_payload(layout, c, 4, "scatter", programs,
                                                         [["app", "x"]], 1, 64))
            self.assertEqual(u64(data, M["timebase_hz"]), 1_000_000_000)
            self.assertEqual(u32(data, M["cluster_id"]), c)
        qemu = mkimage.build_payload(LAYOUT, 1, 4, "scatter", [], [["app"]])
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
        layout = mkimage.plan_job("default", 4, "linux64", cluster_memory="16M")
        with open(self.prog, "wb") as f:                      # oversized: 15.5 MiB of program
            f.write(self.elf + bytes(15 * MIB + MIB // 2))
        with self.assertRaisesRegex(ImageError, r"cluster 1 cannot hold its 4 ranks of app: its "
                                                r"16384 KiB window needs \d+ KiB, \d+ KiB more "
                                                r"\(payload 1587\d KiB, "):
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
        from tessera.profile import check_platform, parse_profile
        with open(os.path.join(mkimage.REPO, "build", "profiles", "default.json")) as f:
            import json
            data = json.load(f)
        data["memory_base"] = "0x60000000"
        layout = compute_layout(parse_profile(data), "linux64")
        with self.assertRaisesRegex(ToolError, "overlap the user area"):
            check_platform(layout, "linux64")


if __name__ == "__main__":
    unittest.main()
