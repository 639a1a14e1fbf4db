#!/usr/bin/python3
"""mkimage.py: builds the images (or linux64 payloads) of a job and prints
how to boot them (`tools/mkimage.py --help`; the code:
tools/tessera/mkimage.py)."""
from tessera.entry import run
from tessera.mkimage import main

run(main)
