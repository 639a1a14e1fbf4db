#!/usr/bin/python3
"""On-target test of mpirun --trace: a ping-pong (pingpong_bench) between
two ranks, on two clusters (scatter) and in one (compact), traced; the
JSON must pair every send with a receive of the same envelope (the same
flow id), its timestamps must grow on each core, and it must say how many
events were lost; a longer one fills rings and counts what is lost. Needs the build of $TESSERA_PLATFORM (make build)."""
import json
import os
import tempfile
import unittest
from collections import defaultdict

from toolsupport import run_mpirun
from tessera import trace_summary

REPS, MAX_BYTES = "3", "8192"   # up to 8 KiB: eager and rendezvous messages


class PingPong(unittest.TestCase):
    def traced(self, policy, reps=REPS, max_bytes=MAX_BYTES):
        with tempfile.TemporaryDirectory(prefix="trace-") as d:
            path = os.path.join(d, "pp.json")
            rc, out, err = run_mpirun("-np", "2", "--map-by", policy, "--timeout", "240",
                                      "--trace", path, "pingpong_bench", reps, max_bytes)
            self.assertEqual(rc, 0, out + err)
            self.assertIn(f"mpirun: trace written to {path}", err)
            self.assertEqual(sorted(f for f in os.listdir(d)), ["pp.json"])
            with open(path, encoding="utf-8") as f:
                trace = json.load(f)
            self.assertIn(f"{trace['otherData']['lost_total']} events lost", err)
            self.assertFalse([f for f in os.listdir(".") if f.startswith("tessera-trace-")],
                             "dumps copied back to the current folder")
        return trace

    def check(self, trace, two_clusters):
        events, other = trace["traceEvents"], trace["otherData"]
        self.assertIsInstance(other["lost_total"], int)
        self.assertIn("lost", other["rings"][0])
        self.assertGreater(other["timebase_hz"], 0)
        # Every send has a receive with its flow id and envelope, and back.
        msgs = [e for e in events if e.get("cat") == "mpi.msg"]
        sends = {e["bind_id"]: e for e in msgs if e["name"] == "send" and e.get("flow_out")}
        recvs = {e["bind_id"]: e for e in msgs if e["name"] == "recv" and e.get("flow_in")}
        self.assertEqual(len(sends), len([e for e in msgs if e["name"] == "send"]), "a send without flow")
        self.assertEqual(len(recvs), len([e for e in msgs if e["name"] == "recv"]), "a receive without flow")
        self.assertEqual(set(sends), set(recvs))
        if other["lost_total"] == 0:
            # 2 ranks x REPS x sizes (0, 1, 8, 64, 512, 4096, 8192) at least.
            self.assertGreaterEqual(len(sends), 2 * int(REPS) * 7)
        for fid, s in sends.items():
            r = recvs[fid]
            self.assertEqual(s["args"], r["args"], f"flow {fid}")
            self.assertLessEqual(s["ts"], r["ts"] + 1e-6, f"flow {fid}: received before sent")
            self.assertEqual(s["pid"] != r["pid"], two_clusters)
        # MPI calls of both ranks, Init to Finalize.
        calls = defaultdict(set)
        for e in events:
            if e.get("cat") == "mpi":
                calls[e["args"]["rank"]].add(e["name"])
        for rank in (0, 1):
            self.assertTrue({"MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv"} <= calls[rank],
                            calls[rank])
        # Per core, in the order each ring recorded them, times never go back.
        last = {}
        for e in events:
            if e.get("cat") in ("mpi", "mpi.msg", "ikc"):
                key = (e["pid"], e["tid"], e["cat"] == "ikc")
                self.assertGreaterEqual(e["ts"], last.get(key, 0.0), e)
                last[key] = e["ts"]
        self.assertTrue(any(e.get("cat") == "kcall" for e in events))
        if two_clusters:
            self.assertTrue(any(e.get("cat") == "ikc" for e in events))
        ranks, mpi_links, _ = trace_summary.summarize(events)
        self.assertEqual(sorted(ranks), [0, 1])
        for r in ranks.values():
            self.assertAlmostEqual(r["compute"] + r["mpi"] + r["wait"], r["total"], places=3)

    def test_scatter(self):
        self.check(self.traced("scatter"), True)

    def test_compact(self):
        self.check(self.traced("compact"), False)

    def test_full_rings_count_lost_events(self):
        """A long ping-pong fills the kernel rings: what does not fit is
        counted, per ring, and the rings hold no more than their capacity."""
        other = self.traced("scatter", "51", "65536")["otherData"]
        self.assertGreater(other["lost_total"], 0)
        self.assertEqual(other["lost_total"], sum(r["lost"] for r in other["rings"]))
        for r in other["rings"]:
            self.assertLessEqual(r["recorded"], r["capacity"], r)
            if r["lost"]:
                self.assertEqual(r["recorded"], r["capacity"], r)


if __name__ == "__main__":
    unittest.main()
