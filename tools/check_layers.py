#!/usr/bin/python3
"""check_layers.py: checks that every #include respects the layers
(`tools/check_layers.py --help`; the code: tools/tessera/check_layers.py)."""
from tessera.check_layers import main
from tessera.entry import run

run(main)
