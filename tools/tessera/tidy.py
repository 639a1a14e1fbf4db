"""clang-tidy over Tessera's builds (`make tidy`, the `tidy_naming` test).

clang-tidy reads a build's compile_commands.json. The host build's is
clang-ready; the cross builds' (out/target: riscv64-linux-gnu-gcc, bare
metal; out/linux64: gcc, freestanding with newlib) are GCC command lines,
which clang would parse for the host, against the host's C library. So
each cross command is adapted first: clang gets the GCC's target
(`--target=`, from `-dumpmachine`) and, unless the command already names
every include folder itself (-nostdinc), the GCC's own include folders
(its `-v` search list), so both compilers see the same headers; GCC's
-f flags clang does not know are dropped, and so are the warning options
(-Wno-unknown-warning-option).

  tidy.py [--naming] [-j N] BUILD...

Without --naming: the checks of .clang-tidy on what the builds compile,
tests left out. With --naming: only readability-identifier-naming (the
constants' lower_snake convention, .clang-tidy), tests included. Each
finding is printed once (a header is seen by many files and builds); the
exit status is 1 on any finding or on a file clang cannot parse, 2 when a
build or clang-tidy is missing.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from tessera import REPO

NAMING = "readability-identifier-naming"
# Third-party code keeps its authors' names (libmpi/tests/target/third_party).
SKIPPED = re.compile(r"/third_party/")
# A diagnostic with its place, or one of the driver's (an unknown flag).
DIAGNOSTIC = re.compile(r"^(?:(?P<where>[^\s:][^:]*:\d+:\d+): )?(?P<kind>error|warning): (?P<text>.*)$")

_gcc_cache = {}


def gcc_facts(compiler, lang):
    """(target triple, [include folders]) of a GCC driver for lang (c, c++)."""
    key = (compiler, lang)
    if key not in _gcc_cache:
        triple = subprocess.run([compiler, "-dumpmachine"], capture_output=True, text=True, check=True).stdout.strip()
        err = subprocess.run([compiler, "-x", lang, "-E", "-v", os.devnull], capture_output=True, text=True).stderr
        dirs, inside = [], False
        for line in err.splitlines():
            if line.startswith("#include <...> search starts here"):
                inside = True
            elif line.startswith("End of search list"):
                inside = False
            elif inside:
                dirs.append(os.path.normpath(line.strip()))
        _gcc_cache[key] = (triple, dirs)
    return _gcc_cache[key]


_known_flags = {}


def clang_knows(flag, triple):
    """Whether clang takes a GCC flag (GCC's -fno-tree-loop-distribute-
    patterns is no flag of clang's: it fails the file)."""
    key = (flag, triple)
    if key not in _known_flags:
        with tempfile.TemporaryDirectory() as d:
            probe = os.path.join(d, "probe.c")
            open(probe, "w").close()
            p = subprocess.run(["clang-tidy", "-checks=-*," + NAMING, probe, "--", "--target=" + triple, flag],
                               capture_output=True, text=True)
            err = p.stdout + p.stderr
        _known_flags[key] = "unknown argument" not in err
    return _known_flags[key]


def host_triple():
    out = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"Default target: (\S+)", out)
    return m.group(1) if m else ""


def same_target(a, b):
    """x86_64-linux-gnu and x86_64-pc-linux-gnu are one target."""
    def parts(t):
        p = t.split("-")
        return (p[0], p[-2] if len(p) > 2 else "", p[-1])

    return parts(a) == parts(b)


