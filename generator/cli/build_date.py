"""The build date: the one date every price is judged against, resolved at the command line.

``SOURCE_DATE_EPOCH`` (the reproducible-builds convention) when set, else the commit date of
the data folder in git (so a pull request is judged against its own commit, never the day the
check happens to run), else None: the newest price's date (a folder outside git). Nothing below
the command line reads the environment or the clock; the date travels in
:attr:`generator.pipeline.Project.build_date`.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


class BuildDateError(Exception):
    """A SOURCE_DATE_EPOCH that is not a date (one line, exit 2)."""


@dataclass(frozen=True)
class BuildDate:
    """The resolved date and where it came from (for messages)."""

    date: dt.date | None
    origin: str  # 'SOURCE_DATE_EPOCH', 'commit date of data/', or 'newest price'


def resolve_build_date(data_dir: Path, environ: Mapping[str, str] | None = None) -> BuildDate:
    """The build date for the data in ``data_dir`` (see the module docstring)."""
    env = os.environ if environ is None else environ
    value = env.get("SOURCE_DATE_EPOCH", "").strip()
    if value:
        return BuildDate(epoch_date(value), "SOURCE_DATE_EPOCH")
    committed = commit_date(data_dir)
    if committed is not None:
        return BuildDate(committed, f"commit date of {data_dir.name}/")
    return BuildDate(None, "newest price")


def epoch_date(value: str) -> dt.date:
    """The UTC date of a Unix time in seconds; BuildDateError for anything else."""
    if not value.isdigit() or len(value) > 12:
        raise BuildDateError(f"SOURCE_DATE_EPOCH must be whole seconds since 1970 (e.g. 1764547200), got {value!r}")
    return dt.datetime.fromtimestamp(int(value), tz=dt.UTC).date()


def commit_date(data_dir: Path) -> dt.date | None:
    """The UTC date of the last commit that touched ``data_dir``; None outside git or before any commit."""
    if not data_dir.is_dir():
        return None
    try:
        got = subprocess.run(
            ["git", "-C", str(data_dir), "log", "-1", "--format=%ct", "--", "."],
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = got.stdout.decode(errors="replace").strip()
    if got.returncode != 0 or not text.isdigit():
        return None
    return dt.datetime.fromtimestamp(int(text), tz=dt.UTC).date()
