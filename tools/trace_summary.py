#!/usr/bin/python3
"""trace_summary.py: sums up a trace of mpirun --trace FILE
(`tools/trace_summary.py --help`; the code: tools/tessera/trace_summary.py)."""
from tessera.entry import run
from tessera.trace_summary import main

run(main)
