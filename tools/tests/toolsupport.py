"""Shared helpers of the tools/ tests: paths, importing the tools, running
tools/mpirun as a user would."""
import importlib.machinery
import importlib.util
import os
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(TESTS)

sys.path.insert(0, TOOLS)
import tessera_run  # noqa: E402

REPO = tessera_run.ROOT
MPIRUN = tessera_run.MPIRUN


def too_many_processes(np):
    """The capacity error for np processes on the default profile (16 slots)."""
    return (f"{np} processes requested but profile 'default' hosts at most 16: 4 compute "
            f"clusters x 4 cores (each cluster's master core runs the kernel and the local "
            f"name daemon; I/O clusters host no MPI process)")


def load_mpirun():
    """tools/mpirun as a module (its file name has no .py)."""
    loader = importlib.machinery.SourceFileLoader("mpirun", MPIRUN)
    spec = importlib.util.spec_from_loader("mpirun", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run_mpirun(*args, env=None, timeout=360):
    """(exit status, stdout, stderr) of `tools/mpirun ARGS...`.

    env: variables to set on top of the current environment.
    """
    p = tessera_run.run(MPIRUN, *args, env=env, timeout=timeout, merge=False)
    return p.returncode, p.stdout, p.stderr
