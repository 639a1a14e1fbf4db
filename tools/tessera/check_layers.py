"""Checks that every #include in Tessera's C and C++ sources respects the
layers (docs/ARCHITECTURE.md): a file includes headers of its own layer and
of the layers below it, and of another layer only its public headers.

The build already refuses most violations, since each layer's library sees
only its own include folder and those of the layers it links; this check
also catches what an include path cannot stop: relative paths into another
layer ("../../kernel/x.hpp") and test code.

    tools/check_layers.py [--root DIR] [--graph]

Inside LWMPI it checks the same way the order of LibMPI's rooms
(libmpi/mpi/<room>/, by chapter of the MPI standard), each above MPIUtil
and the helpers both share, and refuses an include loop between LWMPI's
files (a header and its .cpp counted as one).

Exit status 0 when every include is allowed, 1 otherwise (each violation
is printed as path:line: reason). --graph prints which layer includes which
and which room of LWMPI includes which (tests left out).
"""
import argparse
import os
import re
import sys

from tessera import REPO

# Layers by folder, most specific first. The kernel side and the user side
# share only the ABI.
LAYERS = [
    ("include/", "abi"),
    ("hal/", "hal"),
    ("kernel/core/", "kcore"),
    ("ikc/", "ikc"),
    ("kernel/", "kernel"),
    ("userland/runtime/", "runtime"),
    ("services/", "services"),
    ("libmpi/", "libmpi"),
    ("userland/apps/", "apps"),
    ("userland/tests/", "runtime"),
    ("bench/", "apps"),
]

# What each layer may include besides itself.
BELOW = {
    "abi": set(),
    "hal": {"abi"},
    "kcore": {"hal", "abi"},
    "ikc": {"kcore", "hal", "abi"},
    "kernel": {"ikc", "kcore", "hal", "abi"},
    "runtime": {"abi"},
    "services": {"runtime", "abi"},
    "libmpi": {"runtime", "abi"},
    "apps": {"libmpi", "runtime", "abi"},
}

# Tests are user programs or host test drivers: besides their own layer and
# the layers below it, they may use the whole user side (an on-target test
# of the kernel is an MPI program), private headers included.
USER_SIDE = {"abi", "runtime", "services", "libmpi"}

# Each layer's public include folders (globs of one '*' level): the only
# headers another layer may include.
PUBLIC = {
    "abi": ["include"],
    "hal": ["hal/include", "hal/arch/*/include"],
    "kcore": ["kernel/core/include"],
    "ikc": ["ikc/include"],
    "runtime": ["userland/runtime/include", "userland/runtime/posix", "userland/runtime/arch/*/include"],
    "libmpi": ["libmpi/include"],
}

# The runtime's stand-ins for C library headers (<pthread.h>,
# <sys/mman.h>, ...): on the include path of user programs only, so that a
# kernel-side <sys/mman.h> (linux64's HAL: the host's) is never one of them.
LIBC_STANDINS = ["userland/runtime/posix"]
KERNEL_SIDE = {"hal", "kcore", "ikc", "kernel"}

# LWMPI inside, lowest first: the helpers LibMPI and MPIUtil share
# (<lwmpi/...>), MPIUtil, then LibMPI's rooms. A part includes only itself
# and the parts before it; of MPIUtil, LibMPI sees only its interface
# (<mpiutil/...>). docs/ARCHITECTURE.md says what each room holds.
LIBMPI_PARTS = [
    ("libmpi/common/include/", "shared"),
    ("libmpi/mpiutil/", "mpiutil"),
    ("libmpi/mpi/common/", "common"),
    ("libmpi/mpi/env/", "env"),
    ("libmpi/mpi/comm/", "comm"),
    ("libmpi/mpi/datatype/", "datatype"),
    ("libmpi/mpi/pt2pt/", "pt2pt"),
    ("libmpi/mpi/coll/", "coll"),
    ("libmpi/mpi/newcomm/", "newcomm"),
    ("libmpi/mpi/rma/", "rma"),
    ("libmpi/mpi/io/", "io"),
    ("libmpi/mpi/init/", "init"),
]
ROOM_RANK = {part: n for n, (_, part) in enumerate(LIBMPI_PARTS)}
MPIUTIL_PUBLIC = "libmpi/mpiutil/include/"

