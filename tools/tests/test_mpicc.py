#!/usr/bin/python3
"""Tests of tools/mpicc and tools/mpicxx (one implementation,
tools/tessera/mpicc.py): their command line (-c, -S, -E, -o, several files,
-l/-L, --show/--showme, --help, the options passed through to the compiler
and linker), C++ (C++17, no exceptions or RTTI),
the record of the program's writable global variables it links in (and
what mpirun makes of it, and of the build's own programs, which have none),
and -Wmpi-globals' warning. The usage errors need nothing; the others
compile and link with the build of $TESSERA_PLATFORM (default qemu-riscv64)
in TESSERA_TARGET_OUT (its compiler and mpicc.cfg), without booting
anything."""
import os
import shlex
import shutil
import subprocess
import tempfile
import unittest

from tessera import mpirun
from toolsupport import TOOLS
from tessera.mkimage import CROSS, default_paths, default_platform, target_out
from tessera.profile import compute_layout, load_profile
from tessera import program_globals

PLATFORM = default_platform()
# What the platform's programs are, and the archiver for its objects.
MACHINE = {"qemu-riscv64": "EM_RISCV", "linux64": "EM_X86_64"}[PLATFORM]
AR = {"qemu-riscv64": CROSS + "ar", "linux64": "ar"}[PLATFORM]

MPICC = os.path.join(TOOLS, "mpicc")
# A C++ source for mpicxx: containers, <algorithm>, a lambda, a virtual
# function, a template, new/delete, and a global variable.
CXX_SOURCE = """\
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>
#include <mpi.h>
struct Base { virtual ~Base() = default; virtual int f() const { return 1; } };
struct Derived : Base { int f() const override { return 2; } };
template <typename T> T twice(T x) { return x + x; }
int counter;
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    std::vector<int> v{3, 1, 2};
    std::sort(v.begin(), v.end(), [](int a, int b) { return a < b; });
    std::map<int, int> m{{1, 2}};
    Base *b = new Derived;
    counter = b->f() + twice(m[1]) + v[0];
    delete b;
    std::printf("%d\\n", counter);
    MPI_Finalize();
    return 0;
}
"""
ADVICE = ('(declare them _Thread_local, or const, or run with --ranks processes, the default; '
          'see docs/programs.md, "Global variables in MPI programs")')

# Every kind of file-scope and static variable, each used so that -O2 keeps it.
GLOBALS_C = """\
int total;                                  /* .bss (.sbss) */
int counts[8];                              /* .bss */
static double scale = 1.5;                  /* .data (.sdata) */
int shared_common __attribute__((common));  /* COMMON */
const int limit = 3;                        /* read-only */
const char *const names[] = {"a", "b"};     /* read-only */
_Thread_local int mine;                     /* TLS */
static _Thread_local long acc = 7;          /* TLS */
extern int elsewhere;                       /* not defined here */

int step(int i)
{
    static int calls;                       /* a function's static: .sbss */
    int local = i * limit;                  /* on the stack */
    ++calls;
    scale *= 2;
    total += counts[i & 7] + local + names[i & 1][0] + mine + (int)acc + elsewhere;
    shared_common = calls;
    return total + (int)scale;
}
"""
GLOBALS_LISTED = "calls, counts, scale, shared_common, total"
# The writable variables of a program linked from main.c, globals.c and
# sub/helper.c: GLOBALS_LISTED's and main.c's `elsewhere`.
PROGRAM_GLOBALS = ["calls", "counts", "elsewhere", "scale", "shared_common", "total"]

MAIN_C = """\
#include <stdio.h>
int step(int);
int helper(void);
int elsewhere = 1;
int main(void) { printf("%d %d\\n", step(1), helper()); return 0; }
"""
HELPER_C = "int helper(void) { return 42; }\n"
CLEAN_C = "static const int table[2] = {1, 2};\nint get(int i) { return table[i & 1]; }\n"


