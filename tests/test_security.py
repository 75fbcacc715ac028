"""Nothing outside the project folder is ever touched, whatever the working tree holds.

Each test reproduces one attack from issue 10 on a temporary copy of the mini fixture
project, with an ``outside`` folder next to it standing for the rest of the machine, and
checks that the attack is refused or harmless: the outside folder is unchanged byte for
byte (files, links and folders), the exit status and every message line are exact, and
a refused build leaves ``docs/`` as it was with no staging folder behind.

Covered here: manifest entries pointing outside ``docs/`` (absolute, ``..``, through a
link), symbolic links at or above a generated path, ``docs/`` or ``site/`` as a link, a
planted swap journal, a journal of a live process, two writers at once (the write lock,
with a second process), output folders the builder may not write (run without root's
override where the tests run as root), staging folders that cannot be removed,
and CSV cells that spreadsheets would run.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, make_project

from generator.cli.main import main
from generator.pages.open_data import _csv
from generator.pipeline import Project
from generator.publish.ownership import MANIFEST
from generator.publish.swap import JOURNAL

PLACEHOLDER_NOTE = (
    "note: site_url https://fixture.example.com/ is a placeholder; set the real domain in mkdocs.yml before "
    "publishing (`--production` refuses it).\n"
    # the mini's 2025 survey is past the 180-day window (outside git: judged against the newest price)
    "note: 1 price(s) older than 180 days on 2026-07-01 (newest price) are history and no longer rank: "
    "old-a100-survey\n"
)
#: every generated file of the mini fixture: its golden files (tests/golden/mini) plus the three SVG charts
_GOLDEN = Path(__file__).parent / "golden" / "mini"
_EXTRA = ["assets/charts/ladder.svg", "assets/charts/price-vs-tflops.svg", "assets/charts/memory-vs-bandwidth.svg"]
BUILT_NO_SITE = (
    f"Built {sum(1 for p in _GOLDEN.rglob('*') if p.is_file()) + len(_EXTRA)} generated files into docs/ "
    "(data as of 2026-07-01).\n"
)


# --------------------------------------------------------------------------- helpers


def tree(folder: Path) -> dict[str, object]:
    """Everything under ``folder``, without following links: file bytes, link targets, folders."""
    out: dict[str, object] = {}
    for here, dirs, files in os.walk(folder, followlinks=False):
        for name in dirs + files:
            path = Path(here) / name
            rel = path.relative_to(folder).as_posix()
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(mode):
                out[rel] = "folder"
            else:
                out[rel] = path.read_bytes()
    return out


def make_outside(base: Path) -> Path:
    """The rest of the machine: files the build must never change."""
    outside = base / "outside"
    (outside / "deep" / "er").mkdir(parents=True)
    (outside / "victim.txt").write_text("precious\n")
    (outside / "deep" / "er" / "file.txt").write_text("also precious\n")
    (outside / "ladder.md").write_text("an outside page\n")
    (outside / "page.md").write_text("outside page listed in the manifest\n")
    return outside


# ``project``: a copy of the built mini project (tests/conftest.py).


def run(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if "-staging-" in p.name or p.name.startswith(JOURNAL))


# --------------------------------------------------------------------------- the manifest


def test_manifest_entries_outside_docs_are_ignored_not_deleted(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 10, attack 1: '../../x' and absolute paths in docs/.generated.json were deleted,
    with the folders they emptied."""
    outside = make_outside(tmp_path)
    before = tree(outside)
    manifest = project / "docs" / MANIFEST
    body = json.loads(manifest.read_text(encoding="utf-8"))
    hostile = ["../outside/victim.txt", str(outside / "ladder.md"), "models/../../../outside/deep/er/file.txt"]
    body["files"] += hostile
    manifest.write_text(json.dumps(body), encoding="utf-8")
    (project / "docs" / "linked").symlink_to(outside)
    body["files"].append("linked/page.md")
    manifest.write_text(json.dumps(body), encoding="utf-8")

    code, out, err = run(project, capsys, "build", "--no-site")
    assert (code, out) == (0, BUILT_NO_SITE)
    assert err == (
        "gpu-guide: warning: docs/.generated.json lists '../outside/victim.txt', which is not a path inside docs/ "
        "(absolute or with '..'); ignored, nothing was deleted\n"
        f"gpu-guide: warning: docs/.generated.json lists '{outside / 'ladder.md'}', which is not a path inside "
        "docs/ (absolute or with '..'); ignored, nothing was deleted\n"
        "gpu-guide: warning: docs/.generated.json lists 'models/../../../outside/deep/er/file.txt', which is not a "
        "path inside docs/ (absolute or with '..'); ignored, nothing was deleted\n"
        "gpu-guide: warning: docs/.generated.json lists 'linked/page.md', but docs/linked is a symbolic link; "
        "ignored, nothing was deleted through it\n" + PLACEHOLDER_NOTE
    )
    assert tree(outside) == before
    assert os.readlink(project / "docs" / "linked") == str(outside)  # a hand-written link stays a link
    # The new manifest lists only what this build generated.
    assert not set(json.loads(manifest.read_text(encoding="utf-8"))["files"]) & set(hostile + ["linked/page.md"])
    assert leftovers(project) == []


