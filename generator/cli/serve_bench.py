"""``make bench ARGS=--serve``: how long a one-price edit takes to show in ``gpu-guide serve``.

On a temporary copy of the project it starts the real ``gpu-guide serve`` (its MkDocs child
included), waits for the first page, changes one price in ``data/offers.yaml`` and polls the
GPU page that shows it until the new price is served: the edit-to-page time an editor waits.
For scale it also times a full ``gpu-guide build`` of the same copy, and prints the ratio
(edit-to-page over full build), which moves less with the machine than either time does.
Speed is reported here, never asserted in tests.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from generator.cli.serve import free_port
from generator.data.datafiles import DataFile

REPO = Path(__file__).resolve().parents[2]

#: The edit: one monthly price of one offer (JYGPU's RTX 4090 container, data/offers.yaml),
#: and the page that shows it with its thousands separator.
OFFER = "jygpu-4090-24g-container-month"
PAGE = "gpus/rtx-4090-24g/"
OLD = 1341


def _copy(dest: Path) -> Path:
    for name in ("data", "templates", "docs"):
        shutil.copytree(REPO / name, dest / name)
    shutil.copy(REPO / "mkdocs.yml", dest / "mkdocs.yml")
    return dest


def _get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return str(r.read().decode("utf-8"))
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def _wait_for(url: str, text: str, limit: float, proc: subprocess.Popen[bytes]) -> float:
    """Seconds until ``url`` serves a page containing ``text`` (polled every 50 ms)."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        if proc.poll() is not None:
            raise RuntimeError(f"gpu-guide serve stopped (exit {proc.returncode}) before {url} showed {text!r}")
        body = _get(url)
        if body is not None and text in body:
            return time.perf_counter() - start
        time.sleep(0.05)
    raise TimeoutError(f"{url} did not show {text!r} within {limit:.0f} s")


def edit_price(root: Path, old: int, new: int) -> None:
    """Change the offer's price in place (one line of offers.yaml)."""
    path = root / DataFile.offers.path
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition(f"  - id: {OFFER}\n")
    assert sep, f"{OFFER} is not in data/offers.yaml"
    line = f"    price: {old}\n"
    assert line in rest.split("  - id: ", 1)[0], f"{OFFER} no longer costs {old}"
    path.write_text(head + sep + rest.replace(line, f"    price: {new}\n", 1), encoding="utf-8")


@contextlib.contextmanager
def serving(root: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    cmd = [sys.executable, "-m", "generator", "--root", str(root), "serve", "--dev-addr", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def measure(runs: int = 2) -> tuple[list[float], float]:
    """(edit-to-page seconds of each edit, seconds of one full ``gpu-guide build``)."""
    with tempfile.TemporaryDirectory(prefix="gpu-guide-serve-bench-") as tmp:
        root = _copy(Path(tmp))
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "generator", "--root", str(root), "build"],
            cwd=root,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "CI")},
        )
        full = time.perf_counter() - start
        port = free_port()
        url = f"http://127.0.0.1:{port}/{PAGE}"
        times = []
        with serving(root, port) as proc:
            _wait_for(url, f"¥{OLD:,}", 600, proc)
            price = OLD
            for _ in range(runs):
                time.sleep(2.0)  # let the preview settle after its last rebuild
                edit_price(root, price, price + 6)
                price += 6
                times.append(_wait_for(url, f"¥{price:,}", 600, proc))
        return times, full


def report(runs: int = 2) -> list[str]:
    times, full = measure(runs)
    best = min(times)
    return [
        f"one-price edit to page in `serve`: {', '.join(f'{t:.2f}' for t in times)} s "
        f"(full `gpu-guide build` {full:.2f} s; edit-to-page / full build = {best / full:.2f})"
    ]
