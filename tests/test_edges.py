"""Edges that must say one line and exit non-zero (issue 23).

On main a full disk or ``> /dev/full`` printed one huge "internal error" line (exit 3) and
``calibrate --dir /nonexistent`` printed an empty table with exit 0. (``serve --dev-addr
x..y:8000`` is in ``test_serve.py``'s malformed-address cases.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from generator.cli.main import main

ESTIMATE = ["estimate", "--workload", "qlora", "--params", "65", "--gpu-memory-gb", "48"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux /dev/full")
@pytest.mark.parametrize("json", [False, True], ids=["text", "json"])
def test_output_to_a_full_disk_is_one_line(json: bool) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "generator", "--root", str(REPO), *ESTIMATE, *(["--json"] if json else [])],
            cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=full, stderr=subprocess.PIPE, text=True,
            check=False,
        )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "gpu-guide: cannot write the output: No space left on device.\n")


def test_calibrate_a_missing_folder_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nonexistent"
    assert main(["--root", str(REPO), "calibrate", "--dir", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"gpu-guide calibrate: {missing} is not a folder of calibration cases (*.yaml)\n")


def test_calibrate_an_empty_folder_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "calibrate", "--dir", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"gpu-guide calibrate: {tmp_path} holds no calibration cases (*.yaml)\n")


def test_an_internal_error_is_one_short_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unexpected exception carrying a long, multi-line text still prints one bounded line."""
    import generator.cli.main as cli

    def boom(_args: object) -> int:
        raise ValueError("x\n" * 40_000)

    monkeypatch.setattr(cli, "_run", boom)
    assert main(["check"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 500
    assert err.startswith("gpu-guide: internal error (ValueError: x\\nx\\n")
