#!/usr/bin/python3
"""make bench: the LWMPI study's experiments on Tessera (bench/README.md).

    run_bench.py [--quick] [--out DIR] [--only mapping|weak|p2p|stream|native ...]

Runs each experiment several times through tools/mpirun and writes to DIR
(default out/bench): CSV files with every measurement, report.md with the
Markdown tables (median and spread of the repetitions, and the ratios that
matter) and PNG plots of them. --quick: smaller sizes and fewer
repetitions (a few minutes). Exits with 1 when a run fails or does not
verify.
"""
import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from capbench import ROOT, run_tessera  # noqa: E402
from tessera_run import mpirun  # noqa: E402
from report import (Stat, line_plot, markdown_table, out_path, ratio, size_label,  # noqa: E402
                    write_csv)

SLOTS = 4  # MPI processes per compute cluster in the default profile


class Config:
    """What an experiment runs at full size and with --quick."""

    def __init__(self, quick):
        self.quick = quick
        self.reps = 3 if quick else 5
        # mapping: a2a with 12 processes, arguments STEPS MSGS.
        self.a2a_args = ("9", "1") if quick else ("9", "4")
        # weak scaling: arguments for c compute clusters.
        self.clusters = (1, 2, 4)
        if quick:
            self.weak = {"fn": lambda c: ("1", str(2000 * c)),
                         "gf": lambda c: (str(c), "128", "7"),
                         "km": lambda c: (str(256 * c), "4", "8", "1")}
        else:
            self.weak = {"fn": lambda c: ("1", str(25000 * c)),
                         "gf": lambda c: (str(2 * c), "256", "7"),
                         "km": lambda c: (str(2048 * c), "4", "8", "1")}
        # point-to-point: round trips per run, largest message.
        self.pp_reps = "11" if quick else "51"
        self.pp_max = str(64 * 1024 if quick else 1024 * 1024)
        # streaming on QEMU: p2p_native --bw's batches (of one window each at
        # these sizes), smallest and largest message.
        self.stream_batches = "3" if quick else "5"
        self.stream_sizes = (256 * 1024, (1 if quick else 4) * 1024 * 1024)
        self.stream_ikc_samples = 3 if quick else 11  # ikc_bench's, with --quick and without
        # native comparison (linux64): batches per size, largest message.
        self.native_batches = "5" if quick else "21"
        self.native_max = str(64 * 1024 if quick else 4 * 1024 * 1024)


class Failure(Exception):
    pass


def checked(run, what):
    """The run, or Failure naming `what` when it failed."""
    if not run.ok:
        raise Failure(f"{what}: {run.describe()}\n{run.out}")
    print(f"  {what}: {run.ns / 1e6:.1f} ms guest, {run.seconds:.1f} s host", flush=True)
    return run


# ---- mapping policies -------------------------------------------------------------

def mapping(cfg, out):
    rows, steps = [], {}
    for rep in range(cfg.reps):
        for policy in ("compact", "scatter"):
            run = checked(run_tessera("a2a", 12, policy, cfg.a2a_args), f"a2a np=12 {policy} #{rep}")
            for step, nbytes, msgs, ns, cycles in run.steps:
                rows.append((policy, rep, step, nbytes, msgs, ns, cycles))
                steps.setdefault(nbytes, {}).setdefault(policy, []).append(ns)
    write_csv(out_path(out, "mapping.csv"),
              ("mapping", "rep", "step", "bytes", "messages", "ns", "cycles"), rows)
    sizes = sorted(steps)
    stat = {p: [Stat(steps[b].get(p, [])) for b in sizes] for p in ("compact", "scatter")}
    table = markdown_table(
        ("message size", "compact (ms)", "scatter (ms)", "compact/scatter"),
        [(size_label(b), c.text(1e6, 2), s.text(1e6, 2), ratio(c, s))
         for b, c, s in zip(sizes, stat["compact"], stat["scatter"])])
    line_plot(out_path(out, "mapping.png"), "a2a, 12 MPI processes: one superstep",
              "message size (bytes)", "time (ms)",
              [(p, sizes, [Stat([v / 1e6 for v in s.values]) for s in stat[p]])
               for p in ("compact", "scatter")], logx=True, logy=True)
    return ("Mapping policies",
            f"`a2a {' '.join(cfg.a2a_args)}` with 12 MPI processes: the time of one superstep "
            f"(every process sends {cfg.a2a_args[1]} message(s) of the size to each of the 11 "
            "others, then a barrier), compact (3 full clusters) against scatter (3 on each of "
            "4 clusters). Below 1: compact is faster.", table, "mapping.png")


