"""Starting a built Tessera job and following it to its end, on either target.

qemu-riscv64: run_machine() runs the QEMU command mkimage.build_images()
returned; QEMU's exit status is the job's.

linux64: run_clusters() starts one tessera_cluster process per cluster (the
CLI of spec issue 7):

    tessera_cluster PAYLOAD FABRIC_FD STATUS_FD LAUNCHER_PID

with one memfd fabric (no /dev/shm object) and one status pipe shared by all.
The job ends when the first cluster process exits: with the status of the
`poweroff S` line a cluster wrote (the machine is off), else with a message
naming the cluster that died and 128 + its signal (or its exit status, or 1).
The other clusters are SIGKILLed and reaped; children die with the launcher
too (PR_SET_PDEATHSIG), so nothing is left behind even after a SIGKILL.

Both stream the console through SerialFilter. Standard library only.
"""
import ctypes
import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from contextlib import ExitStack

from tessera.profile import ToolError

TIMEOUT_STATUS = 124
# Console input bytes that ask cluster 0's kernel to stop the job with a
# report, and how long it has to do so.
STOP_TIMEOUT, STOP_INTERRUPT = b"t", b"i"
STOP_GRACE = 5.0
PR_SET_PDEATHSIG = 1                    # prctl(2)
KERNEL_TAG = "[kernel]"
POWEROFF = re.compile(rb"^poweroff (-?\d+)$")
READ_SIZE = 65536

try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl   # looked up before any fork
except (OSError, AttributeError):
    _prctl = None                                      # not Linux: timeouts still apply


class SerialFilter:
    """Decides which console lines the user sees.

    Kernel lines are for debugging; on QEMU everything before the first
    "[kernel]" line is the firmware's banner (OpenSBI's; ours writes only
    "[kernel]" lines) (banner=False: there is none, as on linux64).
    --verbose shows everything. watch: called with every line first
    (mpirun --gdb looks for the rank the kernel holds).
    """

    def __init__(self, verbose=False, banner=True, rewrite=None, watch=None):
        self.verbose = verbose
        self.banner = banner
        self.rewrite = rewrite
        self.watch = watch
        self.kernel_seen = False

    def keep(self, line):
        """True when `line` (without its newline) should be printed."""
        if self.watch:
            self.watch(line)
        if line.startswith(KERNEL_TAG):
            self.kernel_seen = True
            return self.verbose
        return self.verbose or self.kernel_seen or not self.banner

    def show(self, line):
        """The lines to print for `line`: none when it is not kept, else
        what `rewrite` (line -> lines, e.g. the fault reports'
        symbols.FaultReports.rewrite) makes of it."""
        if not self.keep(line):
            return []
        return self.rewrite(line) if self.rewrite else [line]


class _Lines:
    """Splits a byte stream into lines and writes the ones a SerialFilter keeps."""

    def __init__(self, shown, out):
        self.shown, self.out, self.rest = shown, out, b""

    def feed(self, data):
        """Writes the whole lines of rest + data; keeps the unfinished one."""
        *lines, self.rest = (self.rest + data).split(b"\n")
        self._write(lines)

    def close(self):
        """Writes the last, unfinished line if any."""
        if self.rest:
            self._write([self.rest])
            self.rest = b""

    def _write(self, lines):
        for raw in lines:
            line = raw.decode("utf-8", errors="replace").rstrip("\r")
            for shown in self.shown.show(line):
                self.out.write(shown + "\n")
        if lines:
            self.out.flush()


def die_with_parent(launcher=None):
    """In a child: get SIGKILL when the launcher dies, even by SIGKILL (e.g.
    a test driver's timeout), so no QEMU or cluster is left running; exit at
    once if the launcher (pid `launcher`) is already gone."""
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if launcher is not None and os.getppid() != launcher:
        os._exit(1)


