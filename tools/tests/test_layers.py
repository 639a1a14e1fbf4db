#!/usr/bin/python3
"""Unit tests of tools/check_layers.py: the real tree keeps its layers, and
a tree that breaks them in each way the check knows is refused."""
import contextlib
import io
import os
import tempfile
import unittest

from toolsupport import REPO
from tessera.check_layers import Checker, main


def tree(files):
    """A temporary source tree with the given {path: text}."""
    d = tempfile.TemporaryDirectory()
    for path, text in files.items():
        full = os.path.join(d.name, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return d


# A tree whose layers are kept: every later case adds one include to it.
BASE = {
    "include/tessera/syscall.h": "#include <stdint.h>\n",
    "hal/include/hal/hal.hpp": "#include <tessera/syscall.h>\n",
    "kernel/core/include/kernel/core.hpp": '#include "hal/hal.hpp"\n',
    "ikc/include/ikc/ikc.hpp": '#include "kernel/core.hpp"\n',
    "ikc/virtual.hpp": '#include "ikc/ikc.hpp"\n',
    "ikc/ikc.cpp": '#include "virtual.hpp"\n',
    "kernel/kernel.hpp": '#include "ikc/ikc.hpp"\n',
    "kernel/services/spawn.cpp": '#include "kernel.hpp"\n',
    "userland/runtime/include/tessera/runtime.h": "#include <tessera/syscall.h>\n",
    "libmpi/include/mpi.h": "",
    "libmpi/mpi/comm/comm.cpp": '#include <mpi.h>\n#include <tessera/runtime.h>\n',
    "libmpi/mpi/comm/comm.hpp": "#include <mpiutil/mpiutil.hpp>\n",
    "libmpi/mpi/pt2pt/request.hpp": '#include "comm/comm.hpp"\n',
    "libmpi/mpiutil/include/mpiutil/mpiutil.hpp": "#include <lwmpi/text.hpp>\n",
    "libmpi/mpiutil/pool.hpp": "",
    "libmpi/common/include/lwmpi/text.hpp": "",
    "userland/apps/hello/hello.c": "#include <mpi.h>\n#include <stdio.h>\n",
}


def problems(extra):
    files = dict(BASE)
    files.update(extra)
    with tree(files) as root:
        return Checker(root).run()[0]


class RealTree(unittest.TestCase):
    def test_repository_keeps_its_layers(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main(["--root", REPO])
        self.assertEqual(status, 0, out.getvalue())


class Refused(unittest.TestCase):
    def test_base_tree_is_clean(self):
        self.assertEqual(problems({}), [])

    def test_hal_including_the_kernel(self):
        p = problems({"hal/common/noc.cpp": '#include "../../kernel/core/include/kernel/core.hpp"\n'})
        self.assertEqual(len(p), 1)
        self.assertIn("hal/common/noc.cpp:1: hal includes kernel/core/include/kernel/core.hpp "
                      "of layer kcore, which is not below it", p[0])

    def test_core_including_ikc(self):
        p = problems({"kernel/core/kcall.cpp": '#include "ikc/ikc.hpp"\n'})
        self.assertEqual(len(p), 1)
        self.assertIn("of layer ikc, which is not below it", p[0])

    def test_kernel_side_including_the_user_side(self):
        p = problems({"kernel/syscall.cpp": "#include <tessera/runtime.h>\n"})
        self.assertEqual(len(p), 1)
        self.assertIn("of layer runtime", p[0])

    def test_runtime_including_lwmpi(self):
        p = problems({"userland/runtime/start.c": "#include <mpi.h>\n"})
        self.assertEqual(len(p), 1)
        self.assertIn("runtime includes libmpi/include/mpi.h of layer libmpi", p[0])

    def test_private_header_of_a_lower_layer(self):
        p = problems({"kernel/console.cpp": '#include "../ikc/virtual.hpp"\n'})
        self.assertEqual(len(p), 1)
        self.assertIn("a private header of layer ikc (its public ones: ikc/include)", p[0])

    def test_on_target_test_may_use_the_user_side(self):
        self.assertEqual(problems({"kernel/tests/fault_test.c":
                                   "#include <mpi.h>\n#include <tessera/runtime.h>\n"}), [])

    def test_kernel_side_system_headers_are_not_the_runtimes_standins(self):
        standin = {"userland/runtime/posix/sys/mman.h": ""}
        self.assertEqual(problems({**standin, "hal/arch/linux64/mmu.cpp": "#include <sys/mman.h>\n",
                                   "userland/runtime/mman.c": "#include <sys/mman.h>\n"}), [])
        # A quoted path into them is still an include of the runtime.
        p = problems({**standin, "hal/arch/linux64/mmu.cpp":
                      '#include "../../../userland/runtime/posix/sys/mman.h"\n'})
        self.assertEqual(len(p), 1)
        self.assertIn("of layer runtime", p[0])

    def test_lwmpi_room_including_a_higher_room(self):
        p = problems({"libmpi/mpi/comm/group.cpp": '#include "pt2pt/request.hpp"\n'})
        self.assertEqual(len(p), 1)
        self.assertIn("libmpi/mpi/comm/group.cpp:1: room comm includes libmpi/mpi/pt2pt/request.hpp "
                      "of room pt2pt, which is not below it", p[0])

    def test_lwmpi_include_loop(self):
        # Each file's own includes go down or sideways; together they loop.
        p = problems({"libmpi/mpi/env/errors.hpp": "",
                      "libmpi/mpi/env/errors.cpp": '#include "state.hpp"\n',
                      "libmpi/mpi/env/state.hpp": "",
                      "libmpi/mpi/env/state.cpp": '#include "errors.hpp"\n'})
        self.assertEqual(len(p), 1)
        self.assertIn("include loop in LWMPI: libmpi/mpi/env/errors -> libmpi/mpi/env/state -> "
                      "libmpi/mpi/env/errors", p[0])

    def test_libmpi_including_mpiutil_internals(self):
        p = problems({"libmpi/mpi/pt2pt/request.cpp": '#include "../../mpiutil/pool.hpp"\n'})
        self.assertEqual(len(p), 1)
        self.assertIn("pt2pt includes libmpi/mpiutil/pool.hpp, a private header of MPIUtil", p[0])

    def test_mpiutil_including_libmpi(self):
        p = problems({"libmpi/mpiutil/engine.cpp": '#include "../mpi/comm/comm.hpp"\n'})
        self.assertEqual(len(p), 1)
        self.assertIn("room mpiutil includes libmpi/mpi/comm/comm.hpp of room comm", p[0])

    def test_libmpi_file_outside_the_rooms(self):
        p = problems({"libmpi/mpi/flat.cpp": "#include <mpi.h>\n"})
        self.assertEqual(p, ["libmpi/mpi/flat.cpp: a file of LibMPI outside its rooms (libmpi/mpi/<room>/)"])

    def test_graph_shows_the_rooms(self):
        with tree(BASE) as root:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(main(["--root", root, "--graph"]), 0)
        self.assertRegex(out.getvalue(), r"pt2pt +-> comm\n")
        self.assertRegex(out.getvalue(), r"comm +-> mpiutil\n")

    def test_allowed_includes_pass(self):
        self.assertEqual(problems({"kernel/main.cpp": '#include "kernel.hpp"\n#include <string.h>\n'}),
                         [])


if __name__ == "__main__":
    unittest.main()
