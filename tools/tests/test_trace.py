#!/usr/bin/python3
"""Unit tests of mpirun --trace's converter (tools/tessera/trace.py) and of
tools/trace_summary.py, on a small dump made here with the layouts of
<tessera/trace.h>: two ranks on two clusters exchange messages, one ring
lost events, MPI_Finalize is left unfinished. No build needed."""
import io
import json
import os
import struct
import subprocess
import tempfile
import unittest

from toolsupport import TOOLS
from tessera import trace as tt
from tessera import trace_summary as ts

C = tt.C
HZ = 10_000_000     # ticks per second: 0.1 us each


def event(kind, time, rank=-1, a=0, b=0, c=0, d=0, end=None):
    return tt.EVENT.pack(time=time, end=time if end is None else end, kind=kind, rank=rank, a=a,
                         b=b, c=c, d=d)


def name_words(fn):
    """An MPI event's b, c for call `fn` ("Send")."""
    b, c = struct.unpack("<qQ", fn.encode().ljust(16, b"\0"))
    return {"b": b, "c": c}


def ring(cluster, core, which, events, lost=0, read_at=10_000):
    h = tt.HEADER.pack(magic=C("TS_TRACE_MAGIC"), version=C("TS_TRACE_VERSION"),
                       event_size=tt.EVENT.size, cluster=cluster, core=core, ring=which,
                       reserved=0, count=len(events), capacity=64, lost=lost, timebase_hz=HZ,
                       read_at=read_at)
    return h + b"".join(events)


MPI, KERNEL = C("TS_TRACE_RING_MPI"), C("TS_TRACE_RING_KERNEL")
ENTER, LEAVE = C("TS_TRACE_MPI_ENTER"), C("TS_TRACE_MPI_LEAVE")
SEND, RECV = C("TS_TRACE_MPI_SEND"), C("TS_TRACE_MPI_RECV")
KCALL = C("TS_TRACE_KCALL")
WAIT_ANY = 47   # kcalls.def's ikc_wait_any (checked in setUp)


def rank0():
    """Rank 0 (cluster 1 core 1): Init, two Sends of 8 bytes, tag 5, to rank
    1; Finalize not left (the dump comes first)."""
    mpi = [event(ENTER, 0, 0, **name_words("Init")), event(LEAVE, 100, 0, **name_words("Init")),
           event(ENTER, 1000, 0, **name_words("Send")), event(SEND, 1010, 0, a=1, b=5, c=7, d=8),
           event(LEAVE, 1100, 0, **name_words("Send")),
           event(ENTER, 2000, 0, **name_words("Send")), event(SEND, 2010, 0, a=1, b=5, c=7, d=8),
           event(LEAVE, 2100, 0, **name_words("Send")),
           event(ENTER, 3000, 0, **name_words("Finalize"))]
    kernel = [event(C("TS_TRACE_IKC_POST"), 1020, a=2, b=3, c=C("TS_TRACE_MAILBOX"), d=40),
              event(KCALL, 1015, a=WAIT_ANY, b=0, end=1030)]
    return ring(1, 1, MPI, mpi) + ring(1, 1, KERNEL, kernel, lost=3)


def rank1():
    """Rank 1 (cluster 2 core 1): Init, a Recv that waits 5000 ticks in
    ikc_wait_any and matches the first send, a second Recv, Finalize."""
    mpi = [event(ENTER, 0, 1, **name_words("Init")), event(LEAVE, 100, 1, **name_words("Init")),
           event(ENTER, 500, 1, **name_words("Recv")), event(RECV, 1500, 1, a=0, b=5, c=7, d=8),
           event(LEAVE, 1600, 1, **name_words("Recv")),
           event(ENTER, 2500, 1, **name_words("Recv")), event(RECV, 2600, 1, a=0, b=5, c=7, d=8),
           event(LEAVE, 2700, 1, **name_words("Recv")),
           event(ENTER, 3000, 1, **name_words("Finalize")), event(LEAVE, 3100, 1, **name_words("Finalize"))]
    kernel = [event(KCALL, 600, a=WAIT_ANY, b=0, end=1100)]
    return ring(2, 1, MPI, mpi) + ring(2, 1, KERNEL, kernel)


