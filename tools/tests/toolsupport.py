"""Shared helpers of the tools/ tests: paths, running tools/mpirun as a
user would. (The tools themselves are the package tools/tessera/, on
PYTHONPATH: CTest sets it.)"""
import os

from tessera import REPO, TOOLS, testing  # noqa: F401  (the tests' paths)

TESTS = os.path.dirname(os.path.abspath(__file__))
MPIRUN = testing.MPIRUN


def too_many_processes(np):
    """The capacity error for np processes on the default profile (16 slots)."""
    return (f"{np} processes requested but profile 'default' hosts at most 16: 4 compute "
            f"clusters x 4 cores (each cluster's master core runs the kernel and the local "
            f"name daemon; I/O clusters host no MPI process)")


def run_mpirun(*args, env=None, timeout=360):
    """(exit status, stdout, stderr) of `tools/mpirun ARGS...`.

    env: variables to set on top of the current environment.
    """
    p = testing.run(MPIRUN, *args, env=env, timeout=timeout, merge=False)
    return p.returncode, p.stdout, p.stderr
