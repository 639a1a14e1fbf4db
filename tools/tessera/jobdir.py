"""The job's folder: where the ranks' files live on the host while a job
runs (mpirun --stage).

The file server on I/O cluster 0 serves the ranks the files of one host
folder: QEMU runs in it (semihosting opens paths relative to QEMU's working
folder), and so does every linux64 cluster process. mpirun makes it fresh
for each job, copies the staged files and folders into it under their own
base names, and once the job has ended (whatever its status) copies every
file the ranks created or changed back into its own working folder, under
the same relative path (a file of that name there is replaced: a job's
output wins), then removes the folder. Standard library only.
"""
import os
import shutil
import tempfile

from tessera.profile import ToolError


def make(stage=(), programs=()):
    """A fresh job folder with every path of `stage` (files or folders)
    copied in under its base name, and every (name, path) of `programs`
    (the job's executables under their argv[0]) copied in under `name`
    unless a staged path has that name; returns its path. So a rank may
    open argv[0], as a program on Linux opens the file it was started
    from. Symbolic links are followed: the ranks see what they point to.
    Raises ToolError for a path that does not exist, two staged paths with
    one base name, or what cannot be copied (naming it: a link to nothing,
    a link to a folder that holds it, an unreadable file)."""
    names = {}
    for path in stage:
        name = os.path.basename(os.path.normpath(path))
        if not os.path.exists(path) or name in ("", ".", ".."):
            raise ToolError(f"--stage {path}: no such file or folder")
        if name in names:
            raise ToolError(f"--stage {path}: {names[name]} is staged under the same name '{name}'")
        names[name] = path
    for name, path in programs:
        names.setdefault(name, path)
    folder = tempfile.mkdtemp(prefix="tessera-files-")
    try:
        for name, path in names.items():
            _copy(path, os.path.join(folder, name), frozenset())
    except ToolError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def _copy(src, dst, holders):
    """Copies the file or folder src to dst, following symbolic links.
    holders: the real paths of the folders being copied that hold src (a
    link back to one of them would be copied without end)."""
    if os.path.islink(src) and not os.path.exists(src):
        raise ToolError(f"--stage: cannot copy {src}: a symbolic link to nothing "
                        f"({os.readlink(src)})")
    if not os.path.isdir(src):
        try:
            shutil.copy2(src, dst)
        except OSError as e:
            raise ToolError(f"--stage: cannot copy {src}: {e.strerror or e}") from None
        return
    real = os.path.realpath(src)
    if real in holders:
        raise ToolError(f"--stage: cannot copy {src}: a symbolic link to a folder that holds it "
                        f"({real}), which would be copied without end")
    try:
        os.mkdir(dst)
        entries = sorted(os.listdir(src))
    except OSError as e:
        raise ToolError(f"--stage: cannot copy {src}: {e.strerror or e}") from None
    for entry in entries:
        _copy(os.path.join(src, entry), os.path.join(dst, entry), holders | {real})


def snapshot(folder):
    """{relative path: (size, mtime in ns)} of every file in folder."""
    seen = {}
    for top, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(top, name)
            st = os.stat(path)
            seen[os.path.relpath(path, folder)] = (st.st_size, st.st_mtime_ns)
    return seen


def changed(folder, before):
    """The relative paths of the files of folder that are new or changed
    since `before` (a snapshot), sorted."""
    return sorted(path for path, state in snapshot(folder).items() if before.get(path) != state)


def collect(folder, before, dest):
    """Copies the files changed in folder since `before` into dest, under
    the same relative paths (replacing what is there; a folder in the way
    of a file is left alone and reported). Returns (copied paths, [(path,
    reason) not copied])."""
    copied, failed = [], []
    for rel in changed(folder, before):
        target = os.path.join(dest, rel)
        try:
            os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
            if os.path.isdir(target):
                raise IsADirectoryError(0, "a folder of that name is in the way")
            shutil.copy2(os.path.join(folder, rel), target)
            copied.append(rel)
        except OSError as e:
            failed.append((rel, e.strerror))
    return copied, failed


def remove(folder):
    """Removes the job folder and everything in it."""
    shutil.rmtree(folder, ignore_errors=True)