def run_tool(tool, *args, cwd=None, env=None):
    """(exit status, stdout, stderr) of tools/TOOL ARGS (mpicc or mpicxx)."""
    p = subprocess.run([os.path.join(TOOLS, tool), *args], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


def mpicc(*args, cwd=None, env=None):
    """(exit status, stdout, stderr) of tools/mpicc ARGS."""
    return run_tool("mpicc", *args, cwd=cwd, env=env)


def elf_facts(path):
    """(e_type, e_machine, names of the defined symbols) of an ELF file."""
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as f:
        elf = ELFFile(f)
        symtab = elf.get_section_by_name(".symtab")
        names = {s.name for s in symtab.iter_symbols() if s["st_shndx"] != "SHN_UNDEF"}
        return elf.header["e_type"], elf.header["e_machine"], names


class Sources(unittest.TestCase):
    """A temporary folder with the sample sources, the current folder of mpicc."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mpicc-test-")
        self.addCleanup(shutil.rmtree, self.dir)
        for name, text in (("globals.c", GLOBALS_C), ("main.c", MAIN_C),
                           ("sub/helper.c", HELPER_C), ("clean.c", CLEAN_C)):
            self.write(name, text)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def path(self, name):
        return os.path.join(self.dir, name)

    def ok(self, *args, tool="mpicc"):
        """Runs mpicc (or tool) in the folder; it must succeed. Returns its stderr."""
        rc, out, err = run_tool(tool, *args, cwd=self.dir)
        self.assertEqual(rc, 0, out + err)
        return err

    def show(self, *args, tool="mpicc"):
        """The commands `tool --show ARGS` prints, each as a list of words."""
        rc, out, err = run_tool(tool, "--show", *args, cwd=self.dir)
        self.assertEqual(rc, 0, err)
        return [shlex.split(line) for line in out.splitlines()]


class UsageErrors(Sources):
    """Refused before anything is compiled, even without a build: exit 2."""

    def check(self, args, words, tool="mpicc"):
        rc, out, err = run_tool(tool, *args, cwd=self.dir,
                                env={"TESSERA_TARGET_OUT": self.path("none")})
        self.assertEqual((rc, out), (2, ""), err)
        self.assertIn(f"{tool}: {words}", err)

    def test_errors(self):
        cases = [(["-c", "main.c", "globals.c", "-o", "x.o"], "-o with -c names one output"),
                 (["-S", "main.c", "globals.c", "-o", "x.s"], "-o with -S names one output"),
                 (["-c", "-lm"], "-c needs at least one source"),
                 ([], "no input files"),
                 (["-o", "a.elf"], "no input files"),
                 (["-o", "a.elf", "main.c", "-o", "b.elf"], "more than one -o"),
                 (["-o", "a.elf", "nosuch.c"], "nosuch.c: no such file"),
                 (["-o", "a.elf", "main.c", "nosuch.o"], "nosuch.o: no such file"),
                 (["-o", "a.elf", "main.cpp"],
                  "main.cpp: a C++ source: build it with tools/mpicxx"),
                 (["-o", "a.elf", "main.c", "-L"], "-L needs an argument"),
                 (["-o", "a.elf", "main.c", "-I"], "-I needs an argument"),
                 (["-o", "a.elf", "main.c", "-Xlinker"], "-Xlinker needs an argument"),
                 (["-o", "a.elf", "main.c", "--platform", "vax"], "unknown platform 'vax'"),
                 (["-o", "a.elf", "main.c", "--platform"], "--platform needs an argument")]
        for args, words in cases:
            with self.subTest(args=args):
                self.check(args, words)

    def test_cxx_without_sources(self):
        self.check(["-c"], "-c needs at least one source", "mpicxx")

    def test_help_names_every_option(self):
        for tool in ("mpicc", "mpicxx"):
            rc, out, _ = run_tool(tool, "--help")
            self.assertEqual(rc, 0)
            self.assertTrue(out.startswith(f"usage: {tool} "), out)
            for option in ("-c", "-S, -E", "-o OUT", "-lNAME", "-L DIR", "-Wmpi-globals",
                           "-Wno-mpi-globals", "--platform P", "--show, -show, --showme, -showme",
                           "--showme:compile, --showme:link", "--help, -h", "unchanged"):
                self.assertIn(f"\n  {option}" if option != "unchanged" else option, out,
                              f"{tool}: {option}")
        self.assertIn("exceptions and RTTI are on", run_tool("mpicxx", "-h")[1])


class WithBuild(Sources):
    """Needs the platform's build (make build)."""

    def test_platform_picks_the_build(self):
        """--platform (or $TESSERA_PLATFORM) picks out/target or out/linux64."""
        for platform, folder in (("qemu-riscv64", "target"), ("linux64", "linux64")):
            with self.subTest(platform=platform):
                rc, _, err = mpicc("--platform", platform, "-o", "a.elf", "main.c", cwd=self.dir,
                                   env={"TESSERA_TARGET_OUT": "", "TESSERA_OUT": self.path("o")})
                self.assertEqual(rc, 1)
                self.assertIn(f"no Tessera build in {self.path('o')}/{folder}", err)
                rc, _, err = mpicc("-o", "a.elf", "main.c", cwd=self.dir,
                                   env={"TESSERA_TARGET_OUT": "", "TESSERA_OUT": self.path("o"),
                                        "TESSERA_PLATFORM": platform})
                self.assertIn(f"no Tessera build in {self.path('o')}/{folder}", err)

    def test_compile_only_one_object_per_source(self):
        """-c without -o: one .o per source, named like it, in the current folder."""
        self.assertEqual(self.ok("-c", "-O2", "-g", "-Wall", "-std=c11", "-DN=1", "-UM", "-I",
                                 "sub", "clean.c", "sub/helper.c"), "")
        for name in ("clean.o", "helper.o"):
            e_type, machine, _ = elf_facts(self.path(name))
            self.assertEqual((e_type, machine), ("ET_REL", MACHINE), name)
        self.assertFalse(os.path.exists(self.path("sub/helper.o")))

    def test_compile_only_with_output(self):
        self.ok("-c", "sub/helper.c", "-o", "other.o")
        self.assertIn("helper", elf_facts(self.path("other.o"))[2])
        self.assertEqual(self.ok("-c", "clean.c", "other.o"),
                         "mpicc: warning: other.o: linker input unused with -c\n")

    def test_link_several_files(self):
        """Sources and objects, linked in one program; two sources may share a name."""
        self.ok("-c", "sub/helper.c")
        self.write("a/x.c", "int ax(void) { return 1; }\n")
        self.write("b/x.c", "int bx(void) { return 2; }\n")
        self.write("many.c", "int step(int), helper(void), ax(void), bx(void);\n"
                             "int elsewhere;\n"
                             "int main(void) { return step(0) + helper() + ax() + bx(); }\n")
        self.ok("-o", "app.elf", "many.c", "globals.c", "helper.o", "a/x.c", "b/x.c",
                "-Wno-mpi-globals")
        e_type, machine, names = elf_facts(self.path("app.elf"))
        self.assertEqual((e_type, machine), ("ET_EXEC", MACHINE))
        self.assertLessEqual({"main", "step", "helper", "ax", "bx"}, names)

    def test_libraries(self):
        self.ok("-c", "sub/helper.c")
        os.mkdir(self.path("lib"))
        subprocess.run([AR, "rcs", self.path("lib/libutil.a"), self.path("helper.o")],
                       check=True)
        self.ok("-o", "app.elf", "main.c", "globals.c", "-Llib", "-lutil", "-lm",
                "-Wno-mpi-globals")
        self.assertIn("helper", elf_facts(self.path("app.elf"))[2])
        rc, _, err = mpicc("-o", "app.elf", "main.c", "globals.c", "-lutil", cwd=self.dir)
        self.assertEqual(rc, 2)
        self.assertEqual(err, "mpicc: -lutil: libutil.a is not in any -L folder (none given); "
                              "mpicc links static libraries only\n")
        rc, _, err = mpicc("-o", "app.elf", "main.c", "-L", "lib", "-Lsub", "-lnope", cwd=self.dir)
        self.assertEqual(rc, 2)
        self.assertIn("-lnope: libnope.a is not in the -L folders (lib, sub)", err)

    def test_globals_warning_lists_exactly_the_writable_variables(self):
        err = self.ok("-c", "globals.c", "-Wmpi-globals")
        self.assertEqual(err, "mpicc: warning: globals.c: writable global/static variables are "
                              "shared by the MPI processes of a cluster under mpirun --ranks "
                              f"threads: {GLOBALS_LISTED} {ADVICE}\n")

    def test_globals_warning_one_line_per_file_when_linking(self):
        err = self.ok("-Wmpi-globals", "-o", "app.elf", "main.c", "clean.c", "globals.c",
                      "sub/helper.c")
        lines = err.splitlines()
        self.assertEqual(len(lines), 2, err)
        self.assertTrue(lines[0].startswith("mpicc: warning: main.c: writable global/static "
                                            "variables are shared by the MPI processes of a "
                                            "cluster under mpirun --ranks threads: elsewhere ("),
                        err)
        self.assertIn(f"globals.c: writable global/static variables are shared by the MPI "
                      f"processes of a cluster under mpirun --ranks threads: {GLOBALS_LISTED} (",
                      lines[1])

    def test_no_warning_by_default_for_clean_file_or_with_the_option(self):
        """mpirun warns in threads mode; mpicc only when asked (-Wmpi-globals,
        the last of it and -Wno-mpi-globals winning)."""
        self.assertEqual(self.ok("-c", "globals.c"), "")
        self.assertEqual(self.ok("-o", "app.elf", "main.c", "globals.c", "sub/helper.c"), "")
        self.assertEqual(self.ok("-c", "clean.c", "sub/helper.c", "-Wmpi-globals"), "")
        self.assertEqual(self.ok("-c", "globals.c", "-Wno-mpi-globals"), "")
        self.assertEqual(self.ok("-c", "globals.c", "-Wmpi-globals", "-Wno-mpi-globals"), "")
        self.assertNotEqual(self.ok("-c", "globals.c", "-Wno-mpi-globals", "-Wmpi-globals"), "")
        self.assertEqual(self.ok("-o", "app.elf", "main.c", "globals.c", "sub/helper.c",
                                 "-Wno-mpi-globals"), "")


class PassThrough(Sources):
    """A compiler wrapper: what it does not interpret goes to the compiler
    and the linker unchanged. Needs the platform's build."""

    def test_options_go_to_compiler_and_linker(self):
        compile_cmd, link_cmd = self.show(
            "-ffast-math", "-pedantic", "-fopenmp-simd", "-Wl,-Map,app.map", "-Xlinker",
            "--no-relax", "-include", "stdio.h", "-MD", "-isystem", "sub", "-Wa,--noexecstack",
            "-DX=1", "-u", "helper", "-std=c99", "-O3", "-undef", "main.c")
        for option in ("-ffast-math", "-pedantic", "-fopenmp-simd", "-std=c99", "-O3", "-undef"):
            self.assertIn(option, compile_cmd)
            self.assertIn(option, link_cmd)
        for words in (["-include", "stdio.h"], ["-isystem", "sub"], ["-MD"], ["-DX=1"],
                      ["-Wa,--noexecstack"]):
            self.assertIn(shlex.join(words), shlex.join(compile_cmd))
            self.assertNotIn(words[0], link_cmd)
        for words in (["-Wl,-Map,app.map"], ["-Xlinker", "--no-relax"], ["-u", "helper"]):
            self.assertIn(shlex.join(words), shlex.join(link_cmd))
            self.assertNotIn(words[0], compile_cmd)
        # The user's flags come after the build's, so their -O3 wins.
        self.assertLess(compile_cmd.index("-O2"), compile_cmd.index("-O3"))

    def test_they_really_work(self):
        """-pedantic and -ffast-math compile; -Wl,-Map writes the map; no -o: a.out."""
        self.assertEqual(self.ok("-pedantic", "-ffast-math", "-Wl,-Map,app.map", "main.c",
                                 "globals.c", "sub/helper.c"), "")
        self.assertEqual(elf_facts(self.path("a.out"))[:2], ("ET_EXEC", MACHINE))
        self.assertTrue(os.path.getsize(self.path("app.map")) > 0)

    def test_stop_after_assembly_or_preprocessing(self):
        self.ok("-S", "clean.c", "sub/helper.c")
        with open(self.path("helper.s")) as f:
            self.assertIn("helper", f.read())
        self.assertTrue(os.path.isfile(self.path("clean.s")))
        rc, out, err = mpicc("-E", "-DVALUE=12345", "clean.c", cwd=self.dir)
        self.assertEqual(rc, 0, err)
        self.assertIn("table[2] = {1, 2}", out)
        self.ok("-E", "clean.c", "-o", "clean.i")
        self.assertTrue(os.path.isfile(self.path("clean.i")))

    def test_showme(self):
        """--showme (Open MPI's name) prints what --show (MPICH's) does;
        --showme:compile and --showme:link the flags of one step."""
        self.assertEqual(self.show("-c", "main.c", "globals.c"),
                         [shlex.split(line) for line in
                          run_tool("mpicc", "--showme", "-c", "main.c", "globals.c",
                                   cwd=self.dir)[1].splitlines()])
        cfg = program_globals.read_config(os.path.join(target_out(), "mpicc.cfg"))
        compile_flags = shlex.split(run_tool("mpicc", "--showme:compile")[1])
        link_flags = shlex.split(run_tool("mpicc", "-showme:link")[1])
        self.assertEqual(compile_flags, cfg["cflags"] + ["-I" + d for d in cfg["includes"]])
        self.assertEqual(link_flags, cfg["ldflags"] + cfg["startfiles"] + cfg["libs"]
                         + cfg["syslibs"])
        everything = shlex.split(run_tool("mpicc", "-show")[1])
        self.assertEqual(everything, cfg["cc"] + compile_flags + link_flags)

    def test_compiler_questions(self):
        """No input and no option of mpicc's own: the compiler answers."""
        rc, out, err = mpicc("-dumpversion")
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"^\d+")


