#!/usr/bin/python3
"""make crosscheck: the CAP Bench applications built from the same sources
with the system's MPI (Open MPI from Debian) and run on Linux must print
the same results (pairs, checksums, iterations) as on Tessera.

    crosscheck.py [--small] [--np N]

--small: the sizes of the `apps` tests (a few seconds each). Exits with 1
when a result differs or a run fails, with 2 when no system MPI is
installed (tools/setup.sh installs it).
"""
import argparse
import os
import sys

from tessera.capbench import APPS, ROOT, build_linux, linux_mpirun, run_linux, run_tessera
from tessera.mkimage import default_platform

# Arguments of each application: (small, default).
SIZES = {
    "fn": (("1", "3000"), ("1", "30000")),
    "gf": (("2", "64", "5"), ("8", "256", "7")),
    "km": (("600", "3", "5", "7"), ("4096", "4", "8", "1")),
    "a2a": (("4", "1"), ("8", "2")),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="small sizes (the tests')")
    parser.add_argument("--np", type=int, default=8, help="MPI processes (default 8)")
    opts = parser.parse_args()
    if not linux_mpirun():
        print("crosscheck: no system MPI (mpicc, mpirun); run tools/setup.sh", file=sys.stderr)
        return 2
    # One build folder per Tessera target: ctest runs the check on both at once.
    binaries = build_linux(os.path.join(ROOT, "out", f"crosscheck-{default_platform()}"))
    failed = 0
    print(f"{'app':4} {'arguments':16} {'Tessera (np %d, scatter)' % opts.np:44} Linux, Open MPI")
    for app in APPS:
        args = ["--verify", *SIZES[app][0 if opts.small else 1]]
        linux = run_linux(app, binaries[app], opts.np, args)
        tessera = run_tessera(app, opts.np, "scatter", args)
        same = linux.ok and tessera.ok and linux.result == tessera.result
        print(f"{app:4} {' '.join(args[1:]):16} {tessera.result or '-':44} {linux.result or '-'}"
              f"{'' if same else '   <- DIFFERENT'}")
        for where, run in (("Tessera", tessera), ("Linux", linux)):
            if not run.ok:
                print(f"  {where}: {run.describe()}\n{run.out}", file=sys.stderr)
        failed += not same
    print("crosscheck: " + (f"{failed} application(s) differ" if failed else "every result is the same"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
