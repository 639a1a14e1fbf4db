"""Tessera's tools as a Python package: the image builder, mpirun, mpicc,
the trace converter, the layer check, and what the tests share.

The commands users run are small scripts in tools/ (mpirun, mpiexec,
mpicc, mpicxx, mkimage.py, trace_summary.py, check_layers.py, tidy.py): Python puts
a script's own folder, tools/, first on its path, so they import this
package from any current folder. Tests and other scripts get tools/ on
PYTHONPATH (CTest sets it; by hand: PYTHONPATH=tools python3 TEST.py from
the repository's root).
"""
import os

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)