class Cxx(Sources):
    """tools/mpicxx: the same wrapper for C++17. Needs the platform's build."""

    def test_builds_a_cxx_program(self):
        self.write("app.cpp", CXX_SOURCE)
        self.ok("-o", "app.elf", "app.cpp", "-Wall", "-Wextra", tool="mpicxx")
        e_type, machine, names = elf_facts(self.path("app.elf"))
        self.assertEqual((e_type, machine), ("ET_EXEC", MACHINE))
        self.assertIn("main", names)
        # The shared implementation records the program's globals too.
        cfg = program_globals.read_config(os.path.join(target_out(), "mpicc.cfg"))
        self.assertEqual(program_globals.own_variables(self.path("app.elf"),
                                                       program_globals.runtime_files(cfg)),
                         (["counter"], "record"))

    def test_cxx17_by_default_and_the_user_standard_wins(self):
        self.write("app.cpp", CXX_SOURCE)
        compile_cmd, link_cmd = self.show("app.cpp", tool="mpicxx")
        self.assertIn("-std=gnu++17", compile_cmd)
        self.assertNotIn("-fno-exceptions", compile_cmd)
        self.assertNotIn("-fno-rtti", compile_cmd)
        self.assertTrue(any(w.endswith("libstdc++.a") for w in link_cmd), link_cmd)
        self.assertEqual(link_cmd[-2:], ["-o", "a.out"])
        compile_cmd, _ = self.show("-std=c++20", "app.cpp", tool="mpicxx")
        self.assertLess(compile_cmd.index("-std=gnu++17"), compile_cmd.index("-std=c++20"))
        # A .c source is C++ to mpicxx, as to g++.
        self.write("new.c", "int *make(void) { return new int(3); }\n")
        self.ok("-c", "new.c", tool="mpicxx")

    def test_exceptions_and_rtti_compile_unless_turned_off(self):
        self.write("throw.cpp", "int f(int x) { if (x) throw x; return 0; }\n")
        self.write("typeid.cpp", "#include <typeinfo>\nstruct A { virtual ~A() {} };\n"
                                 "const char *g(A *a) { return typeid(*a).name(); }\n")
        for source, off, words in (("throw.cpp", "-fno-exceptions", "exception handling disabled"),
                                   ("typeid.cpp", "-fno-rtti", "-fno-rtti")):
            with self.subTest(source=source):
                self.ok("-c", source, tool="mpicxx")
                rc, _, err = run_tool("mpicxx", off, "-c", source, cwd=self.dir)
                self.assertEqual(rc, 1, err)
                self.assertIn(words, err)


