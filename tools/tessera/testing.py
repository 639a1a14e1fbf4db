"""Shared helpers of the on-target test drivers: run a program through
tools/mpirun (or a tool of tools/), run a job built by hand, and read ELF
program headers. The drivers run on either target: the platform is
$TESSERA_PLATFORM's (PLATFORM), the build folder target_out()."""
import io
import os
import struct
import subprocess
import tempfile

from tessera import REPO as ROOT, TOOLS, launch, mkimage
from tessera.mkimage import target_out  # noqa: F401  (the build folder: one rule for all tools)

PLATFORM = mkimage.default_platform()

MPIRUN = os.path.join(TOOLS, "mpirun")
MPICC = os.path.join(TOOLS, "mpicc")


def run(*cmd, env=None, timeout=300, merge=True, cwd=ROOT):
    """CompletedProcess of CMD run from `cwd` (the repository root), output
    captured as text (stderr into stdout when merge). env: variables to add."""
    return subprocess.run(list(cmd), cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merge else subprocess.PIPE, text=True,
                          timeout=timeout, env=dict(os.environ, **(env or {})))


def mpirun(*args, timeout=300):
    """(exit status, combined output) of `tools/mpirun ARGS...`, run from a
    fresh temporary folder: the files a job leaves come back there, not
    into the repository (paths in ARGS must be absolute)."""
    with tempfile.TemporaryDirectory(prefix="tessera-test-") as cwd:
        p = run(MPIRUN, *args, timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout


def run_job(layout, program, args, np, policy, timeout=120, flags=0):
    """(exit status, whole console output) of a job built straight with
    mkimage, not through mpirun (e.g. with a manifest mpirun never writes),
    on layout.platform: QEMU images, or linux64 payloads and cluster processes.
    flags: the manifest's TS_MANIFEST_* flags."""
    out = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="tessera-job-") as tmp:
        if layout.platform == "linux64":
            payloads = mkimage.build_payloads(layout, program, args, np, policy, tmp, flags=flags)
            status, _ = launch.run_clusters(
                mkimage.default_paths(platform=layout.platform)["cluster"], payloads,
                layout.fabric_size, timeout, verbose=True, out=out, err=out)
        else:
            cmd = mkimage.build_images(layout, program, args, np, policy, tmp, flags=flags)
            status, _ = launch.run_machine(cmd, timeout, verbose=True, out=out)
    return status, out.getvalue()


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
