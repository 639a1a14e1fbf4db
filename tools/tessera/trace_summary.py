"""trace_summary.py [--timeline [COLUMNS]] FILE: sums up a trace of
mpirun --trace FILE.

Per rank: its time from MPI_Init to MPI_Finalize, split into computation
(outside MPI calls), MPI (inside them, not waiting) and waiting (inside
them, in a kernel call that sleeps or yields for something to arrive:
ikc_wait_any, mailbox_wait, portal_wait, sync_wait, futex_wait, sleep,
thread_yield). Then the busiest links: cluster pairs by the bytes of the
MPI messages sent between them, and by the IKC transfers the kernels
posted. With --timeline, first a picture of the run in COLUMNS characters
(default 72): a row per rank, each character a slice of time, showing
what the rank did most in it: '.' computing, '=' in MPI, '#' waiting in
MPI, ' ' before its MPI_Init or after its MPI_Finalize. Exits 1 with a
message on a file that is not such a trace, 2 on a bad command line.
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


def rank_spans(events):
    """{rank: (cluster, MPI call spans, waiting spans)}: the (start, end)
    of each MPI call of the rank, and of each kernel call in which it
    waited inside one, in microseconds."""
    by_thread = defaultdict(lambda: {"mpi": [], "kcalls": [], "rank": None})
    for e in events:
        if e["ph"] == "X" and e.get("cat") == "mpi":
            t = by_thread[(e["pid"], e.get("tid"))]
            t["mpi"].append((e["ts"], e["ts"] + e["dur"]))
            t["rank"] = e.get("args", {}).get("rank", t["rank"])
        elif e["ph"] == "X" and e.get("cat") == "kcall" and e.get("name") in WAIT_CALLS:
            by_thread[(e["pid"], e.get("tid"))]["kcalls"].append((e["ts"], e["ts"] + e["dur"]))
    spans = {}
    for (pid, _), t in by_thread.items():
        if t["rank"] is None or not t["mpi"]:
            continue
        waits = [(a, b) for a, b in t["kcalls"] if any(s <= a and b <= e for s, e in t["mpi"])]
        spans[t["rank"]] = (pid, t["mpi"], waits)
    return spans


def summarize(events):
    """(ranks, mpi_links, ikc_links): ranks {rank: {total, mpi, wait,
    compute}} in microseconds; links {(src cluster, dst cluster):
    [messages, bytes]}."""
    spans = rank_spans(events)
    cluster_of = {rank: pid for rank, (pid, _, _) in spans.items()}
    sends = [e for e in events
             if e["ph"] == "X" and e.get("cat") == "mpi.msg" and e.get("name") == "send"]
    ikc = [e for e in events if e["ph"] == "i" and e.get("name") == "ikc post"]
    ranks = {}
    for rank, (_, mpi, waits) in spans.items():
        start = min(a for a, _ in mpi)
        end = max(b for _, b in mpi)
        in_mpi = _union(mpi)
        wait = _union(waits)
        ranks[rank] = {"total": end - start, "compute": end - start - in_mpi,
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


def _overlap(spans, a, b):
    """How much of [a, b) the (start, end) spans cover (they may overlap:
    nested MPI calls)."""
    return _union([(max(s, a), min(e, b)) for s, e in spans if s < b and e > a])


def timeline(events, columns, out):
    """Prints the run as a row per rank, `columns` characters wide, each
    the most of: computing '.', in MPI '=', waiting in MPI '#', outside
    MPI_Init..MPI_Finalize ' '."""
    spans = rank_spans(events)
    if not spans:
        raise SummaryError("the trace holds no MPI call of any rank")
    t0 = min(a for _, mpi, _ in spans.values() for a, _ in mpi)
    t1 = max(b for _, mpi, _ in spans.values() for _, b in mpi)
    step = (t1 - t0) / columns or 1.0
    print(f"timeline: {(t1 - t0) / 1000:.3f} ms, {step / 1000:.3f} ms a character "
          "('.' computing, '=' in MPI, '#' waiting in MPI)", file=out)
    for rank in sorted(spans):
        pid, mpi, waits = spans[rank]
        first, last = min(a for a, _ in mpi), max(b for _, b in mpi)
        row = []
        for i in range(columns):
            a, b = t0 + i * step, t0 + (i + 1) * step
            live = max(0.0, min(b, last) - max(a, first))
            wait = _overlap(waits, a, b)
            in_mpi = _overlap(mpi, a, b) - wait
            shares = {" ": (b - a) - live, "#": wait, "=": in_mpi, ".": live - in_mpi - wait}
            row.append(max(shares, key=shares.get))
        print(f"rank {rank:3} (cluster {pid}) |{''.join(row)}|", file=out)


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


def _usage(message):
    name = os.path.basename(sys.argv[0] or "trace_summary.py")
    print(f"{name}: {message}\nusage: {name} [--timeline [COLUMNS]] FILE", file=sys.stderr)
    return 2


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    columns = 0
    if argv and argv[0] == "--timeline":
        columns = 72
        argv = argv[1:]
        if len(argv) == 2:
            if not argv[0].isdigit() or not 8 <= int(argv[0]) <= 1000:
                return _usage(f"--timeline COLUMNS must be a number from 8 to 1000, not {argv[0]!r}")
            columns, argv = int(argv[0]), argv[1:]
    if len(argv) != 1:
        return _usage("one trace FILE expected")
    try:
        events, other = load(argv[0])
        if columns:
            timeline(events, columns, sys.stdout)
        report(events, other, sys.stdout)
    except SummaryError as e:
        print(f"{os.path.basename(sys.argv[0] or 'trace_summary.py')}: {e}", file=sys.stderr)
        return 1
    return 0