# --------------------------------------------------------------------------- links in docs/


def test_link_above_a_generated_page_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack 2: docs/compare linking to an outside folder made the build write (and delete) there."""
    outside = make_outside(tmp_path)
    shutil.rmtree(project / "docs" / "compare")
    (project / "docs" / "compare").symlink_to(outside, target_is_directory=True)
    before, docs = tree(outside), tree(project / "docs")
    code, out, err = run(project, capsys, "build")
    assert (code, out) == (1, "")
    assert err == (
        "docs/compare:1:1: is a symbolic link, and the generator writes docs/compare/a100-sxm-80g-vs-rtx-4090-24g.md "
        "there; it never writes through links (the change would land outside docs/): replace the link with a real "
        "folder or file\n"
        "Aborted: nothing was written.\n"
    )
    assert tree(outside) == before
    assert tree(project / "docs") == docs
    assert leftovers(project) == []
    # `check` refuses the same way instead of comparing against the outside files.
    code, out, err = run(project, capsys, "check")
    assert code == 1 and err.startswith("docs/compare:1:1: is a symbolic link")


def test_link_at_a_generated_page_is_refused(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = make_outside(tmp_path)
    (project / "docs" / "ladder.md").unlink()
    (project / "docs" / "ladder.md").symlink_to(outside / "ladder.md")
    before, docs = tree(outside), tree(project / "docs")
    code, out, err = run(project, capsys, "build", "--no-site")
    assert (code, out) == (1, "")
    assert err == (
        "docs/ladder.md:1:1: is a symbolic link, and the generator writes docs/ladder.md there; it never writes "
        "through links (the change would land outside docs/): replace the link with a real folder or file\n"
        "Aborted: nothing was written.\n"
    )
    assert tree(outside) == before and tree(project / "docs") == docs and leftovers(project) == []


@pytest.mark.parametrize("name", ["docs", "site"])
def test_docs_or_site_as_a_link_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Attack 8: a linked docs/ or site/ was replaced by a real folder and its target went stale."""
    outside = make_outside(tmp_path)
    real = outside / f"real-{name}"
    if (project / name).exists():
        shutil.move(project / name, real)
    else:
        real.mkdir()
        (real / "index.html").write_text("old site\n")
    (project / name).symlink_to(real, target_is_directory=True)
    before = tree(outside)
    code, out, err = run(project, capsys, "build")
    assert (code, out) == (1, "")
    assert err == (
        f"{name}/ is a symbolic link (to {real}); the build replaces {name}/ as a whole and would leave the folder "
        "it points to stale: replace the link with a real folder\n"
        "Aborted: nothing was written.\n"
    )
    assert tree(outside) == before
    assert os.readlink(project / name) == str(real)
    assert leftovers(project) == []


# --------------------------------------------------------------------------- the swap journal


