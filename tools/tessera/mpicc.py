"""The MPI compiler wrappers tools/mpicc (C) and tools/mpicxx (C++): one
implementation, a language switch (LANGUAGES). Like Open MPI's and MPICH's
wrappers, they run the platform's compiler with what a Tessera MPI program
needs (LWMPI, the runtime, the C library) and pass every option they do not
interpret through to the compiler and linker unchanged. help() says what
each option does; docs/tools.md, "mpicc and mpicxx", and docs/programs.md,
"C++ programs", say more.

The compile and link recipe is the build's own: build/tessera.cmake writes
it to mpicc.cfg in the platform's build folder (TESSERA_TARGET_OUT, default
out/target for qemu-riscv64, out/linux64 for linux64), so a program built
here is built exactly like the in-tree ones.

Each source is compiled on its own, then the objects are linked in a second
command: the wrapper looks at the objects in between, for the record of the
program's writable global variables (tools/tessera/program_globals.py;
docs/programs.md, "Global variables in MPI programs")."""
import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

from tessera.mkimage import default_platform, target_out  # one rule for the build folder
from tessera.profile import PLATFORMS, ToolError
from tessera import program_globals

ASM_SUFFIXES = (".s", ".S", ".sx")
C_SUFFIXES = (".c",)
CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".C", ".c++", ".cp", ".CPP")


@dataclass(frozen=True)
class Language:
    """What differs between mpicc and mpicxx."""
    tool: str             # the wrapper's name
    compiler: str         # mpicc.cfg's key for the compiler, and for its flags
    flags: str
    sources: tuple        # suffixes of the sources it compiles
    foreign: tuple        # suffixes of sources of the other wrapper's language
    other_tool: str       # ... which it names in the refusal
    first_flags: tuple    # before the user's (so theirs win), e.g. the C++ standard
    libs: tuple           # mpicc.cfg keys of libraries linked after the runtime
    builtin_libs: tuple   # -lNAME that are linked anyway (-lm, ...): ignored


LANGUAGES = {
    "c": Language(tool="mpicc", compiler="cc", flags="cflags", sources=C_SUFFIXES + ASM_SUFFIXES,
                  foreign=CXX_SUFFIXES, other_tool="mpicxx", first_flags=(), libs=(),
                  builtin_libs=("m", "rt")),
    "c++": Language(tool="mpicxx", compiler="cxx", flags="cxxflags",
                    sources=CXX_SUFFIXES + C_SUFFIXES + ASM_SUFFIXES, foreign=(), other_tool="",
                    first_flags=("-std=gnu++17",), libs=("cxxlibs",),
                    builtin_libs=("m", "rt", "stdc++")),
}

GLOBALS_WARNING = "-Wmpi-globals"
NO_GLOBALS_WARNING = "-Wno-mpi-globals"
GLOBALS_ADVICE = ('(declare them _Thread_local, or const, or run with --ranks processes, the '
                  'default; see docs/programs.md, "Global variables in MPI programs")')

# The compiler's options whose value is the next word (when not joined), by
# where they go: to compiling only, to linking only, or to both.
COMPILE_ARG_OPTIONS = ("-I", "-D", "-U", "-include", "-imacros", "-isystem", "-idirafter",
                       "-iquote", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot",
                       "-imultilib", "-MF", "-MT", "-MQ", "-Xpreprocessor", "-Xassembler", "-x",
                       "-aux-info")
LINK_ARG_OPTIONS = ("-Xlinker", "-u", "-z", "-T", "-e")
BOTH_ARG_OPTIONS = ("--param",)
# The ones that may also be written joined (-Ifoo, -DX=1, -Tscript).
# (Not -u: -undef is an option of its own.)
JOINED = ("-I", "-D", "-U", "-isystem", "-idirafter", "-iquote", "-MF", "-MT", "-MQ", "-x", "-z",
          "-T")
# Single-word options that go to one step only.
COMPILE_PREFIXES = ("-Wp,", "-Wa,", "-M")     # -M*: -MD, -MMD, -MP, -MG
LINK_WORDS = ("-static", "-s", "-rdynamic")
STOP_OPTIONS = ("-c", "-S", "-E")   # compile only, to assembly, preprocess: no link
SHOW_OPTIONS = {"--show": "all", "-show": "all", "--showme": "all", "-showme": "all",
                "--showme:compile": "compile", "-showme:compile": "compile",
                "--showme:link": "link", "-showme:link": "link"}


