"""A build killed with SIGKILL at any moment leaves docs/ and site/ as they were, or
as a complete new build: never a mix, and nothing the next build trips over.

The kill is deterministic: the build runs as ``python -m generator build`` in a child
process whose ``sitecustomize`` (put first on ``PYTHONPATH``) wraps one function and
sends the process SIGKILL from inside it at the chosen moment. The data is edited
before the killed build, so the old and the new output differ and a mix would show.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, make_project, replace_in

from generator.pipeline import Project, build
from generator.publish.swap import JOURNAL

HOOK = """
import os, signal

_point = os.environ.get("GPU_GUIDE_KILL_AT", "")
_count = [0]


def _hit(n):
    _count[0] += 1
    if _count[0] >= n:
        os.kill(os.getpid(), signal.SIGKILL)


if _point:
    _kind, _n = _point.split(":")
    _n = int(_n)
    if _kind == "write":  # after the n-th file written into the docs staging folder
        import generator.publish.swap as _st

        _orig_write = _st.write_file

        def _write(root, rel, data, **kw):
            result = _orig_write(root, rel, data, **kw)
            if ".docs-staging-" in str(root):
                _hit(_n)
            return result

        _st.write_file = _write
    elif _kind == "page":  # after MkDocs wrote the n-th page into the site staging folder
        import mkdocs.commands.build as _mb

        _orig_page = _mb._build_page

        def _page(*args, **kwargs):
            result = _orig_page(*args, **kwargs)
            _hit(_n)
            return result

        _mb._build_page = _page
    elif _kind in ("swap", "preswap"):  # before / after the n-th folder swap
        import generator.publish.swap as _out

        _orig_swap = _out.swap_in

        def _swap(new, target):
            if _kind == "preswap":
                _hit(_n)
            result = _orig_swap(new, target)
            if _kind == "swap":
                _hit(_n)
            return result

        _out.swap_in = _swap

# Ctrl-C at a chosen moment: SIGINT to itself, as the terminal would send it.
_int = os.environ.get("GPU_GUIDE_INT_AT", "")
if _int:

    def _interrupt():
        os.kill(os.getpid(), signal.SIGINT)

    if _int == "parser":  # while the command line is being read
        import generator.cli.main as _cli

        _orig_parser = _cli.build_parser

        def _parser():
            _interrupt()
            return _orig_parser()

        _cli.build_parser = _parser
    elif _int == "evaluate":  # data loaded, nothing staged yet
        import generator.pipeline as _pl

        _orig_evaluate = _pl.evaluate

        def _evaluate(cat, *rest):  # rest: serve's memo (generator.pipeline.Warm), None in a build
            _interrupt()
            return _orig_evaluate(cat, *rest)

        _pl.evaluate = _evaluate
    elif _int == "page":  # MkDocs half-way through the site staging folder
        import mkdocs.commands.build as _mb

        _orig_page_int = _mb._build_page
        _pages = [0]

        def _page_int(*args, **kwargs):
            result = _orig_page_int(*args, **kwargs)
            _pages[0] += 1
            if _pages[0] == 5:
                _interrupt()
            return result

        _mb._build_page = _page_int
    elif _int == "swap":  # right after docs/ is swapped in, before site/
        import generator.publish.swap as _st

        _orig_swap_int = _st.swap_in
        _swaps = [0]

        def _swap_int(new, target):
            result = _orig_swap_int(new, target)
            _swaps[0] += 1
            if _swaps[0] == 1:
                _interrupt()
            return result

        _st.swap_in = _swap_int
"""


def digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def state(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    return digest(root / "docs"), digest(root / "site")


def edit(data: Path) -> None:
    replace_in(data / "offers.yaml", "price: 2\n", "price: 2.5\n")


def leftovers(root: Path) -> list[str]:
    return sorted(
        p.name
        for p in root.iterdir()
        if "-staging-" in p.name or p.name.startswith((JOURNAL, ".docs-old", ".site-old"))
    )


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A built mini project (the old state) and the state a complete build of the edited data gives."""
    base = tmp_path_factory.mktemp("atomic")
    old = make_project(base / "old")
    build(Project.at(old))
    new = make_project(base / "new", edit)
    build(Project.at(new))
    hook = base / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
    return {"old": old, "new": new, "hook": hook}


