#!/usr/bin/python3
"""On-target test of the console: console_test on 8 ranks, two per compute
cluster (on different cores), each writing its
lines in small pieces at the same time. Every line must come out whole and
in its rank's order; with --tag-output, prefixed with the rank that wrote
it ("[rank R] "), from the start (the kernel names a rank's process, or
in threads mode the runtime tags a rank's thread)."""
import collections
import re
import unittest

from tessera.testing import mpirun

NP = 8
LINES = 100     # console_test's short lines per rank
WORDS = 8       # the rank's number on each short line
LONG = 600      # console_test's long line
LINE_MAX = 232  # kernel/console.cpp cuts longer lines into pieces of this

PREFIX = re.compile(r"\[(rank|cluster) (\d+)\] ")
BEFORE_INIT = re.compile(r"rank (\d+) cluster (\d+): before MPI_Init$")
SHORT = re.compile(r"rank (\d+) line (\d+):((?: \d+)*)$")
LETTERS = re.compile(r"([a-z])\1*$")
LAST = re.compile(r"rank (\d+): last words$")


class Output:
    """console_test's output, line by line: who wrote what, and any line
    that is not one of console_test's lines, whole and correctly
    prefixed (`bad`)."""

    def __init__(self, text, tagged):
        self.tagged = tagged
        self.clusters_before_init = []
        self.short = collections.defaultdict(list)  # rank -> line numbers
        self.long = collections.defaultdict(list)   # rank -> piece lengths
        self.last = []
        self.bad = []
        for line in text.splitlines():
            if not self.take(line):
                self.bad.append(line)

    def take(self, line):
        """True when line is one of console_test's, with the right prefix."""
        prefix = None
        if self.tagged:
            m = PREFIX.match(line)
            if not m:
                return False
            prefix, line = (m.group(1), int(m.group(2))), line[m.end():]
        if m := BEFORE_INIT.match(line):
            self.clusters_before_init.append(int(m.group(2)))
            return prefix in (None, ("rank", int(m.group(1))))
        if m := SHORT.match(line):
            rank = int(m.group(1))
            self.short[rank].append(int(m.group(2)))
            return m.group(3) == f" {rank}" * WORDS and prefix in (None, ("rank", rank))
        if m := LETTERS.match(line):
            rank = ord(m.group(1)) - ord("a")
            self.long[rank].append(len(line))
            return prefix in (None, ("rank", rank))
        if m := LAST.match(line):
            rank = int(m.group(1))
            self.last.append(rank)
            return prefix in (None, ("rank", rank))
        return False


class ConsoleTest(unittest.TestCase):
    longMessage = False  # a failed assertion shows the program's output, once

    def check(self, *options):
        rc, out = mpirun("-np", str(NP), "--map-by", "scatter", "--timeout", "120", *options,
                         "console_test", str(LINES))
        self.assertEqual(rc, 0, out)
        o = Output(out, tagged="--tag-output" in options)
        self.assertEqual(o.bad, [], out)
        self.assertEqual(len(o.clusters_before_init), NP, out)
        for rank in range(NP):
            self.assertEqual(o.short[rank], list(range(LINES)), out)
            pieces = [LINE_MAX] * (LONG // LINE_MAX) + [LONG % LINE_MAX]
            self.assertEqual(o.long[rank], pieces, out)
        self.assertEqual(sorted(o.last), list(range(NP)), out)

    def test_lines_are_whole(self):
        self.check()

    def test_tag_output_prefixes_each_line_with_its_rank(self):
        self.check("--tag-output")


if __name__ == "__main__":
    unittest.main()