def usage(lang):
    return (f"usage: {lang.tool} [-c|-S|-E] [-o OUT] SOURCE|OBJECT|LIBRARY... [-lNAME] [-L DIR] "
            f"[compiler and linker options] [-Wmpi-globals|-Wno-mpi-globals] "
            f"[--platform qemu-riscv64|linux64] [--show|--showme[:compile|:link]] [--help]")


def help_text(lang):
    """--help: every option, and what the wrapper adds."""
    if lang.tool == "mpicxx":
        what = ("Compiles and links C++17 MPI programs (sources .cpp .cc .cxx .C .c++; .c too, "
                "as C++, like g++; .s .S assembly) with LWMPI's C bindings <mpi.h>.\n"
                "The default standard is -std=gnu++17 (give -std= to change it). The whole "
                "C++ standard library is there (GCC 12's libstdc++): strings, streams "
                "(std::cout on the console, file streams through the file server), "
                "<memory>, <chrono>, <regex>, <thread>, <mutex>, <future>, <atomic>, ...; "
                "exceptions and RTTI are on, as with g++ (-fno-exceptions and -fno-rtti "
                "turn them off). LWMPI itself has no exceptions: a throw out of an MPI "
                "callback (an error handler, a user operation) ends the rank.")
    else:
        what = ("Compiles and links MPI C programs (sources .c; .s .S assembly). A C++ source "
                "needs mpicxx.")
    return f"""{usage(lang)}

{what}

Like cc, and like Open MPI's and MPICH's wrappers, {lang.tool} passes every option it does
not name below to the compiler and the linker unchanged (-O2, -g, -Wall, -pedantic,
-ffast-math, -march=..., -std=..., -Wl,..., -Xlinker ...; compile-only ones such as
-I, -D, -U, -include, -isystem, -M*, -Wp,..., -Wa,... go to the compiler only,
link-only ones such as -Wl,..., -Xlinker, -u, -z, -T go to the linker only).
Inputs: sources are compiled; every other file (.o, .a, ...) goes to the linker.

Options {lang.tool} interprets:
  -c                 compile only: one .o per source, named like it in the current folder
                     (or -o OUT for a single source)
  -S, -E             stop after compiling to assembly (.s per source), or after
                     preprocessing (to standard output, or -o OUT)
  -o OUT             the output; without -o, linking writes a.out
  -lNAME             links libNAME.a from a -L folder (static libraries only);
                     -l{', -l'.join(lang.builtin_libs)} are linked anyway and ignored
  -L DIR             a folder for -l
  -fopenmp           OpenMP (docs/programs.md, "OpenMP"): compiles with the build's
                     omp.h and links its libgomp, which runs a parallel region's team
                     on the rank's share of its cluster's cores
  -Wmpi-globals      list, after compiling each source, the writable global and static
                     variables it defines: under mpirun --ranks threads the MPI processes
                     of a cluster share them (docs/programs.md, "Global variables in MPI
                     programs")
  -Wno-mpi-globals   do not (the default); given when linking, the program records no
                     such variables either, so mpirun does not warn about them (the last
                     of the two options wins)
  --platform P       qemu-riscv64 or linux64 (else $TESSERA_PLATFORM, else qemu-riscv64):
                     picks the build (out/target or out/linux64, or $TESSERA_TARGET_OUT)
  --show, -show, --showme, -showme
                     print the commands instead of running them (MPICH's and Open MPI's
                     names); without inputs, the compiler with every flag it adds
  --showme:compile, --showme:link
                     print only the flags added when compiling, or when linking
  --help, -h         this text
With no input files and no option of its own, {lang.tool} runs the compiler with the
options given (e.g. {lang.tool} --version).

When it links, {lang.tool} records in the program (an ELF note) the writable global and
static variables that the program's own inputs define (not the runtime's or the C
library's); mpirun warns about them when ranks share a process (--ranks threads).
--show prints the commands without that record (it needs the objects)."""


def die(lang, msg, code=2):
    print(f"{lang.tool}: {msg}", file=sys.stderr)
    sys.exit(code)


def warn(lang, msg):
    print(f"{lang.tool}: warning: {msg}", file=sys.stderr)


