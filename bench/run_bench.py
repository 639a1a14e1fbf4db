#!/usr/bin/python3
"""make bench: the LWMPI study's experiments on Tessera (bench/README.md).

    run_bench.py [--quick] [--out DIR] [--only mapping|weak|p2p|native ...]

Runs each experiment several times through tools/mpirun and writes to DIR
(default out/bench): one CSV file per experiment with every measurement,
report.md with the Markdown tables (median and spread of the repetitions,
and the ratios that matter) and a PNG plot per table. --quick: smaller
sizes and fewer repetitions (a few minutes). Exits with 1 when a run fails
or does not verify.
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
        # native comparison (linux64): batches per size.
        self.native_batches = "5" if quick else "21"


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
_NATIVE_ROW = re.compile(r"^row\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s*$", re.M)


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
            "LWMPI's default threshold (eager to 512 B, rendezvous above), eager forced to 64 KiB, "
            "rendezvous forced from 2 B; inside one cluster (compact) with the local path (opt) "
            "and without (unopt); and the raw IKC transfer (a mailbox message up to its payload, "
            "a portal transfer above). LWMPI/IKC and opt/unopt below 1: LWMPI, or the local "
            "path, is faster. Plots: p2p_latency.png, p2p_bandwidth.png.", table, "p2p_latency.png")


# The native comparison: p2p_native (bench/native/) on Tessera's linux64
# target and on the Linux MPI libraries, built from the same source.
LINUX_MPIS = {"openmpi": ("mpicc.openmpi", "mpirun.openmpi"), "mpich": ("mpicc.mpich", "mpirun.mpich")}
NATIVE = (
    ("tessera-inside", "Tessera (linux64), one cluster"),
    ("tessera-across", "Tessera (linux64), two clusters"),
    ("openmpi", "Open MPI"),
    ("mpich", "MPICH"),
    ("memcpy", "memcpy"),
)


def build_native(out):
    """p2p_native built with each Linux MPI's mpicc: {name: executable}."""
    src = os.path.join(ROOT, "bench", "native", "p2p_native.c")
    built = {}
    for name, (cc, _) in LINUX_MPIS.items():
        exe = out_path(out, f"p2p_native-{name}")
        p = subprocess.run([cc, "-O2", "-o", exe, src], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise Failure(f"{cc} p2p_native.c (tools/setup.sh installs {name}):\n{p.stdout}")
        built[name] = exe
    return built


def run_linux_mpi(name, exe, np, args):
    """(status, output) of a Linux MPI run of exe."""
    cmd = [LINUX_MPIS[name][1], "-np", str(np)]
    env = dict(os.environ)
    if name == "openmpi":
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"  # see tools/capbench.py
    p = subprocess.run(cmd + [exe, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, timeout=600)
    return p.returncode, p.stdout


def native(cfg, out):
    exes = build_native(out)
    args = (cfg.native_batches, cfg.pp_max)
    runs = {
        "tessera-inside": lambda: mpirun("--platform", "linux64", "-np", "2", "--map-by", "compact",
                                         "p2p_native", *args, timeout=600),
        "tessera-across": lambda: mpirun("--platform", "linux64", "-np", "2", "--map-by", "scatter",
                                         "p2p_native", *args, timeout=600),
        "openmpi": lambda: run_linux_mpi("openmpi", exes["openmpi"], 2, args),
        "mpich": lambda: run_linux_mpi("mpich", exes["mpich"], 2, args),
        "memcpy": lambda: run_linux_mpi("openmpi", exes["openmpi"], 1, ("--memcpy", *args)),
    }
    rows, lat = [], {}
    for rep in range(cfg.reps):
        for name, _ in NATIVE:
            rc, text = runs[name]()
            found = _NATIVE_ROW.findall(text)
            if rc != 0 or "p2p_native: done" not in text:
                raise Failure(f"p2p_native ({name}): exit {rc}\n{text}")
            for nbytes, ns, mbs in found:
                rows.append((name, rep, int(nbytes), float(ns), float(mbs)))
                lat.setdefault((name, int(nbytes)), []).append(float(ns) / 1000)
        print(f"  native #{rep} done", flush=True)
    write_csv(out_path(out, "native.csv"), ("series", "rep", "bytes", "ns", "MB/s"), rows)
    sizes = sorted({b for _, b in lat})
    s = {k: Stat(v) for k, v in lat.items()}
    get = lambda name, b: s.get((name, b), Stat([]))  # noqa: E731
    ratios = [(f"{t.split('-')[1]}/{ref}", t, ref)
              for ref in ("openmpi", "mpich", "memcpy") for t in ("tessera-inside", "tessera-across")]
    # A reference under the table's precision (a memcpy of a few bytes)
    # would give a ratio of timer noise: none is shown.
    shown_ratio = lambda a, b: ratio(a, b) if b.median and b.median >= 0.01 else "-"  # noqa: E731
    table = markdown_table(
        ("bytes", *(n for n, _ in NATIVE), *(r for r, *_ in ratios)),
        [(size_label(b) if b else "0 B", *(get(n, b).text(1, 2) for n, _ in NATIVE),
          *(shown_ratio(get(t, b), get(ref, b)) for _, t, ref in ratios)) for b in sizes])
    shown = [b for b in sizes if b > 0]
    line_plot(out_path(out, "native_latency.png"), "Native ping-pong (linux64): one-way time",
              "message size (bytes)", "one-way time (µs)",
              [(label, shown, [get(n, b) for b in shown]) for n, label in NATIVE], logx=True, logy=True)
    return ("Native point-to-point (linux64)",
            f"`p2p_native` (bench/native/p2p_native.c, {cfg.native_batches} batches of about 2 ms of "
            "round trips per size, the median batch) with 2 processes: Tessera's LWMPI on the linux64 "
            "target inside one cluster (compact: two threads of one process, the local path) and "
            "across two clusters (scatter: two processes over the emulated NoC), Open MPI and MPICH "
            "from Debian on the same machine in the same run, and two memcpy calls per round trip "
            "(one process). One-way time in µs; ratios above 1: Tessera is slower ('-': the reference "
            "is under 0.01 µs, too short for a ratio). "
            "Plot: native_latency.png.", table, "native_latency.png")


EXPERIMENTS = {"mapping": mapping, "weak": weak, "p2p": p2p, "native": native}


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
        text += [f"## {title}", "", intro, "", table, "", f"![{title}]({png})", ""]
    with open(out_path(opts.out, "report.md"), "w") as f:
        f.write("\n".join(text))
    print(f"bench: done in {time.monotonic() - t0:.0f} s: {opts.out}/report.md, *.csv, *.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
