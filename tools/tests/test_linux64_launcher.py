#!/usr/bin/python3
"""Crash safety of the linux64 launcher (tools/mpirun --platform linux64):
the job ends at the first cluster exit, with the poweroff status or a
message naming the cluster that died; a killed cluster or a killed launcher
ends the whole job within seconds; no process, fd or /dev/shm object is
left behind.

    test_linux64_launcher.py fake [unittest args]   against tests/fake_cluster.py
    test_linux64_launcher.py real [unittest args]   against the real
        tessera_cluster of the linux64 build ($TESSERA_TARGET_OUT, default
        out/linux64)

The fake obeys the cluster CLI and checks what the launcher gives it (payload,
shared fabric of the manifest's size, status pipe, empty stdin), so the
launcher's own logic is tested without a build; the real run checks the
same promises with the real cluster executable and an MPI program.
"""
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

from toolsupport import MPIRUN, REPO, TESTS, TOOLS
from tessera import launch, mkimage
from tessera.launch import STOP_GRACE
from tessera.profile import compute_layout, load_profile

FAKE = os.path.join(TESTS, "fake_cluster.py")
DIED = re.compile(r"^mpirun: cluster (\d+) \(pid (\d+)\) died: (.*); ending the job$", re.M)
GRACE = 10          # seconds: a killed job must be gone by then


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pids, seconds=GRACE):
    """The pids still alive after up to `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def children(pid):
    """{cluster id: pid} of the cluster processes launcher `pid` started
    (their command line names clusterN.payload)."""
    found = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            for child in f.read().split():
                try:
                    with open(f"/proc/{child}/cmdline", "rb") as c:
                        args = c.read().split(b"\0")
                except FileNotFoundError:
                    continue
                m = [re.search(rb"cluster(\d+)\.payload$", a) for a in args]
                ids = [int(x.group(1)) for x in m if x]
                if ids:
                    found[ids[0]] = int(child)
    return found


def allowed_cpus(tid):
    """The host CPUs thread `tid` may run on."""
    with open(f"/proc/{tid}/status") as f:
        spec = next(line for line in f if line.startswith("Cpus_allowed_list:")).split()[1]
    cpus = set()
    for part in spec.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def shm_entries():
    """/dev/shm's names, but Open MPI's (a crosscheck may run at the same time)."""
    return {n for n in os.listdir("/dev/shm") if not n.startswith("vader_segment")}


def shm_users(pid):
    """What process pid has open or mapped under /dev/shm."""
    used = []
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except FileNotFoundError:
                continue
            if target.startswith("/dev/shm/"):
                used.append(target)
        with open(f"/proc/{pid}/maps") as f:
            used += [line.split(None, 5)[-1].strip() for line in f if " /dev/shm/" in line]
    except (FileNotFoundError, ProcessLookupError):
        pass
    return used


class Job:
    """tools/mpirun --platform linux64 ARGS started in the background."""

    def __init__(self, args, env):
        # SIGINT as in a terminal: a background job of a shell script
        # inherits it ignored, and Python would then keep ignoring it.
        self.proc = subprocess.Popen([MPIRUN, "--platform", "linux64", *args], cwd=REPO,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                      signal.SIG_DFL))

    def clusters(self, n, seconds=60):
        """{cluster id: pid} once all n cluster processes run."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            found = children(self.proc.pid) if self.proc.poll() is None else {}
            if len(found) == n:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"the {n} cluster processes did not start: "
                             f"{self.finish(5)}")

    def finish(self, seconds=GRACE):
        """(status, stdout, stderr) once mpirun has exited."""
        out, err = self.proc.communicate(timeout=seconds)
        return self.proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


