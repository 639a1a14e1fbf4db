"""Shared helpers of the on-target test drivers: run a program through
tools/mpirun (or a tool of tools/) and read ELF program headers."""
import os
import struct
import subprocess

from mkimage import target_out  # noqa: F401  (the cross build folder: one rule for all tools)

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
MPIRUN = os.path.join(ROOT, "tools", "mpirun")
MPICC = os.path.join(ROOT, "tools", "mpicc")


def run(*cmd, env=None, timeout=300, merge=True):
    """CompletedProcess of CMD run from the repository root, output captured
    as text (stderr into stdout when merge). env: variables to add."""
    return subprocess.run(list(cmd), cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merge else subprocess.PIPE, text=True,
                          timeout=timeout, env=dict(os.environ, **(env or {})))


def mpirun(*args, timeout=300):
    """(exit status, combined output) of `tools/mpirun ARGS...`."""
    p = run(MPIRUN, *args, timeout=timeout)
    return p.returncode, p.stdout


PT_LOAD = 1


def load_segments(path):
    """(e_entry, [(vaddr, filesz, memsz, flags)] of PT_LOAD) of an ELF64 LE file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a little-endian ELF64 file")
    entry, phoff = struct.unpack_from("<QQ", data, 0x18)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    segs = []
    for i in range(phnum):
        ptype, flags, _off, vaddr, _paddr, filesz, memsz, _align = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if ptype == PT_LOAD:
            segs.append((vaddr, filesz, memsz, flags))
    return entry, segs
