"""``gpu-guide diff`` and ``gpu-guide edition``: print what :mod:`generator.review` computes.

Exit status: 0 done, 1 the data at REF or in the working tree does not build (or, for
``edition``, nothing changed), 2 unknown ref, not a repository or a bad ``--title``.
"""

from __future__ import annotations

import datetime as dt
import sys

from generator.pipeline import Project
from generator.review.edition import EditionError, write_edition
from generator.review.git import DiffError
from generator.review.report import diff_report, markdown, report_json


def run_diff(project: Project, base: str, fmt: str = "markdown") -> int:
    """Print the change report between ``base`` and the working tree; return the exit status."""
    try:
        report = diff_report(project, base)
    except DiffError as exc:
        return _refused(exc, "gpu-guide diff")
    print(report_json(report) if fmt == "json" else markdown(report), end="")
    return 0


def run_edition(project: Project, base: str, date: dt.date | None, title: str | None) -> int:
    """Append this data update to editions.yaml and print the entry; return the exit status."""
    try:
        edition = write_edition(project, base, date, title)
    except DiffError as exc:
        return _refused(exc, "gpu-guide edition")
    except EditionError as exc:
        if exc.details:
            print(exc.details, file=sys.stderr)
        print(f"gpu-guide edition: {exc}", file=sys.stderr)
        return exc.status
    print(f"Appended to {edition.shown}:\n{edition.text}", end="")
    return 0


def _refused(exc: DiffError, command: str) -> int:
    """Print the details (e.g. data problems at REF) and the reason; the exit status."""
    if exc.details:
        print(exc.details, file=sys.stderr)
    print(f"{command}: {exc}", file=sys.stderr)
    return exc.status