class Converter(unittest.TestCase):
    def setUp(self):
        self.assertEqual(tt.kcall_names()[WAIT_ANY], "ikc_wait_any")
        self.folder = tempfile.mkdtemp(prefix="trace-test-")
        for name, data in (("tessera-trace-c1-k1.bin", rank0()), ("tessera-trace-c2-k1.bin", rank1())):
            with open(os.path.join(self.folder, name), "wb") as f:
                f.write(data)
        self.json = os.path.join(self.folder, "out.json")
        self.meta = tt.convert(self.folder, self.json)
        with open(self.json, encoding="utf-8") as f:
            self.trace = json.load(f)
        self.events = self.trace["traceEvents"]

    def tearDown(self):
        for name in os.listdir(self.folder):
            os.remove(os.path.join(self.folder, name))
        os.rmdir(self.folder)

    def test_dumps_taken(self):
        self.assertEqual(os.listdir(self.folder), ["out.json"])

    def test_sends_pair_with_receives(self):
        msgs = [e for e in self.events if e.get("cat") == "mpi.msg"]
        sends = [e for e in msgs if e.get("flow_out")]
        recvs = [e for e in msgs if e.get("flow_in")]
        self.assertEqual(len(sends), 2)
        self.assertEqual(sorted(e["bind_id"] for e in sends), sorted(e["bind_id"] for e in recvs))
        for s in sends:
            r = next(e for e in recvs if e["bind_id"] == s["bind_id"])
            self.assertEqual(s["args"], r["args"])
            self.assertEqual((s["pid"], r["pid"]), (1, 2))
        first = next(e for e in sends if e["args"]["seq"] == 1)
        self.assertAlmostEqual(first["ts"], 101.0)     # 1010 ticks at 10 MHz
        self.assertEqual(self.meta["messages_paired"], 2)
        self.assertEqual((self.meta["sends_unpaired"], self.meta["recvs_unpaired"]), (0, 0))

    def test_calls_and_clock(self):
        x = {(e["pid"], e["name"], e["ts"]): e for e in self.events if e.get("cat") == "mpi"}
        recv = x[(2, "MPI_Recv", 50.0)]
        self.assertAlmostEqual(recv["dur"], 110.0)
        fin = x[(1, "MPI_Finalize", 300.0)]
        self.assertTrue(fin["args"]["unfinished"])
        self.assertAlmostEqual(fin["dur"], 700.0)  # up to read_at
        k = [e for e in self.events if e.get("cat") == "kcall"]
        self.assertEqual({e["name"] for e in k}, {"ikc_wait_any"})
        ikc = [e for e in self.events if e.get("cat") == "ikc"]
        self.assertEqual(ikc[0]["args"], {"via": "mailbox", "dest_cluster": 2, "port": 3, "bytes": 40})
        self.assertEqual(self.meta["timebase_hz"], HZ)
        self.assertIn("microseconds", self.meta["ts_unit"])

    def test_lost_counted(self):
        self.assertEqual(self.meta["lost_total"], 3)
        lost = {(r["cluster"], r["core"], r["ring"]): r["lost"] for r in self.meta["rings"]}
        self.assertEqual(lost[(1, 1, "kernel")], 3)

    def test_thread_names(self):
        names = {(e["pid"], e["tid"]): e["args"]["name"] for e in self.events
                 if e["ph"] == "M" and e["name"] == "thread_name"}
        self.assertEqual(names, {(1, 1): "core 1 (rank 0)", (2, 1): "core 1 (rank 1)"})

    def test_summary(self):
        events, other = ts.load(self.json)
        ranks, mpi_links, ikc_links = ts.summarize(events)
        # rank 1: 0..310 us; in MPI: Init 10 + Recv 110 + Recv 20 + Finalize 10;
        # waiting: the 50 us of ikc_wait_any inside the first Recv.
        r1 = ranks[1]
        self.assertAlmostEqual(r1["total"], 310.0)
        self.assertAlmostEqual(r1["wait"], 50.0)
        self.assertAlmostEqual(r1["mpi"], 150.0 - 50.0)
        self.assertAlmostEqual(r1["compute"], 310.0 - 150.0)
        self.assertEqual(mpi_links, {(1, 2): [2, 16]})
        self.assertEqual(ikc_links, {(1, 2): [1, 40]})
        out = io.StringIO()
        ts.report(events, other, out)
        self.assertIn("1 -> 2: 2 messages, 16 bytes", out.getvalue())
        self.assertIn("3 events were lost", out.getvalue())

    def test_timeline(self):
        # 1000 us (rank 0's unfinished MPI_Finalize ends at read_at), 10 us
        # a character. Rank 1: Init 0..10, computes, Recv 50..160 waiting
        # 60..110, computes, Recv 250..270, computes, Finalize 300..310.
        events, _ = ts.load(self.json)
        out = io.StringIO()
        ts.timeline(events, 100, out)
        rows = {line.split("|")[0].strip(): line.split("|")[1] for line in out.getvalue().splitlines()[1:]}
        self.assertEqual(rows["rank   1 (cluster 2)"],
                         "=" + "." * 4 + "=" + "#" * 5 + "=" * 5 + "." * 9 + "==" + "..." + "=" + " " * 69)
        self.assertEqual(rows["rank   0 (cluster 1)"][:11], "=" + "." * 9 + "=")
        self.assertIn("1.000 ms, 0.010 ms a character", out.getvalue())

    def test_timeline_command_line(self):
        tool = os.path.join(TOOLS, "trace_summary.py")
        p = subprocess.run(["/usr/bin/python3", tool, "--timeline", "40", self.json], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"(?m)^rank   1 \(cluster 2\) \|[ .=#]{40}\|$")
        self.assertIn("busiest links", p.stdout)
        for bad in (["--timeline", "x", self.json], ["--timeline", "3", self.json], [], ["a", "b"]):
            p = subprocess.run(["/usr/bin/python3", tool, *bad], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("usage:", p.stderr)


class BadInput(unittest.TestCase):
    def test_bad_dumps(self):
        good = rank0()
        for data, why in ((b"", "empty"), (b"x" * 10, "truncated header"),
                          (b"\0" * tt.HEADER.size, "bad magic"),
                          (good[:tt.HEADER.size + 10], "the file ends before")):
            with self.assertRaises(tt.TraceError) as cm:
                tt.read_dump(data, "d.bin")
            self.assertIn(why, str(cm.exception))

    def test_summary_refuses(self):
        with tempfile.TemporaryDirectory() as d:
            for text, why in (("not json", "is not JSON"), ('{"a": 1}', "no traceEvents"),
                              ('{"traceEvents": [{"ph": "X", "pid": 1}]}', "without numeric ts"),
                              ('{"traceEvents": []}', "no MPI call")):
                path = os.path.join(d, "t.json")
                with open(path, "w") as f:
                    f.write(text)
                p = subprocess.run(["/usr/bin/python3", os.path.join(TOOLS, "trace_summary.py"), path],
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 1, text)
                self.assertIn(why, p.stderr)
            p = subprocess.run(["/usr/bin/python3", os.path.join(TOOLS, "trace_summary.py"),
                                os.path.join(d, "missing.json")], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 1)
            self.assertIn("cannot read", p.stderr)


if __name__ == "__main__":
    unittest.main()