@dataclass
class Command:
    """The parsed command line. inputs keeps the command line's order, which
    matters to the linker: (kind, path or library name), kind "source" (to
    compile), "file" (for the linker) or "lib" (-lNAME)."""
    stop: str = None                            # "-c", "-S", "-E", or None: link
    out: str = None
    inputs: list = field(default_factory=list)
    lib_dirs: list = field(default_factory=list)
    flags: list = field(default_factory=list)           # to compiling and linking
    compile_flags: list = field(default_factory=list)   # to compiling only
    link_flags: list = field(default_factory=list)      # to linking only
    globals: str = "record"     # -W[no-]mpi-globals: "warn" (and record), "record", "off"
    show: str = None            # SHOW_OPTIONS' values
    platform: str = None        # None: default_platform()
    openmp: bool = False        # -fopenmp: the build's omp.h and libgomp

    def files(self, kind):
        return [value for k, value in self.inputs if k == kind]


def stop_rank(option):
    """gcc's rule when several are given: -E beats -S beats -c."""
    return STOP_OPTIONS.index(option) if option else -1


def parse(lang, args):
    """Command from the wrapper's arguments; dies with the usage on a bad one."""
    cmd = Command()
    i = 0
    while i < len(args):
        a = args[i]

        def value(opt):
            """The option's value: the rest of the word, or the next word."""
            nonlocal i
            if a != opt:
                return a[len(opt):]
            i += 1
            if i == len(args):
                die(lang, f"{opt} needs an argument\n{usage(lang)}")
            return args[i]

        def with_value(opts):
            """The option of opts that a is (alone, or joined when JOINED), as
            [option, value] words for the compiler; None when it is none."""
            for opt in opts:
                if a == opt or (opt in JOINED and a.startswith(opt)):
                    v = value(opt)
                    return [opt + v] if a != opt else [opt, v]
            return None

        if a in STOP_OPTIONS:
            cmd.stop = max(cmd.stop, a, key=stop_rank) if cmd.stop else a
        elif a in ("-M", "-MM"):    # dependencies instead of preprocessed output
            cmd.compile_flags.append(a)
            cmd.stop = "-E"
        elif a.startswith("-o"):
            if cmd.out is not None:
                die(lang, "more than one -o")
            cmd.out = value("-o")
        elif a.startswith("-L"):
            cmd.lib_dirs.append(value("-L"))
        elif a.startswith("-l"):
            cmd.inputs.append(("lib", value("-l")))
        elif a == GLOBALS_WARNING:
            cmd.globals = "warn"
        elif a == NO_GLOBALS_WARNING:
            cmd.globals = "off"
        elif a in SHOW_OPTIONS:
            cmd.show = SHOW_OPTIONS[a]
        elif a == "--platform" or a.startswith("--platform="):
            cmd.platform = a.split("=", 1)[1] if "=" in a else value("--platform")
            if cmd.platform not in PLATFORMS:
                die(lang, f"unknown platform '{cmd.platform}' ({' or '.join(PLATFORMS)})"
                          f"\n{usage(lang)}")
        elif a == "-fopenmp":
            cmd.openmp = True
        elif a in ("-h", "--help"):
            print(help_text(lang))
            sys.exit(0)
        elif (words := with_value(COMPILE_ARG_OPTIONS)) is not None:
            cmd.compile_flags += words
        elif (words := with_value(LINK_ARG_OPTIONS)) is not None:
            cmd.link_flags += words
        elif (words := with_value(BOTH_ARG_OPTIONS)) is not None:
            cmd.flags += words
        elif a.startswith(COMPILE_PREFIXES):
            cmd.compile_flags.append(a)
        elif a.startswith("-Wl,") or a in LINK_WORDS:
            cmd.link_flags.append(a)
        elif a.startswith("-") and a != "-":
            cmd.flags.append(a)
        elif a.endswith(lang.foreign):
            die(lang, f"{a}: a C++ source: build it with tools/{lang.other_tool}")
        elif not os.path.isfile(a):
            die(lang, f"{a}: no such file")
        else:
            cmd.inputs.append(("source" if a.endswith(lang.sources) else "file", a))
        i += 1
    check(lang, cmd)
    return cmd


