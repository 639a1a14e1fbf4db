"""The trace of a job (mpirun --trace FILE): from the rings the clusters
wrote into the job folder to a trace-event JSON file (the Chrome Trace
Event Format), which https://ui.perfetto.dev and chrome://tracing open.

Each file tessera-trace-c<C>-k<K>.bin holds the dumps of core K of
cluster C (<tessera/trace.h>: a struct ts_trace_header, then its events),
its MPI ring, then its kernel ring. In the JSON, pid is the cluster and tid
the core; MPI calls and kernel calls are "X" slices, a send and the receive
that matched it are zero-length "X" slices joined by a flow (the same
"bind_id", "flow_out" at the send and "flow_in" at the receive: the
format's flow events v2); IKC transfers are instants. A send and
a receive pair when they carry the same (source rank, destination rank,
tag, communicator) and the same sequence number: the receive of the n-th
such send is the n-th such match at the receiver (MPI's messages do not
overtake, MPI 3.1 section 3.5). Times: microseconds (the format's unit)
since the earliest event, from ticks of the platform timer, which every
core and cluster shares; otherData says which clock and its resolution,
and the events each ring lost (it was full).

Standard library only."""
import glob
import json
import os
import re
import struct

from tessera import abi

TRACE_H = abi.load_header("tessera/trace.h")
HEADER = TRACE_H.struct("ts_trace_header")
EVENT = TRACE_H.struct("ts_trace_event")
C = TRACE_H.constant
FILE_GLOB = "tessera-trace-c*-k*.bin"
FILE_NAME = re.compile(r"tessera-trace-c(\d+)-k(\d+)\.bin\Z")
RING_NAMES = {C("TS_TRACE_RING_MPI"): "mpi", C("TS_TRACE_RING_KERNEL"): "kernel"}
IKC_NAMES = {C("TS_TRACE_IKC_POST"): "post", C("TS_TRACE_IKC_ARRIVE"): "arrive",
             C("TS_TRACE_IKC_READ"): "read"}
IKC_KINDS = {C("TS_TRACE_MAILBOX"): "mailbox", C("TS_TRACE_PORTAL"): "portal"}


class TraceError(Exception):
    """A dump or a trace file that cannot be read: the message says why."""


def kcall_names(path=None):
    """{number: name} of every kernel call, from include/tessera/kcalls.def."""
    path = path or os.path.join(abi.INCLUDE, "tessera", "kcalls.def")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return {int(m.group(2)): m.group(1)
            for m in re.finditer(r"^TS_KCALL\(\s*\w+\s*,\s*(\w+)\s*,\s*(\d+)", text, re.M)}


def read_dump(data, source):
    """The rings of one dump file's bytes: [(header dict, [event dict])].
    Raises TraceError naming `source` when the bytes are not such a dump."""
    rings = []
    at = 0
    while at < len(data):
        if len(data) - at < HEADER.size:
            raise TraceError(f"{source}: truncated header at byte {at}")
        h = HEADER.unpack_from(data, at)
        if h["magic"] != C("TS_TRACE_MAGIC"):
            raise TraceError(f"{source}: not a Tessera trace dump (bad magic at byte {at})")
        if h["version"] != C("TS_TRACE_VERSION") or h["event_size"] != EVENT.size:
            raise TraceError(f"{source}: trace version {h['version']} with {h['event_size']}-byte events, "
                             f"this tool reads version {C('TS_TRACE_VERSION')} ({EVENT.size} bytes)")
        at += HEADER.size
        end = at + h["count"] * EVENT.size
        if end > len(data):
            raise TraceError(f"{source}: {h['count']} events announced, the file ends before")
        events = [EVENT.unpack_from(data, off) for off in range(at, end, EVENT.size)]
        rings.append((h, events))
        at = end
    if not rings:
        raise TraceError(f"{source}: empty trace dump")
    return rings


def take_dumps(folder):
    """The rings of every dump file in `folder` (sorted by cluster and core),
    the files removed; [] when there is none."""
    rings = []
    paths = glob.glob(os.path.join(folder, FILE_GLOB))
    for path in sorted(paths, key=lambda p: tuple(map(int, FILE_NAME.search(p).groups()))):
        with open(path, "rb") as f:
            rings += read_dump(f.read(), os.path.basename(path))
        os.remove(path)
    return rings


def _name_of(e):
    """An MPI enter/leave event's call name ("MPI_Send")."""
    raw = struct.pack("<qQ", e["b"], e["c"]).rstrip(b"\0")
    return "MPI_" + raw.decode("ascii", "replace")


