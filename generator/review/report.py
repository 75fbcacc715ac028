"""The change report between REF's data and the working tree (``gpu-guide diff --base REF``,
printed by :mod:`generator.cli.review`).

Both editions are generated in memory by this generator with the working tree's
templates and config; from REF only the data files are read, as data
(:mod:`generator.review.git`). The Markdown comes from ``report.md.j2`` beside this
module (the generator's own template, never a branch's). A :class:`DiffError` carries the exit
status: 1 data at REF or in the working tree does not build, 2 unknown ref or not a repository.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox

from generator.data.problems import DataError, Severity, render
from generator.formats import cny
from generator.pipeline import Generated, Project, generate
from generator.review.compare import Pick, Report, compare
from generator.review.git import DiffError, data_at_ref, resolve_ref

NO_CHANGE = "This data change alters no generated output."


def report_json(report: Report) -> str:
    """The typed report as JSON (``gpu-guide diff --format json``): sorted keys, no NaN."""
    return json.dumps(report.to_json(), ensure_ascii=False, indent=2, sort_keys=True, allow_nan=False) + "\n"


def diff_report(project: Project, base: str) -> Report:
    """The typed report. Raises :class:`DiffError`."""
    commit = resolve_ref(project.root, base)
    new = _generate(project, "in the working tree")
    with tempfile.TemporaryDirectory(prefix="gpu-guide-diff-") as tmp:
        old = _generate(data_at_ref(project, commit, base, Path(tmp)), f"at {base}", prefix=f"{base}:")
    return compare(old, new, base=base, commit=commit)


def _generate(project: Project, where: str, prefix: str = "") -> Generated:
    """Generate one edition; its problems (file names prefixed with ``REF:``) become a DiffError."""
    try:
        return generate(project)
    except DataError as exc:
        problems = [dataclasses.replace(p, file=prefix + p.file) for p in exc.problems]
        n = sum(1 for p in problems if p.severity is Severity.error)
        raise DiffError(
            f"the data {where} has {n} problem(s) for this generator; nothing to compare.", 1, render(problems)
        ) from None


# --------------------------------------------------------------------------- Markdown


#: Characters that mean nothing to GitHub Markdown in the middle of a line: letters and digits
#: (``_`` only inside a word, where it emphasises nothing), spaces and the punctuation prices
#: and names use. Text made only of these is
#: written as it is; anything else goes into a code span (below).
_PLAIN = re.compile(r"(?:[^\W_]|(?<=[^\W_])_(?=[^\W_])|[ .,%+\-/·×¥$–—()（），。：；、《》])*")


def code_span(value: Any, *, in_table: bool = False) -> str:
    """``value`` as one GitHub Markdown code span, whatever it holds.

    Inside a code span GitHub renders no link, image, autolink, HTML (``<details open>``),
    emphasis, emoji, math or ``@org/team`` mention: the text shows as typed. The fence is one
    backtick longer than the longest run inside, line breaks fold to spaces (a table row or
    list item stays one line), and in a table cell ``|`` is escaped, which GitHub requires
    even inside code.
    """
    text = " ".join(str(value).split()) or "—"
    if in_table:
        text = text.replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    pad = " " if longest else ""
    fence = "`" * (longest + 1)
    return f"{fence}{pad}{text}{pad}{fence}"


def _text(value: Any, *, in_table: bool = False) -> str:
    """A data value (a GPU's name, a quoted price, a spec figure) in the report: numbers and
    plain words as they are, any other text in a code span (:func:`code_span`)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_text(v, in_table=in_table) for v in value) if value else "—"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if text and _PLAIN.fullmatch(text) and "www." not in text.lower():
        return text
    return code_span(text, in_table=in_table)


def _code(text: Any) -> str:
    return code_span(text)


def _cell(value: Any) -> str:
    """A data value in a table cell: one line, never markup (see :func:`_text`)."""
    return _text(value, in_table=True)


def _pick_text(p: Pick) -> str:
    if p.gpu is None:
        return "no GPU qualifies"
    text = f"{_code(p.gpu)} × {p.cards}, {p.delivery}, {cny(p.monthly_cny)}/month"
    return text + (f", job {cny(p.job_cost_cny)}" if p.job_cost_cny is not None else "")


def _environment() -> jinja2.Environment:
    env = jinja2.sandbox.SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).parent)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        code=_code,
        code_or_none=lambda v: _code(v) if v else "none",
        cell=_cell,
        text=_text,
        yuan=cny,
        cards=lambda n: "does not fit" if n is None else str(n),
        names=lambda items: ", ".join(_code(i) for i in items) if items else "none",
        pick_text=_pick_text,
    )
    env.globals["arrow"] = lambda a, b: a if a == b else f"{a} → {b}"
    return env


def markdown(report: Report) -> str:
    """The report as Markdown for a pull-request comment."""
    text = _environment().get_template("report.md.j2").render(r=report)
    return text.rstrip("\n") + "\n"
