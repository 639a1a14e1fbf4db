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
    "libmpi/mpi/comm.cpp": '#include <mpi.h>\n#include <tessera/runtime.h>\n',
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

    def test_allowed_includes_pass(self):
        self.assertEqual(problems({"kernel/main.cpp": '#include "kernel.hpp"\n#include <string.h>\n'}),
                         [])


if __name__ == "__main__":
    unittest.main()