def run_machine(cmd, timeout, verbose=False, out=None, cwd=None, rewrite=None, watch=None):
    """qemu-riscv64: run QEMU, stream its serial output through SerialFilter
    (with `rewrite` and `watch`) to `out` (default stdout). cwd: QEMU's
    working folder, where the I/O cluster's files are (the job folder;
    default: ours). timeout: seconds, or None for no limit.

    On the timeout, and on ^C, the job is stopped with a report first
    (request_stop). Returns (exit status, timed_out). QEMU runs in its own
    process group so a timeout kills it and anything it started.
    """
    out = out or sys.stdout
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd,
                                start_new_session=True, preexec_fn=die_with_parent)
    except FileNotFoundError:
        raise ToolError(f"{cmd[0]} not found; run make first (it installs QEMU)") from None
    timed_out = threading.Event()

    def kill():
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def stop(request):
        request_stop(proc.stdin, request)
        grace = threading.Timer(STOP_GRACE, kill)
        grace.daemon = True
        grace.start()
        return grace

    def on_timeout():
        timed_out.set()
        stop(STOP_TIMEOUT)

    timer = threading.Timer(timeout, on_timeout) if timeout is not None else None
    if timer:
        timer.daemon = True
        timer.start()
    shown = SerialFilter(verbose, rewrite=rewrite, watch=watch)

    def stream():
        for raw in proc.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            for kept in shown.show(line):
                out.write(kept + "\n")
            out.flush()
        return proc.wait()

    grace = None
    try:
        try:
            status = stream()
        except KeyboardInterrupt:       # the report, then ^C as before
            if timer:
                timer.cancel()
            grace = stop(STOP_INTERRUPT)
            stream()
            raise
    except BaseException:               # a second ^C, SIGTERM (SystemExit), a broken stdout
        kill()
        proc.wait()
        raise
    finally:
        if timer:
            timer.cancel()
        if grace:
            grace.cancel()
        proc.stdout.close()
        _close_quietly(proc.stdin)
    if timed_out.is_set():
        return TIMEOUT_STATUS, True
    if status < 0:                       # killed by a signal, as a shell reports it
        status = 128 - status
    if not shown.kernel_seen and status != 0:
        print(f"mpirun: the machine stopped (status {status}) before the kernel started; "
              f"rerun with --verbose", file=sys.stderr)
    return status, False


def request_stop(pipe, request):
    """Asks cluster 0's kernel, through the console input `pipe`, to end
    the job with its report of what each MPI process is doing (request:
    STOP_TIMEOUT or STOP_INTERRUPT; kernel/services/spawn.cpp). A job whose
    kernel no longer reads is killed STOP_GRACE seconds later anyway."""
    try:
        pipe.write(request)
        pipe.flush()
    except (OSError, ValueError):       # the machine is gone already
        pass


def _close_quietly(pipe):
    try:
        pipe.close()
    except OSError:
        pass


def job_status(status):
    """A job status as an exit status: its low 8 bits, except that a
    non-zero status never becomes 0 (256 -> 1), as the kernel folds it."""
    return status & 0xFF or (1 if status else 0)


def describe_exit(returncode):
    """(what happened, exit status for mpirun) of a cluster process that
    exited without powering the machine off; returncode as Popen's."""
    if returncode < 0:
        sig = -returncode
        try:
            name = f" ({signal.Signals(sig).name})"
        except ValueError:
            name = ""
        return f"killed by signal {sig}{name}", 128 + sig
    if returncode == 0:
        return "exited with status 0 without powering the machine off", 1
    return f"exited with status {returncode}", returncode


def poweroff_status(data):
    """The status of the first `poweroff S` line in the status pipe's bytes,
    or None if there is none."""
    for line in data.split(b"\n"):
        m = POWEROFF.match(line.strip())
        if m:
            return int(m.group(1))
    return None


def _kill_and_reap(procs):
    for p in procs:
        if p.poll() is None:
            try:
                p.kill()
            except ProcessLookupError:
                pass
    for p in procs:
        p.wait()


