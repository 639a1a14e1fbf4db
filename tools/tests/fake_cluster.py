#!/usr/bin/python3
"""A stand-in for out/linux64/kernel/tessera_cluster, for the launcher's unit
tests only (tools/tests/test_linux64_launcher.py): it obeys the cluster CLI

    fake_cluster.py PAYLOAD FABRIC_FD STATUS_FD LAUNCHER_PID [CPUS]

and checks what the launcher must give it: a payload holding this cluster's
manifest, a fabric of the manifest's size shared by every cluster (each
cluster marks its slot; cluster 0 waits for all of them), a status pipe, a
stdin that is a pipe on cluster 0 (mpirun's stop requests) and /dev/null
elsewhere. What it then does is the MPI program's argv[1] in the manifest:
    poweroff S      cluster 0 prints a line and writes `poweroff S`, exits S & 0xff
    crash C SIG     cluster C kills itself with signal SIG after all are up
    exit C S        cluster C exits with status S (no poweroff)
    hang            nobody ends the job, but cluster 0 answers a stop
                    request as the kernel does: a line, then poweroff with
                    124 ('t') or 130 ('i')
    deaf            as hang, but stop requests go unanswered (mpirun's
                    grace period must end the job)
    chatter         as hang, but cluster 0 prints a line every 10 ms
Every cluster writes its pid to $FAKE_CLUSTER_PIDS/N, then sleeps until
killed (unless it is the one that ends the job).
"""
import mmap
import os
import select
import stat
import struct
import sys
import time

from tessera import mkimage

MARK = 0x7E55


def say(line):
    """One console line in one write(2), as the real HAL writes them (print()
    may split it, and another cluster's line could land in between)."""
    os.write(1, (line + "\n").encode())


def fail(msg):
    print(f"fake_cluster: {msg}", file=sys.stderr, flush=True)
    sys.exit(125)


def manifest(path):
    """(cluster_id, nclusters, fabric_base, fabric_size, argv) from a payload:
    argv is the first application's, which begins the args of every
    cluster's manifest."""
    with open(path, "rb") as f:
        data = f.read()
    m = mkimage.MANIFEST.unpack_from(data) if len(data) >= mkimage.MANIFEST_SIZE else {}
    if m.get("magic") != mkimage.TS_MANIFEST_MAGIC:
        fail(f"{path}: no manifest")
    argv = [a.decode() for a in m["args"][:m["args_size"]].split(b"\0")[:-1]]
    return m["cluster_id"], m["nclusters"], m["fabric_base"], m["fabric_size"], argv


def main():
    if len(sys.argv) not in (5, 6):
        fail("usage: PAYLOAD FABRIC_FD STATUS_FD LAUNCHER_PID [CPUS]")
    payload, fabric_fd, status_fd, launcher = sys.argv[1], *map(int, sys.argv[2:5])
    # The real cluster also sets PR_SET_PDEATHSIG itself; the fake leaves it
    # to the launcher (it survives exec), so that the tests check mpirun's.
    if os.getppid() != launcher:
        sys.exit(1)
    cid, nclusters, _, fabric_size, argv = manifest(payload)
    if os.fstat(fabric_fd).st_size != fabric_size:
        fail(f"fabric of {os.fstat(fabric_fd).st_size} bytes, manifest says {fabric_size}")
    if stat.S_ISFIFO(os.fstat(0).st_mode) != (cid == 0):
        fail("stdin is not a pipe on cluster 0 only")
    if cid != 0 and os.read(0, 1) != b"":
        fail("stdin is not empty")
    pids = os.environ.get("FAKE_CLUSTER_PIDS")
    if pids:
        with open(os.path.join(pids, str(cid)), "w") as f:
            f.write(str(os.getpid()))
    fabric = mmap.mmap(fabric_fd, fabric_size, mmap.MAP_SHARED)
    struct.pack_into("<I", fabric, 4 * cid, MARK)
    say(f"[kernel] cluster {cid} up")
    while any(struct.unpack_from("<I", fabric, 4 * c)[0] != MARK for c in range(nclusters)):
        time.sleep(0.01)                                 # every cluster shares this fabric
    what = argv[1:] or ["hang"]
    if cid == 0:
        say(f"fabric: {nclusters} clusters up")
    if what[0] == "poweroff" and cid == 0:
        say(f"job done on {argv[0]}")
        os.write(status_fd, f"poweroff {what[1]}\n".encode())
        sys.exit(int(what[1]) & 0xFF)
    if what[0] == "crash" and cid == int(what[1]):
        os.kill(os.getpid(), int(what[2]))
    if what[0] == "exit" and cid == int(what[1]):
        sys.exit(int(what[2]))
    while True:
        if cid == 0:
            answer_stop(what[0], status_fd)
        if what[0] == "chatter" and cid == 0:
            say("chatter")
            time.sleep(0.01)
        elif cid != 0:
            time.sleep(60)


STOPS = {b"t": 124, b"i": 130}


def answer_stop(what, status_fd):
    """Cluster 0: a stop request on stdin ends the job as the kernel's job
    monitor does (unless `what` is deaf); waits up to 10 ms for one."""
    if not select.select([0], [], [], 0.01)[0]:
        return
    request = os.read(0, 1)
    if request in STOPS and what != "deaf":
        say(f"fake: stopped ({request.decode()})")
        os.write(status_fd, f"poweroff {STOPS[request]}\n".encode())
        sys.exit(STOPS[request])


if __name__ == "__main__":
    main()