# Folders a layer searches for its own private headers ("virtual.hpp" from
# ikc/tests finds ikc/virtual.hpp), as its build does.
PRIVATE = {
    "hal": ["hal/arch/*"],
    "ikc": ["ikc"],
    "kernel": ["kernel", "kernel/services"],
    "runtime": ["userland/runtime", "userland/runtime/arch/*"],
    "services": ["services/nameserver", "services/fileserver"],
    "libmpi": ["libmpi/mpi", "libmpi/mpiutil/include", "libmpi/common/include"],
}

SOURCE = re.compile(r".*\.(c|cpp|h|hpp|S|def)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(rel):
    """The layer of a path relative to the root, or None (tools, build...)."""
    for prefix, layer in LAYERS:
        if rel.startswith(prefix):
            return layer
    return None


def part_of(rel):
    """LWMPI's part (room) of a path, "" for a file of libmpi/mpi outside
    every room, or None outside LWMPI's code (its C header, its tests)."""
    for prefix, part in LIBMPI_PARTS:
        if rel.startswith(prefix):
            return part
    return "" if rel.startswith("libmpi/mpi/") else None


def module_of(rel):
    """A header and its .cpp are one module: the path without extension."""
    return os.path.splitext(rel)[0]


def cycle_in(edges, nodes):
    """A cycle through the first of `nodes` (a strongly connected set of
    `edges`), as the list of its modules, first one repeated at the end."""
    start = nodes[0]
    path, seen = [start], {start}

    def walk(v):
        for w in sorted(edges.get(v, ())):
            if w == start and len(path) > 1:
                return True
            if w in nodes and w not in seen:
                seen.add(w)
                path.append(w)
                if walk(w):
                    return True
                path.pop()
        return False

    walk(start)
    return path + [start]


def find_loops(edges):
    """The include loops of a {module: {module}} graph: one cycle (a list
    of modules, the first repeated at the end) per strongly connected set of
    more than one module (Tarjan's algorithm)."""
    index, low, stack, on, loops = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                loops.append(cycle_in(edges, sorted(scc)))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return loops


def is_test(rel):
    return "/tests/" in rel or rel.startswith("userland/tests/")


def expand(root, patterns):
    """Folders (relative) matching patterns with at most one '*' level."""
    out = []
    for p in patterns:
        if "*" not in p:
            out.append(p)
            continue
        head, tail = p.split("*", 1)
        base = os.path.join(root, head)
        if os.path.isdir(base):
            for d in sorted(os.listdir(base)):
                out.append(head + d + tail)
    return out


class Checker:
    def __init__(self, root):
        self.root = root
        self.public = {layer: expand(root, dirs) for layer, dirs in PUBLIC.items()}
        self.private = {layer: expand(root, dirs) for layer, dirs in PRIVATE.items()}
        self.search = [d for dirs in self.public.values() for d in dirs]
        self.standins = set(expand(root, LIBC_STANDINS))
        self.modules = {}  # LWMPI's include graph: {module: {module}}
        self.rooms = set()  # (room, room it includes), itself included

    def resolve(self, rel, quote, name):
        """The file (relative) an include names, or None for a header from
        outside the tree (the C library, Catch2...)."""
        dirs = []
        if quote == '"':
            dirs.append(os.path.dirname(rel))
        dirs += self.private.get(layer_of(rel), [])
        dirs += self.search
        if layer_of(rel) in KERNEL_SIDE and not is_test(rel):
            dirs = [d for d in dirs if d not in self.standins]
        for d in dirs:
            cand = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(os.path.join(self.root, cand)):
                return cand
        return None

    def is_public(self, target, layer):
        return any(target.startswith(d + "/") for d in self.public.get(layer, []))

    def check_room(self, rel, n, target):
        """The violation of LWMPI's order by `rel` including `target`
        (line n), or None."""
        mine, other = part_of(rel), part_of(target)
        if mine is None or other is None:
            return None
        if mine == "" or other == "":
            return None  # reported on the file itself
        if ROOM_RANK[other] > ROOM_RANK[mine]:
            return (f"{rel}:{n}: room {mine} includes {target} of room {other}, "
                    f"which is not below it")
        if other == "mpiutil" and mine != "mpiutil" and not target.startswith(MPIUTIL_PUBLIC):
            return (f"{rel}:{n}: {mine} includes {target}, a private header of MPIUtil "
                    f"(its interface: {MPIUTIL_PUBLIC.rstrip('/')})")
        return None

    def check_file(self, rel):
        """(violations, edges): violations as 'path:line: reason', edges as
        (from layer, to layer) pairs of its code outside tests."""
        layer = layer_of(rel)
        if layer is None:
            return [], set()
        lwmpi = layer == "libmpi" and not is_test(rel) and part_of(rel) is not None
        problems, edges = [], set()
        if lwmpi and part_of(rel) == "":
            problems.append(f"{rel}: a file of LibMPI outside its rooms (libmpi/mpi/<room>/)")
        allowed = BELOW[layer] | {layer}
        if is_test(rel):
            allowed |= USER_SIDE
        with open(os.path.join(self.root, rel), errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = self.resolve(rel, m.group(1), m.group(2))
                if lwmpi and target:
                    if (why := self.check_room(rel, n, target)) is not None:
                        problems.append(why)
                    if part_of(target) is not None and module_of(target) != module_of(rel):
                        self.modules.setdefault(module_of(rel), set()).add(module_of(target))
                        self.rooms.add((part_of(rel), part_of(target)))
                other = layer_of(target) if target else None
                if other is None or other == layer:
                    continue
                if not is_test(rel):
                    edges.add((layer, other))
                if other not in allowed:
                    problems.append(f"{rel}:{n}: {layer} includes {target} of layer {other}, "
                                    f"which is not below it")
                elif not is_test(rel) and not self.is_public(target, other):
                    problems.append(f"{rel}:{n}: {layer} includes {target}, a private header "
                                    f"of layer {other} (its public ones: "
                                    f"{', '.join(self.public.get(other, [])) or 'none'})")
        return problems, edges

    def run(self):
        problems, edges = [], set()
        for top in sorted({p.split("/")[0] for p, _ in LAYERS}):
            for dirpath, dirnames, filenames in os.walk(os.path.join(self.root, top)):
                dirnames.sort()
                for fn in sorted(filenames):
                    if SOURCE.match(fn):
                        rel = os.path.relpath(os.path.join(dirpath, fn), self.root)
                        p, e = self.check_file(rel)
                        problems += p
                        edges |= e
        for loop in find_loops(self.modules):
            problems.append(f"{loop[0]}: include loop in LWMPI: {' -> '.join(loop)} "
                            f"(a module is a header and its .cpp)")
        return problems, edges


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=REPO,
                    help="the source tree (default: this script's repository)")
    ap.add_argument("--graph", action="store_true", help="print which layer includes which")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "include", "tessera")):
        ap.error(f"{root} is not a Tessera source tree (no include/tessera)")
    checker = Checker(root)
    problems, edges = checker.run()
    if args.graph:
        for src in BELOW:
            print(f"{src:9} -> {', '.join(sorted(dst for s, dst in edges if s == src)) or '-'}")
        checker_rooms = checker.rooms
        print("LWMPI, lowest first:")
        for _, part in LIBMPI_PARTS:
            below = sorted((dst for s, dst in checker_rooms if s == part and dst != part),
                           key=ROOM_RANK.get, reverse=True)
            print(f"  {part:9} -> {', '.join(below) or '-'}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the layers (docs/ARCHITECTURE.md)",
              file=sys.stderr)
    return 1 if problems else 0

