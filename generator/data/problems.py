"""Problems found in the data, and how they are printed.

Every stage reports into a list of :class:`Problem` instead of raising, so one run
shows an editor everything that is wrong at once (the mkdocs ``build()`` habit),
with the ``file:line:col: yaml.path: message`` shape of griffe's diagnostics.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

#: A location inside a YAML document: mapping keys and list indices from the root.
YamlPath = tuple[str | int, ...]


class Severity(StrEnum):
    """error: stops the build. warning: probably wrong; fails ``check --strict``.
    notice: designed behaviour worth seeing (an editor's pick the rules disagree with)."""

    error = "error"
    warning = "warning"
    notice = "notice"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing an editor must fix (error) or should look at (warning)."""

    file: str
    line: int
    col: int
    path: str
    message: str
    severity: Severity = Severity.error

    def format(self) -> str:
        """``data/offers.yaml:42:9: offers[7].price_cny: message``; warnings and notices say so.

        Always one line: a line break or other control character in a YAML key or value is
        written as its escape (``\\n``), so nothing from the data starts a line of its own
        (GitHub Actions runs a line starting ``::`` as a workflow command)."""
        prefix = "" if self.severity is Severity.error else f"{self.severity.value}: "
        where = one_line(f"{self.file}:{self.line}:{self.col}")
        path, message = one_line(self.path), one_line(self.message)
        return f"{where}: {path}: {prefix}{message}" if path else f"{where}: {prefix}{message}"

    def github_annotation(self) -> str:
        """The same problem as a GitHub Actions workflow command, shown inline in a PR."""
        kind = self.severity.value
        text = f"{self.path}: {self.message}" if self.path else self.message
        # Workflow commands end at a newline and treat % specially; escape both.
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return f"::{kind} file={self.file},line={self.line},col={self.col}::{text}"


def one_line(text: str) -> str:
    """``text`` with every control, line or paragraph separator and direction control written
    as its Python escape (``"a\\nb"``), so it prints as exactly one line that reads the same."""
    if text.isprintable():
        return text
    return "".join(
        ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in _UNPRINTED else ch for ch in text
    )


#: Unicode categories written as escapes: controls, format characters (direction controls,
#: zero-width ones), line and paragraph separators, surrogates, private use, unassigned.
_UNPRINTED = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def format_path(path: YamlPath) -> str:
    """Render ``("offers", 7, "price")`` as ``offers[7].price``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def errors(problems: Iterable[Problem]) -> list[Problem]:
    """Only the problems that stop a build."""
    return [p for p in problems if p.severity is Severity.error]


class OutputFormat(StrEnum):
    """How problems are printed, chosen on the command line (``gpu-guide check --format``), as
    griffe's ``--format``: never guessed from the environment, so a test run under GitHub Actions
    prints what it prints anywhere else.

    plain: one ``file:line:col: path: message`` line each. github: the same lines, then each
    problem again as a workflow command GitHub shows inline on the pull request."""

    plain = "plain"
    github = "github"


def render(problems: Sequence[Problem], fmt: OutputFormat = OutputFormat.plain) -> str:
    """All problems, sorted by place, one a line; with ``fmt=github`` also as GitHub annotations."""
    ordered = sorted(set(problems), key=lambda p: (p.file, p.line, p.col, p.path, p.message))
    lines = [p.format() for p in ordered]
    if fmt is OutputFormat.github:
        lines += [p.github_annotation() for p in ordered]
    return "\n".join(lines)


class DataError(Exception):
    """Raised at a stage boundary when problems stop the build; carries all of them."""

    def __init__(self, problems: Sequence[Problem]):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = list(problems)