def run_clusters(exe, payloads, fabric_size, timeout, verbose=False, out=None, err=None, cpus=None,
                 cwd=None, rewrite=None, watch=None):
    """linux64: run one `exe` (tessera_cluster) process per payload file
    (cluster i gets payloads[i], and cpus[i] as its CPUS argument, the host
    CPU of each core, unless it is None) over one zero-filled memfd fabric of
    fabric_size bytes, in the working folder cwd (where the I/O cluster's
    files are: the job folder; default: ours), stream their console through SerialFilter
    (with `rewrite`) to `out`
    (default stdout), and end the job when the first cluster exits.

    Returns (exit status, timed_out): the poweroff status, or after a
    message on `err` (default stderr) 128 + signal / the exit status / 1 for
    a cluster that died without powering off; 124 on a timeout (after
    `timeout` seconds; None: no limit). watch: SerialFilter's. Every cluster process is killed and reaped before it
    returns or raises (^C, SIGTERM as SystemExit, BrokenPipeError).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        raise ToolError(f"cluster executable {exe} not found; run make first")
    exe = os.path.abspath(exe)              # it runs in cwd
    procs = []                      # Popen of cluster i at index i
    with ExitStack() as stack:
        status_r, status_w = os.pipe()
        stack.callback(os.close, status_r)
        out_r, out_w = os.pipe()
        stack.callback(os.close, out_r)
        # On every way out, before the pipes close (a cluster still writing
        # would get EPIPE): kill and reap every cluster started.
        stack.callback(_kill_and_reap, procs)
        with ExitStack() as parent_side:        # the children's ends: closed once all started
            for n in (status_w, out_w):
                parent_side.callback(os.close, n)
            fabric = os.memfd_create("tessera-fabric")     # close-on-exec; pass_fds keeps it
            parent_side.callback(os.close, fabric)
            os.ftruncate(fabric, fabric_size)
            launcher = os.getpid()

            def child_setup():
                die_with_parent(launcher)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)

            # ^C or SIGTERM wait until every started cluster is in procs
            # (one that came inside Popen would lose its child).
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
            parent_side.callback(signal.pthread_sigmask, signal.SIG_SETMASK, mask)
            for i, payload in enumerate(payloads):
                cmd = [exe, payload, str(fabric), str(status_w), str(launcher)]
                if cpus and cpus[i]:
                    cmd.append(cpus[i])
                if verbose:
                    print(f"mpirun: cluster {i}: {' '.join(cmd)}", file=err)
                try:
                    # Cluster 0's console input: mpirun's stop requests.
                    procs.append(subprocess.Popen(
                        cmd, stdin=subprocess.PIPE if i == 0 else subprocess.DEVNULL,
                        stdout=out_w, cwd=cwd,
                        pass_fds=(fabric, status_w), start_new_session=True,
                        preexec_fn=child_setup))
                except OSError as e:
                    raise ToolError(f"cannot start {exe}: {e.strerror}") from None
        return _supervise(procs, out_r, status_r, timeout,
                          SerialFilter(verbose, banner=False, rewrite=rewrite, watch=watch), out, err)


def _supervise(procs, out_r, status_r, timeout, shown, out, err):
    """run_clusters' loop: console out until the first cluster exits; on
    the timeout or ^C, ask cluster 0 for its report first (request_stop)
    and wait STOP_GRACE seconds more. Then kill the rest, drain the console
    and decide the status."""
    lines = _Lines(shown, out)
    sel = selectors.DefaultSelector()
    pidfds = []
    stop = None             # the request sent, if any
    try:
        sel.register(out_r, selectors.EVENT_READ)
        for i, p in enumerate(procs):
            pidfd = os.pidfd_open(p.pid)
            pidfds.append(pidfd)
            sel.register(pidfd, selectors.EVENT_READ, i)
        deadline = time.monotonic() + timeout if timeout is not None else None
        first = None
        while first is None:
            left = deadline - time.monotonic() if deadline is not None else None
            if left is not None and left <= 0:
                if stop is None:
                    stop, deadline = STOP_TIMEOUT, _ask_stop(procs[0], STOP_TIMEOUT)
                    continue
                _kill_and_reap(procs)
                _drain(out_r, lines)
                return _stopped(stop)
            try:
                ready = sel.select(left)
            except KeyboardInterrupt:
                if stop is not None:
                    raise                               # a second ^C: at once
                stop, deadline = STOP_INTERRUPT, _ask_stop(procs[0], STOP_INTERRUPT)
                continue
            for key, _ in ready:
                if key.data is not None:                # a cluster process ended
                    first = key.data if first is None else min(first, key.data)
                else:
                    data = os.read(out_r, READ_SIZE)
                    if data:
                        lines.feed(data)
                    else:                               # every stdout closed
                        sel.unregister(out_r)
        os.set_blocking(status_r, False)
        try:
            said = os.read(status_r, READ_SIZE)
        except BlockingIOError:
            said = b""
        _kill_and_reap(procs)
        _drain(out_r, lines)
    finally:
        sel.close()
        for pidfd in pidfds:
            os.close(pidfd)
        _close_quietly(procs[0].stdin)
    if stop is not None:
        return _stopped(stop)
    status = poweroff_status(said)
    if status is not None:
        return job_status(status), False
    what, status = describe_exit(procs[first].returncode)
    print(f"mpirun: cluster {first} (pid {procs[first].pid}) died: {what}; ending the job",
          file=err)
    return status, False


def _ask_stop(cluster0, request):
    """Sends cluster 0's process the stop request; returns the time by
    which the job must have ended."""
    request_stop(cluster0.stdin, request)
    return time.monotonic() + STOP_GRACE


def _stopped(request):
    """How a job that mpirun stopped ends: its timeout, or ^C again."""
    if request == STOP_INTERRUPT:
        raise KeyboardInterrupt
    return TIMEOUT_STATUS, True


def _drain(out_r, lines):
    """Reads the console pipe to its end (every writer is dead by now)."""
    while True:
        data = os.read(out_r, READ_SIZE)
        if not data:
            break
        lines.feed(data)
    lines.close()
