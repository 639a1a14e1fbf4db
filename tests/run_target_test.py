#!/usr/bin/python3
"""The driver of the on-target tests of tests/target_tests.toml:
`run_target_test.py NAME` runs the test NAME's jobs through tools/mpirun on
$TESSERA_PLATFORM's build and checks their output (CTest runs it so, with
tools/ on PYTHONPATH); --cmake prints their CTest registration. The code:
tools/tessera/target_tests.py."""
from tessera.entry import run
from tessera.target_tests import main

run(main)
