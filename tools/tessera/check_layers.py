"""Checks that every #include in Tessera's C and C++ sources respects the
layers (docs/ARCHITECTURE.md): a file includes headers of its own layer and
of the layers below it, and of another layer only its public headers.

The build already refuses most violations, since each layer's library sees
only its own include folder and those of the layers it links; this check
also catches what an include path cannot stop: relative paths into another
layer ("../../kernel/x.hpp") and test code.

    tools/check_layers.py [--root DIR] [--graph]

Exit status 0 when every include is allowed, 1 otherwise (each violation
is printed as path:line: reason). --graph prints which layer includes which (tests left out).
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

# Folders a layer searches for its own private headers ("virtual.hpp" from
# ikc/tests finds ikc/virtual.hpp), as its build does.
PRIVATE = {
    "hal": ["hal/arch/*"],
    "ikc": ["ikc"],
    "kernel": ["kernel", "kernel/services"],
    "runtime": ["userland/runtime", "userland/runtime/arch/*"],
    "services": ["services/nameserver", "services/fileserver"],
}

SOURCE = re.compile(r".*\.(c|cpp|h|hpp|S|def)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(rel):
    """The layer of a path relative to the root, or None (tools, build...)."""
    for prefix, layer in LAYERS:
        if rel.startswith(prefix):
            return layer
    return None


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

    def resolve(self, rel, quote, name):
        """The file (relative) an include names, or None for a header from
        outside the tree (the C library, Catch2...)."""
        dirs = []
        if quote == '"':
            dirs.append(os.path.dirname(rel))
            dirs += self.private.get(layer_of(rel), [])
        dirs += self.search
        for d in dirs:
            cand = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(os.path.join(self.root, cand)):
                return cand
        return None

    def is_public(self, target, layer):
        return any(target.startswith(d + "/") for d in self.public.get(layer, []))

    def check_file(self, rel):
        """(violations, edges): violations as 'path:line: reason', edges as
        (from layer, to layer) pairs of its code outside tests."""
        layer = layer_of(rel)
        if layer is None:
            return [], set()
        allowed = BELOW[layer] | {layer}
        if is_test(rel):
            allowed |= USER_SIDE
        problems, edges = [], set()
        with open(os.path.join(self.root, rel), errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = self.resolve(rel, m.group(1), m.group(2))
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
    problems, edges = Checker(root).run()
    if args.graph:
        for src in BELOW:
            print(f"{src:9} -> {', '.join(sorted(dst for s, dst in edges if s == src)) or '-'}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the layers (docs/ARCHITECTURE.md)",
              file=sys.stderr)
    return 1 if problems else 0