def to_json(rings, names=None):
    """The trace-event JSON object (a dict) of the rings read_dump gave."""
    names = names if names is not None else kcall_names()
    if not rings:
        raise TraceError("no trace rings")
    hz = {h["timebase_hz"] for h, _ in rings}
    if len(hz) != 1 or 0 in hz:
        raise TraceError(f"the rings disagree on the clock ({sorted(hz)} ticks per second)")
    hz = hz.pop()
    starts = [e["time"] for _, evs in rings for e in evs]
    t0 = min(starts) if starts else 0

    def us(t):      # rounded to the ns: no float noise in the file
        return round((t - t0) * 1e6 / hz, 3)

    out = []
    threads = {}    # (cluster, core) -> rank or None
    sends, recvs = [], []   # (key, event dict in out)
    lost = []
    for h, evs in rings:
        pid, tid = h["cluster"], h["core"]
        threads.setdefault((pid, tid), None)
        lost.append({"cluster": pid, "core": tid, "ring": RING_NAMES.get(h["ring"], h["ring"]),
                     "recorded": h["count"], "capacity": h["capacity"], "lost": h["lost"]})
        stack = []
        for e in evs:
            kind, ts = e["kind"], us(e["time"])
            base = {"pid": pid, "tid": tid, "ts": ts}
            if e["rank"] >= 0 and kind <= C("TS_TRACE_MPI_LAST"):
                threads[(pid, tid)] = e["rank"]
            if kind == C("TS_TRACE_MPI_ENTER"):
                x = dict(base, ph="X", name=_name_of(e), cat="mpi", args={"rank": e["rank"]})
                out.append(x)
                stack.append(x)
            elif kind == C("TS_TRACE_MPI_LEAVE"):
                name = _name_of(e)
                while stack and stack[-1]["name"] != name:     # an enter whose leave is lost
                    stack.pop()["args"]["unfinished"] = True
                if stack:
                    x = stack.pop()
                    x["dur"] = round(ts - x["ts"], 3)
            elif kind in (C("TS_TRACE_MPI_SEND"), C("TS_TRACE_MPI_RECV")):
                send = kind == C("TS_TRACE_MPI_SEND")
                src, dst = (e["rank"], e["a"]) if send else (e["a"], e["rank"])
                args = {"source": src, "dest": dst, "tag": e["b"], "comm": e["c"], "bytes": e["d"]}
                x = dict(base, ph="X", dur=0, name="send" if send else "recv", cat="mpi.msg", args=args)
                out.append(x)
                (sends if send else recvs).append(((src, dst, e["b"], e["c"]), x))
            elif kind == C("TS_TRACE_KCALL"):
                name = names.get(e["a"], f"kcall {e['a']}")
                out.append(dict(base, ph="X", dur=round(us(e["end"]) - ts, 3), name=name, cat="kcall",
                                args={"number": e["a"], "result": e["b"]}))
            elif kind in IKC_NAMES:
                what = IKC_NAMES[kind]
                peer = "dest_cluster" if what == "post" else "source_cluster"
                out.append(dict(base, ph="i", s="t", name=f"ikc {what}", cat="ikc",
                                args={"via": IKC_KINDS.get(e["c"], e["c"]), peer: e["a"], "port": e["b"],
                                      "bytes": e["d"]}))
            else:
                raise TraceError(f"cluster {pid} core {tid}: unknown event kind {kind}")
        for x in stack:     # entered, not left before the dump (MPI_Finalize)
            x["dur"] = round(us(h["read_at"]) - x["ts"], 3)
            x["args"]["unfinished"] = True
    paired, unpaired = _pair(sends, recvs)
    meta = []
    for pid in sorted({p for p, _ in threads}):
        meta.append({"ph": "M", "pid": pid, "name": "process_name", "args": {"name": f"cluster {pid}"}})
    for (pid, tid), rank in sorted(threads.items()):
        label = "master" if tid == 0 else f"rank {rank}" if rank is not None else "no rank"
        meta.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name",
                     "args": {"name": f"core {tid} ({label})"}})
    return {
        "traceEvents": meta + out,
        "displayTimeUnit": "ns",
        "otherData": {
            "generator": "Tessera mpirun --trace",
            "clock": "the platform timer, shared by every core and cluster (qemu-riscv64: the "
                     "time CSR; linux64: CLOCK_MONOTONIC)",
            "ts_unit": "microseconds since the first event",
            "timebase_hz": hz,
            "resolution_us": 1e6 / hz,
            "pid": "cluster", "tid": "core of the cluster (0: the master, which runs the kernel)",
            "lost_total": sum(r["lost"] for r in lost),
            "rings": lost,
            "messages_paired": paired,
            "sends_unpaired": unpaired[0],
            "recvs_unpaired": unpaired[1],
        },
    }


def _pair(sends, recvs):
    """Binds the n-th send and the n-th receive of each envelope with a
    flow (bind_id, flow_out on the send's slice, flow_in on the
    receive's); returns (pairs, (unpaired sends, unpaired receives))."""
    def numbered(items):
        seen, out = {}, {}
        for key, x in items:
            n = seen[key] = seen.get(key, 0) + 1
            out[key + (n,)] = x
        return out
    s, r = numbered(sends), numbered(recvs)
    pairs = sorted(k for k in s if k in r)
    for fid, key in enumerate(pairs, start=1):
        for x, way in ((s[key], "flow_out"), (r[key], "flow_in")):
            x["args"]["seq"] = key[4]
            x["bind_id"] = fid
            x[way] = True
    return len(pairs), (len(set(s) - set(r)), len(set(r) - set(s)))


def convert(folder, path):
    """Turns the dumps in `folder` into the JSON file `path` (the dumps are
    removed); returns its otherData, or None when there was no dump."""
    rings = take_dumps(folder)
    if not rings:
        return None
    trace = to_json(rings)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(trace, f)
    return trace["otherData"]
