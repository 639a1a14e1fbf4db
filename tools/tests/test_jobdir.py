#!/usr/bin/python3
"""Unit tests of the job folder (tools/tessera/jobdir.py): staging, what
counts as the job's output, and copying it back."""
import os
import shutil
import tempfile
import time
import unittest
from unittest import mock

from tessera import jobdir
from tessera.profile import ToolError


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


class JobDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.src = os.path.join(self.tmp, "src")
        write(os.path.join(self.src, "in.txt"), "input")
        write(os.path.join(self.src, "data", "a.txt"), "a")
        write(os.path.join(self.src, "data", "deep", "b.txt"), "b")

    def make(self, *stage):
        folder = jobdir.make([os.path.join(self.src, s) for s in stage])
        self.addCleanup(jobdir.remove, folder)
        return folder

    def test_staged_under_base_names(self):
        folder = self.make("in.txt", "data/")
        self.assertEqual(read(os.path.join(folder, "in.txt")), "input")
        self.assertEqual(read(os.path.join(folder, "data", "deep", "b.txt")), "b")
        self.assertEqual(sorted(os.listdir(folder)), ["data", "in.txt"])
        self.assertEqual(os.listdir(self.make()), [])

    def test_programs_under_their_argv0(self):
        write(os.path.join(self.tmp, "bin", "app.elf"), "elf")
        app = os.path.join(self.tmp, "bin", "app.elf")
        folder = jobdir.make([], [("app", app)])
        self.addCleanup(jobdir.remove, folder)
        self.assertEqual(read(os.path.join(folder, "app")), "elf")
        # A staged path of that name wins.
        write(os.path.join(self.src, "app"), "staged")
        folder = jobdir.make([os.path.join(self.src, "app")], [("app", app)])
        self.addCleanup(jobdir.remove, folder)
        self.assertEqual(read(os.path.join(folder, "app")), "staged")

    def test_refused(self):
        with self.assertRaisesRegex(ToolError, "no such file or folder"):
            jobdir.make([os.path.join(self.src, "missing")])
        write(os.path.join(self.tmp, "other", "in.txt"), "x")
        with self.assertRaisesRegex(ToolError, "staged under the same name 'in.txt'"):
            jobdir.make([os.path.join(self.src, "in.txt"),
                                 os.path.join(self.tmp, "other", "in.txt")])

    def test_symbolic_links_are_followed(self):
        """Links to a folder and to a file, inside a staged folder: the
        ranks see what they point to."""
        os.symlink(os.path.join("data", "deep"), os.path.join(self.src, "deep_link"))
        os.symlink(os.path.join(self.src, "in.txt"), os.path.join(self.src, "data", "in_link"))
        folder = self.make(".")
        staged = os.path.join(folder, os.path.basename(self.src))
        self.assertEqual(read(os.path.join(staged, "deep_link", "b.txt")), "b")
        self.assertFalse(os.path.islink(os.path.join(staged, "deep_link")))
        self.assertEqual(read(os.path.join(staged, "data", "in_link")), "input")

    def test_links_that_cannot_be_copied_are_named(self):
        """A link to nothing, and a link to a folder that holds it: the
        error names the link, and no job folder is left behind."""
        nowhere = os.path.join(self.src, "data", "nowhere")
        loop = os.path.join(self.src, "data", "deep", "up")
        os.symlink("missing", nowhere)
        jobs = os.path.join(self.tmp, "jobs")      # where job folders are made
        os.mkdir(jobs)
        with self.assertRaises(ToolError) as e, mock.patch("tempfile.tempdir", jobs):
            jobdir.make([os.path.join(self.src, "data")])
        self.assertEqual(str(e.exception),
                         f"--stage: cannot copy {nowhere}: a symbolic link to nothing (missing)")
        os.remove(nowhere)
        os.symlink("..", loop)
        with self.assertRaises(ToolError) as e:
            jobdir.make([os.path.join(self.src, "data")])
        self.assertEqual(str(e.exception),
                         f"--stage: cannot copy {loop}: a symbolic link to a folder that holds it "
                         f"({os.path.realpath(os.path.join(self.src, 'data'))}), which would be "
                         f"copied without end")
        self.assertEqual(os.listdir(jobs), [])

    def test_only_new_and_changed_files_come_back(self):
        folder = self.make("in.txt", "data")
        before = jobdir.snapshot(folder)
        time.sleep(0.01)
        write(os.path.join(folder, "out.txt"), "new")
        write(os.path.join(folder, "data", "a.txt"), "changed")
        write(os.path.join(folder, "data", "new", "c.txt"), "c")
        os.remove(os.path.join(folder, "data", "deep", "b.txt"))
        self.assertEqual(jobdir.changed(folder, before),
                         ["data/a.txt", "data/new/c.txt", "out.txt"])
        dest = os.path.join(self.tmp, "cwd")
        write(os.path.join(dest, "out.txt"), "old")       # the job's output wins
        os.makedirs(os.path.join(dest, "data", "new", "c.txt"))  # a folder in the way
        copied, failed = jobdir.collect(folder, before, dest)
        self.assertEqual(copied, ["data/a.txt", "out.txt"])
        self.assertEqual([path for path, _ in failed], ["data/new/c.txt"])
        self.assertEqual(read(os.path.join(dest, "out.txt")), "new")
        self.assertEqual(read(os.path.join(dest, "data", "a.txt")), "changed")
        self.assertFalse(os.path.exists(os.path.join(dest, "in.txt")))
        jobdir.remove(folder)
        self.assertFalse(os.path.exists(folder))


if __name__ == "__main__":
    unittest.main()
