"""Figures into files for `make bench` (bench/run_bench.py): medians and
spreads of repeated measurements, CSV files, Markdown tables and PNG plots
(matplotlib, Debian's python3-matplotlib)."""
import csv
import os
import statistics

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


class Stat:
    """The median of repeated values and their spread (min, max)."""

    def __init__(self, values):
        self.values = sorted(values)
        self.median = statistics.median(self.values) if self.values else None
        self.min = self.values[0] if self.values else None
        self.max = self.values[-1] if self.values else None

    def text(self, scale=1.0, digits=1):
        """'median (min-max)' in value/scale units, or '-' without values."""
        if self.median is None:
            return "-"
        m = f"{self.median / scale:.{digits}f}"
        if len(self.values) == 1:
            return m
        return f"{m} ({self.min / scale:.{digits}f}-{self.max / scale:.{digits}f})"


def ratio(a, b, digits=2):
    """a/b of two Stats' medians as text, '-' when either is missing."""
    if a.median is None or not b.median:
        return "-"
    return f"{a.median / b.median:.{digits}f}"


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def markdown_table(header, rows):
    """A Markdown table; the first column left-aligned, the others right."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def size_label(n):
    """1, 512 B, 4 KiB, 1 MiB..."""
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} B"


def line_plot(path, title, xlabel, ylabel, series, logx=False, logy=False, xticks=None):
    """series: [(label, xs, Stats)]; medians as lines, the spread as error
    bars."""
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for label, xs, stats in series:
        pts = [(x, s) for x, s in zip(xs, stats) if s.median is not None]
        if not pts:
            continue
        x = [p[0] for p in pts]
        med = [p[1].median for p in pts]
        err = [[p[1].median - p[1].min for p in pts], [p[1].max - p[1].median for p in pts]]
        ax.errorbar(x, med, yerr=err, marker="o", capsize=3, label=label)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    if xticks:
        ax.set_xticks(xticks[0], xticks[1])
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    # Outside the axes, on the right: inside, it hid data points.
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def out_path(folder, name):
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)
