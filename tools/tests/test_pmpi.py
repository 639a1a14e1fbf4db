#!/usr/bin/python3
"""Unit tests of tools/tessera/pmpi.py, which generates LWMPI's profiling
interface from mpi.h: on a small header written here, and on the tree's
mpi.h. No build needed."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tessera import REPO
from tessera import pmpi

HEADER = r"""
#ifndef X_H
#define X_H
#define MPI_THING(a, b) \
    int MPI_Not_this(a, b);
#ifdef __cplusplus
extern "C" {
#endif
typedef struct MPI_Status { int MPI_SOURCE; /* int MPI_Commented(void); */ } MPI_Status;
typedef int MPI_Copy_function(int oldcomm, void *extra);   /* a type, not a function */
// int MPI_Line_comment(void);
int MPI_Send(const void *buf, int count,
             int datatype);
double MPI_Wtime(void);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
int MPI_COMM_DUP_FN(int oldcomm, void *extra);
extern MPI_Fint *const MPI_F_STATUS_IGNORE;
extern int MPI_Extern(void);
LWMPI_DEPRECATED("MPI_Get_address") int MPI_Address(void *location, MPI_Aint *address);
LWMPI_DEPRECATED("MPI_Comm_create_keyval")
int MPI_Keyval_create(MPI_Copy_function *copy_fn, int *keyval);
#ifdef __cplusplus
}
#endif
#endif
"""


class Functions(unittest.TestCase):
    def test_every_function_and_nothing_else(self):
        self.assertEqual(pmpi.functions(HEADER), [
            ("MPI_Send", "int PMPI_Send(const void *buf, int count, int datatype)"),
            ("MPI_Wtime", "double PMPI_Wtime(void)"),
            ("MPI_Aint_add", "MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)"),
            ("MPI_Extern", "extern int PMPI_Extern(void)"),
            ("MPI_Address",
             'LWMPI_DEPRECATED("MPI_Get_address") int PMPI_Address(void *location, MPI_Aint *address)'),
            ("MPI_Keyval_create", 'LWMPI_DEPRECATED("MPI_Comm_create_keyval") '
                                  "int PMPI_Keyval_create(MPI_Copy_function *copy_fn, int *keyval)"),
        ])

    def test_outputs(self):
        found = pmpi.functions(HEADER)
        self.assertIn("double PMPI_Wtime(void);\n", pmpi.prototypes(found))
        self.assertIn("#define MPI_Wtime PMPI_Wtime\n", pmpi.rename(found))
        self.assertIn("#define LWMPI_PMPI_H\n", pmpi.rename(found))   # mpi.h declares PMPI_ itself
        weak = pmpi.weak(found)
        self.assertIn("\t.weak MPI_Send\n", weak)
        self.assertIn("MPI_Send:\n\tLWMPI_JUMP PMPI_Send\n", weak)
        self.assertIn('\t.section .text.MPI_Send,"ax",@progbits\n', weak)
        self.assertNotIn("MPI_COMM_DUP_FN", weak + pmpi.rename(found))

    def test_the_trees_mpi_h(self):
        """Every MPI_ function of the real header, the conversions and
        MPI_Wtick included, once each."""
        with open(os.path.join(REPO, "libmpi", "include", "mpi.h")) as f:
            names = [name for name, _ in pmpi.functions(f.read())]
        self.assertEqual(len(names), len(set(names)))
        for name in ("MPI_Init", "MPI_Send", "MPI_Wtick", "MPI_Comm_f2c", "MPI_Status_c2f",
                     "MPI_Message_c2f", "MPI_Type_struct", "MPI_File_open"):
            self.assertIn(name, names)
        self.assertGreater(len(names), 300)


class Command(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pmpi-test-")
        self.addCleanup(shutil.rmtree, self.dir)

    def run_pmpi(self, header):
        path = os.path.join(self.dir, "mpi.h")
        with open(path, "w") as f:
            f.write(header)
        return subprocess.run([sys.executable, pmpi.__file__, path, os.path.join(self.dir, "out")],
                              capture_output=True, text=True)

    def test_writes_the_three_files_and_leaves_them_when_unchanged(self):
        self.assertEqual(self.run_pmpi(HEADER).returncode, 0)
        files = [os.path.join(self.dir, "out", name)
                 for name in ("include/lwmpi_pmpi.h", "lwmpi_pmpi_rename.h", "lwmpi_mpi_weak.S")]
        stamps = [os.stat(f).st_mtime_ns for f in files]
        os.utime(files[0], ns=(1, 1))
        self.assertEqual(self.run_pmpi(HEADER).returncode, 0)
        self.assertEqual(os.stat(files[0]).st_mtime_ns, 1)   # not rewritten
        self.assertEqual([os.stat(f).st_mtime_ns for f in files[1:]], stamps[1:])

    def test_a_header_without_functions_fails(self):
        p = self.run_pmpi("typedef int MPI_Comm;\n")
        self.assertEqual(p.returncode, 1)
        self.assertIn("declares no MPI_ function", p.stderr)


if __name__ == "__main__":
    unittest.main()
