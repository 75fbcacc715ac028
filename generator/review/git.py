"""Read another edition's data straight from git objects, safely.

Only the data files a build reads (``data/*.yaml`` by their known names) are taken from
REF, as bytes, and written under fixed names in a temporary folder: a crafted tree entry
(``data/../../x``) or a symlink in REF can never choose where anything is written, and
nothing from REF runs (its templates, config and code are never read). The working tree
and the index are never touched.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

from generator.data.datafiles import DATA_FILES, OPTIONAL_FILES
from generator.pipeline import Project


class DiffError(Exception):
    """A one-line reason the comparison cannot be made, with its exit status and any details
    (the data problems at REF) to print before it (:mod:`generator.cli.review` prints them)."""

    def __init__(self, message: str, status: int, details: str | None = None):
        super().__init__(message)
        self.status = status
        self.details = details


def _git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, check=False)
    except OSError as exc:
        raise DiffError(f"cannot run git ({exc.strerror or exc})", 2) from None


def resolve_ref(root: Path, ref: str) -> str:
    """The full commit id REF names; DiffError (status 2) if it names none."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise DiffError(f"{root} is not inside a git repository; diff compares with a git ref.", 2)
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n"):
        raise DiffError(f"unknown git ref {ref!r}", 2)
    got = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if got.returncode != 0:
        raise DiffError(f"unknown git ref {ref!r}: no commit of that name in {root}", 2)
    return got.stdout.decode().strip()


def data_at_ref(project: Project, commit: str, ref: str, dest: Path) -> Project:
    """REF's data files copied under ``dest/data``; the returned project uses the working
    tree's templates and MkDocs config, so only REF's data is compared (and nothing of REF runs)."""
    top = Path(_git(project.root, "rev-parse", "--show-toplevel").stdout.decode().strip()).resolve()
    try:
        data_rel = project.data.resolve().relative_to(top).as_posix()
    except ValueError:
        raise DiffError(f"the data folder {project.data} is outside the git repository {top}", 2) from None
    folder = dest / "data"
    folder.mkdir(parents=True)
    missing = []
    for name in DATA_FILES:
        path = name if data_rel in ("", ".") else f"{data_rel}/{name}"
        blob = _regular_blob(top, commit, path)
        if blob is None:
            if name not in OPTIONAL_FILES:
                missing.append(path)
            continue
        (folder / name).write_bytes(blob)  # a fixed name: REF decides the bytes, never the place
    if missing:
        raise DiffError(
            f"{ref} lacks {', '.join(missing)}; a build needs every data file, so there is nothing to compare.", 1
        )
    return dataclasses.replace(project, root=dest, data=folder)


def _regular_blob(top: Path, commit: str, path: str) -> bytes | None:
    """The bytes of ``path`` at ``commit`` if it is a regular file there (not a link or folder)."""
    listing = _git(top, "ls-tree", "-z", commit, "--", path)
    if listing.returncode != 0:
        raise DiffError(f"cannot list files at {commit[:12]}: {listing.stderr.decode(errors='replace').strip()}", 2)
    entry = listing.stdout.split(b"\0")[0]
    if not entry:
        return None
    meta, _, name = entry.partition(b"\t")
    mode, kind, obj = meta.decode().split()
    if kind != "blob" or mode not in ("100644", "100755") or name.decode("utf-8", "replace") != path:
        return None
    got = _git(top, "cat-file", "blob", obj)
    if got.returncode != 0:
        raise DiffError(f"cannot read {path} from git: {got.stderr.decode(errors='replace').strip()}", 2)
    return got.stdout
