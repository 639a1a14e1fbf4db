#!/usr/bin/python3
"""make bench: the LWMPI study's experiments on Tessera (bench/README.md).

    run_bench.py [--quick] [--out DIR] [--only mapping|weak|p2p|stream|native|rma|mppa|files|io ...] [--trace]

Runs each experiment several times through tools/mpirun and writes to DIR
(default out/bench): CSV files with every measurement, report.md with the
Markdown tables (median and spread of the repetitions, and the ratios that
matter) and PNG plots of them. --quick: smaller sizes and fewer
repetitions (a few minutes). --trace (make bench TRACE=1): also one run
of each application with mpirun --trace, its trace in DIR/trace-APP.json
and its tools/trace_summary.py in the report. Exits with 1 when a run
fails or does not verify.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

from tessera.capbench import HYBRIDS, ROOT, run_tessera
from tessera.testing import load_segments, mpirun, target_out
from report import (Stat, line_plot, markdown_table, out_path, ratio, size_label,
                    write_csv)

SLOTS = 4  # MPI processes per compute cluster in the default profile
FULL_PROFILE, FULL_SLOTS = "full-cluster", 16  # compute clusters as MPPA-256's: 16 MPI processes


class Config:
    """What an experiment runs at full size and with --quick."""

    def __init__(self, quick):
        self.quick = quick
        self.reps = 3 if quick else 5
        # What the experiments leave for the report's summary of processes
        # against threads (summary_section).
        self.summary = {}
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
        # one-sided: batches per size, largest message on linux64 and on QEMU
        # (where a window's data moves in mailbox messages: see the section).
        self.rma_batches = "5" if quick else "11"
        self.rma_max = str(64 * 1024 if quick else 1024 * 1024)
        self.rma_qemu_max = str(4 * 1024 if quick else 64 * 1024)
        # MPI-IO: the side of the array of doubles.
        self.io_side = 256 if quick else 1024
        # file streaming: the file's MiB, and the KiB each write/read call moves.
        self.file_args = ("16" if quick else "64", "1024")


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


# ---- weak scaling, against both raw-IKC baselines, processes against threads ------

# The CAP Bench series (bench/README.md): (name, label, program suffix,
# run_tessera options).
VARIANTS = (("opt", "LWMPI, local path (processes)", "", {"ranks": "processes"}),
            ("unopt", "LWMPI, --local-path ikc (processes)", "", {"ranks": "processes", "local_path": "ikc"}),
            ("opt-threads", "LWMPI, local path (threads)", "", {"ranks": "threads"}),
            ("ikc-threads", "raw IKC, threads sharing memory", "_ikc", {"ranks": "threads"}),
            ("ikc-processes", "raw IKC, a process per core", "_ikc", {"ranks": "processes"}))


def median(values):
    return Stat(values).median


def memory_text(kib):
    """KiB as text, '-' for None."""
    return "-" if kib is None else f"{kib:.0f}"


class Memory:
    """The kernel's memory lines of one series' runs (Run.memory), by
    compute cluster: the median KiB of each, and the ranks it held."""

    def __init__(self, runs):
        by = {}
        for run in runs:
            for cluster, (kib, _) in run.memory.items():
                by.setdefault(cluster, []).append(kib)
        self.kib = {c: median(v) for c, v in by.items()}
        # Ranks per cluster: the processes the kernel counted in processes
        # mode (1 in threads mode, where the cluster's ranks are threads).
        self.procs = {c: max(run.memory[c][1] for run in runs if c in run.memory) for c in by}

    def master(self):
        """The global master's cluster (the first, in compact mapping): it
        holds the whole input and output besides its share."""
        return self.kib[min(self.kib)] if self.kib else None

    def others(self):
        """The largest of the other clusters, None with one cluster."""
        rest = [k for c, k in self.kib.items() if c != min(self.kib)]
        return max(rest) if rest else None


def per_extra_rank(proc, thr):
    """What each rank beyond the first costs as a process rather than a
    thread, in KiB: (processes - threads) / (ranks - 1) per cluster, the
    median over the clusters that host more than one rank."""
    each = [(proc.kib[c] - thr.kib[c]) / (proc.procs[c] - 1)
            for c in proc.kib if c in thr.kib and proc.procs[c] > 1]
    return median(each) if each else None


def private_kib(app):
    """The program's writable segments (.data, .bss, TLS templates), page
    by page, in KiB: what a rank's process gets a private copy of before
    its heap and stack."""
    path = os.path.join(target_out(), "bin", f"{app}.elf")
    try:
        _, segments = load_segments(path)
    except (OSError, ValueError):
        return None
    page = 4096
    total = 0
    for vaddr, _, memsz, flags in segments:
        if flags & 2:  # PF_W
            total += (vaddr + memsz + page - 1) // page * page - vaddr // page * page
    return total / 1024


def weak(cfg, out):
    rows, sections, memory = [], [], {}
    for app, args_of in cfg.weak.items():
        stats, results, runs = {}, {}, {}
        for c in cfg.clusters:
            args = args_of(c)
            for rep in range(cfg.reps):
                for variant, _, suffix, opts in VARIANTS:
                    program = app + suffix
                    run = checked(run_tessera(program, SLOTS * c, "compact", args, memory=True, **opts),
                                  f"{program} {' '.join(args)} np={SLOTS * c} {variant} #{rep}")
                    kib = " ".join(f"{k}:{v[0]}" for k, v in sorted(run.memory.items()))
                    rows.append((app, variant, c, SLOTS * c, " ".join(args), rep, run.ns,
                                 run.cycles, run.result, kib))
                    stats.setdefault((c, variant), []).append(run.ns)
                    runs.setdefault((c, variant), []).append(run)
                    results.setdefault(c, set()).add(run.result)
            if len(results[c]) != 1:
                raise Failure(f"{app} on {c} clusters: the variants disagree: {results[c]}")
        s = {k: Stat(v) for k, v in stats.items()}
        get = lambda c, v: s.get((c, v), Stat([]))  # noqa: E731
        for c in cfg.clusters:
            memory[app, c] = (Memory(runs.get((c, "opt"), [])), Memory(runs.get((c, "opt-threads"), [])))
            cfg.summary.setdefault("apps", {})[app, c] = ratio(get(c, "opt"), get(c, "opt-threads"))
        table = markdown_table(
            ("clusters (np)", "arguments", "opt (ms)", "unopt (ms)", "opt threads (ms)",
             "IKC threads (ms)", "IKC processes (ms)", "opt/unopt", "opt/IKC-thr", "opt/IKC-proc",
             "proc/thr"),
            [(f"{c} ({SLOTS * c})", " ".join(args_of(c)), get(c, "opt").text(1e6),
              get(c, "unopt").text(1e6), get(c, "opt-threads").text(1e6),
              get(c, "ikc-threads").text(1e6), get(c, "ikc-processes").text(1e6),
              ratio(get(c, "opt"), get(c, "unopt")), ratio(get(c, "opt"), get(c, "ikc-threads")),
              ratio(get(c, "opt"), get(c, "ikc-processes")), ratio(get(c, "opt"), get(c, "opt-threads")))
             for c in cfg.clusters])
        png = f"weak_{app}.png"
        line_plot(out_path(out, png), f"{app}: weak scaling ({SLOTS} processes per cluster)",
                  "compute clusters", "time (ms)",
                  [(label, cfg.clusters, [Stat([v / 1e6 for v in get(c, name).values])
                                          for c in cfg.clusters])
                   for name, label, *_ in VARIANTS], xticks=(cfg.clusters, [str(c) for c in cfg.clusters]))
        sections.append((f"Weak scaling: {app}",
                         f"`{app}` on 1, 2 and 4 compute clusters, {SLOTS} processes each "
                         "(compact), the problem growing with the clusters; the LWMPI ranks run as "
                         "processes (mpirun's default), opt threads the same with `--ranks threads`. "
                         "Baselines: IKC threads, the raw-IKC program whose rank threads share their "
                         "cluster's memory; IKC processes, the same program with a process per core "
                         "and everything moved over IKC. opt/unopt below 1: the local path saves "
                         "time; opt/IKC-thr and opt/IKC-proc at most 1: LWMPI matches or beats that "
                         "baseline (the study's claim); proc/thr above 1: ranks as processes cost "
                         "time.", table, png))
    write_csv(out_path(out, "weak.csv"),
              ("app", "variant", "clusters", "np", "args", "rep", "ns", "cycles", "result", "kib"), rows)
    sections.append(memory_section(cfg, memory))
    return sections


def capacity_runs(cfg):
    """fn, gf and km on the full-cluster profile (2 compute clusters of 16
    ranks, as MPPA-256's) at the largest weak size, processes and threads,
    one run each (the figures do not move): {(app, mode): Memory}."""
    got = {}
    for app, args_of in cfg.weak.items():
        args = args_of(max(cfg.clusters))
        for mode in ("processes", "threads"):
            run = checked(run_tessera(app, 2 * FULL_SLOTS, "compact", args, profile=FULL_PROFILE,
                                      ranks=mode, memory=True),
                          f"{app} {' '.join(args)} np={2 * FULL_SLOTS} {FULL_PROFILE} {mode}")
            got[app, mode] = Memory([run])
    return got


def profile_memory_mb(name):
    """compute_memory_mb of build/profiles/NAME.json."""
    with open(os.path.join(ROOT, "build", "profiles", f"{name}.json")) as f:
        return json.load(f)["compute_memory_mb"]


def memory_section(cfg, memory):
    """The memory table of the weak runs, and the full-cluster check
    (bench/README.md)."""
    full = capacity_runs(cfg)
    mb = profile_memory_mb(FULL_PROFILE)
    mppa_mb = profile_memory_mb("mppa256-big")
    lines = []
    for app, args_of in cfg.weak.items():
        for c in cfg.clusters:
            proc, thr = memory[app, c]
            lines.append((app, f"{c} ({SLOTS * c})", " ".join(args_of(c)), proc, thr))
        lines.append((app, f"{FULL_PROFILE}: 2 ({2 * FULL_SLOTS})", " ".join(args_of(max(cfg.clusters))),
                      full[app, "processes"], full[app, "threads"]))
    table = markdown_table(
        ("app", "clusters (np)", "arguments", "processes: master's cluster (KiB)",
         "processes: another (KiB)", "threads: master's (KiB)", "threads: another (KiB)",
         "per extra rank (KiB)", "private data (KiB)"),
        [(app, where, args, memory_text(proc.master()), memory_text(proc.others()),
          memory_text(thr.master()), memory_text(thr.others()),
          memory_text(per_extra_rank(proc, thr)), memory_text(private_kib(app)))
         for app, where, args, proc, thr in lines])
    most = max(full[app, "processes"].master() for app in cfg.weak)
    verdict = (f"With 16 ranks a cluster, the largest need is {most:.0f} KiB, "
               f"{most / (mb * 1024):.0%} of the {mb} MiB of a full-cluster compute cluster; "
               f"MPPA-256's topology with large windows (mppa256-big, 16 PEs and {mppa_mb} MiB a compute "
               "cluster; mppa256 has the chip's 2 MB) has the same clusters, so they hold their ranks "
               "as processes "
               f"with {mppa_mb * 1024 - most:.0f} KiB to spare.")
    cfg.summary["memory"] = [(app, per_extra_rank(*memory[app, max(cfg.clusters)])) for app in cfg.weak]
    return ("Ranks as processes: memory",
            "What each compute cluster's MPI program had in use at most (the kernel's line under "
            "`mpirun --verbose`: frames of its pages, page tables and kernel objects), in KiB, the "
            "median of the runs above: LWMPI with the local path as processes (opt) and as threads "
            "(opt threads), the master's cluster (which holds the whole input and output) and the "
            "largest other one. Per extra rank: (processes - threads) / (ranks of the cluster - 1), "
            "the median over the clusters: what a rank costs as a process of its own rather than as "
            "a thread (the first rank is one process in both modes). Private data: the program's "
            f"writable segments, which each process has a copy of. The `{FULL_PROFILE}` row runs the "
            f"largest size on 2 compute clusters of 16 ranks ({mb} MiB each), once per mode. "
            + verdict, table, None)


# ---- point-to-point ---------------------------------------------------------------

# The ping-pong series: (name, label, program, mapping, run_tessera options).
PINGPONG_SERIES = (
    ("across", "LWMPI across clusters", "pingpong_bench", "scatter", {}),
    ("across-eager", "LWMPI across, eager to 64 KiB", "pingpong_bench", "scatter", {"eager": 65536}),
    ("across-rdv", "LWMPI across, rendezvous", "pingpong_bench", "scatter", {"eager": 1}),
    ("ikc-across", "raw IKC across clusters", "ikc_pingpong", "scatter", {}),
    ("inside-opt", "LWMPI inside, local path (processes)", "pingpong_bench", "compact",
     {"ranks": "processes"}),
    ("inside-unopt", "LWMPI inside, --local-path ikc (processes)", "pingpong_bench", "compact",
     {"ranks": "processes", "local_path": "ikc"}),
    ("inside-threads", "LWMPI inside, local path (threads)", "pingpong_bench", "compact",
     {"ranks": "threads"}),
    ("ikc-inside", "raw IKC inside a cluster", "ikc_pingpong", "compact", {}),
)


_ROW = re.compile(r"^row\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s*$", re.M)


def p2p(cfg, out):
    rows, lat = [], {}
    for rep in range(cfg.reps):
        for name, _, program, policy, opts in PINGPONG_SERIES:
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
    fastest = lambda st: Stat(st.values[:1])  # noqa: E731  (values are sorted)
    cfg.summary["pingpong"] = [(b, ratio(get("inside-opt", b), get("inside-threads", b)),
                                ratio(fastest(get("inside-opt", b)), fastest(get("inside-threads", b))))
                               for b in sizes]
    table = markdown_table(
        ("bytes", *(n for n, *_ in PINGPONG_SERIES), "LWMPI/IKC across", "LWMPI/IKC inside", "opt/unopt",
         "proc/thr inside"),
        [(size_label(b), *(get(n, b).text(1, 1) for n, *_ in PINGPONG_SERIES),
          ratio(get("across", b), get("ikc-across", b)), ratio(get("inside-opt", b), get("ikc-inside", b)),
          ratio(get("inside-opt", b), get("inside-unopt", b)),
          ratio(get("inside-opt", b), get("inside-threads", b)))
         for b in sizes])
    line_plot(out_path(out, "p2p_latency.png"), "Ping-pong: one-way time", "message size (bytes)",
              "one-way time (µs)", [(label, sizes, [get(n, b) for b in sizes])
                                    for n, label, *_ in PINGPONG_SERIES], logx=True, logy=True)
    bw = lambda st, b: Stat([b / v for v in st.values if v > 0])  # noqa: E731  (bytes/µs = MB/s)
    line_plot(out_path(out, "p2p_bandwidth.png"), "Ping-pong: bandwidth", "message size (bytes)",
              "MB/s", [(label, sizes, [bw(get(n, b), b) for b in sizes]) for n, label, *_ in PINGPONG_SERIES],
              logx=True, logy=True)
    return ("Point-to-point",
            f"`pingpong_bench` and `ikc_pingpong` with 2 processes ({cfg.pp_reps} round trips per "
            "run, the median of each run): one-way time in µs. Across clusters (scatter) with "
            "mpirun's default threshold on QEMU (eager up to one mailbox message, 88 B, "
            "rendezvous above), eager forced to 64 KiB, "
            "rendezvous forced from 2 B; inside one cluster (compact) with the local path (opt) "
            "and without (unopt), the two ranks as processes (mpirun's default), and inside-threads "
            "the local path with `--ranks threads`; and the raw IKC transfer (a mailbox "
            "message up to its payload, a portal transfer above). LWMPI/IKC and opt/unopt below 1: "
            "LWMPI, or the local path, is faster; proc/thr inside above 1: the local path between "
            "two rank processes (through the sender's alias) is slower than between two threads. "
            "Plots: p2p_latency.png, p2p_bandwidth.png.", table, "p2p_latency.png")


# ---- the MPPA-MPI model: its two ping-pongs and the hybrid apps -----------------

# Tessera's two platforms: (label, mpirun --platform).
PLATFORMS = (("QEMU", "qemu-riscv64"), ("linux64", "linux64"))

# MPPA-MPI's ping-pongs: (name, label, world ranks, mapping, with the I/O rank).
MPPA_PINGPONGS = (("compute", "compute cluster to compute cluster", 2, "ppr:1:cluster", False),
                  ("io", "compute cluster to the I/O rank", 1, "compact", True))

# The two models of an application on every compute cluster: (name, label,
# program suffix, ranks per cluster, mapping).
MODELS = (("per-core", "a rank per core", "", SLOTS, "compact"),
          ("hybrid", "a rank per cluster with OpenMP inside", "_omp", 1, "ppr:1:cluster"))


def mppa_pingpongs(cfg, out):
    """Both ping-pongs on both platforms, round-robin: a report section."""
    rows, lat = [], {}
    args = (cfg.pp_reps, cfg.pp_max)
    for rep in range(cfg.reps):
        for where, flag in PLATFORMS:
            for name, _, np, mapping, io in MPPA_PINGPONGS:
                run = run_tessera("pingpong_bench", np, mapping, args, platform=flag,
                                  io_rank=("pingpong_bench", args) if io else None)
                found = _ROW.findall(run.out)
                if run.rc != 0 or not found:
                    raise Failure(f"pingpong_bench {name} ({where}): exit {run.rc}\n{run.out}")
                print(f"  pingpong {name} ({where}) #{rep}: {run.seconds:.1f} s host", flush=True)
                for nbytes, cycles, us, _ in found:
                    rows.append((where, name, rep, int(nbytes), int(cycles), float(us)))
                    lat.setdefault((where, name, int(nbytes)), []).append(float(us))
    write_csv(out_path(out, "mppa_pingpong.csv"), ("platform", "series", "rep", "bytes", "cycles", "us"), rows)
    sizes = sorted({b for _, _, b in lat if b > 0})
    s = {k: Stat(v) for k, v in lat.items()}
    get = lambda where, name, b: s.get((where, name, b), Stat([]))  # noqa: E731
    table = markdown_table(
        ("bytes", *(f"{name} ({where}, µs)" for where, _ in PLATFORMS for name, *_ in MPPA_PINGPONGS),
         *(f"io/compute ({where})" for where, _ in PLATFORMS)),
        [(size_label(b), *(get(where, name, b).text(1, 1) for where, _ in PLATFORMS for name, *_ in MPPA_PINGPONGS),
          *(ratio(get(where, "io", b), get(where, "compute", b)) for where, _ in PLATFORMS))
         for b in sizes])
    line_plot(out_path(out, "mppa_pingpong.png"), "MPPA-MPI's ping-pongs: one-way time", "message size (bytes)",
              "one-way time (µs)", [(f"{label} ({where})", sizes, [get(where, name, b) for b in sizes])
                                    for where, _ in PLATFORMS for name, label, *_ in MPPA_PINGPONGS],
              logx=True, logy=True)
    return ("The MPPA-MPI model: ping-pongs",
            f"MPPA-MPI's two ping-pongs, `pingpong_bench {' '.join(args)}` (the median of each run's "
            "round trips, halved: one-way time in µs): compute, two world ranks on two compute "
            "clusters (`-np 2 --map-by ppr:1:cluster`); io, one world rank on a compute cluster and "
            "the job's I/O rank on cluster 0 (`-np 1 pingpong_bench ... : --io-rank pingpong_bench "
            "...`), the two being MPIX_COMM_LOCAL's ranks 0 and 1. Both cross the NoC over IKC with "
            "mpirun's default eager threshold. On QEMU and on linux64, in the same run. io/compute "
            "above 1: the I/O rank is the slower peer. Plot: mppa_pingpong.png.", table, "mppa_pingpong.png")


def mppa_apps(cfg, out):
    """fn and km in both models, on every compute cluster, on both
    platforms: the time and memory sections."""
    c = max(cfg.clusters)
    rows, stats, runs, results = [], {}, {}, {}
    for app in HYBRIDS:
        args = cfg.weak[app](c)
        for rep in range(cfg.reps):
            for where, flag in PLATFORMS:
                for model, _, suffix, per_cluster, mapping in MODELS:
                    program, np = app + suffix, per_cluster * c
                    run = checked(run_tessera(program, np, mapping, args, memory=True, platform=flag),
                                  f"{program} {' '.join(args)} np={np} {mapping} ({where}) #{rep}")
                    kib = " ".join(f"{k}:{v[0]}" for k, v in sorted(run.memory.items()))
                    rows.append((app, where, model, np, " ".join(args), rep, run.ns, run.result, kib))
                    stats.setdefault((app, where, model), []).append(run.ns)
                    runs.setdefault((app, where, model), []).append(run)
                    results.setdefault(app, set()).add(run.result)
        if len(results[app]) != 1:
            raise Failure(f"{app}: the models disagree: {results[app]}")
    write_csv(out_path(out, "mppa_apps.csv"),
              ("app", "platform", "model", "np", "args", "rep", "ns", "result", "kib"), rows)
    s = {k: Stat(v) for k, v in stats.items()}
    get = lambda *key: s.get(key, Stat([]))  # noqa: E731
    time_table = markdown_table(
        ("app", "arguments", *(f"{name} ({where}, ms)" for where, _ in PLATFORMS for name, *_ in MODELS),
         *(f"hybrid/per-core ({where})" for where, _ in PLATFORMS)),
        [(app, " ".join(cfg.weak[app](c)),
          *(get(app, where, name).text(1e6) for where, _ in PLATFORMS for name, *_ in MODELS),
          *(ratio(get(app, where, "hybrid"), get(app, where, "per-core")) for where, _ in PLATFORMS))
         for app in HYBRIDS])
    memory = {key: Memory(v) for key, v in runs.items()}
    mem_table = markdown_table(
        ("app", "platform", *(f"{name}: {which} (KiB)" for name, *_ in MODELS for which in ("master's", "another")),
         "hybrid/per-core (median cluster)"),
        [(app, where, *(memory_text(getattr(memory[app, where, name], which)())
                        for name, *_ in MODELS for which in ("master", "others")),
          ratio(Stat(memory[app, where, "hybrid"].kib.values()), Stat(memory[app, where, "per-core"].kib.values())))
         for app in HYBRIDS for where, _ in PLATFORMS])
    models = "; ".join(f"{name}: {label}" for name, label, *_ in MODELS)
    return [("The MPPA-MPI model: hybrid applications",
             f"`fn` and `km` on the {c} compute clusters, in two models ({models}): per-core is "
             f"the LWMPI study's mapping, {SLOTS} rank processes a cluster (`-np {SLOTS * c} --map-by "
             f"compact`); hybrid is MPPA-MPI's, `fn_omp` and `km_omp` (the same sources built with "
             f"`-fopenmp`, whose kernels spread a rank's share over an `omp parallel for`) with one "
             f"rank a cluster (`-np {c} --map-by ppr:1:cluster`) and a team of the cluster's {SLOTS} "
             "cores. Both models print the same result, or the driver stops. QEMU times are guest "
             "time; linux64 times are host time, with every modeled core a host thread on this "
             "machine's cores. hybrid/per-core below 1: the hybrid model is faster.", time_table, None),
            ("The MPPA-MPI model: memory",
             "What each compute cluster's MPI program had in use at most (the kernel's line under "
             "`mpirun --verbose`), in KiB, the median of the runs above: the master's cluster (which "
             "holds the whole input and output) and the largest other one. A per-core cluster holds "
             f"{SLOTS} rank processes, a hybrid one a process whose {SLOTS} threads share one copy of "
             "the program's data and one heap, plus libgomp's pool. hybrid/per-core: the median "
             "over the clusters of each, below 1 the hybrid model needs less.", mem_table, None)]


def mppa(cfg, out):
    """MPPA-MPI's model (bench/README.md): its ping-pongs and the hybrid apps."""
    return [mppa_pingpongs(cfg, out)] + mppa_apps(cfg, out)


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


def build_native(out, programs=NATIVE_PROGRAMS):
    """`programs` (bench/native/) built with each Linux MPI's mpicc:
    {(MPI name, program): executable}."""
    built = {}
    for name, (cc, _) in LINUX_MPIS.items():
        for program in programs:
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
        env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"  # see tools/tessera/capbench.py

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


# ---- one-sided communication ------------------------------------------------------

def tessera_run(platform, program, args, policy):
    """A run of PROGRAM with 2 processes on Tessera's `platform` (qemu or
    linux64) under `policy`: a function returning (status, output)."""
    if platform == "linux64":
        return tessera_linux64(program, 2, args, policy)
    return lambda: mpirun("-np", "2", "--map-by", policy, "--timeout", str(NATIVE_TIMEOUT), program, *args,
                          timeout=NATIVE_TIMEOUT + 60)


def rma_table(cfg, out, platform, bw, exes):
    """One table of the one-sided experiment: put and get (rma_native)
    next to send/receive (p2p_native) of the same sizes, inside a cluster
    and across two, on `platform`; on linux64 also Open MPI's put and get.
    bw: bandwidth (--bw) rather than latency."""
    top = cfg.rma_max if platform == "linux64" else cfg.rma_qemu_max
    flag = ("--bw",) if bw else ()
    where = (("inside", "compact"), ("across", "scatter"))
    rma = [(f"{op}-{w}", f"Tessera {op}, {w}", tessera_run(platform, "rma_native", (op, *flag, cfg.rma_batches, top),
                                                           policy))
           for op in ("put", "get") for w, policy in where]
    if platform == "linux64":
        rma += [(f"{op}-openmpi", f"Open MPI {op}",
                 linux_mpi("openmpi", exes["openmpi", "rma_native"], 2, (op, *flag, cfg.rma_batches, top)))
                for op in ("put", "get")]
    p2p_args = (*flag, cfg.rma_batches, top)
    two_sided = [(f"send-{w}", f"Tessera send/receive, {w}", tessera_run(platform, "p2p_native", p2p_args, policy))
                 for w, policy in where]
    value = (lambda b, ns, _: (int(b), int(b) / float(ns) * 1e3)) if bw else \
        (lambda b, ns, _: (int(b), float(ns) / 1000))
    rows, stats = measured(cfg, f"rma_native {'--bw ' if bw else ''}({platform})", rma, _NATIVE_ROW, value)
    more_rows, more = measured(cfg, f"p2p_native {'--bw ' if bw else ''}({platform})", two_sided, _NATIVE_ROW,
                               value)
    stats.update(more)
    kind = "bandwidth" if bw else "latency"
    name = f"rma_{platform}_{kind}"
    write_csv(out_path(out, name + ".csv"), ("series", "rep", "bytes", "ns", "MB/s"), rows + more_rows)
    ratios = [(f"{op}/send {w}", f"{op}-{w}", f"send-{w}") for op in ("put", "get") for w, _ in where]
    if platform == "linux64":
        # Open MPI's figure over Tessera's across clusters: above 1, Open MPI
        # is the faster (the other way round, the bandwidths' ratios round to 0).
        ratios += [(f"openmpi/{op} across", f"{op}-openmpi", f"{op}-across") if bw else
                   (f"{op} across/openmpi", f"{op}-across", f"{op}-openmpi") for op in ("put", "get")]
    unit = "MB/s (10^6 bytes/s)" if bw else "time per message (µs)"
    table = by_size(out, name + ".png", f"One-sided {kind} ({platform})", unit, rma + two_sided, stats, ratios, 2)
    return table, name + ".png", top


def rma(cfg, out):
    """Put and get against send/receive, on linux64 (with Open MPI's) and
    on QEMU (bench/README.md)."""
    exes = build_native(out, ("rma_native",))
    sections = []
    for platform, bw in (("linux64", False), ("linux64", True), ("qemu", False)):
        table, png, top = rma_table(cfg, out, platform, bw, exes)
        how = ("a window of 16 MPI_Put (MPI_Get) of the size, then one MPI_Win_flush; a figure is "
               "the size × 16 over the window's time, in MB/s; send/receive is `p2p_native --bw` "
               "(64 MPI_Isend per window, as in Native point-to-point bandwidth)") if bw else (
               "one MPI_Put (MPI_Get) of the size, then MPI_Win_flush (the data is at the target, or "
               "here); a figure is that time in µs; send/receive is `p2p_native`'s one-way time "
               "(half a ping-pong)")
        sections.append((
            f"One-sided {'bandwidth' if bw else 'latency'} ({platform})",
            f"What: MPI's put and get, 1 B to {size_label(int(top))}, next to send/receive of the same "
            "sizes. How: `rma_native` (bench/native/rma_native.c) with 2 processes, rank 0 accessing "
            "rank 1's window (MPI_Win_allocate) in one MPI_Win_lock_all epoch while rank 1 makes no "
            f"call: {how}; the median of {cfg.rma_batches} batches of about 2 ms. inside: one cluster "
            "(compact), where a window is shared memory; across: two clusters (scatter), where "
            "every access is served by the target cluster's kernel (its window agent) with no "
            "action by rank 1. " + (
                "openmpi: Open MPI's RMA, same program, same host, same run. " if platform == "linux64" else
                "QEMU moves a window's data in mailbox messages of 80 bytes, each handled by the "
                "target's master, hence the smaller largest size. ") +
            "Reading: a ratio above 1 means the first is " + ("faster." if bw else "slower.") +
            f" Plot: {png}.", table, png))
    return sections


# ---- file streaming ----------------------------------------------------------------

# file_stream's lines: phase, bytes, calls, ns, MB/s.
_FILE_ROW = re.compile(r"^file_stream: (write|fsync|read) (\d+) B in (\d+) calls: (\d+) ns, ([\d.]+) MB/s$", re.M)


def host_file_stream(exe, args):
    """A run of file_stream ARGS built with the host's cc (exe), in a fresh
    temporary folder: a function returning (status, output)."""
    def run():
        with tempfile.TemporaryDirectory(prefix="tessera-file-stream-") as tmp:
            p = subprocess.run([exe, *args], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=NATIVE_TIMEOUT)
        return p.returncode, p.stdout
    return run


def files(cfg, out):
    """The file server's streaming rate from one process (bench/README.md)."""
    exe = out_path(out, "file_stream-host")
    p = subprocess.run(["cc", "-O2", "-o", exe, os.path.join(ROOT, "bench", "files", "file_stream.c")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    if p.returncode != 0:
        raise Failure(f"cc file_stream.c:\n{p.stdout}")
    series = [("linux64", "Tessera linux64", tessera_linux64("file_stream", 1, cfg.file_args)),
              ("qemu", "Tessera QEMU", lambda: mpirun("-np", "1", "--timeout", str(NATIVE_TIMEOUT), "file_stream",
                                                      *cfg.file_args, timeout=NATIVE_TIMEOUT + 60)),
              ("host", "the host itself", host_file_stream(exe, cfg.file_args))]
    rows, stats = measured(cfg, "file_stream", series, _FILE_ROW,
                           lambda phase, b, calls, ns, mbs: (phase, float(mbs)))
    write_csv(out_path(out, "files.csv"), ("series", "rep", "phase", "bytes", "calls", "ns", "MB/s"), rows)
    get = lambda name, phase: stats.get((name, phase), Stat([]))  # noqa: E731
    table = markdown_table(
        ("phase", *(f"{label} (MB/s)" for _, label, _ in series), "linux64/host", "QEMU/host"),
        [(phase, *(get(n, phase).text(1, 1) for n, _, _ in series),
          ratio(get("linux64", phase), get("host", phase)), ratio(get("qemu", phase), get("host", phase)))
         for phase in ("write", "fsync", "read")])
    mib, kib = cfg.file_args
    intro = (f"What: the file server's own streaming rate, the reference for MPI-IO's. How: `file_stream "
             f"{mib} {kib}` (bench/files/file_stream.c), one process on a compute cluster: write(2) a "
             f"{mib} MiB file in calls of {kib} KiB, fsync(2), then read(2) it back in calls of the same "
             "size; a figure is the bytes over the time of that phase's calls alone, in MB/s (10^6 "
             "bytes/s). host: the same program built with the host's cc, run in a temporary folder "
             "(the host's page cache, no IKC): the ceiling. Reading: a ratio is Tessera's share of "
             "the host's rate.")
    return ("File streaming", intro, table, None)


def traced_runs(cfg):
    """--trace: (app, np, policy, args) of the one traced run of each app."""
    return [("a2a", 12, "compact", cfg.a2a_args)] + \
        [(app, SLOTS, "compact", args_of(1)) for app, args_of in cfg.weak.items()] + \
        [("pingpong_bench", 2, "scatter", ("5", "65536"))]


def traces(cfg, out):
    """One traced run of each app (QEMU): the JSON files and their summaries."""
    summaries = []
    for app, np, policy, args in traced_runs(cfg):
        path = os.path.abspath(out_path(out, f"trace-{app}.json"))
        rc, text = mpirun("-np", str(np), "--map-by", policy, "--trace", path, app, *args)
        if rc != 0 or not os.path.isfile(path):
            raise Failure(f"traced {app}: status {rc}\n{text}")
        p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "trace_summary.py"), path],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise Failure(f"trace_summary.py {path}: {p.stderr}")
        print(f"  traced {app}: {path}", flush=True)
        summaries += [f"`{app} {' '.join(args)}`, {np} processes, {policy}: "
                      f"[trace-{app}.json](trace-{app}.json)", "", "```", p.stdout.rstrip(), "```", ""]
    intro = ("One run of each application with `mpirun --trace` (open the JSON files in "
             "https://ui.perfetto.dev), summed up by `tools/trace_summary.py`.")
    return ("Traces", intro, "\n".join(summaries), None)


# ---- MPI-IO -----------------------------------------------------------------------

IO_NP = 8  # two compute clusters of the default profile: two aggregators
_IO_ROW = re.compile(r"^io_native: (stream|independent|collective) (write|read) (\d+) ([\d.]+)\s*$", re.M)
IO_OPS = [f"{way} {op}" for op in ("write", "read") for way in ("stream", "independent", "collective")]


def io(cfg, out):
    """MPI-IO on a block-distributed 2-D array against the file server's
    streaming rate, on both platforms, and Open MPI's (bench/README.md)."""
    exes = build_native(out, ("io_native",))
    args = (str(cfg.io_side), "3")
    series = [("tessera-linux64", "Tessera (linux64)", tessera_linux64("io_native", IO_NP, args)),
              ("tessera-qemu", "Tessera (QEMU)",
               lambda: mpirun("-np", str(IO_NP), "--map-by", "compact", "--timeout", str(NATIVE_TIMEOUT),
                              "io_native", *args, timeout=NATIVE_TIMEOUT + 60)),
              ("openmpi", "Open MPI", linux_mpi("openmpi", exes["openmpi", "io_native"], IO_NP, args))]
    rows, stats = measured(cfg, "io_native", series, _IO_ROW,
                           lambda way, op, _, mbs: (f"{way} {op}", float(mbs)))
    write_csv(out_path(out, "io.csv"), ("series", "rep", "way", "operation", "bytes", "MB/s"), rows)
    get = lambda name, op: stats.get((name, op), Stat([]))  # noqa: E731
    table = markdown_table(
        ("operation", *(n for n, *_ in series), "linux64 / its stream", "QEMU / its stream",
         "linux64 / openmpi"),
        [(op, *(get(n, op).text(1, 1) for n, *_ in series),
          ratio(get("tessera-linux64", op), get("tessera-linux64", "stream " + op.split()[1])),
          ratio(get("tessera-qemu", op), get("tessera-qemu", "stream " + op.split()[1])),
          ratio(get("tessera-linux64", op), get("openmpi", op))) for op in IO_OPS])
    side = cfg.io_side
    return [("MPI-IO",
             f"What: MPI-IO's bandwidth on a {side} x {side} array of doubles "
             f"({size_label(side * side * 8)}), block-distributed over a 2-D grid of {IO_NP} processes "
             "(each block a subarray view of one file), against the file system's streaming rate. How: "
             "`io_native` (bench/native/io_native.c): stream, rank 0 alone writes (reads) the whole "
             "array in 1 MiB write()s (read()s) of the C library, on Tessera through the file server: "
             "its own streaming rate; independent, MPI_File_write (MPI_File_read), each process its "
             "block; collective, MPI_File_write_all (MPI_File_read_all), two-phase through one "
             "aggregator per cluster (docs/mpi-io.md); a figure is the whole array over the slowest "
             f"process's time, the median of 3 in a run, then of {cfg.reps} runs, in MB/s. "
             f"Columns: Tessera on linux64 and on QEMU ({IO_NP} processes, compact: two clusters), "
             "Open MPI (ROMIO over the host's file system, same host, same run). Reading: higher is "
             "better; a ratio to the stream above 1: MPI-IO moves the array faster than one process "
             "streaming it.", table, None)]


EXPERIMENTS = {"mapping": mapping, "weak": weak, "p2p": p2p, "stream": stream, "native": native, "rma": rma,
               "mppa": mppa, "files": files, "io": io}

SUMMARY_SIZES = (8, 512, 4096, 65536, 1 << 20)  # the ping-pong sizes the summary shows


def summary_section(cfg):
    """Processes against threads, from what weak and p2p left in
    cfg.summary: None when neither ran."""
    tables = []
    if "pingpong" in cfg.summary:
        got = [(b, r, fastest) for b, r, fastest in cfg.summary["pingpong"] if b in SUMMARY_SIZES]
        tables.append(markdown_table(("ping-pong inside a cluster", *(size_label(b) for b, *_ in got)),
                                     [("proc/thr", *(r for _, r, _ in got)),
                                      ("proc/thr, fastest runs", *(f for *_, f in got))]))
    if "apps" in cfg.summary:
        extra = dict(cfg.summary.get("memory", []))
        tables.append(markdown_table(
            ("app", *(f"{c} cluster{'s' if c > 1 else ''} ({SLOTS * c})" for c in cfg.clusters),
             "KiB per extra rank"),
            [(app, *(cfg.summary["apps"][app, c] for c in cfg.clusters), memory_text(extra.get(app)))
             for app in cfg.weak]))
    if not tables:
        return None
    return ("Processes against threads",
            "LWMPI with each rank a process of its own (`--ranks processes`) over LWMPI with the "
            "ranks of a cluster as threads of one process (`--ranks threads`), each pair measured in "
            "the same run: the one-way time of the ping-pong inside one cluster (from "
            "Point-to-point) and the time of fn, gf and km with 4 ranks per cluster (from Weak "
            "scaling), as far as those experiments ran. Above 1: ranks as processes are slower. "
            "The ping-pong's fastest runs: the ratio of each series' fastest run (QEMU runs a boot "
            "in a fast or a slow mode, which can sway a median of few runs). "
            "KiB per extra rank: what each rank beyond a cluster's first costs as a process rather "
            "than a thread, at 4 clusters (from Ranks as processes: memory).",
            "\n\n".join(tables), None)


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
    parser.add_argument("--trace", action="store_true",
                        help="also one traced run of each app (mpirun --trace)")
    opts = parser.parse_args()
    cfg = Config(opts.quick)
    t0 = time.monotonic()
    sections = []
    try:
        for name in opts.only or EXPERIMENTS:
            print(f"bench: {name}", flush=True)
            got = EXPERIMENTS[name](cfg, opts.out)
            sections += got if isinstance(got, list) else [got]
        if opts.trace:
            print("bench: traces", flush=True)
            sections.append(traces(cfg, opts.out))
    except Failure as e:
        print(f"bench: FAILED: {e}", file=sys.stderr)
        return 1
    summary = summary_section(cfg)
    if summary:
        sections.append(summary)
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