# ---- weak scaling -----------------------------------------------------------------

VARIANTS = (("opt", "LWMPI, local path", {}),
            ("unopt", "LWMPI, --local-path ikc", {"local_path": "ikc"}),
            ("ikc", "raw IKC", {}))


def weak(cfg, out):
    rows, sections = [], []
    for app, args_of in cfg.weak.items():
        stats, results = {}, {}
        for c in cfg.clusters:
            args = args_of(c)
            for rep in range(cfg.reps):
                for variant, _, opts in VARIANTS:
                    program = app + "_ikc" if variant == "ikc" else app
                    run = checked(run_tessera(program, SLOTS * c, "compact", args, **opts),
                                  f"{program} {' '.join(args)} np={SLOTS * c} {variant} #{rep}")
                    rows.append((app, variant, c, SLOTS * c, " ".join(args), rep, run.ns,
                                 run.cycles, run.result))
                    stats.setdefault((c, variant), []).append(run.ns)
                    results.setdefault(c, set()).add(run.result)
            if len(results[c]) != 1:
                raise Failure(f"{app} on {c} clusters: the variants disagree: {results[c]}")
        s = {k: Stat(v) for k, v in stats.items()}
        table = markdown_table(
            ("clusters (np)", "arguments", "opt (ms)", "unopt (ms)", "raw IKC (ms)",
             "opt/unopt", "opt/IKC"),
            [(f"{c} ({SLOTS * c})", " ".join(args_of(c)), s[c, "opt"].text(1e6),
              s[c, "unopt"].text(1e6), s[c, "ikc"].text(1e6),
              ratio(s[c, "opt"], s[c, "unopt"]), ratio(s[c, "opt"], s[c, "ikc"]))
             for c in cfg.clusters])
        png = f"weak_{app}.png"
        line_plot(out_path(out, png), f"{app}: weak scaling ({SLOTS} processes per cluster)",
                  "compute clusters", "time (ms)",
                  [(label, cfg.clusters, [Stat([v / 1e6 for v in s[c, v_].values])
                                          for c in cfg.clusters])
                   for v_, label, _ in VARIANTS], xticks=(cfg.clusters, [str(c) for c in cfg.clusters]))
        sections.append((f"Weak scaling: {app}",
                         f"`{app}` on 1, 2 and 4 compute clusters, {SLOTS} processes each "
                         "(compact), the problem growing with the clusters. opt/unopt below 1: "
                         "the local path saves time; opt/IKC below 1: LWMPI beats the raw-IKC "
                         "baseline.", table, png))
    write_csv(out_path(out, "weak.csv"),
              ("app", "variant", "clusters", "np", "args", "rep", "ns", "cycles", "result"), rows)
    return sections


# ---- point-to-point ---------------------------------------------------------------

SERIES = (  # name, label, program, mapping, mpirun options
    ("across", "LWMPI across clusters", "pingpong_bench", "scatter", {}),
    ("across-eager", "LWMPI across, eager to 64 KiB", "pingpong_bench", "scatter", {"eager": 65536}),
    ("across-rdv", "LWMPI across, rendezvous", "pingpong_bench", "scatter", {"eager": 1}),
    ("ikc-across", "raw IKC across clusters", "ikc_pingpong", "scatter", {}),
    ("inside-opt", "LWMPI inside, local path", "pingpong_bench", "compact", {}),
    ("inside-unopt", "LWMPI inside, --local-path ikc", "pingpong_bench", "compact",
     {"local_path": "ikc"}),
    ("ikc-inside", "raw IKC inside a cluster", "ikc_pingpong", "compact", {}),
)
_ROW = re.compile(r"^row\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s*$", re.M)