def killed_build(root: Path, hook: Path, point: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GPU_GUIDE_KILL_AT=point, PYTHONPATH=os.pathsep.join([str(hook), str(REPO)]))
    return subprocess.run(
        [sys.executable, "-m", "generator", "--root", str(root), "build"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def copy_old(states: dict[str, Path], dest: Path) -> Path:
    root = dest / "proj"
    shutil.copytree(states["old"], root, symlinks=True)
    edit(root / "data")
    return root


@pytest.mark.parametrize(
    "point",
    [
        "write:12",  # staging docs: most pages written
        "page:7",  # MkDocs: most pages written
        "preswap:1",  # everything staged, journal written, nothing swapped yet
    ],
)
def test_kill_leaves_the_old_output(states: dict[str, Path], tmp_path: Path, point: str) -> None:
    root = copy_old(states, tmp_path)
    before = state(root)
    assert before == state(states["old"]) != state(states["new"])
    proc = killed_build(root, states["hook"], point)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stderr)
    assert state(root) in (before, state(states["new"])), "docs/ and site/ are a mix"
    if not point.startswith("preswap"):
        assert state(root) == before
    # The next build cleans up after the killed one and gives the complete new output.
    build(Project.at(root))
    assert state(root) == state(states["new"])
    assert leftovers(root) == []


@pytest.mark.parametrize("point", ["swap:1", "swap:2"])
def test_kill_between_or_after_the_swaps_is_finished_by_the_next_build(
    states: dict[str, Path], tmp_path: Path, point: str
) -> None:
    root = copy_old(states, tmp_path)
    proc = killed_build(root, states["hook"], point)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stderr)
    if point == "swap:2":
        assert state(root) == state(states["new"])  # both swapped; only the clean-up was lost
    else:
        # docs/ swapped, site/ not: two folders cannot change in one system call. The
        # journal names the complete staged site/, and the next build puts it in place
        # before anything else (even a --no-site build).
        assert (root / JOURNAL).is_file()
        assert digest(root / "docs") == state(states["new"])[0]
    build(Project.at(root), site=False)
    assert state(root) == state(states["new"])
    assert leftovers(root) == []


def test_kill_with_unchanged_input_leaves_identical_bytes(states: dict[str, Path], tmp_path: Path) -> None:
    root = tmp_path / "proj"
    shutil.copytree(states["old"], root, symlinks=True)
    before = state(root)
    proc = killed_build(root, states["hook"], "page:3")
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert state(root) == before
    assert any(p.name.startswith(".site-staging-") for p in root.iterdir())  # the kill left its staging behind
    build(Project.at(root))
    assert state(root) == before
    assert leftovers(root) == []


def test_staging_of_a_live_build_is_kept(states: dict[str, Path], tmp_path: Path) -> None:
    """Only a dead builder's staging folders are removed: one with a live pid stays."""
    root = tmp_path / "proj"
    shutil.copytree(states["old"], root, symlinks=True)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        keep = root / f".site-staging-{live.pid}-abc"
        keep.mkdir()
        dead = root / ".docs-staging-999999999-abc"
        dead.mkdir()
        build(Project.at(root), site=False)
        assert keep.is_dir() and not dead.exists()
    finally:
        live.kill()
        live.wait()


def interrupted_build(root: Path, hook: Path, point: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GPU_GUIDE_INT_AT=point, PYTHONPATH=os.pathsep.join([str(hook), str(REPO)]))
    return subprocess.run(
        [sys.executable, "-m", "generator", "--root", str(root), "build"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("point", "message", "result"),
    [
        ("parser", "Interrupted; nothing was written.\n", "old"),
        ("evaluate", "Interrupted; nothing was written.\n", "old"),
        ("page", "Interrupted; docs/ and site/ are unchanged.\n", "old"),
        # Ctrl-C between the two swaps waits for the second: never docs/ of one build and site/ of another.
        ("swap", "Interrupted; docs/ and site/ were updated; only the clean-up was cut short.\n", "new"),
    ],
)
def test_ctrl_c_says_what_really_happened(
    states: dict[str, Path], tmp_path: Path, point: str, message: str, result: str
) -> None:
    """Issue 10: Ctrl-C early printed a traceback, and just after the swaps said "unchanged"."""
    root = copy_old(states, tmp_path)
    proc = interrupted_build(root, states["hook"], point)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", message)
    assert state(root) == state(states[result])
    assert leftovers(root) == []


def test_ctrl_c_while_the_command_line_is_imported_prints_one_line(tmp_path: Path) -> None:
    """Importing the generator takes a moment before main()'s handler exists: the console script
    (generator.cli.entry) imports it inside its own guard. A finder that raises KeyboardInterrupt
    when generator.cli.main is imported stands in for the key press."""
    script = (
        "import sys\n"
        "class Press:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'generator.cli.main':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Press())\n"
        "from generator.cli.entry import main\n"
        "sys.exit(main(['check']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "Interrupted; nothing was written.\n")
