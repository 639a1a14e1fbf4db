#!/usr/bin/python3
"""tidy.py: clang-tidy (.clang-tidy) over Tessera's builds, the cross
builds included (`tools/tidy.py --help`; the code: tools/tessera/tidy.py)."""
from tessera.tidy import main
from tessera.entry import run

run(main)