def check(lang, cmd):
    """Refuse a command line that names no work, or -o with -c/-S/-E and several sources."""
    sources = cmd.files("source")
    if cmd.stop:
        if not sources:
            die(lang, f"{cmd.stop} needs at least one source "
                      f"({' '.join(lang.sources)})\n{usage(lang)}")
        if cmd.out is not None and len(sources) > 1:
            die(lang, f"-o with {cmd.stop} names one output, but there are several sources: "
                      f"leave -o out to get one file per source")
        for path in cmd.files("file"):
            warn(lang, f"{path}: linker input unused with {cmd.stop}")
    elif not cmd.inputs and not cmd.show and not cmd.flags:
        die(lang, f"no input files\n{usage(lang)}")


def output_name(source, stop):
    """cc's name for the output of `source` under -c (.o) or -S (.s): its
    base name in the current folder; None for -E (standard output)."""
    suffix = {"-c": ".o", "-S": ".s"}.get(stop)
    return os.path.splitext(os.path.basename(source))[0] + suffix if suffix else None


def find_library(lang, name, dirs):
    """Path of libNAME.a in the first -L folder that has it; None for the
    libraries always linked. Dies when no folder has it."""
    if name in lang.builtin_libs:
        return None
    for d in dirs:
        path = os.path.join(d, f"lib{name}.a")
        if os.path.isfile(path):
            return path
    where = f"the -L folders ({', '.join(dirs)})" if dirs else "any -L folder (none given)"
    die(lang, f"-l{name}: lib{name}.a is not in {where}; {lang.tool} links static libraries only")


def load_config(lang, out_dir, linking):
    """key -> list of strings, from the build's mpicc.cfg (values are ;-lists).
    When linking, the objects and libraries it names must be built."""
    path = os.path.join(out_dir, "mpicc.cfg")
    if not os.path.isfile(path):
        die(lang, f"no Tessera build in {out_dir} ({path} is missing): run make first", 1)
    cfg = program_globals.read_config(path)
    for key in ("cc", "cflags", lang.compiler, lang.flags, "includes", "ldflags", "startfiles",
                "libs", "syslibs") + lang.libs:
        if key not in cfg:
            die(lang, f"{path} has no '{key}': rebuild with make", 1)
    for f in (cfg["startfiles"] + cfg["libs"]) if linking else []:
        if not os.path.exists(f):
            die(lang, f"{f} is not built yet: run make first", 1)
    return cfg


def run(command, show):
    """Runs command (or prints it with --show); returns its exit status."""
    if show:
        print(shlex.join(command))
        return 0
    return subprocess.call(command)


def openmp(lang, cfg, cmd, key):
    """With -fopenmp, mpicc.cfg's `key` (openmpflags: -fopenmp and omp.h's
    folder, before the compiler's own; openmplibs: libgomp); else nothing."""
    if not cmd.openmp:
        return []
    if key not in cfg:
        die(lang, f"the build has no '{key}' for -fopenmp: rebuild with make", 1)
    return cfg[key]


def compile_flags(lang, cfg, cmd):
    """What compiling a source takes: OpenMP's, the build's flags, then the
    user's (so that their -O or -std wins), then <mpi.h>'s folders."""
    return (openmp(lang, cfg, cmd, "openmpflags") + cfg[lang.flags] + list(lang.first_flags) + cmd.flags
            + cmd.compile_flags + ["-I" + d for d in cfg["includes"]])


def link_flags(lang, cfg, cmd, inputs):
    """What linking `inputs` takes, around them: the build's flags, the
    user's, the start files; after them libgomp (-fopenmp), LWMPI, the
    runtime, the language's libraries and the C library."""
    libs = [lib for key in lang.libs for lib in cfg[key]]
    return (cfg["ldflags"] + cmd.flags + cmd.link_flags + cfg["startfiles"] + inputs
            + openmp(lang, cfg, cmd, "openmplibs") + cfg["libs"] + libs + cfg["syslibs"])


def warn_shared_variables(lang, source, obj):
    """-Wmpi-globals' warning for one compiled source: the writable
    variables its object defines (tools/tessera/program_globals.py)."""
    try:
        names = program_globals.display_names(program_globals.file_variables(obj))
    except (OSError, ValueError) as e:
        warn(lang, f"{source}: cannot look for global variables: {e}")
        return
    if names:
        warn(lang, f"{source}: writable global/static variables are shared by the MPI processes "
                   f"of a cluster under mpirun --ranks threads: {', '.join(names)} "
                   f"{GLOBALS_ADVICE}")


