"""``gpu-guide serve``: its MkDocs child never outlives it, and a busy port is an error.

Issue 10: SIGTERM to ``serve`` orphaned its MkDocs child, which kept the port, and the
next ``serve`` printed a traceback and exited 0. These tests run ``serve`` as a real
process on a free port, wait until the preview answers, stop it the way a terminal or
a service manager would, and check that the child is gone and the port free again.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import REPO

from generator.cli.main import main
from generator.cli.serve import _CHILD_SIGNALS, free_port


def answers(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(c) for c in path.read_text().split()] if path.exists() else []


def gone(pid: int) -> bool:
    """True once ``pid`` has exited (and was reaped, or is a zombie of a dead parent)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return True
    return fields[0] == "Z"


def start_serve(root: Path, port: int, temp: Path) -> subprocess.Popen[str]:
    """``gpu-guide serve`` on ``root`` in a child process, with ``temp`` as its system temp folder
    (where MkDocs puts its build folder), output captured."""
    return subprocess.Popen(
        [sys.executable, "-m", "generator", "--root", str(root), "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(temp)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def wait_for(check, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.2)
    return bool(check())


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc to find the MkDocs child")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=lambda s: s.name)
def test_stopping_serve_stops_its_mkdocs_child(mini: Path, tmp_path: Path, sig: signal.Signals) -> None:
    """...and the child removes MkDocs' temporary build folder (``mkdocs_*``, 15 MB for the real
    site) as plain ``mkdocs serve`` does on Ctrl-C (issue 23: it was left behind every time)."""
    port = free_port()
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = start_serve(mini, port, temp)
    try:
        assert wait_for(lambda: answers(port), 120), "the preview never answered"
        [child] = children(proc.pid)
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=60)
        if sig is signal.SIGKILL:
            # serve had no say: Linux sends its child SIGTERM (PR_SET_PDEATHSIG) all the same.
            assert proc.returncode == -signal.SIGKILL
        else:
            assert proc.returncode == 0, err
            assert err.endswith("gpu-guide serve: stopped\n"), err
            assert "Traceback" not in err
        assert wait_for(lambda: gone(child), 30), "the MkDocs child outlived serve"
        assert wait_for(lambda: not answers(port), 30), "the port is still taken"
        assert sorted(p.name for p in temp.glob("mkdocs_*")) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in children(proc.pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_the_child_shuts_down_once_however_many_sigterms_come() -> None:
    """A killed ``serve`` can send its child SIGTERM twice (Linux sends the parent-death signal
    each time the child passes to another of the dying process's threads). The second one must
    not interrupt the shutdown the first began: it did, mid ``rmtree``, and MkDocs' temporary
    folder was left half removed (CI, stop 30). This runs the child's signal lines for real."""
    code = _CHILD_SIGNALS + textwrap.dedent("""
        import time
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(10)
            print("no interrupt")
        except KeyboardInterrupt:
            os.kill(os.getpid(), signal.SIGTERM)  # the second, while the shutdown runs
            time.sleep(0.2)
            print("shut down once")
    """)
    env = dict(os.environ, GPU_GUIDE_SERVE_PID=str(os.getpid()))
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=30
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "shut down once\n", "")


def test_busy_port_is_an_error(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs_before = sorted(p.relative_to(mini).as_posix() for p in (mini / "docs").rglob("*"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["--root", str(mini), "serve", "--dev-addr", f"127.0.0.1:{port}"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err == (
        f"gpu-guide serve: cannot listen on 127.0.0.1:{port}: Address already in use. Is another preview still "
        "running? Stop it, or pass --dev-addr with another port.\n"
    )
    # Refused before anything was written.
    assert sorted(p.relative_to(mini).as_posix() for p in (mini / "docs").rglob("*")) == docs_before


@pytest.mark.parametrize("addr", ["8000", "localhost:", ":8000", "127.0.0.1:99999", "127.0.0.1:http", "x..y:8000"])
def test_malformed_address_is_a_usage_error(mini: Path, capsys: pytest.CaptureFixture[str], addr: str) -> None:
    assert main(["--root", str(mini), "serve", "--dev-addr", addr]) == 2
    assert capsys.readouterr().err == (
        f"gpu-guide serve: --dev-addr must be HOST:PORT, e.g. 127.0.0.1:8000; got {addr!r}\n"
    )


def _fetch(port: int, path: str) -> str:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=5) as r:
            return str(r.read().decode("utf-8"))
    except OSError:
        return ""


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc to find the MkDocs child")
def test_a_price_edit_rebuilds_only_the_pages_it_changes(mini: Path, tmp_path: Path) -> None:
    """Issue 21: a one-price edit regenerated every file and MkDocs rebuilt every page. Now docs/
    files whose bytes did not change keep their modification time, MkDocs (``--dirty``) rebuilds
    only the pages newer than their built copy, and the rebuilt pages still name every page in
    the navigation (a dirty build reads only the changed pages; the nav titles come from the
    plugin). The edited price (fixture A100 8-card server, 48,000 → 48,600 a month) must show."""
    port = free_port()
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = start_serve(mini, port, temp)
    try:
        page = "gpus/a100-sxm-80g/"
        assert wait_for(lambda: "48,000" in _fetch(port, page), 120), "the preview never showed the A100 page"
        [site] = temp.glob("mkdocs_*")
        docs = mini / "docs"
        before = {p: p.stat().st_mtime_ns for p in docs.rglob("*") if p.is_file()}
        about = site / "about" / "index.html"  # hand-written, no price: never rebuilt by a price edit
        about_built = about.stat().st_mtime_ns
        time.sleep(0.05)  # a coarse file-system clock still sees the rewrite as newer
        offers = mini / "data" / "offers.yaml"
        offers.write_text(offers.read_text(encoding="utf-8").replace("price: 48000\n", "price: 48600\n", 1), "utf-8")
        assert wait_for(lambda: "48,600" in _fetch(port, page), 120), "the edit never showed"
        after = {p: p.stat().st_mtime_ns for p in docs.rglob("*") if p.is_file()}
        rewritten = {p.relative_to(docs).as_posix() for p in after if after[p] != before.get(p)}
        assert "gpus/a100-sxm-80g.md" in rewritten
        # only files whose bytes differ are written: at least one generated page is untouched
        untouched = [p for p in after if p.suffix == ".md" and p.relative_to(docs).as_posix() not in rewritten]
        assert untouched and "about.md" not in rewritten, sorted(rewritten)
        assert len(rewritten) < len(after) / 2, sorted(rewritten)
        assert about.stat().st_mtime_ns == about_built, "MkDocs rebuilt a page the edit did not change"
        rebuilt = _fetch(port, page)
        assert ">None<" not in rebuilt.replace(" ", "").replace("\n", "")
        # the fixture's scenario pages, listed in the nav by pattern (their titles, tests/golden/mini)
        for title in ("2 个典型场景的选型方案", "13B 全参微调", "7B 推理"):
            assert title in rebuilt, title
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for pid in children(proc.pid):
            os.kill(pid, signal.SIGKILL)