def adapt(entry, host):
    """The entry's argument list as clang-tidy needs it (see the module's
    doc), or None for a file it does not check (assembly)."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    source = entry["file"]
    if not source.endswith((".c", ".cc", ".cpp")):
        return None
    lang = "c" if source.endswith(".c") else "c++"
    out, skip = [args[0]], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        out.append(a)
    compiler = args[0]
    if "gcc" in os.path.basename(compiler) or "g++" in os.path.basename(compiler):
        triple, dirs = gcc_facts(compiler, lang)
        out = [out[0]] + [a for a in out[1:] if not a.startswith("-f") or clang_knows(a, triple)]
        if not same_target(triple, host):
            out.insert(1, "--target=" + triple)
            if "-nostdinc" not in out:
                out[2:2] = ["-nostdlibinc", "-nostdinc++"] + ["-isystem" + d for d in dirs]
    out.append("-Wno-unknown-warning-option")
    return out


def entries(build, naming):
    path = os.path.join(build, "compile_commands.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"tidy: no {path} (make build first)")
    with open(path) as f:
        db = json.load(f)
    host = host_triple()
    picked = {}
    for e in db:
        f = os.path.normpath(os.path.join(e["directory"], e["file"]))
        if SKIPPED.search(f) or (not naming and "/tests/" in f) or (naming and f.endswith(".c")):
            continue
        args = adapt(e, host)
        if args is not None:
            picked[f] = {"directory": e["directory"], "file": f, "arguments": args}
    return list(picked.values())


def run_batch(db_dir, files, checks):
    cmd = ["clang-tidy", "--quiet", "-p", db_dir] + (["-checks=" + checks] if checks else []) + files
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def check(builds, naming, jobs):
    """(findings as sorted lines, files checked)."""
    checks = "-*," + NAMING if naming else None
    findings, count = {}, 0
    with tempfile.TemporaryDirectory(prefix="tessera-tidy-") as tmp:
        batches = []
        for i, build in enumerate(builds):
            db = entries(build, naming)
            count += len(db)
            d = os.path.join(tmp, str(i))
            os.makedirs(d)
            with open(os.path.join(d, "compile_commands.json"), "w") as f:
                json.dump(db, f)
            files = [e["file"] for e in db]
            # Several files to one clang-tidy: fewer starts, same parallelism.
            n = max(1, min(len(files), jobs * 4))
            batches += [(d, files[k::n]) for k in range(n) if files[k::n]]
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for status, text in pool.map(lambda b: run_batch(b[0], b[1], checks), batches):
                lines = text.splitlines()
                for k, line in enumerate(lines):
                    m = DIAGNOSTIC.match(line)
                    if not m:
                        continue
                    where = m.group("where") or "clang-tidy"
                    if m.group("where") and not os.path.isabs(where):
                        where = os.path.join(REPO, where)
                    if m.group("where"):
                        where = os.path.relpath(where, REPO)
                    key = f"{where}: {m.group('kind')}: {m.group('text')}"
                    # The code line and clang-tidy's fix, when given.
                    context = [l for l in lines[k + 1 : k + 4] if not DIAGNOSTIC.match(l)] if m.group("where") else []
                    findings.setdefault(key, context)
                if status and not any(DIAGNOSTIC.match(l) for l in lines):
                    findings.setdefault("clang-tidy failed: " + (lines[-1] if lines else f"status {status}"), [])
    return [k + "".join("\n    " + c for c in findings[k]) for k in sorted(findings)], count


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tidy.py", description="clang-tidy (.clang-tidy) over Tessera's builds.")
    ap.add_argument("builds", nargs="+", metavar="BUILD", help="a build folder (out/host, out/linux64, out/target)")
    ap.add_argument("--naming", action="store_true", help=f"only {NAMING}, tests included")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="clang-tidy processes at once (default 2)")
    args = ap.parse_args(argv)
    if not shutil.which("clang-tidy"):
        print("tidy: clang-tidy is missing (tools/setup.sh installs it)", file=sys.stderr)
        return 2
    try:
        findings, count = check([os.path.abspath(b) for b in args.builds], args.naming, args.jobs)
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 2
    for f in findings:
        print(f)
    what = NAMING if args.naming else "the checks of .clang-tidy"
    print(f"tidy: {what}: {count} files of {len(args.builds)} builds, {len(findings)} findings")
    return 1 if findings else 0
