"""LWMPI's profiling interface (MPI 3.1 chapter 14), generated from mpi.h
when libmpi is built (libmpi/CMakeLists.txt runs this file), so that the
functions are declared in one place only:

  - PROTOTYPES (lwmpi_pmpi.h, which mpi.h includes): PMPI_X declared as
    mpi.h declares MPI_X, for the user's wrappers;
  - RENAME (lwmpi_pmpi_rename.h, forced into every source of libmpi):
    `#define MPI_X PMPI_X`, so that LWMPI defines PMPI_X and its own
    calls (the MPI_Allgather inside MPI_Comm_split) never reach a wrapper;
  - WEAK (lwmpi_mpi_weak.S): MPI_X as a weak symbol, one jump to PMPI_X
    in a section of its own, so that a program's own MPI_X (a strong
    symbol) takes its place at link time and --gc-sections drops the
    jumps a program does not call.

A function of mpi.h is a declaration, outside a typedef, of a function
named MPI_X whatever it returns (int, double, MPI_Aint, MPI_Fint, a
handle), with LWMPI_DEPRECATED(...) before it for the names MPI 3.0
removed. Names in capitals (MPI_COMM_DUP_FN, ...) are the predefined
attribute callbacks of section 6.7.2: functions a program hands to MPI,
not calls it makes, which MPICH and Open MPI do not profile either; they
keep their one name and address.

    pmpi.py MPI_H OUT_DIR     writes OUT_DIR/include/PROTOTYPES, OUT_DIR/RENAME,
                              OUT_DIR/WEAK; exit status 1 when mpi.h has no function
"""
import os
import re
import sys

PROTOTYPES = "lwmpi_pmpi.h"
RENAME = "lwmpi_pmpi_rename.h"
WEAK = "lwmpi_mpi_weak.S"

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)   # with its continued lines
FUNCTION = re.compile(r"(?P<deprecated>LWMPI_DEPRECATED\s*\([^()]*\)\s*)?"
                      r"(?P<result>[A-Za-z_][\w\s*]*?)\s*\b(?P<name>MPI_\w+)\s*"
                      r"\((?P<params>.*)\)", re.S)
HEADER = "/* Generated from mpi.h by tools/tessera/pmpi.py when LWMPI is built: do not edit. */\n"


def functions(text):
    """The functions mpi.h's text declares, in its order: (name, declaration
    with PMPI_ in place of MPI_, on one line, without its ';')."""
    code = DIRECTIVE.sub("", COMMENT.sub(" ", text))
    found = []
    for statement in code.split(";"):
        statement = re.split(r"[{}]", statement)[-1].strip()  # after extern "C" { or a struct
        m = FUNCTION.fullmatch(statement)
        if not m or m["result"].split()[0] == "typedef" or m["name"].isupper():
            continue
        declaration = " ".join(f"{m['deprecated'] or ''}{m['result']} P{m['name']}({m['params']})".split())
        found.append((m["name"], declaration))
    return found


def prototypes(found):
    """lwmpi_pmpi.h: every PMPI_ declaration (mpi.h includes it inside its
    extern "C")."""
    lines = [HEADER, "/* MPI 3.1 chapter 14: each MPI_X of mpi.h is also PMPI_X. */\n",
             "#ifndef LWMPI_PMPI_H\n#define LWMPI_PMPI_H\n"]
    lines += [f"{declaration};\n" for _, declaration in found]
    return "".join(lines + ["#endif\n"])


def rename(found):
    """lwmpi_pmpi_rename.h: libmpi's sources define and call PMPI_X. It
    also stands for lwmpi_pmpi.h's include guard: renamed, mpi.h declares
    the PMPI_ functions itself, which lwmpi_pmpi.h would repeat."""
    return (HEADER + "#define LWMPI_PMPI_H\n"
            + "".join(f"#define {name} P{name}\n" for name, _ in found))


def weak(found):
    """lwmpi_mpi_weak.S: a weak MPI_X jumping to PMPI_X, per function
    (x86-64 and RISC-V 64, chosen by the preprocessor)."""
    lines = [HEADER,
             "#if defined(__x86_64__)\n#define LWMPI_JUMP jmp\n",
             "#elif defined(__riscv) && __riscv_xlen == 64\n#define LWMPI_JUMP tail\n",
             "#else\n#error \"LWMPI's MPI_ names: no jump for this architecture\"\n#endif\n",
             "\t.section .note.GNU-stack,\"\",@progbits\n"]
    for name, _ in found:
        lines.append(f"\t.section .text.{name},\"ax\",@progbits\n\t.p2align 2\n\t.weak {name}\n"
                     f"\t.type {name},@function\n{name}:\n\tLWMPI_JUMP P{name}\n"
                     f"\t.size {name},.-{name}\n")
    return "".join(lines)


def write(path, text):
    """Writes text to path unless it holds it already (so that the sources
    that depend on it are not rebuilt for nothing)."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main(argv):
    if len(argv) != 2:
        print("usage: pmpi.py MPI_H OUT_DIR", file=sys.stderr)
        return 2
    mpi_h, out = argv
    with open(mpi_h) as f:
        found = functions(f.read())
    if not found:
        print(f"pmpi.py: {mpi_h} declares no MPI_ function", file=sys.stderr)
        return 1
    write(os.path.join(out, "include", PROTOTYPES), prototypes(found))
    write(os.path.join(out, RENAME), rename(found))
    write(os.path.join(out, WEAK), weak(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