def test_planted_journal_cannot_move_outside_folders(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack 3: a journal naming an outside folder made every build rename it."""
    outside = make_outside(tmp_path)
    (outside / "target").mkdir()
    ino = (outside / "deep").stat().st_ino
    staging = project / ".docs-staging-999999999-abc"  # the right shape, but pointed elsewhere
    entries = [
        [str(outside / "deep"), str(project / "docs"), ino],  # an outside folder swapped in as docs/
        [str(staging), str(outside / "target"), ino],  # an outside folder as the target
        [str(project / "sub" / ".docs-staging-999999999-abc"), str(project / "docs"), ino],  # not in the root
        [str(project / ".docs-staging-999999999-abc" / ".." / ".." / "outside"), str(project / "docs"), ino],
        [str(project / ".site-staging-999999999-abc"), str(project / "docs"), ino],  # site staging as docs
        "not a pair",
    ]
    (project / JOURNAL).write_text(json.dumps({"pairs": entries}), encoding="utf-8")
    before, docs = tree(outside), tree(project / "docs")
    code, out, err = run(project, capsys, "build", "--no-site")
    assert (code, out) == (0, BUILT_NO_SITE)
    warnings = [
        f"gpu-guide: warning: {JOURNAL} names {json.dumps(e)}, not this project's own staging folder and docs/ or "
        "site/; ignored\n"
        for e in entries
    ]
    assert err == "".join(warnings) + PLACEHOLDER_NOTE
    assert tree(outside) == before
    assert tree(project / "docs") == docs  # nothing changed, so the same bytes
    assert leftovers(project) == []


def test_journal_that_is_not_a_journal_is_removed_without_acting(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = make_outside(tmp_path)
    (project / JOURNAL).symlink_to(outside / "victim.txt")
    before = tree(outside)
    code, _out, err = run(project, capsys, "build", "--no-site")
    assert code == 0
    assert err == (
        f"gpu-guide: warning: {JOURNAL} is not a swap journal this generator wrote; removed it without acting on "
        "it\n" + PLACEHOLDER_NOTE
    )
    assert tree(outside) == before and leftovers(project) == []


def test_journal_of_a_live_process_is_left_alone(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        staging = project / f".docs-staging-{live.pid}-abc"
        staging.mkdir()
        text = json.dumps({"pairs": [[str(staging), str(project / "docs"), staging.stat().st_ino]]})
        (project / JOURNAL).write_text(text, encoding="utf-8")
        docs = tree(project / "docs")
        code, out, err = run(project, capsys, "build", "--no-site")
        assert (code, out) == (1, "")
        assert err == (
            f"process {live.pid} is in the middle of swapping in a new docs/ and site/ (see {JOURNAL}); wait for it "
            f"to finish. If no gpu-guide process {live.pid} is running, delete {JOURNAL} and build again\n"
            "Aborted: nothing was written.\n"
        )
        assert (project / JOURNAL).read_text(encoding="utf-8") == text
        assert staging.is_dir() and tree(project / "docs") == docs
    finally:
        live.kill()
        live.wait()


# --------------------------------------------------------------------------- one writer at a time

HOLDER = """
import sys
from pathlib import Path
from generator.publish.lock import DEFAULT_WAIT, write_lock

with write_lock(Path(sys.argv[1]), DEFAULT_WAIT):
    print("held", flush=True)
    sys.stdin.readline()  # until the test releases it: no test here depends on how long anything takes
"""


def hold_lock(root: Path) -> subprocess.Popen[str]:
    """A second process holding the project's write lock until :func:`release` (or it is killed)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root)], stdin=subprocess.PIPE,
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def release(holder: subprocess.Popen[str]) -> int:
    """Let the holder finish its write; its exit status."""
    assert holder.stdin is not None
    holder.stdin.write("done\n")
    holder.stdin.close()
    return holder.wait(timeout=120)


def test_second_writer_gives_up_naming_the_holder(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack 6: two builds at once left docs/ from one data set and site/ from another."""
    monkeypatch.setenv("GPU_GUIDE_LOCK_WAIT", "0.5")
    holder = hold_lock(project)
    try:
        docs = tree(project / "docs")
        code, out, err = run(project, capsys, "build", "--no-site")
        assert (code, out) == (1, "")
        assert err == (
            f"gpu-guide: waiting up to 0.5 s for gpu-guide process {holder.pid}, which is writing docs/ and site/ …\n"
            f"gave up after waiting 0.5 s: gpu-guide process {holder.pid} is writing docs/ and site/ in {project}; "
            "try again when it has finished\n"
            "Aborted: nothing was written.\n"
        )
        assert tree(project / "docs") == docs and leftovers(project) == []
        assert holder.poll() is None  # the holder was not disturbed
    finally:
        holder.kill()
        holder.wait()


def test_second_writer_waits_for_the_first(project: Path) -> None:
    """The second build says it waits, still waits while the first holds the lock, and builds once the
    first has finished (ordered by events, not by sleeping)."""
    holder = hold_lock(project)
    try:
        build = subprocess.Popen(
            [sys.executable, "-m", "generator", "--root", str(project), "build", "--no-site"],
            cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert build.stderr is not None
        assert build.stderr.readline() == (
            f"gpu-guide: waiting up to 60 s for gpu-guide process {holder.pid}, which is writing docs/ and site/ …\n"
        )
        assert build.poll() is None and leftovers(project) == []  # waiting, and nothing written yet
        assert release(holder) == 0
        out, err = build.communicate(timeout=300)
        assert (build.returncode, out, err) == (0, BUILT_NO_SITE, PLACEHOLDER_NOTE)
    finally:
        holder.kill()
        holder.wait()


def test_bad_lock_wait_setting(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_GUIDE_LOCK_WAIT", "nan")
    assert run(project, capsys, "build", "--no-site") == (
        1,
        "",
        "GPU_GUIDE_LOCK_WAIT must be a number of seconds from 0 to 3600, got 'nan'\nAborted: nothing was written.\n",
    )


# --------------------------------------------------------------------------- permissions

#: Root ignores permission bits; the child drops that override so a read-only folder is read-only to it too.
_CAPS = "-dac_override,-dac_read_search,-fowner"
NO_OVERRIDE = ["setpriv", "--bounding-set", _CAPS, "--inh-caps", _CAPS] if os.geteuid() == 0 else []


def cli_without_override(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if NO_OVERRIDE and shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: permission bits cannot be tested")
    return subprocess.run(
        [*NO_OVERRIDE, sys.executable, "-m", "generator", "--root", str(root), *args],
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip


def test_read_only_output_folder_is_a_clear_error(project: Path) -> None:
    """Attack 8: read-only or foreign-owned folders left undeletable staging folders on every build."""
    folder = project / "docs" / "compare"
    folder.chmod(0o555)
    try:
        docs = tree(project / "docs")
        done = cli_without_override(project, "build", "--no-site")
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr == (
            f"docs/compare/ is not writable by you (owner uid {os.getuid()}, mode 0555); the build replaces docs/ as "
            "a whole and must remove the old copy: make it writable (chmod -R u+w docs) or build as its owner\n"
            "Aborted: nothing was written.\n"
        )
        assert tree(project / "docs") == docs and leftovers(project) == []
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("lock_file", ["there", "missing"])
def test_read_only_project_folder_is_a_clear_error(project: Path, lock_file: str) -> None:
    if lock_file == "missing":
        (project / ".gpu-guide.lock").unlink()
    docs = tree(project / "docs")
    project.chmod(0o555)
    try:
        done = cli_without_override(project, "build", "--no-site")
    finally:
        project.chmod(0o755)
    assert (done.returncode, done.stdout) == (1, "")
    if lock_file == "missing":
        assert done.stderr == (
            f"cannot create the lock file {project / '.gpu-guide.lock'}: Permission denied; the project folder must "
            "be writable by you\nAborted: nothing was written.\n"
        )
    else:
        assert done.stderr == (
            f"{project} is not writable by you; the build writes its staging folders there before swapping them in: "
            "make the project folder writable or build as its owner\nAborted: nothing was written.\n"
        )
    assert tree(project / "docs") == docs and leftovers(project) == []


def test_staging_folder_that_cannot_be_removed_is_reported(project: Path) -> None:
    dead = project / ".docs-staging-999999999-abc"
    (dead / "stuck").mkdir(parents=True)
    (dead / "stuck" / "file.md").write_text("x")
    (dead / "stuck").chmod(0o555)
    try:
        done = cli_without_override(project, "build", "--no-site")
        assert (done.returncode, done.stdout) == (0, BUILT_NO_SITE)
        assert done.stderr == (
            "gpu-guide: warning: could not remove the staging folder .docs-staging-999999999-abc "
            f"({dead / 'stuck' / 'file.md'}: Permission denied); delete it by hand\n" + PLACEHOLDER_NOTE
        )
    finally:
        (dead / "stuck").chmod(0o755)
    assert leftovers(project) == [dead.name]  # reported, not silently left; the build's own folders are gone


# --------------------------------------------------------------------------- CSV for spreadsheets


def test_csv_text_cells_cannot_start_a_formula() -> None:
    """Attack 8: CSV cells starting with = + - @ reached spreadsheets as formulas. OWASP's advice:
    prefix such text cells (and ones starting with tab or carriage return) with an apostrophe.
    (A carriage return cannot reach the data: validation refuses it.)"""
    frame = pd.DataFrame(
        [
            {"t": '=HYPERLINK("https://evil.example.com")', "n": -3.5, "b": True, "e": None},
            {"t": "+1", "n": 2, "b": False, "e": None},
            {"t": "-2", "n": 0, "b": True, "e": None},
            {"t": "@SUM(A1)", "n": 1, "b": True, "e": None},
            {"t": "\tx", "n": 1, "b": True, "e": None},
            {"t": "a=b", "n": 1, "b": True, "e": None},
        ]
    )
    assert _csv(frame).decode("utf-8") == (
        "t,n,b,e\n"
        '"\'=HYPERLINK(""https://evil.example.com"")",-3.5,true,\n'  # the number stays a number
        "'+1,2,false,\n"
        "'-2,0,true,\n"
        "'@SUM(A1),1,true,\n"
        "'\tx,1,true,\n"
        "a=b,1,true,\n"
    )


def test_open_data_json_stays_exact(tmp_path: Path) -> None:
    """The JSON export keeps text as it is; only the CSV is made spreadsheet-safe."""
    from conftest import replace_in

    from generator.pipeline import generate

    root = make_project(
        tmp_path, lambda data: replace_in(data / "gpus.yaml", "name: A100 80GB SXM", 'name: "=A100 80GB SXM"')
    )
    gen = generate(Project.at(root))
    gpus = {g["id"]: g for g in json.loads(gen.files["data/gpus.json"])}
    assert gpus["a100-sxm-80g"]["name"] == "=A100 80GB SXM"
    assert ",'=A100 80GB SXM," in gen.files["data/gpus.csv"].decode("utf-8")