def compile_sources(lang, cfg, cmd, outputs, stop):
    """Compiles each source with `stop` (-c, -S, -E) to outputs[source] (None:
    standard output); 0, or the first failure's status."""
    for source in cmd.files("source"):
        out = ["-o", outputs[source]] if outputs[source] else []
        status = run(cfg[lang.compiler] + compile_flags(lang, cfg, cmd) + [stop, source] + out,
                     cmd.show)
        if status != 0:
            return status
        if cmd.globals == "warn" and stop == "-c" and not cmd.show:
            warn_shared_variables(lang, source, outputs[source])
    return 0


def globals_record(cfg, cmd, inputs, tmp):
    """The object that records the writable variables the user's inputs
    (objects and libraries) define, for mpirun (tools/tessera/program_globals.py),
    assembled in tmp: (exit status, its path). Its path is None when there
    is no record: with --show (the objects are not made), or when an input
    cannot be read (then the linker says why, or mpirun compares with the
    runtime)."""
    if cmd.show:
        return 0, None
    names = set()
    if cmd.globals != "off":
        try:
            for path in inputs:
                names |= program_globals.file_variables(path)
        except (OSError, ValueError):
            return 0, None
    source, obj = os.path.join(tmp, "mpi-globals.s"), os.path.join(tmp, "mpi-globals.o")
    with open(source, "w") as f:
        f.write(program_globals.record_asm(names))
    status = run(cfg["cc"] + cfg["cflags"] + ["-c", source, "-o", obj], False)
    return status, obj if status == 0 else None


def link(lang, cfg, cmd, objects, libs, tmp):
    """Links the program (cmd.out, else a.out) from the inputs, in their
    order: a source's object, objects[source]; -lNAME's library, libs[NAME]
    (None for those always linked); then the record of their global
    variables (globals_record)."""
    inputs = []
    for kind, value in cmd.inputs:
        path = objects[value] if kind == "source" else libs[value] if kind == "lib" else value
        if path:
            inputs.append(path)
    status, record = globals_record(cfg, cmd, inputs, tmp)
    if status != 0:
        return status
    inputs += [record] if record else []
    return run(cfg[lang.compiler] + link_flags(lang, cfg, cmd, inputs)
               + ["-o", cmd.out or "a.out"], cmd.show)


def show_flags(lang, cfg, cmd):
    """--showme:compile, --showme:link, and --show without inputs."""
    words = {"compile": compile_flags(lang, cfg, cmd),
             "link": link_flags(lang, cfg, cmd, []),
             "all": cfg[lang.compiler] + compile_flags(lang, cfg, cmd)
             + link_flags(lang, cfg, cmd, [])}[cmd.show]
    print(shlex.join(words))
    return 0


def main(language, argv=None):
    """The wrapper for `language` (a LANGUAGES key): its exit status."""
    lang = LANGUAGES[language]
    cmd = parse(lang, sys.argv[1:] if argv is None else argv)
    try:
        platform = cmd.platform or default_platform()
    except ToolError as e:
        die(lang, str(e))
    linking = not cmd.stop and bool(cmd.inputs)
    cfg = load_config(lang, target_out(platform), linking=linking and not cmd.show)
    if cmd.show in ("compile", "link") or (cmd.show and not cmd.inputs):
        return show_flags(lang, cfg, cmd)
    if not cmd.inputs:  # e.g. --version, -v, -dumpmachine: the compiler's answer
        return run(cfg[lang.compiler] + cmd.flags, False)
    sources = cmd.files("source")
    if cmd.stop:
        return compile_sources(lang, cfg, cmd, {s: cmd.out or output_name(s, cmd.stop)
                                                for s in sources}, cmd.stop)
    libs = {name: find_library(lang, name, cmd.lib_dirs) for name in cmd.files("lib")}
    with tempfile.TemporaryDirectory(prefix=f"{lang.tool}-") as tmp:
        # Numbered, as two sources may share a base name (a/x.c, b/x.c).
        objects = {s: os.path.join(tmp, f"{i}-{output_name(s, '-c')}")
                   for i, s in enumerate(sources)}
        return (compile_sources(lang, cfg, cmd, objects, "-c")
                or link(lang, cfg, cmd, objects, libs, tmp))