def p2p(cfg, out):
    rows, lat = [], {}
    for rep in range(cfg.reps):
        for name, _, program, policy, opts in SERIES:
            run = run_tessera(program, 2, policy, (cfg.pp_reps, cfg.pp_max), **opts)
            found = _ROW.findall(run.out)
            if run.rc != 0 or not found:
                raise Failure(f"{program} {policy} {opts}: exit {run.rc}\n{run.out}")
            print(f"  {name} #{rep}: {run.seconds:.1f} s host", flush=True)
            for nbytes, cycles, us, mbs in found:
                rows.append((name, rep, int(nbytes), int(cycles), float(us), float(mbs)))
                lat.setdefault((name, int(nbytes)), []).append(float(us))
    write_csv(out_path(out, "p2p.csv"), ("series", "rep", "bytes", "cycles", "us", "MB/s"), rows)
    sizes = sorted({b for _, b in lat if b > 0})
    s = {k: Stat(v) for k, v in lat.items()}
    get = lambda name, b: s.get((name, b), Stat([]))  # noqa: E731
    table = markdown_table(
        ("bytes", *(n for n, *_ in SERIES), "LWMPI/IKC across", "LWMPI/IKC inside", "opt/unopt"),
        [(size_label(b), *(get(n, b).text(1, 1) for n, *_ in SERIES),
          ratio(get("across", b), get("ikc-across", b)), ratio(get("inside-opt", b), get("ikc-inside", b)),
          ratio(get("inside-opt", b), get("inside-unopt", b)))
         for b in sizes])
    line_plot(out_path(out, "p2p_latency.png"), "Ping-pong: one-way time", "message size (bytes)",
              "one-way time (µs)", [(label, sizes, [get(n, b) for b in sizes])
                                    for n, label, *_ in SERIES], logx=True, logy=True)
    bw = lambda st, b: Stat([b / v for v in st.values if v > 0])  # noqa: E731  (bytes/µs = MB/s)
    line_plot(out_path(out, "p2p_bandwidth.png"), "Ping-pong: bandwidth", "message size (bytes)",
              "MB/s", [(label, sizes, [bw(get(n, b), b) for b in sizes]) for n, label, *_ in SERIES],
              logx=True, logy=True)
    return ("Point-to-point",
            f"`pingpong_bench` and `ikc_pingpong` with 2 processes ({cfg.pp_reps} round trips per "
            "run, the median of each run): one-way time in µs. Across clusters (scatter) with "
            "mpirun's default threshold on QEMU (eager up to one mailbox message, 88 B, "
            "rendezvous above), eager forced to 64 KiB, "
            "rendezvous forced from 2 B; inside one cluster (compact) with the local path (opt) "
            "and without (unopt); and the raw IKC transfer (a mailbox message up to its payload, "
            "a portal transfer above). LWMPI/IKC and opt/unopt below 1: LWMPI, or the local "
            "path, is faster. Plots: p2p_latency.png, p2p_bandwidth.png.", table, "p2p_latency.png")


# ---- streaming on QEMU ------------------------------------------------------------

# p2p_native --bw's window: on QEMU, osu_bw's 64 gives the same figures in 4
# times the time (bench/README.md).
STREAM_WINDOW = 16
STREAM_TIMEOUT = 300  # seconds, for one run
# A row of ikc_bench's portal throughput table: size, unit, transfers per
# sample, cycles min and median, us min and median, MB/s, memcpy's cycles,
# MB/s and ratio.
_PORTAL_ROW = re.compile(r"^\s*(\d+) (KiB|MiB)\s+\d+\s+\d+\s+\d+\s+[\d.]+\s+([\d.]+)"
                         r"\s+[\d.]+\s+\d+\s+[\d.]+\s+[\d.]+\s*$", re.M)