class LauncherCases:
    """The crash-safety cases; a subclass says how to run a job that powers
    off (POWEROFF_ARGS, status POWEROFF_STATUS, output POWEROFF_OUTPUT), one
    that never ends (HANG_ARGS), and how many clusters the default profile has."""
    NCLUSTERS = len(compute_layout(load_profile("default")).clusters)
    env = None

    def start(self, *args):
        job = Job(args, self.env)
        self.addCleanup(job.stop)
        return job

    def test_poweroff_status_and_nothing_left(self):
        before = shm_entries()
        job = self.start(*self.POWEROFF_ARGS)
        rc, out, err = job.finish(120)
        self.assertEqual(rc, self.POWEROFF_STATUS, out + err)
        self.assertIn(self.POWEROFF_OUTPUT, out)
        self.assertNotIn("[kernel]", out)
        self.assertNotIn("died", err)
        self.assertEqual(shm_entries() - before, set())

    def test_killed_cluster_ends_the_job(self):
        before = shm_entries()
        job = self.start("--timeout", "120", *self.HANG_ARGS)
        pids = job.clusters(self.NCLUSTERS)
        for pid in pids.values():
            self.assertEqual(shm_users(pid), [], f"cluster pid {pid} uses /dev/shm")
        victim = self.NCLUSTERS - 1
        os.kill(pids[victim], signal.SIGKILL)
        t0 = time.monotonic()
        rc, out, err = job.finish()
        self.assertLess(time.monotonic() - t0, GRACE)
        self.assertEqual(rc, 128 + signal.SIGKILL, out + err)
        m = DIED.search(err)
        self.assertIsNotNone(m, err)
        self.assertEqual((int(m[1]), int(m[2]), m[3]),
                         (victim, pids[victim], "killed by signal 9 (SIGKILL)"))
        self.assertEqual(wait_gone(pids.values()), [])
        self.assertEqual(shm_entries() - before, set())

    def test_killed_launcher_takes_the_clusters(self):
        before = shm_entries()
        job = self.start("--timeout", "120", *self.HANG_ARGS)
        pids = job.clusters(self.NCLUSTERS)
        with open(f"/proc/{pids[0]}/cmdline", "rb") as f:
            payloads = [os.path.dirname(a.decode()) for a in f.read().split(b"\0")
                        if a.endswith(b"cluster0.payload")][0]
        job.proc.kill()                          # SIGKILL: no clean-up code runs
        job.proc.communicate(timeout=GRACE)
        self.assertEqual(wait_gone(pids.values()), [], "cluster processes outlived mpirun")
        self.assertEqual(shm_entries() - before, set())
        # mpirun had no chance to remove its payload files: the test does.
        shutil.rmtree(payloads)

    def test_sigterm_and_sigint_clean_up(self):
        for sig, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
            with self.subTest(signal=sig.name):
                job = self.start("--timeout", "120", *self.HANG_ARGS)
                pids = job.clusters(self.NCLUSTERS)
                job.proc.send_signal(sig)
                rc, _, err = job.finish()
                self.assertEqual(rc, status, err)
                self.assertNotIn("Traceback", err)
                self.assertEqual(wait_gone(pids.values(), 1), [])

    def test_timeout(self):
        job = self.start("--timeout", "3", *self.HANG_ARGS)
        pids = job.clusters(self.NCLUSTERS)
        rc, _, err = job.finish(60)
        self.assertEqual(rc, 124, err)
        self.assertIn("mpirun: timeout after 3 s", err)
        self.assertEqual(wait_gone(pids.values(), 1), [])


def x86_elf():
    """The smallest file mkimage takes for an x86-64 program: an ELF64 header."""
    elf = bytearray(64)
    elf[:5] = b"\x7fELF\x02"
    struct.pack_into("<H", elf, 18, mkimage.EM_X86_64)
    return bytes(elf)