class GlobalsRecord(Sources):
    """The program's own writable variables, as mpirun finds them at launch
    (tools/tessera/program_globals.py): from mpicc's record, else compared with the
    build's runtime. Needs the platform's build."""

    def own(self, name):
        """(names, how) for the program `name` (in the folder, or a path)."""
        cfg = program_globals.read_config(os.path.join(target_out(), "mpicc.cfg"))
        return program_globals.own_variables(self.path(name), program_globals.runtime_files(cfg))

    def test_record_lists_the_program_variables(self):
        self.ok("-o", "app.elf", "main.c", "globals.c", "sub/helper.c", "clean.c")
        self.assertEqual(self.own("app.elf"), (PROGRAM_GLOBALS, "record"))

    def test_record_of_objects_and_libraries(self):
        """Objects and libraries given to mpicc are the program's too."""
        self.write("lib.c", "int lib_state;\nint helper(void) { return ++lib_state; }\n")
        self.ok("-c", "globals.c", "lib.c")
        os.mkdir(self.path("lib"))
        subprocess.run([AR, "rcs", self.path("lib/libstate.a"), self.path("lib.o")], check=True)
        self.ok("-o", "app.elf", "main.c", "globals.o", "-Llib", "-lstate")
        self.assertEqual(self.own("app.elf"), (sorted(PROGRAM_GLOBALS + ["lib_state"]), "record"))

    def test_record_drops_what_the_linker_drops(self):
        """A variable nothing uses is gone from the program (--gc-sections)."""
        self.write("unused.c", "int unused_counter;\nint never_called(void) "
                               "{ return ++unused_counter; }\n")
        self.ok("-o", "app.elf", "main.c", "globals.c", "sub/helper.c", "unused.c")
        self.assertEqual(self.own("app.elf"), (PROGRAM_GLOBALS, "record"))

    def test_no_globals(self):
        self.write("plain.c", "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n")
        self.ok("-o", "app.elf", "plain.c")
        self.assertEqual(self.own("app.elf"), ([], "record"))

    def test_no_warning_option_records_nothing(self):
        self.ok("-o", "app.elf", "main.c", "globals.c", "sub/helper.c", "-Wno-mpi-globals")
        self.assertEqual(self.own("app.elf"), ([], "record"))

    def test_record_takes_no_memory(self):
        """The note is not allocated: the program loads the same without it."""
        from elftools.elf.elffile import ELFFile

        self.ok("-o", "app.elf", "main.c", "globals.c", "sub/helper.c")
        with open(self.path("app.elf"), "rb") as f:
            elf = ELFFile(f)
            note = elf.get_section_by_name(program_globals.RECORD_SECTION)
            self.assertEqual((note["sh_type"], note["sh_flags"]), ("SHT_NOTE", 0))
            self.assertFalse(any(seg.section_in_segment(note) for seg in elf.iter_segments()))

    def test_without_record_compared_with_the_runtime(self):
        """Linked by hand (--show's command has no record): the same names,
        found by leaving out what the runtime's files define."""
        self.ok("-c", "main.c", "globals.c", "sub/helper.c")
        rc, out, err = mpicc("--show", "-o", "app.elf", "main.o", "globals.o", "helper.o",
                             cwd=self.dir)
        self.assertEqual(rc, 0, err)
        subprocess.run(shlex.split(out.splitlines()[-1]), cwd=self.dir, check=True)
        with open(self.path("app.elf"), "rb") as f:
            self.assertIsNone(program_globals.read_record(program_globals.ElfFile(f.read())))
        self.assertEqual(self.own("app.elf"), (PROGRAM_GLOBALS, "runtime"))

    def test_programs_of_the_build(self):
        """The build's MPI programs (CMake, no record) have no variables of
        their own: the runtime's are no reason to warn."""
        for name in ("hello", "fn", "mpich_cpi"):
            with self.subTest(program=name):
                self.assertEqual(self.own(os.path.join(default_paths()["bin"], name + ".elf")),
                                 ([], "runtime"))

    def test_mpirun_warns_in_threads_mode(self):
        self.ok("-o", "app.elf", "main.c", "globals.c", "sub/helper.c")
        layout = compute_layout(load_profile("default"), PLATFORM)

        def warning(*argv):
            opts = mpirun.parse_args([*argv, "--platform", PLATFORM, self.path("app.elf")])
            return mpirun.globals_warning(layout, opts, self.path("app.elf"))

        self.assertIn(f"share the program's writable global/static variables: "
                      f"{', '.join(PROGRAM_GLOBALS)} (", warning("-np", "2", "--ranks", "threads"))
        self.assertIsNone(warning("-np", "1", "--ranks", "threads"))
        self.assertIsNone(warning("-np", "2"))


if __name__ == "__main__":
    unittest.main()