def tessera_qemu(program, args):
    """A run of PROGRAM (out/target/bin) on QEMU with one process on each of
    two compute clusters: a function returning (status, output)."""
    return lambda: mpirun("-np", "2", "--map-by", "scatter", "--timeout", str(STREAM_TIMEOUT), program,
                          *args, timeout=STREAM_TIMEOUT + 60)


def lwmpi_stream_rows(text):
    """[(bytes, ns per message)] of p2p_native's rows."""
    return [(int(b), float(ns)) for b, ns, _ in _NATIVE_ROW.findall(text)]


def ikc_stream_rows(text):
    """[(bytes, ns per transfer)] of ikc_bench's portal throughput rows (its
    median sample's)."""
    return [(int(n) << (20 if unit == "MiB" else 10), float(us) * 1000)
            for n, unit, us in _PORTAL_ROW.findall(text)]


def stream_table(stats, sizes):
    """The Markdown table of stats {(series, bytes): Stat of MB/s}: a row
    per size, LWMPI's and IKC's bandwidth and LWMPI/IKC."""
    get = lambda name, b: stats.get((name, b), Stat([]))  # noqa: E731
    return markdown_table(
        ("bytes", "LWMPI (MB/s)", "raw IKC (MB/s)", "LWMPI/IKC"),
        [(size_label(b), get("lwmpi", b).text(1, 1), get("ikc", b).text(1, 1),
          ratio(get("lwmpi", b), get("ikc", b))) for b in sizes])


