#!/usr/bin/python3
"""trace_summary.py FILE: sums up a trace of mpirun --trace FILE.

Per rank: its time from MPI_Init to MPI_Finalize, split into computation
(outside MPI calls), MPI (inside them, not waiting) and waiting (inside
them, in a kernel call that sleeps or yields for something to arrive:
ikc_wait_any, mailbox_wait, portal_wait, sync_wait, futex_wait, sleep,
thread_yield). Then the busiest links: cluster pairs by the bytes of the
MPI messages sent between them, and by the IKC transfers the kernels
posted. Exits 1 with a message on a file that is not such a trace.
"""
import json
import os
import sys
from collections import defaultdict

WAIT_CALLS = {"ikc_wait_any", "mailbox_wait", "portal_wait", "sync_wait", "futex_wait", "sleep",
              "thread_yield"}
LINKS_SHOWN = 8


class SummaryError(Exception):
    """FILE is not a trace mpirun --trace wrote."""


def load(path):
    """The trace's events; raises SummaryError saying what is wrong."""
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except OSError as e:
        raise SummaryError(f"cannot read {path}: {e.strerror}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise SummaryError(f"{path} is not JSON: {e}") from None
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        raise SummaryError(f"{path} is not a trace-event file (no traceEvents list)")
    for e in events:
        if not isinstance(e, dict) or "ph" not in e or "pid" not in e:
            raise SummaryError(f"{path}: an event without ph or pid: {str(e)[:80]}")
        if e["ph"] == "X" and not all(isinstance(e.get(k), (int, float)) for k in ("ts", "dur")):
            raise SummaryError(f"{path}: an X event without numeric ts and dur: {str(e)[:80]}")
    return events, trace.get("otherData", {})


def _union(spans):
    """Total length of the union of (start, end) spans."""
    total, end = 0.0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def summarize(events):
    """(ranks, mpi_links, ikc_links): ranks {rank: {total, mpi, wait,
    compute}} in microseconds; links {(src cluster, dst cluster):
    [messages, bytes]}."""
    by_thread = defaultdict(lambda: {"mpi": [], "kcalls": [], "rank": None})
    cluster_of = {}
    sends, ikc = [], []
    for e in events:
        if e["ph"] == "X" and e.get("cat") == "mpi":
            t = by_thread[(e["pid"], e.get("tid"))]
            t["mpi"].append((e["ts"], e["ts"] + e["dur"]))
            t["rank"] = e.get("args", {}).get("rank", t["rank"])
            cluster_of[t["rank"]] = e["pid"]
        elif e["ph"] == "X" and e.get("cat") == "kcall" and e.get("name") in WAIT_CALLS:
            by_thread[(e["pid"], e.get("tid"))]["kcalls"].append((e["ts"], e["ts"] + e["dur"]))
        elif e["ph"] == "X" and e.get("cat") == "mpi.msg" and e.get("name") == "send":
            sends.append(e)
        elif e["ph"] == "i" and e.get("name") == "ikc post":
            ikc.append(e)
    ranks = {}
    for t in by_thread.values():
        if t["rank"] is None or not t["mpi"]:
            continue
        start = min(a for a, _ in t["mpi"])
        end = max(b for _, b in t["mpi"])
        in_mpi = _union(t["mpi"])
        # Waiting: the wait calls made inside an MPI call.
        waits = [(a, b) for a, b in t["kcalls"] if any(s <= a and b <= e for s, e in t["mpi"])]
        wait = _union(waits)
        ranks[t["rank"]] = {"total": end - start, "compute": end - start - in_mpi,
                            "mpi": in_mpi - wait, "wait": wait}
    mpi_links = defaultdict(lambda: [0, 0])
    for e in sends:
        a = e.get("args", {})
        pair = (e["pid"], cluster_of.get(a.get("dest"), "?"))
        mpi_links[pair][0] += 1
        mpi_links[pair][1] += a.get("bytes", 0)
    ikc_links = defaultdict(lambda: [0, 0])
    for e in ikc:
        a = e.get("args", {})
        pair = (e["pid"], a.get("dest_cluster", "?"))
        ikc_links[pair][0] += 1
        ikc_links[pair][1] += a.get("bytes", 0)
    return ranks, dict(mpi_links), dict(ikc_links)


def _ms(us):
    return f"{us / 1000:10.3f}"


def report(events, other, out):
    """Prints the summary of the trace's events on `out`."""
    ranks, mpi_links, ikc_links = summarize(events)
    if not ranks:
        raise SummaryError("the trace holds no MPI call of any rank")
    print("rank   total ms   compute ms       MPI ms   waiting ms  (waiting: in MPI, asleep in "
          "the kernel)", file=out)
    for rank in sorted(ranks):
        r = ranks[rank]
        print(f"{rank:4} {_ms(r['total'])}   {_ms(r['compute'])}   {_ms(r['mpi'])}   "
              f"{_ms(r['wait'])}", file=out)
    for title, links in (("MPI messages", mpi_links), ("IKC transfers", ikc_links)):
        print(f"busiest links by {title} (cluster -> cluster: messages, bytes):", file=out)
        if not links:
            print("  none", file=out)
        busiest = sorted(links.items(), key=lambda kv: (-kv[1][1], -kv[1][0], str(kv[0])))
        for (src, dst), (n, nbytes) in busiest[:LINKS_SHOWN]:
            print(f"  {src} -> {dst}: {n} messages, {nbytes} bytes", file=out)
    lost = other.get("lost_total")
    if lost:
        print(f"note: {lost} events were lost (full rings): the figures miss them", file=out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 1 else sys.stdout)
        return 2 if len(argv) != 1 else 0
    try:
        events, other = load(argv[0])
        report(events, other, sys.stdout)
    except SummaryError as e:
        print(f"{os.path.basename(sys.argv[0] or 'trace_summary.py')}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
