"""The write lock covers what a build reads and every way of writing ``site/`` (issue 23).

On main ``gpu-guide build`` read ``data/`` before it took the lock, so a build slowed after
reading swapped in pages from the old data after ``serve`` or ``edition`` had written new
ones; and a plain ``mkdocs build`` took no lock at all and wrote ``site/`` in place while
``gpu-guide build`` ran, leaving a site mixed from two data sets.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from test_security import hold_lock, tree

from generator import pipeline
from generator.cli.main import main
from generator.data.catalogue import Catalogue
from generator.data.problems import Problem
from generator.publish.lock import LOCK_FILE


def lock_is_held(root: Path) -> bool:
    """True when some open file holds the project's lock (tried from a second open file)."""
    fd = os.open(root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


# ``project``: a copy of the built mini project (tests/conftest.py).


def test_build_reads_the_data_under_the_lock(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every data file is read while the build holds the lock, so no other writer can change
    data/ between what the build read and what it swaps in."""
    seen: list[bool] = []
    real = pipeline.load_catalogue  # type: ignore[attr-defined]

    def reading(data: Path, **kw: Any) -> tuple[Catalogue | None, list[Problem]]:
        seen.append(lock_is_held(project))
        return real(data, **kw)

    monkeypatch.setattr(pipeline, "load_catalogue", reading)
    assert main(["--root", str(project), "build", "--no-site"]) == 0
    capsys.readouterr()
    assert seen == [True]
    assert not lock_is_held(project)  # and released afterwards


def mkdocs_build(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml")],
        cwd=root, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_plain_mkdocs_build_refuses_while_gpu_guide_writes(project: Path) -> None:
    """The gpu-guide MkDocs plugin takes the same lock; held by another writer, it refuses
    before MkDocs empties or writes ``site/``."""
    (project / "site").mkdir()
    (project / "site" / "index.html").write_text("the published site\n")
    before = tree(project / "site")
    holder = hold_lock(project)
    try:
        done = mkdocs_build(project)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 1, done.stderr
    assert (
        f"gpu-guide process {holder.pid} is writing docs/ and site/ in {project}; try again when it has finished "
        "(`mkdocs build` does not wait; nothing was written)"
    ) in done.stderr
    assert tree(project / "site") == before


def test_plain_mkdocs_build_takes_and_releases_the_lock(project: Path) -> None:
    done = mkdocs_build(project)
    assert done.returncode == 0, done.stderr
    assert (project / "site" / "index.html").is_file()
    assert not lock_is_held(project)
    # gpu-guide's own build runs MkDocs in-process while holding the lock: it does not refuse itself.
    assert main(["--root", str(project), "build"]) == 0
