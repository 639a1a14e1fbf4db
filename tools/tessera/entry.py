"""What every command of tools/ does around its main(): it ends quietly
when the reader of its output goes away (`tools/mpicc --help | head -1`),
with the status a shell reports for a process SIGPIPE ended, instead of a
BrokenPipeError traceback."""
import os
import signal
import sys

BROKEN_PIPE_STATUS = 128 + signal.SIGPIPE   # 141, as a shell reports `mpirun ... | head`


def drop_stdout():
    """Points standard output at /dev/null, so that the interpreter's last
    flush of what is still buffered for a reader that is gone fails
    quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def run(main, *args):
    """Exits with main(*args)'s status; BROKEN_PIPE_STATUS, without a word,
    when its output's reader went away."""
    try:
        status = main(*args)
        sys.stdout.flush()
    except BrokenPipeError:
        drop_stdout()
        status = BROKEN_PIPE_STATUS
    sys.exit(status)