class FakeClusterTest(LauncherCases, unittest.TestCase):
    """Against tests/fake_cluster.py in a build folder of stand-ins."""
    POWEROFF_ARGS = ("fake", "poweroff", "3")
    POWEROFF_STATUS = 3
    POWEROFF_OUTPUT = "fabric: 5 clusters up\njob done on fake\n"
    HANG_ARGS = ("fake", "hang")

    def test_timeout_when_the_kernel_does_not_answer(self):
        # The stop request goes unanswered: the grace period ends the job.
        start = time.monotonic()
        job = self.start("--timeout", "2", "fake", "deaf")
        pids = job.clusters(self.NCLUSTERS)
        rc, out, err = job.finish(60)
        self.assertEqual(rc, 124, err)
        self.assertGreaterEqual(time.monotonic() - start, 2 + STOP_GRACE - 0.5)
        self.assertNotIn("fake: stopped", out)
        self.assertEqual(wait_gone(pids.values(), 1), [])

    def test_the_kernel_answers_a_stop(self):
        job = self.start("--timeout", "2", *self.HANG_ARGS)
        rc, out, err = job.finish(60)
        self.assertEqual(rc, 124, err)
        self.assertIn("fake: stopped (t)", out)

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tessera-launcher-")
        self.addCleanup(shutil.rmtree, self.dir)
        for sub in ("kernel", "bin", "pids"):
            os.makedirs(os.path.join(self.dir, sub))
        os.symlink(FAKE, os.path.join(self.dir, "kernel", "tessera_cluster"))
        for name in ("nameserver", "fileserver", "fake"):
            with open(os.path.join(self.dir, "bin", name + ".elf"), "wb") as f:
                f.write(x86_elf())
        self.pids = os.path.join(self.dir, "pids")
        self.env = dict(os.environ, TESSERA_TARGET_OUT=self.dir, FAKE_CLUSTER_PIDS=self.pids,
                        PYTHONDONTWRITEBYTECODE="1")

    def test_status_folding_and_exit_messages(self):
        cases = [(("poweroff", "0"), 0, None), (("poweroff", "256"), 1, None),
                 (("poweroff", "139"), 139, None),
                 (("crash", "2", "11"), 139, (2, "killed by signal 11 (SIGSEGV)")),
                 (("exit", "1", "125"), 125, (1, "exited with status 125")),
                 (("exit", "4", "0"), 1,
                  (4, "exited with status 0 without powering the machine off"))]
        for args, status, died in cases:
            with self.subTest(args=args):
                shutil.rmtree(self.pids)
                os.mkdir(self.pids)
                rc, out, err = self.start("--timeout", "60", "fake", *args).finish(90)
                self.assertEqual(rc, status, out + err)
                m = DIED.search(err)
                if died is None:
                    self.assertIsNone(m, err)
                    self.assertIn("fabric: 5 clusters up", out)
                else:
                    self.assertIsNotNone(m, err)
                    with open(os.path.join(self.pids, str(died[0]))) as f:
                        self.assertEqual((int(m[1]), int(m[2]), m[3]),
                                         (died[0], int(f.read()), died[1]))
                pids = []
                for name in os.listdir(self.pids):
                    with open(os.path.join(self.pids, name)) as f:
                        pids.append(int(f.read()))
                self.assertEqual(len(pids), 5)
                self.assertEqual(wait_gone(pids, 1), [])

    def test_verbose_shows_kernel_lines_and_commands(self):
        rc, out, err = self.start("--verbose", *self.POWEROFF_ARGS).finish(60)
        self.assertEqual(rc, 3, err)
        for c in range(5):
            self.assertIn(f"[kernel] cluster {c} up\n", out)
            # The one rank (cluster 1 core 1) is bound to a host CPU (--bind-to's default).
            cpus = r" -,\d+" if c == 1 else ""
            self.assertRegex(err, rf"mpirun: cluster {c}: \S+tessera_cluster \S+cluster{c}\.payload "
                                  rf"\d+ \d+ \d+{cpus}\n")
        m = re.search(r"^mpirun: payloads in (\S+) \(kept\)$", err, re.M)
        self.assertIsNotNone(m, err)
        self.assertEqual(sorted(os.listdir(m[1])), [f"cluster{c}.payload" for c in range(5)])
        shutil.rmtree(m[1])

    def test_in_process_no_fd_left(self):
        """run_clusters() itself: the right fds reach the clusters (the fake
        checks them), the job's status comes back, and the launcher keeps
        no fd it opened."""
        layout = compute_layout(load_profile("default"), "linux64")
        fake = os.path.join(self.dir, "bin", "fake.elf")
        payloads = mkimage.build_payloads(layout, fake, ["poweroff", "7"], 4, "compact",
                                          os.path.join(self.dir, "payloads"),
                                          services=os.path.join(self.dir, "bin", "nameserver.elf"))
        fds = sorted(os.listdir("/proc/self/fd"))
        with open(os.devnull, "w") as sink:
            status = launch.run_clusters(FAKE, payloads, layout.fabric_size, 60,
                                                 out=sink, err=sink)
        self.assertEqual(status, (7, False))
        self.assertEqual(sorted(os.listdir("/proc/self/fd")), fds)

    def test_missing_cluster_executable(self):
        os.remove(os.path.join(self.dir, "kernel", "tessera_cluster"))
        rc, out, err = self.start("fake", "hang").finish(60)
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("tessera_cluster not found; run make first", err)

    def test_broken_pipe(self):
        """`mpirun ... | head -1`: every cluster stopped, exit 141, no traceback."""
        p = subprocess.Popen([MPIRUN, "--platform", "linux64", "--timeout", "60", "fake",
                              "chatter"],
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=self.env)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        self.assertEqual(p.stdout.readline(), b"fabric: 5 clusters up\n")
        pids = children(p.pid)
        p.stdout.close()                 # as head does after its line
        err = p.stderr.read().decode()
        p.stderr.close()
        self.assertEqual(p.wait(30), 141, err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(wait_gone(pids.values(), 2), [])


# A program that never ends and waits without spinning: ranks 0 and 1 each
# wait for a message from the other.
# A job that never ends and that the runtime cannot tell is stuck: rank 0
# waits in MPI_Recv for rank 1, which sleeps outside MPI (a deadlock of
# ranks all blocked in MPI would end the job, with status 125).
HANG_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("waiting %d\n", rank);
    fflush(stdout);
    if (rank == 1)
        for (;;)
            sleep(1);
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
"""


class RealClusterTest(LauncherCases, unittest.TestCase):
    """Against the real tessera_cluster of the linux64 build: abort_test 5
    ends the job with MPI_Abort's code (the poweroff status)."""
    POWEROFF_ARGS = ("-np", "2", "--map-by", "scatter", "abort_test", "5")
    POWEROFF_STATUS = 5
    POWEROFF_OUTPUT = ""
    HANG_ARGS = ()              # set in setUpClass: the compiled HANG_C

    @classmethod
    def setUpClass(cls):
        build = mkimage.target_out("linux64")
        cls.env = dict(os.environ, TESSERA_PLATFORM="linux64", TESSERA_TARGET_OUT=build,
                       PYTHONDONTWRITEBYTECODE="1")
        cluster = mkimage.default_paths(build)["cluster"]
        if not os.access(cluster, os.X_OK):
            raise AssertionError(f"{cluster} is missing: build the linux64 target first")
        cls.dir = tempfile.mkdtemp(prefix="tessera-launcher-")
        src = os.path.join(cls.dir, "deadlock.c")
        with open(src, "w") as f:
            f.write(HANG_C)
        app = os.path.join(cls.dir, "deadlock.elf")
        p = subprocess.run([os.path.join(TOOLS, "mpicc"), "-o", app, src], env=cls.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        if p.returncode:
            raise AssertionError(f"mpicc failed: {p.stdout}")
        cls.HANG_ARGS = ("-np", "2", "--map-by", "scatter", app)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_bind_to_core(self):
        """--bind-to core: the thread of each rank's core runs on its host CPU
        only (rank r on the r-th usable CPU); the master's thread is free."""
        cpus = sorted(os.sched_getaffinity(0))
        job = self.start("--bind-to", "core", *self.HANG_ARGS)
        pids = job.clusters(self.NCLUSTERS)

        def bindings():
            """(master's CPUs, core 1's CPUs) of clusters 1 and 2 (scatter:
            core 1 runs rank 0, then rank 1); a core binds its own process
            when it starts (each core but the master is a child process of
            the master, started in core order), so look until every core
            has started."""
            got = []
            for cluster in (1, 2):
                master = pids[cluster]
                with open(f"/proc/{master}/task/{master}/children") as f:
                    cores = sorted(int(c) for c in f.read().split())
                got.append(tuple(allowed_cpus(t) for t in [master] + cores[:1]))
            return got

        want = [(set(cpus), {cpus[rank % len(cpus)]}) for rank in (0, 1)]
        end = time.monotonic() + 30
        while (got := bindings()) != want and time.monotonic() < end:
            time.sleep(0.05)
        self.assertEqual(got, want)
        job.stop()

    def test_hello(self):
        rc, out, err = self.start("-np", "2", "--map-by", "scatter", "hello").finish(120)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("hello from rank 1 of 2", out)


if __name__ == "__main__":
    mode = sys.argv.pop(1) if len(sys.argv) > 1 and sys.argv[1] in ("fake", "real") else "fake"
    del globals()["FakeClusterTest" if mode == "real" else "RealClusterTest"]
    unittest.main()