def stream(cfg, out):
    """LWMPI's streaming bandwidth against the raw IKC portal's, across two
    clusters on QEMU (bench/README.md)."""
    lo, hi = cfg.stream_sizes
    lwmpi_args = ("--bw", "--window", str(STREAM_WINDOW), "--min-bytes", str(lo), cfg.stream_batches,
                  str(hi))
    ikc_args = (("--quick",) if cfg.quick else ()) + ("--portal", str(lo), str(hi))
    series = (("lwmpi", "LWMPI, p2p_native --bw", "p2p_native --bw",
               tessera_qemu("p2p_native", lwmpi_args), lwmpi_stream_rows),
              ("ikc", "raw IKC, ikc_bench --portal", "ikc_bench --portal",
               tessera_qemu("ikc_bench", ikc_args), ikc_stream_rows))
    want = [lo << k for k in range((hi // lo).bit_length())]
    rows, values = [], {}
    for rep in range(cfg.reps):
        for name, _, what, run, rows_of in series:
            text = output_of(what, name, run)
            got = rows_of(text)
            if [b for b, _ in got] != want:
                raise Failure(f"{what}: not one row per size of {want}:\n{text}")
            for nbytes, ns in got:
                rows.append((name, rep, nbytes, ns, nbytes / ns * 1e3))
                values.setdefault((name, nbytes), []).append(nbytes / ns * 1e3)
        print(f"  stream #{rep} done", flush=True)
    write_csv(out_path(out, "stream.csv"), ("series", "rep", "bytes", "ns", "MB/s"), rows)
    stats = {k: Stat(v) for k, v in values.items()}
    sizes = sorted({b for _, b in stats})
    line_plot(out_path(out, "stream.png"), "Streaming across two clusters (QEMU): bandwidth",
              "message size (bytes)", "MB/s (10^6 bytes/s)",
              [(label, sizes, [stats.get((n, b), Stat([])) for b in sizes]) for n, label, *_ in series],
              logx=True)
    return ("Streaming across clusters (QEMU): LWMPI against raw IKC",
            "What: how many bytes per second a process streams to a process on another cluster, "
            f"through LWMPI and through a raw IKC portal, {size_label(lo)} to {size_label(hi)}. "
            "How: on QEMU, one process on each of two compute clusters (scatter). LWMPI: "
            f"`p2p_native --bw --window {STREAM_WINDOW}` (bench/native/p2p_native.c, as osu_bw "
            f"with a window of {STREAM_WINDOW} instead of 64): the sender starts {STREAM_WINDOW} "
            f"MPI_Isend of the size and waits for them all, the receiver has {STREAM_WINDOW} "
            "MPI_Irecv posted and answers each window with 1 byte. Each message goes by "
            "rendezvous: a request to send, and the sender's portal write, tagged, which waits "
            "for the receiver's allow and read of its portal; the sender's writes to one "
            "receiver go one after the other through the portal it keeps open to it, and the "
            "receiver's portal takes one transfer at a time. A figure is a window's bytes over "
            "its time, the median of "
            f"{cfg.stream_batches} windows. Raw IKC: `ikc_bench --portal` (bench/ikc/ikc_bench.c): "
            "the receiver allows the sender on one virtual portal and reads, while the sender's "
            "write of the size waits for it; a figure is the size over the median transfer's "
            f"time ({cfg.stream_ikc_samples} transfers, each after a barrier). Both sides allow "
            "and read once per message, through the same portal hardware; what LWMPI adds is one "
            "mailbox message per message (the request), its matching and its progress engine, "
            "and a 1-byte answer per window. Reading: MB/s (10^6 bytes per "
            "second), higher is better; LWMPI/IKC is the share of the raw portal's bandwidth "
            "that LWMPI delivers, the project's target being 0.8 or more. QEMU's timings move "
            "between runs (sometimes by a factor of 2): read the ratio, and the spreads. "
            "Plot: stream.png.", stream_table(stats, sizes), "stream.png")


# The native comparison: the portable MPI C programs of bench/native/ on
# Tessera's linux64 target and on the Linux MPI libraries, built from the
# same sources.
LINUX_MPIS = {"openmpi": ("mpicc.openmpi", "mpirun.openmpi"), "mpich": ("mpicc.mpich", "mpirun.mpich")}
NATIVE_PROGRAMS = ("p2p_native", "coll_native")
NATIVE_TIMEOUT = 300  # seconds, for one run
COLL_NP = 8  # processes of the collectives: two full clusters on Tessera
_NATIVE_ROW = re.compile(r"^row\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s*$", re.M)
_COLL_ROW = re.compile(r"^row\s+(\w+)\s+(\d+)\s+([\d.]+)\s*$", re.M)


def build_native(out):
    """The native programs built with each Linux MPI's mpicc:
    {(MPI name, program): executable}."""
    built = {}
    for name, (cc, _) in LINUX_MPIS.items():
        for program in NATIVE_PROGRAMS:
            src = os.path.join(ROOT, "bench", "native", program + ".c")
            exe = out_path(out, f"{program}-{name}")
            p = subprocess.run([cc, "-O2", "-o", exe, src], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=120)
            if p.returncode != 0:
                raise Failure(f"{cc} {program}.c (tools/setup.sh installs {name}):\n{p.stdout}")
            built[name, program] = exe
    return built


def tessera_linux64(program, np, args, policy="compact"):
    """A run of PROGRAM (out/linux64/bin) on Tessera's linux64 target: a
    function returning (status, output)."""
    return lambda: mpirun("--platform", "linux64", "-np", str(np), "--map-by", policy,
                          "--timeout", str(NATIVE_TIMEOUT), program, *args,
                          timeout=NATIVE_TIMEOUT + 60)


def linux_mpi(name, exe, np, args):
    """A run of exe with a Linux MPI (oversubscribed beyond the host's
    cores): a function returning (status, output)."""
    cmd = [LINUX_MPIS[name][1], "-np", str(np)]
    env = dict(os.environ)
    if name == "openmpi":
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        if np > os.cpu_count():
            cmd.append("--oversubscribe")
        env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"  # see tools/capbench.py

    def run():
        p = subprocess.run(cmd + [exe, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=env, timeout=NATIVE_TIMEOUT)
        return p.returncode, p.stdout
    return run


def output_of(what, name, run):
    """The output of run() (a function returning (status, output)) of
    series `name`, or Failure unless it exited with 0 and printed
    `PROGRAM: done`, PROGRAM being the first word of `what`."""
    try:
        rc, text = run()
    except subprocess.TimeoutExpired as e:
        got = e.output or b""
        rc, text = "timeout", got if isinstance(got, str) else got.decode(errors="replace")
    if rc != 0 or f"{what.split()[0]}: done" not in text:
        raise Failure(f"{what} ({name}): exit {rc}\n{text}")
    return text


def measured(cfg, what, series, pattern, value):
    """Runs every series [(name, label, run)] cfg.reps times, round-robin.
    `what`: the program and its mode (e.g. `p2p_native --bw`), for the
    messages; a run must exit with 0 and print `PROGRAM: done`. Each
    `pattern` match of an output is a CSV row (series, rep, *fields) and
    value(*fields) -> (key, value) a measurement. Returns the rows and
    {(series, key): Stat of the values}."""
    rows, values = [], {}
    for rep in range(cfg.reps):
        for name, _, run in series:
            for fields in pattern.findall(output_of(what, name, run)):
                rows.append((name, rep, *fields))
                key, v = value(*fields)
                values.setdefault((name, key), []).append(v)
        print(f"  {what} #{rep} done", flush=True)
    return rows, {k: Stat(v) for k, v in values.items()}


def shown_ratio(a, b, digits):
    """ratio(a, b), but '-' when b is under the table's precision (a memcpy
    of a few bytes): that ratio would be timer noise."""
    return ratio(a, b) if b.median and b.median >= 10 ** -digits else "-"


def by_size(out, png, title, ylabel, series, stats, ratios, digits):
    """The Markdown table of stats {(series, bytes): Stat} (a row per
    message size, a column per series, then the ratios [(header, a, b)]:
    a's median / b's), and its log-log plot PNG."""
    sizes = sorted({b for _, b in stats})
    get = lambda name, b: stats.get((name, b), Stat([]))  # noqa: E731
    line_plot(out_path(out, png), title, "message size (bytes)", ylabel,
              [(label, sizes, [get(n, b) for b in sizes]) for n, label, _ in series],
              logx=True, logy=True)
    return markdown_table(
        ("bytes", *(n for n, *_ in series), *(h for h, *_ in ratios)),
        [(size_label(b), *(get(n, b).text(1, digits) for n, *_ in series),
          *(shown_ratio(get(a, b), get(r, b), digits) for _, a, r in ratios)) for b in sizes])


def p2p_series(exes, args):
    """p2p_native ARGS with 2 processes on Tessera inside one cluster and
    across two, on Open MPI and on MPICH: [(name, label, run)]."""
    return [("tessera-inside", "Tessera (linux64), one cluster", tessera_linux64("p2p_native", 2, args)),
            ("tessera-across", "Tessera (linux64), two clusters",
             tessera_linux64("p2p_native", 2, args, "scatter")),
            ("openmpi", "Open MPI", linux_mpi("openmpi", exes["openmpi", "p2p_native"], 2, args)),
            ("mpich", "MPICH", linux_mpi("mpich", exes["mpich", "p2p_native"], 2, args))]


def tessera_over(refs):
    """(header, Tessera series, reference) of the ratios of both Tessera
    series over each reference."""
    return [(f"{t.split('-')[1]}/{ref}", t, ref)
            for ref in refs for t in ("tessera-inside", "tessera-across")]


def native_latency(cfg, out, exes):
    """The ping-pong table and plot (bench/README.md)."""
    args = (cfg.native_batches, cfg.native_max)
    series = p2p_series(exes, args) + [
        ("memcpy", "memcpy", linux_mpi("openmpi", exes["openmpi", "p2p_native"], 1, ("--memcpy", *args)))]
    rows, stats = measured(cfg, "p2p_native", series, _NATIVE_ROW,
                           lambda b, ns, _: (int(b), float(ns) / 1000))
    write_csv(out_path(out, "native_latency.csv"), ("series", "rep", "bytes", "ns", "MB/s"), rows)
    table = by_size(out, "native_latency.png", "Native ping-pong (linux64): one-way time",
                    "one-way time (µs)", series, stats, tessera_over(("openmpi", "mpich", "memcpy")), 2)
    return ("Native point-to-point latency (linux64)",
            "What: the time a message takes from one process to another (1 B to "
            f"{size_label(int(cfg.native_max))}). How: `p2p_native` (bench/native/p2p_native.c) "
            "with 2 processes ping-pongs each size (MPI_Send, then MPI_Recv of the reply) in "
            f"{cfg.native_batches} batches of about 2 ms; a figure is half a round trip, in µs, of "
            "the median batch. Columns: tessera-inside, Tessera's LWMPI on the linux64 target "
            "inside one cluster (compact: two threads of one process, the local path); "
            "tessera-across, across two clusters (scatter: two processes over the emulated NoC); "
            "openmpi and mpich, Debian's libraries on the same host in the same run; memcpy, two "
            "memcpy calls per round trip (one process), the floor of a copy through memory. "
            "Reading: lower is better; a ratio is Tessera's time over the reference's, above 1 "
            "Tessera is slower ('-': the reference is under 0.01 µs, too short to divide by). "
            "Plot: native_latency.png.", table, "native_latency.png")


def native_bandwidth(cfg, out, exes):
    """The streaming table and plot (bench/README.md)."""
    args = ("--bw", cfg.native_batches, cfg.native_max)
    series = p2p_series(exes, args)
    # MB/s from the time, not from the printed MB/s: that has too few digits
    # for a slow path's small messages.
    rows, stats = measured(cfg, "p2p_native --bw", series, _NATIVE_ROW,
                           lambda b, ns, _: (int(b), int(b) / float(ns) * 1e3))
    write_csv(out_path(out, "native_bandwidth.csv"), ("series", "rep", "bytes", "ns", "MB/s"), rows)
    table = by_size(out, "native_bandwidth.png", "Native streaming (linux64): bandwidth",
                    "MB/s (10^6 bytes/s)", series, stats, tessera_over(("openmpi",)), 2)
    return ("Native point-to-point bandwidth (linux64)",
            "What: how many bytes per second one process can stream to another (1 B to "
            f"{size_label(int(cfg.native_max))}). How: `p2p_native --bw` with 2 processes: "
            "the sender starts a window of 64 non-blocking sends of the size (MPI_Isend) and "
            "waits for them all, the receiver has 64 non-blocking receives posted, waits for "
            "them and answers with 1 byte, which the sender awaits before the next window; "
            f"{cfg.native_batches} batches of about 2 ms of windows, the median batch. A figure "
            "is bytes × 64 / the window's time, in MB/s (10^6 bytes per second). Columns as for "
            "the latency (no memcpy). Reading: higher is better; a ratio is Tessera's bandwidth "
            "over Open MPI's, below 1 Tessera is slower. Plot: native_bandwidth.png.",
            table, "native_bandwidth.png")


def native_collectives(cfg, out, exes):
    """The collectives' table (bench/README.md)."""
    args = (cfg.native_batches,)
    series = [("tessera", "Tessera (linux64)", tessera_linux64("coll_native", COLL_NP, args))] + [
        (name, label, linux_mpi(name, exes[name, "coll_native"], COLL_NP, args))
        for name, label in (("openmpi", "Open MPI"), ("mpich", "MPICH"))]
    rows, stats = measured(cfg, "coll_native", series, _COLL_ROW,
                           lambda op, _, ns: (op, float(ns) / 1000))
    write_csv(out_path(out, "native_collectives.csv"), ("series", "rep", "operation", "bytes", "ns"),
              rows)
    ops = {op: int(b) for _, _, op, b, _ in rows}
    table = markdown_table(
        ("operation", *(n for n, *_ in series), "tessera/openmpi", "tessera/mpich"),
        [(f"{op} ({size_label(b)})" if b else op, *(stats[n, op].text(1, 1) for n, *_ in series),
          ratio(stats["tessera", op], stats["openmpi", op]), ratio(stats["tessera", op], stats["mpich", op]))
         for op, b in ops.items()])
    return ("Native collectives (linux64)",
            f"What: the time of one collective operation among {COLL_NP} processes. How: "
            "`coll_native` (bench/native/coll_native.c) times MPI_Barrier, MPI_Bcast of 8 bytes "
            "from rank 0 and MPI_Allreduce of one double (MPI_SUM) in "
            f"{cfg.native_batches} batches of about 2 ms of calls; a batch's time per call is its "
            "slowest process's, a figure the median batch's, in µs. Columns: tessera, Tessera on "
            f"linux64 (compact: two clusters of {SLOTS}); openmpi, Open MPI with --oversubscribe; "
            f"mpich, MPICH; all {COLL_NP} processes on the host's {os.cpu_count()} cores. Reading: "
            "lower is better; a ratio above 1: Tessera is slower. With more processes than cores, "
            "a library whose waiting processes keep polling (MPICH) leaves the ones it waits for "
            "little CPU time: its figures are then the host scheduler's more than its own.",
            table, None)


def native(cfg, out):
    """Latency, bandwidth and collectives on linux64 and the Linux MPIs."""
    exes = build_native(out)
    return [native_latency(cfg, out, exes), native_bandwidth(cfg, out, exes),
            native_collectives(cfg, out, exes)]


EXPERIMENTS = {"mapping": mapping, "weak": weak, "p2p": p2p, "stream": stream, "native": native}


def machine():
    """Date, host and CPU, and the commit measured: the report's heading."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            stdout=subprocess.PIPE, text=True).stdout.strip() or "?"
    return (f"Measured {datetime.date.today().isoformat()} on {platform.node()}: {cpu}, "
            f"{os.cpu_count()} cores, {platform.system()} {platform.release()}; Tessera {commit}, "
            "QEMU TCG (riscv64 `virt`, one host thread for every hart: thread=single), default "
            "profile, LWMPI wait policy `block` (mpirun's default there); the native comparison "
            "on the linux64 target, default profile, wait policy `adaptive` (its default).")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 3 repetitions")
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "bench"), help="output folder")
    parser.add_argument("--only", action="append", choices=sorted(EXPERIMENTS),
                        help="run only this experiment (repeatable)")
    opts = parser.parse_args()
    cfg = Config(opts.quick)
    t0 = time.monotonic()
    sections = []
    try:
        for name in opts.only or EXPERIMENTS:
            print(f"bench: {name}", flush=True)
            got = EXPERIMENTS[name](cfg, opts.out)
            sections += got if isinstance(got, list) else [got]
    except Failure as e:
        print(f"bench: FAILED: {e}", file=sys.stderr)
        return 1
    text = [f"# Tessera benchmark report{' (quick)' if opts.quick else ''}", "", machine(),
            f"Every figure is the median of {cfg.reps} runs, with the spread (min-max) in "
            "parentheses; times are guest wall time (the `time` CSR) on QEMU, host time on "
            "linux64.", ""]
    for title, intro, table, png in sections:
        text += [f"## {title}", "", intro, "", table, ""] + ([f"![{title}]({png})", ""] if png else [])
    with open(out_path(opts.out, "report.md"), "w") as f:
        f.write("\n".join(text))
    print(f"bench: done in {time.monotonic() - t0:.0f} s: {opts.out}/report.md, *.csv, *.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
